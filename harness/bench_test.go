package harness

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

// The harness's own share of a large run (routing excluded): load 10,000
// cases, then run them under 3 versions with a router that answers at
// once, score and write results.jsonl and summary.json.
//
//	go test ./harness -run '^$' -bench . -benchmem

func benchSuiteFile(b *testing.B, n int) string {
	b.Helper()
	var sb strings.Builder
	sb.WriteString("suite: normal\ndefaults:\n  caller: {scopes: [orders:read, alerts:read]}\n  now: \"2026-11-30T10:00:00+08:00\"\ncases:\n")
	for i := range n {
		fmt.Fprintf(&sb, "  - id: bench-%05d\n    input: 查一下华东大区上周已发货的订单 %d\n    tags: [zh, orders]\n", i, i)
		sb.WriteString("    expect: {action: execute, skill: query_orders_by_region, params: {region: east, status: shipped, start: \"2026-11-23\", end: \"2026-11-29\"}}\n")
	}
	path := filepath.Join(b.TempDir(), "bench.yaml")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return path
}

func benchRegistry(b *testing.B) *registry.Registry {
	b.Helper()
	data, err := os.ReadFile("testdata/skills.yaml")
	if err != nil {
		b.Fatal(err)
	}
	skills, err := registry.ParseSkills("skills.yaml", data)
	if err != nil {
		b.Fatal(err)
	}
	reg, err := registry.New(skills)
	if err != nil {
		b.Fatal(err)
	}
	return reg
}

func BenchmarkLoadSuites10k(b *testing.B) {
	path := benchSuiteFile(b, 10000)
	reg := benchRegistry(b)
	b.ResetTimer()
	for b.Loop() {
		cases, err := LoadSuites([]string{path}, reg)
		if err != nil || len(cases) != 10000 {
			b.Fatalf("%d cases, %v", len(cases), err)
		}
	}
}

// BenchmarkLoadGenerated10k loads the suites of a large run: the 10,000
// cases gencases copies from suites/ops (six files, 3.2 MB of YAML: single
// steps, conversations, cases with their own tools and anchors), made
// once into the benchmark's temporary folder; cpu-ns/op counts GC
// workers too.
//
//	go test ./harness -run '^$' -bench 'LoadGenerated10k$' -benchmem -count 5
func BenchmarkLoadGenerated10k(b *testing.B) {
	dir := b.TempDir()
	gen := exec.Command("go", "run", "./cmd/gencases", "-n", "10000", "-seeds", "../suites/ops", "-out", dir)
	if out, err := gen.CombinedOutput(); err != nil {
		b.Fatalf("gencases: %v\n%s", err, out)
	}
	suites := []string{filepath.Join(dir, "suites")}
	cpuLoop(b, func() {
		cases, err := LoadSuites(suites)
		if err != nil || len(cases) != 10000 {
			b.Fatalf("%d cases, %v", len(cases), err)
		}
	})
}

// BenchmarkLoadSuites100k loads 100,000 cases from one file and reports
// what the loaded cases keep (retained-B/case, live heap after a GC) and
// the most the heap held while loading (peak-MB, sampled every
// millisecond): a file is parsed a few case items at a time, never as
// one tree, and the cases share what they repeat.
//
//	go test ./harness -run '^$' -bench LoadSuites100k -benchtime 1x
func BenchmarkLoadSuites100k(b *testing.B) {
	path := benchSuiteFile(b, 100000)
	reg := benchRegistry(b)
	b.ResetTimer()
	for b.Loop() {
		runtime.GC()
		before := heapSample("/gc/heap/live:bytes")
		var peak atomic.Uint64
		done := make(chan struct{})
		go func() {
			for {
				select {
				case <-done:
					return
				case <-time.After(time.Millisecond):
					if x := heapSample("/memory/classes/heap/objects:bytes"); x > peak.Load() {
						peak.Store(x)
					}
				}
			}
		}()
		cases, err := LoadSuites([]string{path}, reg)
		close(done)
		if err != nil || len(cases) != 100000 {
			b.Fatalf("%d cases, %v", len(cases), err)
		}
		runtime.GC()
		after := heapSample("/gc/heap/live:bytes")
		b.ReportMetric(float64(after-before)/float64(len(cases)), "retained-B/case")
		b.ReportMetric(float64(peak.Load())/(1<<20), "peak-MB")
		runtime.KeepAlive(cases)
	}
}

func heapSample(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// instantRouter decides like a judge that is always right, with a
// realistic trace, in no time.
type instantRouter struct{ id string }

func (r instantRouter) Route(_ context.Context, req router.Request) (router.Decision, error) {
	conf := 0.91
	return router.Decision{
		Action: router.Execute, Skill: "query_orders_by_region", Confidence: 0.91, Stage: StageJudge,
		Params:     map[string]any{"region": "east", "status": "shipped", "start": "2026-11-23", "end": "2026-11-29"},
		Candidates: []router.Candidate{{Skill: "query_orders_by_region", Score: 0.91}, {Skill: "query_alerts_by_zone", Score: 0.3}},
		Errors:     []router.Error{},
		Trace: []router.TraceStep{
			{Stage: StagePolicy, Dropped: []string{"delete_test_data"}},
			{Stage: StageRules, Matched: []string{}},
			{Stage: StageRecall, Top: []string{"query_orders_by_region", "query_alerts_by_zone", "refund_order"}},
			{Stage: StageJudge, Provider: "builtin", Choice: "query_orders_by_region", Confidence: &conf,
				Raw: `{"skill":"query_orders_by_region","confidence":0.91,"params":{"region":"east"}}`},
		},
		Version: r.id, Model: "builtin", LatencyUS: int64(100 + len(req.Text)),
	}, nil
}

func BenchmarkRunScoreWrite30k(b *testing.B) {
	reg := benchRegistry(b)
	cases, err := LoadSuites([]string{benchSuiteFile(b, 10000)}, reg)
	if err != nil {
		b.Fatal(err)
	}
	versions := []*registry.Version{
		{Name: "v1", Fingerprint: "11111111", Registry: reg},
		{Name: "v2", Fingerprint: "22222222", Registry: reg},
		{Name: "v3", Fingerprint: "33333333", Registry: reg},
	}
	dir := b.TempDir()
	b.ResetTimer()
	for b.Loop() {
		out, err := Run(context.Background(), RunConfig{
			Versions: versions, Cases: cases, OutDir: dir,
			NewRouter: func(v *registry.Version) (Router, error) { return instantRouter{v.ID()}, nil },
		})
		if err != nil || out.Done != 30000 {
			b.Fatalf("%v", err)
		}
		sum, err := ScoreStream(NewFileStream(filepath.Join(dir, ResultsFile)))
		if err != nil {
			b.Fatal(err)
		}
		if err := WriteSummaryFile(filepath.Join(dir, SummaryFile), sum); err != nil {
			b.Fatal(err)
		}
	}
}
