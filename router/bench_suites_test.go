package router_test

import (
	"context"
	"testing"
	"time"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/models"
	"github.com/routebench/routebench/router/registry"
)

// BenchmarkRouteSuites routes every single-request case of the ops suites
// (suites/ops) under the three demo versions with the builtin models: the
// texts a run routes, varied as they are, rather than BenchmarkRoute's
// eight. One op is one decision (ns/op and allocs/op are per decision).
func BenchmarkRouteSuites(b *testing.B) {
	f, err := models.Factory(models.Builtin, models.Builtin)
	if err != nil {
		b.Fatal(err)
	}
	var routers []*router.Router
	for _, name := range []string{"v1", "v2", "v3"} {
		v, err := registry.Load(fixturesDir + name)
		if err != nil {
			b.Fatal(err)
		}
		r, err := router.New(v, f)
		if err != nil {
			b.Fatal(err)
		}
		routers = append(routers, r)
	}
	cases, err := harness.LoadSuites([]string{"../suites/ops"})
	if err != nil {
		b.Fatal(err)
	}
	var reqs []router.Request
	for _, c := range cases {
		if len(c.Turns) > 0 || c.Tools != nil {
			continue
		}
		now, err := time.Parse(time.RFC3339, c.Now)
		if err != nil {
			b.Fatal(err)
		}
		reqs = append(reqs, router.Request{Text: c.Input, Caller: c.Caller, Now: now})
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		r := routers[i%len(routers)]
		req := reqs[(i/len(routers))%len(reqs)]
		if _, err := r.Route(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}
