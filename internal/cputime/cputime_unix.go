//go:build unix

// Package cputime reads the process's CPU time, for benchmarks: on a
// shared machine it says what a piece of work cost when wall time says how
// busy the neighbours were.
package cputime

import (
	"syscall"
	"time"
)

// Process is the process's user and system CPU time so far, every thread
// (GC workers included); 0 when the system cannot say.
func Process() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
