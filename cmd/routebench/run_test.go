package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/internal/exitcode"
	"github.com/routebench/routebench/router"
)

// runCLI runs the command line and returns exit code, stdout, stderr.
func runCLI(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestRunRejectsBadInputWritingNothing(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	badConfig := filepath.Join(dir, "routebench.yaml")
	g.Expect(os.WriteFile(badConfig, []byte("versions: [../../fixtures/ops/prompts/v1]\nsuites: [x]\nreport: yes\n"), 0o644)).To(Succeed())
	badSuite := filepath.Join(dir, "bad.yaml")
	g.Expect(os.WriteFile(badSuite, []byte("suite: normal\ncases:\n  - id: a\n    input: hi\n    expect: {action: execute, skill: no_such_skill}\n"), 0o644)).To(Succeed())
	goodSuite := filepath.Join(dir, "good.yaml")
	g.Expect(os.WriteFile(goodSuite, []byte("suite: normal\ncases:\n  - id: a\n    input: hi\n    expect: {action: refuse}\n"), 0o644)).To(Succeed())
	v1 := "../../fixtures/ops/prompts/v1"

	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown config key", []string{"run", "--config", badConfig}, badConfig + `:3: report: unknown field`},
		{"missing config", []string{"run", "--config", filepath.Join(dir, "none.yaml")}, "read config"},
		{"bad suite", []string{"run", "--versions", v1, "--suites", badSuite}, badSuite + `:5: cases[0].expect.skill: unknown skill "no_such_skill"`},
		{"bad version", []string{"run", "--versions", filepath.Join(dir, "nope"), "--suites", badSuite}, "does not exist"},
		{"bad shard", []string{"run", "--versions", v1, "--suites", badSuite, "--shard", "3/2"}, "--shard"},
		{"bad label filter", []string{"run", "--versions", v1, "--suites", badSuite, "--label-filter", "suite:(("}, "--label-filter"},
		{"bad judge", []string{"run", "--versions", v1, "--suites", goodSuite, "--judge", "nosuch:model"}, "unknown judge"},
		{"bad flag", []string{"run", "--bogus"}, "unknown flag"},
	} {
		out := filepath.Join(dir, "out-"+strings.ReplaceAll(tc.name, " ", "-"))
		code, _, stderr := runCLI(append(tc.args, "--out", out)...)
		g.Expect(code).To(Equal(exitcode.Usage), tc.name)
		g.Expect(stderr).To(ContainSubstring(tc.want), tc.name)
		_, err := os.Stat(out)
		g.Expect(os.IsNotExist(err)).To(BeTrue(), "%s: nothing may be written", tc.name)
	}
}

func TestRunWritesOutputsAndShardsMerge(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	filter := "skill:get_order || skill:refund_order"
	full := filepath.Join(dir, "full")
	code, stdout, stderr := runCLI("run", "--config", "../../routebench.yaml", "--label-filter", filter, "--out", full, "--concurrency", "2")
	g.Expect(code).To(Equal(0), stderr)
	g.Expect(stdout).To(ContainSubstring("decision"))
	g.Expect(stdout).To(MatchRegexp(`v1@[0-9a-f]{8}\s+all`))
	g.Expect(stdout).To(ContainSubstring("mix v2@"))
	for _, f := range []string{"results.jsonl", "summary.json", "report.html", "junit.xml", "summary.md"} {
		info, err := os.Stat(filepath.Join(full, f))
		g.Expect(err).NotTo(HaveOccurred(), f)
		g.Expect(info.Size()).To(BeNumerically(">", 0), f)
	}
	fullResults, err := harness.ReadResults(filepath.Join(full, harness.ResultsFile))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(fullResults).NotTo(BeEmpty())
	for _, r := range fullResults {
		// A conversation is selected by the skills of any of its turns.
		var named []string
		for _, d := range harness.DecisionResults(r) {
			named = append(append(named, d.Expect.Candidates...), d.Expect.Skill)
		}
		g.Expect(named).To(ContainElement(BeElementOf("get_order", "refund_order")), r.Case)
	}
	summary, err := harness.ReadSummaryFile(filepath.Join(full, harness.SummaryFile))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(summary.Versions).To(HaveLen(2))

	var shardDirs []string
	for _, s := range []string{"1/2", "2/2"} {
		d := filepath.Join(dir, "shard"+s[:1])
		code, _, stderr := runCLI("run", "--config", "../../routebench.yaml", "--label-filter", filter, "--out", d, "--shard", s)
		g.Expect(code).To(Equal(0), stderr)
		shardDirs = append(shardDirs, d)
	}
	merged := filepath.Join(dir, "merged")
	code, stdout, stderr = runCLI(append(append([]string{"merge"}, shardDirs...), "-o", merged)...)
	g.Expect(code).To(Equal(0), stderr)
	g.Expect(stdout).To(ContainSubstring("decision"))
	mergedResults, err := harness.ReadResults(filepath.Join(merged, harness.ResultsFile))
	g.Expect(err).NotTo(HaveOccurred())
	// Routing is deterministic; only measured latencies differ between runs.
	g.Expect(withoutLatency(mergedResults)).To(Equal(withoutLatency(fullResults)))
	// The merged plan is the unsharded run's, written case by case from
	// the shards' plan.json, each of which lists the shard's own cases.
	fullPlan, err := os.ReadFile(filepath.Join(full, harness.PlanFile))
	g.Expect(err).NotTo(HaveOccurred())
	mergedPlan, err := os.ReadFile(filepath.Join(merged, harness.PlanFile))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(string(mergedPlan)).To(Equal(string(fullPlan)))

	code, _, stderr = runCLI("merge", shardDirs[0])
	g.Expect(code).To(Equal(exitcode.Usage))
	g.Expect(stderr).To(ContainSubstring("-o DIR is required"))

	// A shard missing or given twice is not one run.
	code, _, stderr = runCLI("merge", shardDirs[0], "-o", filepath.Join(dir, "half"))
	g.Expect(code).To(Equal(exitcode.Usage), stderr)
	g.Expect(stderr).To(MatchRegexp(`shard 2/2 is missing \(\d+ cases\); run it with --shard 2/2`))
	code, _, stderr = runCLI("merge", shardDirs[0], shardDirs[1], shardDirs[0], "-o", filepath.Join(dir, "twice"))
	g.Expect(code).To(Equal(exitcode.Usage), stderr)
	g.Expect(stderr).To(ContainSubstring("shard 1/2 is given 2 times (" + shardDirs[0] + ", " + shardDirs[0] + ")"))
	// The merged directory is itself a complete run.
	code, _, stderr = runCLI("merge", merged, "-o", filepath.Join(dir, "again"))
	g.Expect(code).To(Equal(0), stderr)
	ok, why, err := harness.SummaryMatches(merged)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(ok).To(BeTrue(), why)
}

func withoutLatency(rs []harness.Result) []harness.Result {
	out := make([]harness.Result, len(rs))
	for i, r := range rs {
		r.LatencyUS, r.Decision.LatencyUS = 0, 0
		if r.Turns != nil {
			r.Turns = append([]harness.TurnResult(nil), r.Turns...)
			for k := range r.Turns {
				r.Turns[k].Decision.LatencyUS = 0
			}
		}
		out[i] = r
	}
	return out
}

func TestRunProviderErrorsExit3WithResultsWritten(t *testing.T) {
	g := NewWithT(t)
	// A provider that rejects every request (a 400 is not retried).
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":{"message":"model not found","type":"invalid_request_error"}}`))
	}))
	defer srv.Close()
	t.Setenv("OPENAI_API_KEY", "sk-test-not-a-key")
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("ROUTEBENCH_CASSETTES", "off")
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := runCLI("run", "--config", "../../routebench.yaml", "--label-filter", "version:v2 && suite:normal && skill:query_alerts_by_zone",
		"--judge", "openai:gpt-4o-mini", "--out", out)
	g.Expect(code).To(Equal(exitcode.RunError), stderr)
	g.Expect(stderr).To(ContainSubstring("failed at the model provider"))
	results, err := harness.ReadResults(filepath.Join(out, harness.ResultsFile))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(results).NotTo(BeEmpty())
	errs := 0
	for _, r := range results {
		if harness.IsProviderError(r.Decision) {
			errs++
			g.Expect(r.Failure).To(Equal(harness.FailProviderError))
		}
	}
	g.Expect(errs).To(BeNumerically(">", 0))
	_, err = os.Stat(filepath.Join(out, harness.SummaryFile))
	g.Expect(err).NotTo(HaveOccurred(), "outputs are written before exit 3")
}

func TestLoadVersionsFromGit(t *testing.T) {
	g := NewWithT(t)
	vs, err := loadVersions([]string{"git:HEAD:fixtures/ops/prompts/v1"})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(vs).To(HaveLen(1))
	g.Expect(vs[0].Name).To(Equal("v1"))
	g.Expect(vs[0].Dir).To(Equal("git:HEAD:fixtures/ops/prompts/v1"))
	g.Expect(vs[0].Registry.Skills).NotTo(BeEmpty())

	_, err = loadVersions([]string{"git:HEAD:fixtures/ops/prompts/nope"})
	g.Expect(err).To(MatchError(ContainSubstring("git:HEAD:fixtures/ops/prompts/nope")))
	_, err = loadVersions([]string{"git:HEAD"})
	g.Expect(err).To(MatchError(ContainSubstring("want git:REV:DIR")))
	_, err = loadVersions([]string{"../../fixtures/ops/prompts/v1", "git:HEAD:fixtures/ops/prompts/v1"})
	g.Expect(err).To(MatchError(ContainSubstring(`version name "v1" is also the name of`)))
}

// An endpoint answering 200 with a body that is not a model answer (`null`
// decodes to a nil response in both SDKs) must give error decisions, exit 3
// and every case kept, for each provider; it once panicked the run.
func TestRunDegenerateProviderBodiesExit3WithEveryCaseKept(t *testing.T) {
	filter := "version:v2 && suite:normal && skill:query_alerts_by_zone"
	builtinOut := filepath.Join(t.TempDir(), "builtin")
	if code, _, stderr := runCLI("run", "--config", "../../routebench.yaml", "--label-filter", filter, "--out", builtinOut); code != 0 {
		t.Fatalf("builtin run: exit %d\n%s", code, stderr)
	}
	want, err := harness.ReadResults(filepath.Join(builtinOut, harness.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	planned := len(want)
	for _, c := range []struct{ judge, keyEnv, urlEnv, suffix, body string }{
		{"openai:gpt-4o-mini", "OPENAI_API_KEY", "OPENAI_BASE_URL", "/v1", `null`},
		{"openai:gpt-4o-mini", "OPENAI_API_KEY", "OPENAI_BASE_URL", "/v1", `{"choices":[]}`},
		{"anthropic:claude-x", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "", `null`},
		{"anthropic:claude-x", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "", `{"content":[{"type":"tool_use","name":"none","input":null}]}`},
	} {
		t.Run(c.judge+" "+c.body, func(t *testing.T) {
			g := NewWithT(t)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(c.body))
			}))
			defer srv.Close()
			t.Setenv(c.keyEnv, "sk-test-not-a-key")
			t.Setenv(c.urlEnv, srv.URL+c.suffix)
			t.Setenv("ROUTEBENCH_CASSETTES", "off")
			out := filepath.Join(t.TempDir(), "out")
			// Rules still decide trigger matches without the judge, so the
			// filter keeps a skill whose cases reach the judge.
			code, _, stderr := runCLI("run", "--config", "../../routebench.yaml", "--label-filter", filter, "--judge", c.judge, "--out", out)
			g.Expect(code).To(Equal(exitcode.RunError), stderr)
			g.Expect(stderr).NotTo(ContainSubstring("panic"))
			results, err := harness.ReadResults(filepath.Join(out, harness.ResultsFile))
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(results).To(HaveLen(planned), "every planned case has a result")
			errs := 0
			for _, r := range results {
				if harness.IsProviderError(r.Decision) {
					errs++
					g.Expect(r.Decision.Action).To(Equal(router.Fail))
				}
			}
			g.Expect(errs).To(BeNumerically(">", 0))
			_, err = os.Stat(filepath.Join(out, "report.html"))
			g.Expect(err).NotTo(HaveOccurred(), "the report is written before exit 3")
		})
	}
}
