package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

// The harness's share of a large run, routing excluded: N generated cases
// under V versions with a router that answers at once (with a realistic
// trace), results.jsonl written and scored as decided, then summary.json,
// report.html, junit.xml and summary.md written. One op is one whole run; each
// reports how far the live heap (as of each GC, sampled every millisecond)
// rose above what it was before the op, the loaded cases included in
// neither: live-MB, which must not grow with the cases, unlike the loaded
// cases themselves (cases-MB).
//
//	go test ./cmd/routebench -run '^$' -bench 'Outputs|Merge' -benchtime 1x
func BenchmarkOutputs10kx3(b *testing.B)  { benchOutputs(b, 10000, 3) }
func BenchmarkOutputs100kx1(b *testing.B) { benchOutputs(b, 100000, 1) }

// Merging shards is linear: 100 shards cost 10 times 10 shards (the same
// results per shard), not more. Each shard holds 1,000 results.
func BenchmarkMerge10Shards(b *testing.B)  { benchMerge(b, 10, 1000) }
func BenchmarkMerge100Shards(b *testing.B) { benchMerge(b, 100, 1000) }

func benchOutputs(b *testing.B, n, versions int) {
	before := liveHeap()
	reg, cases := scaleCases(b, n)
	casesMB := (liveHeap() - before) / (1 << 20)
	var vs []*registry.Version
	for i := range versions {
		vs = append(vs, &registry.Version{Name: fmt.Sprintf("v%d", i+1), Fingerprint: fmt.Sprintf("%08d", i+1), Registry: reg})
	}
	dir := b.TempDir()
	b.ResetTimer()
	for b.Loop() {
		peak := watchLiveHeap()
		// As run does: scored while routed, then written.
		out, scored, err := runScoring(context.Background(), harness.RunConfig{
			Versions: vs, Cases: cases, OutDir: dir,
			NewRouter: func(v *registry.Version) (harness.Router, error) { return instantRouter{v.ID()}, nil },
		})
		if err != nil || out.Done != n*versions {
			b.Fatalf("run: %v", err)
		}
		if err := writeRunOutputs(io.Discard, dir, out, scored, versionMetas(vs), false, nil); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(peak()/(1<<20), "live-MB")
		b.ReportMetric(casesMB, "cases-MB")
	}
}

func benchMerge(b *testing.B, shards, perShard int) {
	reg, cases := scaleCases(b, shards*perShard)
	v := &registry.Version{Name: "v1", Fingerprint: "00000001", Registry: reg}
	root := b.TempDir()
	var dirs []string
	for i := 1; i <= shards; i++ {
		dir := filepath.Join(root, fmt.Sprintf("s%d", i))
		_, err := harness.Run(context.Background(), harness.RunConfig{
			Versions: []*registry.Version{v}, Cases: cases, OutDir: dir, Shard: harness.Shard{Index: i, Count: shards},
			NewRouter: func(v *registry.Version) (harness.Router, error) { return instantRouter{v.ID()}, nil },
		})
		if err != nil {
			b.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	cases = nil // the merge reads only the shards' files
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		peak := watchLiveHeap()
		m, err := harness.PrepareMerge(dirs)
		if err != nil {
			b.Fatal(err)
		}
		if err := m.WriteTo(filepath.Join(root, fmt.Sprintf("merged%d.jsonl", i))); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(peak()/(1<<20), "live-MB")
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(i+1)/float64(shards*perShard), "ns/result")
	}
}

// scaleCases writes a suite of n cases like harness's benchmark suite
// (an expected execute with four params, tags, a shared caller) and loads it.
func scaleCases(b *testing.B, n int) (*registry.Registry, []harness.Case) {
	b.Helper()
	data, err := os.ReadFile("../../harness/testdata/skills.yaml")
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
	var sb strings.Builder
	sb.WriteString("suite: normal\ndefaults:\n  caller: {scopes: [orders:read, alerts:read]}\n  now: \"2026-11-30T10:00:00+08:00\"\ncases:\n")
	for i := range n {
		fmt.Fprintf(&sb, "  - id: scale-%06d\n    input: 查一下华东大区上周已发货的订单 %d\n    tags: [zh, orders]\n", i, i)
		sb.WriteString("    expect: {action: execute, skill: query_orders_by_region, params: {region: east, status: shipped, start: \"2026-11-23\", end: \"2026-11-29\"}}\n")
	}
	path := filepath.Join(b.TempDir(), "scale.yaml")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	cases, err := harness.LoadSuites([]string{path}, reg)
	if err != nil {
		b.Fatal(err)
	}
	return reg, cases
}

// instantRouter decides like a judge that is right most of the time (a
// tenth of the cases, a different tenth under each version, are refused
// instead, so reports have failures and flips to show), with a realistic
// trace, in no time.
type instantRouter struct{ id string }

func (r instantRouter) Route(_ context.Context, req router.Request) (router.Decision, error) {
	conf := 0.91
	d := router.Decision{
		Action: router.Execute, Skill: "query_orders_by_region", Confidence: 0.91, Stage: harness.StageJudge,
		Params:     map[string]any{"region": "east", "status": "shipped", "start": "2026-11-23", "end": "2026-11-29"},
		Candidates: []router.Candidate{{Skill: "query_orders_by_region", Score: 0.91}, {Skill: "query_alerts_by_zone", Score: 0.3}},
		Errors:     []router.Error{},
		Trace: []router.TraceStep{
			{Stage: harness.StagePolicy, Dropped: []string{"delete_test_data"}},
			{Stage: harness.StageRules, Matched: []string{}},
			{Stage: harness.StageRecall, Top: []string{"query_orders_by_region", "query_alerts_by_zone", "refund_order"}},
			{Stage: harness.StageJudge, Provider: "builtin", Choice: "query_orders_by_region", Confidence: &conf,
				Raw: `{"skill":"query_orders_by_region","confidence":0.91,"params":{"region":"east"}}`},
		},
		Version: r.id, Model: "builtin", LatencyUS: int64(100 + len(req.Text)),
	}
	if req.ID[len(req.ID)-1] == r.id[len(r.id)-1]+2 {
		d.Action, d.Skill, d.Params = router.Refuse, "", map[string]any{}
	}
	return d, nil
}

// liveHeap is the live heap after a collection, in bytes.
func liveHeap() float64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	return float64(sample[0].Value.Uint64())
}

// watchLiveHeap samples the live heap (as the last GC measured it) every
// millisecond until the returned function is called, which returns how
// far the largest sample rose above the live heap at the start, in bytes.
func watchLiveHeap() func() float64 {
	base := liveHeap()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	})
	return func() float64 {
		close(stop)
		wg.Wait()
		return max(0, float64(peak.Load())-base)
	}
}
