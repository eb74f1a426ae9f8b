package compare_test

import (
	"testing"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/harness/compare"
	"github.com/routebench/routebench/harness/stats"
	"github.com/routebench/routebench/internal/cputime"
	"github.com/routebench/routebench/internal/realrun"
)

// BenchmarkSeriesRealRun is the paired comparison's share of a run's
// scoring pass on a real run's results.jsonl (read into memory first):
// collect adds every result to a SeriesCollector, as `run` does while
// routing; series pairs the versions from what was collected; scored is
// what `run` does on the goroutine that writes results.jsonl: a
// harness.Scorer adds each result and the collector takes its indicators
// (AddScored).
//
//	ROUTEBENCH_RESULTS=/tmp/cases/out/results.jsonl go test ./harness/compare/ -run '^$' -bench SeriesRealRun -benchmem
func BenchmarkSeriesRealRun(b *testing.B) {
	results := realrun.Results(b)
	collect := func() *compare.SeriesCollector {
		c := compare.NewSeriesCollector(nil)
		for i := range results {
			c.Add(i, &results[i])
		}
		return c
	}
	b.Run("collect", func(b *testing.B) {
		b.ReportAllocs()
		cpu0 := cputime.Process().Seconds()
		for b.Loop() {
			collect()
		}
		b.ReportMetric((cputime.Process().Seconds()-cpu0)/float64(b.N), "cpu-s/op")
	})
	b.Run("scored", func(b *testing.B) {
		b.ReportAllocs()
		cpu0 := cputime.Process().Seconds()
		for b.Loop() {
			s, c := harness.NewScorer(), compare.NewSeriesCollector(nil)
			for i := range results {
				s.Add(&results[i])
				c.AddScored(i, &results[i], s.DecisionIndicators())
			}
		}
		b.ReportMetric((cputime.Process().Seconds()-cpu0)/float64(b.N), "cpu-s/op")
	})
	b.Run("series", func(b *testing.B) {
		c := collect()
		rs := harness.SliceStream(results)
		b.ReportAllocs()
		cpu0 := cputime.Process().Seconds()
		for b.Loop() {
			if _, err := c.Series(rs, stats.DefaultThresholds); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric((cputime.Process().Seconds()-cpu0)/float64(b.N), "cpu-s/op")
	})
}
