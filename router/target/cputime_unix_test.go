//go:build unix

package target_test

import (
	"syscall"
	"time"
)

// cpuTime is the process's user+system CPU time so far: on a shared
// machine it says what a benchmark cost when wall time says how busy the
// neighbours were.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
