package harness

import (
	"os"
	"testing"
)

// BenchmarkSummaryRealRun is Scorer.Summary of a real run's results
// (ROUTEBENCH_RESULTS), added before the timer starts.
//
//	ROUTEBENCH_RESULTS=/tmp/cases/out/results.jsonl go test ./harness -run '^$' -bench SummaryRealRun -count 5
func BenchmarkSummaryRealRun(b *testing.B) {
	path := os.Getenv("ROUTEBENCH_RESULTS")
	if path == "" {
		b.Skip("set ROUTEBENCH_RESULTS to a results.jsonl")
	}
	results, err := ReadResults(path)
	if err != nil {
		b.Fatal(err)
	}
	s := NewScorer()
	for i := range results {
		s.Add(&results[i])
	}
	results = nil
	b.ReportAllocs()
	cpuLoop(b, func() { s.Summary() })
}
