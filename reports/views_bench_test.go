package reports

import (
	"testing"

	"github.com/routebench/routebench/internal/realrun"
)

// BenchmarkCaseViewsRealRun is the case views' share of a Collector's
// pass: every result of a real run's results.jsonl kept as its view.
//
//	ROUTEBENCH_RESULTS=/tmp/cases/out/results.jsonl go test ./reports/ -run '^$' -bench CaseViewsRealRun
func BenchmarkCaseViewsRealRun(b *testing.B) {
	results := realrun.Results(b)
	b.ReportAllocs()
	for b.Loop() {
		v := newCaseViews()
		for i := range results {
			v.add(&results[i])
		}
		v.recs.Close()
	}
}
