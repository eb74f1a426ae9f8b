package reports_test

import (
	"testing"
	"time"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/internal/cputime"
	"github.com/routebench/routebench/internal/realrun"
	"github.com/routebench/routebench/reports"
)

// BenchmarkWritersRealRun renders all three reports from a real run's
// results.jsonl, the reports' share of the load benchmark (see
// harness/cmd/gencases):
//
//	ROUTEBENCH_RESULTS=/tmp/cases/out/results.jsonl go test ./reports/ -run '^$' -bench WritersRealRun
func BenchmarkWritersRealRun(b *testing.B) {
	results := realrun.Results(b)
	in := reports.Input{Meta: reports.MetaFromResults(results), Results: results, Summary: harness.Score(results)}
	in.Meta.GeneratedAt = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	writers := []struct {
		name  string
		write func(w *countingWriter) error
	}{
		{"html", func(w *countingWriter) error { return reports.WriteHTML(w, in) }},
		{"junit", func(w *countingWriter) error { return reports.WriteJUnit(w, results) }},
		{"markdown", func(w *countingWriter) error { return reports.WriteMarkdown(w, in) }},
	}
	for _, wr := range writers {
		b.Run(wr.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := cputime.Process().Seconds()
			for b.Loop() {
				var cw countingWriter
				if err := wr.write(&cw); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((cputime.Process().Seconds()-cpu0)/float64(b.N), "cpu-s/op")
		})
	}
}

// BenchmarkCollectorRealRun is the reports' share of a run's scoring
// pass: every result of a real run's results.jsonl (read into memory
// first) added to a Collector, as `run` adds them while routing.
//
//	ROUTEBENCH_RESULTS=/tmp/cases/out/results.jsonl go test ./reports/ -run '^$' -bench CollectorRealRun -benchmem
func BenchmarkCollectorRealRun(b *testing.B) {
	results := realrun.Results(b)
	b.ReportAllocs()
	cpu0 := cputime.Process().Seconds()
	for b.Loop() {
		c := reports.NewCollector()
		for i := range results {
			c.Add(i, &results[i])
		}
	}
	b.ReportMetric((cputime.Process().Seconds()-cpu0)/float64(b.N), "cpu-s/op")
}
