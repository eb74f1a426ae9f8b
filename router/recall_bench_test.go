package router_test

import (
	"context"
	"strings"
	"testing"

	"github.com/routebench/routebench/internal/cputime"
	"github.com/routebench/routebench/router"
)

// BenchmarkRecall is the recall stage alone (request embedding and the
// scan of every skill's document vectors) on the v2 demo registry with the builtin embedder: the
// share of BenchmarkRoute's 200 µs budget that recall takes.
func BenchmarkRecall(b *testing.B) {
	r := builtinV2Router(b)
	ctx := context.Background()
	loopCPU(b, func(i int) {
		if _, err := router.RecallForTest(ctx, r, benchTexts[i%len(benchTexts)], suiteScopes); err != nil {
			b.Fatal(err)
		}
	})
}

// loopCPU runs step(i) for b's iterations and reports the CPU time an
// iteration took beside ns/op: CPU time is what a shared machine does not
// inflate the way it inflates ns/op.
func loopCPU(b *testing.B, step func(i int)) {
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cputime.Process()
	for i := 0; b.Loop(); i++ {
		step(i)
	}
	b.ReportMetric(float64(cputime.Process()-cpu0)/1e3/float64(b.N), "cpu-µs/op")
}

// builtin1000 is a router with the builtin models on a made-up registry
// of 1,000 skills with 10 example inputs each (benchreg), and requests for
// it: every fifth skill's first example with a word of another skill's
// appended, so they match their own skill's documents only in part.
func builtin1000(b *testing.B) (*router.Router, []string) {
	b.Helper()
	v := syntheticVersion(1000, 10)
	r := builtinRouter(b, v)
	skills := v.Registry.Skills
	var texts []string
	for i := 0; i < len(skills); i += 5 {
		other := strings.Fields(skills[(i*7+3)%len(skills)].Examples[1].Input)
		texts = append(texts, skills[i].Examples[0].Input+" "+other[len(other)-1])
	}
	return r, texts
}

// BenchmarkRecall1000 is the recall stage alone on builtin1000's registry:
// the scan of some 11,000 recall documents and the top-k choice among
// 1,000 skills that every request of a large registry pays.
func BenchmarkRecall1000(b *testing.B) {
	r, texts := builtin1000(b)
	ctx := context.Background()
	loopCPU(b, func(i int) {
		if _, err := router.RecallForTest(ctx, r, texts[i%len(texts)], []string{"orders:read"}); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkRoute1000 is a whole decision on builtin1000's registry.
func BenchmarkRoute1000(b *testing.B) {
	r, texts := builtin1000(b)
	ctx := context.Background()
	loopCPU(b, func(i int) {
		req := router.Request{Text: texts[i%len(texts)], Caller: router.Caller{Scopes: []string{"orders:read"}}, Now: now}
		if d, err := r.Route(ctx, req); err != nil || d.Action == "" {
			b.Fatalf("route: %v %+v", err, d)
		}
	})
}
