package router_test

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/models"
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

// builtin1000 is a router with the builtin models on a made-up registry
// of 1,000 skills with 10 example inputs each (benchreg), and requests for
// it: every fifth skill's first example with a word of another skill's
// appended, so they match their own skill's documents only in part.
func builtin1000(b *testing.B) (*router.Router, []string) {
	b.Helper()
	v := syntheticVersion(1000, 10)
	f, err := models.Factory(models.Builtin, models.Builtin)
	if err != nil {
		b.Fatal(err)
	}
	r, err := router.New(v, f)
	if err != nil {
		b.Fatal(err)
	}
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
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; b.Loop(); i++ {
		if _, err := router.RecallForTest(ctx, r, texts[i%len(texts)], []string{"orders:read"}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/1e3/float64(b.N), "cpu-µs/op")
}

// BenchmarkRoute1000 is a whole decision on builtin1000's registry.
func BenchmarkRoute1000(b *testing.B) {
	r, texts := builtin1000(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; b.Loop(); i++ {
		req := router.Request{Text: texts[i%len(texts)], Caller: router.Caller{Scopes: []string{"orders:read"}}, Now: now}
		if d, err := r.Route(ctx, req); err != nil || d.Action == "" {
			b.Fatalf("route: %v %+v", err, d)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/1e3/float64(b.N), "cpu-µs/op")
}
