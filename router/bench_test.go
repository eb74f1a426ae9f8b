package router_test

import (
	"context"
	"testing"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/internal/benchreg"
	"github.com/routebench/routebench/router/registry"
)

// Benchmarks with the fake models measure the router's own overhead
// (policy, rules, chromem recall, contract and params validation); the
// builtin ones in bench_builtin_test.go add the real models' cost.

var benchTexts = []string{
	"看看华东区上周已发货的订单",
	"any critical alerts in the east zone this week?",
	"ORD-20261103 到哪了",
	"restart payment-api in staging",
	"帮我清一下 /static 的 CDN 缓存",
	"send an sms to bob saying the deploy is done",
	"华东区最近怎么样",
	"what's the weather in Paris?",
}

// suiteScopes are the ops suites' default caller scopes (TEAM.md).
var suiteScopes = []string{"orders:read", "alerts:read", "logs:read", "metrics:read", "tickets:read", "tickets:write", "ops:write", "notify:send", "orders:write"}

func benchRoute(b *testing.B, r *router.Router) {
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		d, err := r.Route(ctx, router.Request{Text: benchTexts[i%len(benchTexts)], Caller: router.Caller{Scopes: suiteScopes}, Now: now})
		if err != nil || d.Action == "" {
			b.Fatalf("route: %v %+v", err, d)
		}
	}
}

// constJudge answers the same every time and, unlike scriptJudge, keeps
// no record, so benchmarks measure the router.
type constJudge struct{ resp router.JudgeResponse }

func (constJudge) Name() string { return "builtin" }
func (j constJudge) Judge(context.Context, router.JudgeRequest) (router.JudgeResponse, error) {
	return j.resp, nil
}

func BenchmarkRouteFakeModels(b *testing.B) {
	j := constJudge{answer("query_orders_by_region", 0.9, ordersEast)}
	r, err := router.New(opsVersion(), (&fixedFactory{judge: j}).build)
	if err != nil {
		b.Fatal(err)
	}
	benchRoute(b, r)
}

// syntheticVersion is n skills with m example inputs each (benchreg), so
// recall has real work to do.
func syntheticVersion(n, m int) *registry.Version { return syntheticVersionSeed(n, m, 1) }

// syntheticVersionSeed varies the texts with seed: builtin models cache
// their fit by registry content, so a benchmark of fitting needs a new
// registry every iteration.
func syntheticVersionSeed(n, m int, seed uint64) *registry.Version {
	raw, compiled := mustSchema(`{"type": "object", "properties": {"q": {"type": "string"}}}`)
	skills := benchreg.Skills(n, m, seed)
	for _, s := range skills {
		s.SideEffect, s.PermissionScope = registry.Read, []string{"orders:read"}
		s.ParamsSchema, s.Schema = raw, compiled
	}
	reg, err := registry.New(skills)
	if err != nil {
		panic(err)
	}
	v := opsVersion()
	v.Registry = reg
	return v
}

func BenchmarkNew150FakeModels(b *testing.B) {
	v := syntheticVersion(150, 100)
	f := &fixedFactory{judge: constJudge{answer("none", 0.5, nil)}}
	b.ResetTimer()
	for b.Loop() {
		if _, err := router.New(v, f.build); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRoute150FakeModels(b *testing.B) {
	v := syntheticVersion(150, 100)
	j := constJudge{answer("none", 0.5, nil)}
	r, err := router.New(v, (&fixedFactory{judge: j}).build)
	if err != nil {
		b.Fatal(err)
	}
	benchRoute(b, r)
}
