package harness

import (
	"os"
	"testing"
)

// BenchmarkEncodeRealRun encodes every result of a real run's
// results.jsonl as the run's workers do: one line each, released once
// written.
//
//	ROUTEBENCH_RESULTS=/tmp/cases/out/results.jsonl go test ./harness -run '^$' -bench EncodeRealRun -benchmem -count 5
func BenchmarkEncodeRealRun(b *testing.B) {
	path := os.Getenv("ROUTEBENCH_RESULTS") // realrun.Env; that package imports this one
	if path == "" {
		b.Skip("set ROUTEBENCH_RESULTS to a results.jsonl")
	}
	results, err := ReadResults(path)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpuLoop(b, func() {
		for i := range results {
			l, err := marshalLine(&results[i])
			if err != nil {
				b.Fatal(err)
			}
			l.release()
		}
	})
}
