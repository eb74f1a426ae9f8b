//go:build !unix

package target_test

import "time"

// cpuTime is not measured here; the benchmark's cpu-us/case reads 0.
func cpuTime() time.Duration { return 0 }
