package target_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/models"
	"github.com/routebench/routebench/router/providers"
	"github.com/routebench/routebench/router/registry"
	"github.com/routebench/routebench/router/target"
)

// BenchmarkRunThroughServe is `routebench run --target http://…/route
// --concurrency 8` against `routebench serve` on loopback, both in this
// process: the demo suites/ops (single cases and conversations) under v2,
// routed over HTTP by the builtin router, scored and written to
// results.jsonl. It reports cases/s (a conversation counts once).
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
	cases, err := harness.LoadSuites([]string{"../../suites/ops"}, rv.Registry)
	if err != nil {
		b.Fatal(err)
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
	start := time.Now()
	for b.Loop() {
		out, err := harness.Run(context.Background(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		if out.ProviderErrors > 0 || len(out.Results) != len(cases) {
			b.Fatalf("%d results of %d, %d provider errors", len(out.Results), len(cases), out.ProviderErrors)
		}
	}
	b.ReportMetric(float64(b.N*len(cases))/time.Since(start).Seconds(), "cases/s")
}
