//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package outdir

import "os"

// tryLock cannot lock where package syscall has no flock(2) (Windows,
// Solaris): the directory goes unguarded there rather than unusable.
func tryLock(*os.File) (bool, error) { return true, nil }

func isEINVAL(error) bool { return false }
