// Package outdir guards an output directory: one routebench process writes
// it at a time (Lock), and every file in it is replaced whole (WriteFile),
// so a reader or a killed process never leaves half a report behind.
package outdir

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// LockFile is the name of the lock inside an output directory. It stays
// behind after a run: it is the flock on it that counts, and the kernel
// drops that when its holder exits, however it exits.
const LockFile = ".routebench.lock"

// BusyError says another live process holds the directory.
type BusyError struct {
	Dir string
	// Pid is the holder's pid as it wrote it into the lock file; 0 when
	// the file did not say (the holder is between taking the lock and
	// writing its pid).
	Pid int
}

func (e *BusyError) Error() string {
	who := "another routebench process"
	if e.Pid > 0 {
		who = "routebench pid " + strconv.Itoa(e.Pid)
	}
	return fmt.Sprintf("%s is in use by %s; wait for it or use another --out", e.Dir+string(filepath.Separator), who)
}

// UnusableError says the directory cannot be created or written: a wrong
// --out (a file, a dangling symlink, a folder of another user), not a
// failure of the run.
type UnusableError struct {
	Dir string
	Err error
}

func (e *UnusableError) Error() string {
	return fmt.Sprintf("output folder %s cannot be used: %v; give --out a folder this user can create and write", e.Dir, e.Err)
}

func (e *UnusableError) Unwrap() error { return e.Err }

// unusable explains why dir could not be made or opened, naming what is
// in the way where the system's own words are unclear ("file exists" for
// a symlink to nothing).
func unusable(dir string, err error) error {
	if info, lerr := os.Lstat(dir); lerr == nil {
		switch {
		case info.Mode()&os.ModeSymlink != 0:
			if target, rerr := os.Readlink(dir); rerr == nil {
				if _, serr := os.Stat(dir); serr != nil {
					err = fmt.Errorf("it is a symlink to %s, which does not exist", target)
				}
			}
		case !info.IsDir():
			err = errors.New("it is a file, not a folder")
		}
	}
	return &UnusableError{Dir: filepath.Clean(dir), Err: err}
}

// Lock is a held output directory.
type Lock struct {
	f *os.File
}

// Acquire creates dir if needed and takes its lock without waiting: a run
// that waited silently behind another would look hung. It fails with a
// *BusyError naming the holder's pid when another process holds it, and
// with an *UnusableError when dir cannot be created or written. A
// lock file left by a process that is gone does not block, since the lock
// is flock(2) on the file, not the file's existence.
func Acquire(dir string) (*Lock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, unusable(dir, err)
	}
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, unusable(dir, err)
	}
	held, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if !held {
		pid := readPid(f)
		f.Close()
		return nil, &BusyError{Dir: filepath.Clean(dir), Pid: pid}
	}
	// The pid is only for the message a second process prints; the lock
	// itself is the flock.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &Lock{f: f}, nil
}

// Release clears the pid and drops the lock. It is safe to call twice.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	_ = l.f.Truncate(0)
	err := l.f.Close() // closing the last descriptor drops the flock
	l.f = nil
	return err
}

func readPid(f *os.File) int {
	b := make([]byte, 32)
	n, _ := f.ReadAt(b, 0)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b[:n])))
	if err != nil {
		return 0
	}
	return pid
}

// WriteFile replaces path with what write produces: it writes a temporary
// file in the same directory, syncs it and renames it over path, then
// syncs the directory. A reader sees the old file or the new one, never a
// truncated one, and after a crash the new name never points at data that
// was not on disk yet.
func WriteFile(path string, write func(io.Writer) error) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	// After a successful rename the temporary name is gone and this is a
	// no-op; on any failure it keeps the directory clean.
	defer os.Remove(tmp.Name())
	fail := func(err error) error {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	// CreateTemp makes 0600 files; outputs are meant to be shared.
	if err := tmp.Chmod(0o644); err != nil {
		return fail(err)
	}
	bw := bufio.NewWriterSize(tmp, 1<<16)
	if err := write(bw); err != nil {
		return fail(err)
	}
	if err := bw.Flush(); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return SyncDir(dir)
}

// SyncDir makes a rename or a new file in dir durable. File systems that
// cannot sync a directory (some network ones) say EINVAL; that is no
// reason to fail a run.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) && !isEINVAL(err) {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}
