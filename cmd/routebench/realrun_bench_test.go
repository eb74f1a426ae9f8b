package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/internal/cputime"
	"github.com/routebench/routebench/router/registry"
)

// BenchmarkWriteOutputsRealRun scores a real run's results.jsonl and
// writes all its outputs, as `run` does once routing is done: the
// harness's share of a run but for encoding the results. One op is one
// whole pass; cpu-s/op is the process's CPU time (GC and the second core
// included), steadier than wall time on a shared machine.
//
//	ROUTEBENCH_RUN=/tmp/cases/out go test ./cmd/routebench -run '^$' -bench WriteOutputsRealRun -benchtime 3x
func BenchmarkWriteOutputsRealRun(b *testing.B) {
	src := os.Getenv("ROUTEBENCH_RUN")
	if src == "" {
		b.Skip("set ROUTEBENCH_RUN to a run's output directory")
	}
	data, err := os.ReadFile(filepath.Join(src, harness.ResultsFile))
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, harness.ResultsFile), data, 0o644); err != nil {
		b.Fatal(err)
	}
	cpu0 := cputime.Process()
	for b.Loop() {
		if err := writeOutputs(io.Discard, dir, nil, false, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cputime.Process()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
}

// BenchmarkRouteRealCases routes every case of a config's suites under
// each of its versions (builtin models), one case at a time on one
// goroutine, as a run's workers do but with nothing written or scored:
// the routing share of a run, without the outputs above. One op is every
// case under every version; cpu-s/op is the process's CPU time. With
// gencases' 10,000 × 3 it says how far a run's CPU can go down with the
// rest of the run free.
//
//	go run ./harness/cmd/gencases -n 10000 -out /tmp/cases -versions "$PWD/fixtures/ops/prompts/v1,$PWD/fixtures/ops/prompts/v2,$PWD/fixtures/ops/prompts/v3"
//	ROUTEBENCH_CASES=/tmp/cases/routebench.yaml go test ./cmd/routebench -run '^$' -bench RouteRealCases -benchtime 3x
func BenchmarkRouteRealCases(b *testing.B) {
	path := os.Getenv("ROUTEBENCH_CASES")
	if path == "" {
		b.Skip("set ROUTEBENCH_CASES to a routebench.yaml (gencases writes one)")
	}
	cfg, err := harness.LoadConfig(path)
	if err != nil {
		b.Fatal(err)
	}
	versions, err := loadVersions(cfg.Versions)
	if err != nil {
		b.Fatal(err)
	}
	regs := make([]*registry.Registry, len(versions))
	for i, v := range versions {
		regs[i] = v.Registry
	}
	src, err := harness.OpenSuites(cfg.Suites, regs...)
	if err != nil {
		b.Fatal(err)
	}
	var cases []*harness.Case
	if err := src.Each(func(_ int, c *harness.Case) error { cases = append(cases, c); return nil }); err != nil {
		b.Fatal(err)
	}
	newRouter := routerFactory("", "", nil)
	routers := make([]harness.Router, len(versions))
	flows := make([]*harness.VersionWorkflows, len(versions))
	for i, v := range versions {
		if flows[i], err = harness.PrepareWorkflows(v); err != nil {
			b.Fatal(err)
		}
		if routers[i], err = newRouter(flows[i].RoutingVersion(v)); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	b.ResetTimer()
	cpu0 := cputime.Process()
	for b.Loop() {
		for v := range versions {
			for i, c := range cases {
				if _, err := harness.RunCase(ctx, routers[v], versions[v], flows[v], c, i); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	decisions := float64(b.N * len(versions) * len(cases))
	cpu := (cputime.Process() - cpu0).Seconds()
	b.ReportMetric(cpu/float64(b.N), "cpu-s/op")
	b.ReportMetric(cpu*1e6/decisions, "cpu-µs/case")
}
