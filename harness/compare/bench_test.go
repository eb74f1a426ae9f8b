package compare_test

import (
	"testing"

	"github.com/routebench/routebench/harness/compare"
	"github.com/routebench/routebench/harness/stats"
)

// BenchmarkPaired240 compares two 240-case runs in three suites: the
// size of the ops demo, every rate metric with its bootstrap.
func BenchmarkPaired240(b *testing.B) {
	good := with(with(ok(da, rak), wer, false), clar, false)
	bad := with(with(with(ok(rak), wer, true), clar, false), da, false)
	base, head := newRun("v1@1"), newRun("v2@2")
	for _, suite := range []struct {
		name string
		n    int
	}{{"normal", 120}, {"boundary", 72}, {"adversarial", 48}} {
		base.add(suite.name+"-ok", suite.name, suite.n-10, true, good)
		head.add(suite.name+"-ok", suite.name, suite.n-10, true, good)
		base.add(suite.name+"-fix", suite.name, 10, false, bad)
		head.add(suite.name+"-fix", suite.name, 10, true, good)
	}
	ind := indicators(base, head)
	for b.Loop() {
		compare.PairedWith(base.results, head.results, stats.DefaultThresholds, ind)
	}
}
