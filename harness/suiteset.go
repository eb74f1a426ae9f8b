package harness

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"maps"
	"os"
	"slices"

	"github.com/routebench/routebench/internal/spool"
	"github.com/routebench/routebench/router/registry"
)

// CaseSource is a run's cases in load order. Keys walks what planning
// needs of each case (its id and hash) without the cases; Each hands out
// the cases themselves, one after another.
type CaseSource interface {
	Len() int
	// Keys calls fn with every case's id and hash in order, i counting
	// from 0, and stops at fn's first error, which it returns.
	Keys(fn func(i int, id, hash string) error) error
	// Each calls fn with every case in order, i counting from 0, and
	// stops at fn's first error, which it returns. A case is not changed
	// after, so fn may keep it.
	Each(fn func(i int, c *Case) error) error
}

// CaseList is cases in memory as a CaseSource.
type CaseList []Case

// Len implements CaseSource.
func (l CaseList) Len() int { return len(l) }

// Keys implements CaseSource.
func (l CaseList) Keys(fn func(int, string, string) error) error {
	for i := range l {
		if err := fn(i, l[i].ID, l[i].Hash); err != nil {
			return err
		}
	}
	return nil
}

// Each implements CaseSource.
func (l CaseList) Each(fn func(int, *Case) error) error {
	for i := range l {
		if err := fn(i, &l[i]); err != nil {
			return err
		}
	}
	return nil
}

// heldSuiteBytes is how many bytes of suite files OpenSuites loads once
// and holds. A loaded case takes about three times its YAML, so a large
// suite set held whole was most of a large run's memory.
var heldSuiteBytes int64 = 16 << 20

// OpenSuites checks suite files exactly as LoadSuites does (the same
// cases, the same problems in the same *registry.LoadError) and returns
// their cases as a CaseSource. Up to heldSuiteBytes of files are loaded
// once and held (a CaseList). A larger set is a *SuiteSet, which keeps
// each case's id and hash aside (in a temporary file once they are many)
// and parses the files again, one case at a time, each time its cases are
// walked: a run of a million cases holds the ones being routed, not a
// million.
func OpenSuites(paths []string, regs ...*registry.Registry) (CaseSource, error) {
	files, err := suiteFiles(paths)
	if err != nil {
		return nil, err
	}
	known := newSkillIndex(regs)
	if suiteBytes(files) <= heldSuiteBytes {
		cases, err := loadSuiteFiles(files, known)
		if err != nil {
			return nil, err
		}
		return CaseList(cases), nil
	}
	return openSuiteSet(files, known)
}

// suiteBytes is the files' total size; a file that cannot be read counts
// 0 (loading reports it).
func suiteBytes(files []string) int64 {
	var n int64
	for _, f := range files {
		if st, err := os.Stat(f); err == nil {
			n += st.Size()
		}
	}
	return n
}

// SuiteSet is a large suite set, checked, whose cases are parsed from the
// files each time they are walked (see OpenSuites). Each case's id and
// hash are kept aside in order; a walk that finds a case other than the
// one checked at its place (a file edited since) fails rather than run
// something unchecked.
type SuiteSet struct {
	files []string
	known skillIndex
	// whole are the files whose items did not all parse on their own:
	// every walk parses them whole from the start.
	whole map[string]bool
	n     int
	// keys holds each case's id (its length, then its bytes) and its hash
	// (32 bytes).
	keys *spool.Spool
}

const hashBytes = 32

// keysInMemory is how many bytes of ids and hashes stay in memory before
// they go to a temporary file (about 20,000 cases).
var keysInMemory = 1 << 20

func openSuiteSet(files []string, known skillIndex) (*SuiteSet, error) {
	s := &SuiteSet{files: files, known: known, keys: spool.New("case-keys", keysInMemory)}
	// A hash of each id (8 bytes a case) finds duplicates without a map
	// of every id and where it was.
	var idHashes []uint64
	seed := maphash.MakeSeed()
	var rec []byte
	l := &suiteLoader{known: known, noIntern: true}
	l.emit = func(c *Case) {
		rec = binary.AppendUvarint(rec[:0], uint64(len(c.ID)))
		rec = append(rec, c.ID...)
		var err error
		if rec, err = hex.AppendDecode(rec, []byte(c.Hash)); err != nil || len(c.Hash) != 2*hashBytes {
			panic(fmt.Sprintf("case %s: hash %q is not sha256 hex", c.ID, c.Hash)) // caseHash makes every one
		}
		s.keys.Write(rec) // a failed write fails the Reader below
		idHashes = append(idHashes, maphash.String(seed, c.ID))
	}
	l.retract = func(n int) {
		idHashes = idHashes[:n]
		s.keys.Truncate(s.keysUpTo(n))
	}
	// No file read ahead: a large set is many large files, and the next
	// one's bytes would wait in memory beside the current one's.
	err := l.load(files, 0)
	s.whole, s.n = l.whole, len(idHashes)
	if _, kerr := s.keys.Reader(); kerr != nil {
		return nil, kerr
	}
	// A load with a problem or a duplicate id (or two ids with one hash,
	// which a second look tells apart) is done again as LoadSuites does
	// it, for the same problems in the same words.
	slices.Sort(idHashes)
	dup := false
	for k := 1; k < len(idHashes) && !dup; k++ {
		dup = idHashes[k] == idHashes[k-1]
	}
	idHashes = nil
	if err != nil || dup {
		if exact := checkSuitesExactly(files, known); exact != nil || err != nil {
			s.keys.Close()
			return nil, cmp.Or(exact, err)
		}
	}
	return s, nil
}

// keysUpTo is the length of the keys of the first n cases (read off the
// keys: only a file loaded again whole after some of its cases needs it).
func (s *SuiteSet) keysUpTo(n int) int64 {
	r, err := s.keys.Reader()
	if err != nil {
		return 0
	}
	kr := newKeyReader(r)
	for range n {
		if _, _, err := kr.next(); err != nil {
			return 0
		}
	}
	return kr.off
}

// checkSuitesExactly is LoadSuites's check without keeping the cases: the
// problems, or nil when there are none.
func checkSuitesExactly(files []string, known skillIndex) error {
	l := &suiteLoader{known: known, ids: map[string]registry.Pos{}, noIntern: true}
	l.emit = func(*Case) {}
	l.retract = func(int) {}
	return l.load(files, 1)
}

// keyReader reads the kept ids and hashes in order.
type keyReader struct {
	r   *bufio.Reader
	off int64 // bytes read
	buf []byte
}

func newKeyReader(r io.Reader) *keyReader { return &keyReader{r: bufio.NewReaderSize(r, 1<<16)} }

// next is the next case's id and hash (32 bytes, valid until the next call).
func (k *keyReader) next() (id string, hash []byte, err error) {
	n, err := binary.ReadUvarint(k.r)
	if err != nil {
		return "", nil, fmt.Errorf("read case ids back: %w", err)
	}
	k.buf = slices.Grow(k.buf[:0], int(n)+hashBytes)[:int(n)+hashBytes]
	if _, err := io.ReadFull(k.r, k.buf); err != nil {
		return "", nil, fmt.Errorf("read case ids back: %w", err)
	}
	k.off += int64(binary.PutUvarint(make([]byte, binary.MaxVarintLen64), n)) + int64(len(k.buf))
	return string(k.buf[:n]), k.buf[n:], nil
}

// Len implements CaseSource.
func (s *SuiteSet) Len() int { return s.n }

// Keys implements CaseSource.
func (s *SuiteSet) Keys(fn func(int, string, string) error) error {
	r, err := s.keys.Reader()
	if err != nil {
		return err
	}
	kr := newKeyReader(r)
	for i := range s.n {
		id, hash, err := kr.next()
		if err != nil {
			return err
		}
		if err := fn(i, id, hex.EncodeToString(hash)); err != nil {
			return err
		}
	}
	return nil
}

// errStopWalk ends a walk early without an error of its own.
var errStopWalk = errors.New("stop")

// Each implements CaseSource: it parses the files again (none read ahead,
// so memory holds one file's bytes and the cases fn keeps), checking each
// case against the id and hash it had when the set was opened.
func (s *SuiteSet) Each(fn func(int, *Case) error) error {
	r, err := s.keys.Reader()
	if err != nil {
		return err
	}
	kr := newKeyReader(r)
	i := 0
	l := &suiteLoader{known: s.known, noIntern: true, whole: maps.Clone(s.whole)}
	l.emit = func(c *Case) {
		if i >= s.n {
			err = s.changed(c.Pos.File, i, "")
		} else if id, hash, kerr := kr.next(); kerr != nil {
			err = kerr
		} else if c.ID != id || c.Hash != hex.EncodeToString(hash) {
			err = s.changed(c.Pos.File, i, id)
		} else {
			err = fn(i, c)
			i++
		}
		l.stop = err != nil
	}
	loadErr := l.load(s.files, 0)
	switch {
	case err != nil:
		return err
	case loadErr != nil:
		return fmt.Errorf("suite files changed while the run read them; run again: %w", loadErr)
	case i != s.n:
		return s.changed("", i, "")
	}
	return nil
}

// changed is the error of a walk that found, at case i, something other
// than case id as checked ("" when there were fewer cases).
func (s *SuiteSet) changed(file string, i int, id string) error {
	where := "the suite files"
	if file != "" {
		where = file
	}
	if i >= s.n {
		return fmt.Errorf("%s changed while the run read them: there are more cases than the %d checked; run again", where, s.n)
	}
	if id == "" {
		return fmt.Errorf("%s changed while the run read them: there are fewer cases than the %d checked; run again", where, s.n)
	}
	return fmt.Errorf("%s changed while the run read them: case %d is no longer %q as checked; run again", where, i+1, id)
}
