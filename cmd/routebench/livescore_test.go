package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/internal/exitcode"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

// A run scores its results as it writes them (harness.RunConfig.Written);
// merge, report and a resumed run score them from results.jsonl. These
// specs hold the two to the same bytes.

// liveVersions have workflows, so the made-up suites hold workflow cases.
var liveVersions = []string{"../../fixtures/ops/prompts/v2", "../../fixtures/ops/prompts/v3"}

const liveCaller = `  caller: {scopes: [orders:read, orders:write, alerts:read, logs:read, metrics:read, tickets:read, tickets:write, ops:write, notify:send]}
  now: "2026-11-30T10:00:00+08:00"
`

// writeLiveSuites writes made-up single-request, conversation and workflow
// suites (n cases of each kind, varied) and returns their directory.
func writeLiveSuites(t *testing.T, n int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "suites")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	services := []string{"invoice-svc", "ledger-api", "mailer", "quota-api"}
	regions := []string{"华南", "west china", "华北", "east china"}
	var single, conv, wf strings.Builder
	single.WriteString("suite: normal\ndefaults:\n" + liveCaller + "cases:\n")
	conv.WriteString("suite: boundary\ndefaults:\n" + liveCaller + "  tags: [conversation]\ncases:\n")
	wf.WriteString("suite: normal\ndefaults:\n" + liveCaller + "  tags: [workflow]\ncases:\n")
	for i := range n {
		svc, region := services[i%len(services)], regions[i%len(regions)]
		fmt.Fprintf(&single, "  - id: lv-scale-%03d\n    input: bump the staging copy of %s up to %d replicas\n    tags: [en, ops]\n"+
			"    expect: {action: confirm, skill: scale_service, params: {service: %s, replicas: %d, env: staging}}\n", i, svc, 2+i%40, svc, 2+i%40)
		fmt.Fprintf(&single, "  - id: lv-orders-%03d\n    input: 列出%s大区最近 %d 天已发货的订单\n    tags: [zh, orders]\n"+
			"    expect: {action: execute, skill: query_orders_by_region}\n", i, region, 2+i%9)
		fmt.Fprintf(&single, "  - id: lv-poem-%03d\n    input: write me a short poem about penguin number %d\n    tags: [en]\n    expect: {action: refuse}\n", i, i)
		fmt.Fprintf(&conv, "  - id: lv-conv-%03d\n    tags: [en]\n    turns:\n"+
			"      - input: I want to look at the error logs of %s\n        expect: {action: clarify, skill: search_logs}\n"+
			"      - input: from 2026-11-%02d to 2026-11-%02d\n        expect: {action: execute, skill: search_logs, params: {service: %s, start: \"2026-11-%02d\", end: \"2026-11-%02d\"}}\n",
			i, svc, 1+i%20, 3+i%20, svc, 1+i%20, 3+i%20)
		order := fmt.Sprintf("ORD-%08d", 24681357+i)
		fmt.Fprintf(&wf, "  - id: lv-wf-%03d\n    input: %s came back damaged, refund %d and then email the buyer about it\n    tags: [en]\n"+
			"    tools_sim:\n      get_order: {ok: {order_id: %s, status: delivered, amount: %d, customer: p.lind@mail.example}}\n"+
			"      refund_order: {ok: {refund_id: RF-%06d, status: accepted}}\n      send_notification: {ok: {message_id: MSG-%06d}}\n"+
			"    confirm: {answer: yes}\n"+
			"    expect: {action: confirm, skill: refund_and_notify, outcome: completed, calls: [get_order, refund_order, send_notification], side_effects: 2}\n",
			i, order, 20+i, order, 20+i, i, i)
	}
	for name, body := range map[string]string{"single.yaml": single.String(), "conv.yaml": conv.String(), "wf.yaml": wf.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// steadyRouter is the builtin router with a latency read off the request
// instead of the clock, so that two runs of the same cases write the same
// bytes; onRoute, when set, hears each decision's number (from 1).
type steadyRouter struct {
	inner   harness.Router
	calls   *atomic.Int64
	onRoute func(n int64)
}

func (s steadyRouter) Route(ctx context.Context, req router.Request) (router.Decision, error) {
	if s.onRoute != nil {
		s.onRoute(s.calls.Add(1))
	}
	d, err := s.inner.Route(ctx, req)
	d.LatencyUS = int64(100 + len(req.Text) + 10*len(req.Turns))
	return d, err
}

// steadyRouters makes run's routers steady until the test ends; onRoute
// is shared by every version's router.
func steadyRouters(t *testing.T, onRoute func(n int64)) {
	was := runRouters
	t.Cleanup(func() { runRouters = was })
	calls := &atomic.Int64{}
	runRouters = func(judge, embedder string, report func(router.BuildPhase)) func(*registry.Version) (harness.Router, error) {
		build := was(judge, embedder, report)
		return func(v *registry.Version) (harness.Router, error) {
			r, err := build(v)
			if err != nil {
				return nil, err
			}
			return steadyRouter{inner: r, calls: calls, onRoute: onRoute}, nil
		}
	}
}

// runCLIContext is runCLI with a context the command runs under.
func runCLIContext(ctx context.Context, args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	root := newRootCmd()
	root.SetArgs(args)
	root.SetOut(&stdout)
	root.SetErr(&stderr)
	if err := root.ExecuteContext(ctx); err != nil {
		return exitcode.Of(err), stdout.String(), stderr.String() + err.Error()
	}
	return exitcode.Pass, stdout.String(), stderr.String()
}

var generatedAt = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z`)

// expectSameOutputs checks that two output directories hold the same
// bytes, the reports' generated-at time aside, in the given files.
func expectSameOutputs(g Gomega, a, b string, files ...string) {
	for _, f := range files {
		x, err := os.ReadFile(filepath.Join(a, f))
		g.Expect(err).NotTo(HaveOccurred())
		y, err := os.ReadFile(filepath.Join(b, f))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(len(x)).To(BeNumerically(">", 0), f)
		same := bytes.Equal(generatedAt.ReplaceAll(x, []byte("T")), generatedAt.ReplaceAll(y, []byte("T")))
		g.Expect(same).To(BeTrue(), "%s differs between %s and %s", f, a, b)
	}
}

var allOutputs = []string{harness.ResultsFile, harness.SummaryFile, "report.html", "junit.xml", "summary.md"}

func liveRunArgs(suites, out string) []string {
	return []string{"run", "--versions", strings.Join(liveVersions, ","), "--suites", suites, "--out", out,
		"--history", "", "--concurrency", "2"}
}

func TestRunScoresWhileRoutingAsTheFileIsScored(t *testing.T) {
	g := NewWithT(t)
	steadyRouters(t, nil)
	suites := writeLiveSuites(t, 30)
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	code, table, stderr := runCLI(liveRunArgs(suites, run)...)
	g.Expect(code).To(Equal(exitcode.Pass), stderr)
	results := readResults(t, run)
	g.Expect(results).To(HaveLen(2 * 5 * 30))
	kinds := map[string]int{}
	for _, r := range results {
		switch {
		case r.Workflow != nil:
			kinds["workflow"]++
		case r.IsConversation():
			kinds["conversation"]++
		}
	}
	g.Expect(kinds).To(Equal(map[string]int{"workflow": 60, "conversation": 60}))

	// The file path with the same versions: writeOutputs reads
	// results.jsonl back, as every run did before it scored live.
	fromFile := filepath.Join(dir, "file")
	g.Expect(os.MkdirAll(fromFile, 0o755)).To(Succeed())
	lines, err := os.ReadFile(filepath.Join(run, harness.ResultsFile))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(os.WriteFile(filepath.Join(fromFile, harness.ResultsFile), lines, 0o644)).To(Succeed())
	vs, err := loadVersions(liveVersions)
	g.Expect(err).NotTo(HaveOccurred())
	var fileTable bytes.Buffer
	g.Expect(writeOutputs(&fileTable, fromFile, versionMetas(vs), false, nil)).To(Succeed())
	expectSameOutputs(g, run, fromFile, allOutputs...)
	g.Expect(table).To(Equal(fileTable.String()))

	// merge names the versions from the run's plan (full fingerprints,
	// directories, descriptions), so every output matches, report.html and
	// summary.md included.
	merged := filepath.Join(dir, "merged")
	code, mergeTable, stderr := runCLI("merge", run, "-o", merged)
	g.Expect(code).To(Equal(exitcode.Pass), stderr)
	expectSameOutputs(g, run, merged, allOutputs...)
	g.Expect(table).To(Equal(mergeTable))

	// report renders the run's report again: its versions named from the
	// plan beside the results, the title and commit given as run gives
	// them.
	again := filepath.Join(dir, "again")
	g.Expect(os.MkdirAll(again, 0o755)).To(Succeed())
	code, _, stderr = runCLI("report", filepath.Join(run, harness.ResultsFile), "-o", filepath.Join(again, "report.html"),
		"--markdown", filepath.Join(again, "summary.md"), "--title", "routebench run", "--commit", gitCommit())
	g.Expect(code).To(Equal(exitcode.Pass), stderr)
	expectSameOutputs(g, run, again, "report.html", "summary.md")
	ok, why, err := harness.SummaryMatches(run)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(ok).To(BeTrue(), why)
}

func TestInterruptedAndResumedRunWritesWhatAStraightRunWrites(t *testing.T) {
	g := NewWithT(t)
	suites := writeLiveSuites(t, 30)
	dir := t.TempDir()

	steadyRouters(t, nil)
	straight := filepath.Join(dir, "straight")
	code, straightTable, stderr := runCLI(liveRunArgs(suites, straight)...)
	g.Expect(code).To(Equal(exitcode.Pass), stderr)

	// Stopped as Ctrl-C stops a run, a third of the way in: the cases in
	// flight finish, the rest are left to --resume.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	steadyRouters(t, func(n int64) {
		if n == 100 {
			cancel()
		}
	})
	resumed := filepath.Join(dir, "resumed")
	code, _, stderr = runCLIContext(ctx, liveRunArgs(suites, resumed)...)
	g.Expect(code).NotTo(Equal(exitcode.Pass), "the run was interrupted: %s", stderr)
	g.Expect(stderr).To(ContainSubstring("interrupted"))
	g.Expect(countLines(filepath.Join(resumed, harness.ResultsFile))).To(BeNumerically("<", 300))

	steadyRouters(t, nil)
	code, resumedTable, stderr := runCLI(append(liveRunArgs(suites, resumed), "--resume")...)
	g.Expect(code).To(Equal(exitcode.Pass), stderr)
	g.Expect(stderr).To(MatchRegexp(`resumed: kept [1-9]\d* results, ran [1-9]\d*`))
	expectSameOutputs(g, straight, resumed, allOutputs...)
	g.Expect(resumedTable).To(Equal(straightTable))
}
