package router_test

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/routebench/routebench/router"
)

// BenchmarkRecall is the recall stage alone (request embedding and the
// scan of every skill's document vectors) on the v2 demo registry with the builtin embedder: the
// share of BenchmarkRoute's 200 µs budget that recall takes.
func BenchmarkRecall(b *testing.B) {
	r := builtinV2Router(b)
	ctx := context.Background()
	b.ReportAllocs()
	cpu0 := cpuTime()
	for i := 0; b.Loop(); i++ {
		if _, err := router.RecallForTest(ctx, r, benchTexts[i%len(benchTexts)], suiteScopes); err != nil {
			b.Fatal(err)
		}
	}
	// CPU time is what a shared machine does not inflate the way it
	// inflates ns/op.
	b.ReportMetric(float64(cpuTime()-cpu0)/1e3/float64(b.N), "cpu-µs/op")
}

// cpuTime is the process's user+system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
