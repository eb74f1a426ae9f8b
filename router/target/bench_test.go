package target_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/internal/cputime"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/models"
	"github.com/routebench/routebench/router/providers"
	"github.com/routebench/routebench/router/registry"
	"github.com/routebench/routebench/router/target"
)

// BenchmarkRunThroughServe is `routebench run --target http://…/route
// --concurrency 8` against `routebench serve` on loopback, both in this
// process: the demo suites/ops (single cases and conversations, ten
// times over) under v2,
// routed over HTTP by the builtin router, scored and written to
// results.jsonl. It reports cases/s (a conversation counts once) and the
// CPU time a case costs, client and server together (cpu-us/case): on a
// shared machine the first says how busy the neighbours were, the second
// what 2 free cores could do (2e6 / cpu-us/case cases a second).
//
//	go test ./router/target -run '^$' -bench RunThroughServe -count 5
func BenchmarkRunThroughServe(b *testing.B) {
	v, err := registry.Load(opsV2)
	if err != nil {
		b.Fatal(err)
	}
	rv, err := harness.RoutingVersion(v)
	if err != nil {
		b.Fatal(err)
	}
	factory, err := models.ForVersion(rv, "", "")
	if err != nil {
		b.Fatal(err)
	}
	own, err := router.New(rv, factory)
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer((&target.Server{Router: own, Version: rv}).Handler())
	defer srv.Close()
	spec, err := target.ParseSpec(srv.URL + "/route")
	if err != nil {
		b.Fatal(err)
	}
	gw, err := providers.New(providers.Options{Timeout: 10 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	seeds, err := harness.LoadSuites([]string{"../../suites/ops"}, rv.Registry)
	if err != nil {
		b.Fatal(err)
	}
	// Ten copies under their own ids, so a run's fixed costs (plan.json,
	// the fsync of results.jsonl) weigh as little as in a large run.
	var cases []harness.Case
	for k := range 10 {
		for _, c := range seeds {
			c.ID = fmt.Sprintf("%s~%d", c.ID, k)
			cases = append(cases, c)
		}
	}
	cfg := harness.RunConfig{
		Versions: []*registry.Version{v},
		Cases:    cases,
		NewRouter: func(v *registry.Version) (harness.Router, error) {
			return target.New(spec, v, target.Options{Gateway: gw})
		},
		Concurrency: 8,
		OutDir:      b.TempDir(),
	}
	// One run first, so the server has fitted its models to every case's
	// tools before the clock starts, as a long-running serve has.
	if _, err := harness.Run(context.Background(), cfg); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	start, cpu0 := time.Now(), cputime.Process()
	for b.Loop() {
		out, err := harness.Run(context.Background(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		if out.ProviderErrors > 0 || len(out.Results) != len(cases) {
			b.Fatalf("%d results of %d, %d provider errors", len(out.Results), len(cases), out.ProviderErrors)
		}
	}
	n := float64(b.N * len(cases))
	b.ReportMetric(n/time.Since(start).Seconds(), "cases/s")
	b.ReportMetric(float64((cputime.Process()-cpu0).Microseconds())/n, "cpu-us/case")
}
