package stats_test

import (
	"testing"

	"github.com/routebench/routebench/harness/stats"
)

// BenchmarkBootstrap300 is one metric of a 300-case group at the defaults:
// a comparison runs this once per metric per group.
func BenchmarkBootstrap300(b *testing.B) {
	pairs := build([3]int{200, 2, 2}, [3]int{50, 1, 1}, [3]int{20, 2, 1}, [3]int{30, 1, 2})
	bs := stats.NewBootstrap(stats.DefaultThresholds)
	for b.Loop() {
		bs.Interval(pairs)
	}
}

// BenchmarkBootstrap10000 is one metric over a whole 10,000-case run, with
// cases the metric counts under one version only (as judge_accuracy's).
func BenchmarkBootstrap10000(b *testing.B) {
	pairs := build([3]int{6000, 2, 2}, [3]int{1500, 1, 1}, [3]int{400, 2, 1}, [3]int{600, 1, 2},
		[3]int{300, 0, 2}, [3]int{200, 2, 0}, [3]int{1000, 0, 0})
	bs := stats.NewBootstrap(stats.DefaultThresholds)
	for b.Loop() {
		bs.Interval(pairs)
	}
}
