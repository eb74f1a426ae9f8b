package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/internal/exitcode"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/models"
	"github.com/routebench/routebench/router/target"
)

// The --target specs run against the Python example of fixtures/targets
// (skipped when python3 is missing; .ci/run installs it) and against
// routebench's own router served by a local httptest server speaking the
// wire format of DESIGN §13.

const pyTarget = "exec:python3 ../../fixtures/targets/keyword_router.py"

func needPython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed (apt-get install -y python3; .ci/run does): the Python example target cannot run")
	}
}

// madeUpSuite writes a small suite of made-up requests.
func madeUpSuite(t *testing.T) string {
	t.Helper()
	suite := "suite: normal\ndefaults:\n  caller: {scopes: [orders:read, orders:write, alerts:read]}\n  now: \"2026-11-30T10:00:00+08:00\"\ncases:\n" +
		"  - id: made-up-refund\n    input: please refund ORD-55554444, it arrived broken\n    expect: {action: confirm, skill: refund_order}\n" +
		"  - id: made-up-alerts\n    input: any alert in zone west since this morning?\n    expect: {action: execute, skill: query_alerts_by_zone}\n" +
		"  - id: made-up-moon\n    input: book me a trip to the moon\n    expect: {action: refuse}\n"
	path := filepath.Join(t.TempDir(), "made-up.yaml")
	if err := os.WriteFile(path, []byte(suite), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// servedV2 serves routebench's v2 router as `routebench serve` does and
// returns its /route URL.
func servedV2(t *testing.T) string {
	t.Helper()
	vs, err := loadVersions([]string{v2})
	if err != nil {
		t.Fatal(err)
	}
	v, err := harness.RoutingVersion(vs[0])
	if err != nil {
		t.Fatal(err)
	}
	factory, err := models.ForVersion(v, "", "")
	if err != nil {
		t.Fatal(err)
	}
	r, err := router.New(v, factory)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer((&target.Server{Router: r, Version: v}).Handler())
	t.Cleanup(srv.Close)
	return srv.URL + "/route"
}

func readResults(t *testing.T, dir string) []harness.Result {
	t.Helper()
	results, err := harness.ReadResults(filepath.Join(dir, harness.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	return results
}

func TestRunScoresAnExecTarget(t *testing.T) {
	needPython(t)
	g := NewWithT(t)
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := runCLI("run", "--versions", v2, "--suites", madeUpSuite(t), "--target", pyTarget, "--out", out, "--history", "")
	g.Expect(code).To(Equal(exitcode.Pass), stdout+stderr)
	results := readResults(t, out)
	g.Expect(results).To(HaveLen(3))
	for _, r := range results {
		g.Expect(r.Version).To(HavePrefix("v2@"), "results carry the version under test")
		g.Expect(r.Decision.Version).To(Equal(r.Version))
		g.Expect(r.Decision.Model).To(Equal("target:" + pyTarget))
	}
	byCase := map[string]harness.Result{}
	for _, r := range results {
		byCase[r.Case] = r
	}
	g.Expect(byCase["made-up-alerts"].Pass).To(BeTrue(), "%+v", byCase["made-up-alerts"].Decision)
	g.Expect(byCase["made-up-moon"].Decision.Action).To(Equal(router.Refuse))
	// The example sends no params: the refund is scored as the
	// confirmation it is, its missing params left to the expectation.
	g.Expect(byCase["made-up-refund"].Decision.Skill).To(Equal("refund_order"))
	summary, err := os.ReadFile(filepath.Join(out, "summary.json"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(string(summary)).To(ContainSubstring(`"decision_accuracy"`))
}

func TestRunAgainstATargetThatIsDownExits3KeepingEveryCase(t *testing.T) {
	g := NewWithT(t)
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL + "/route"
	srv.Close()
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := runCLI("run", "--versions", v2, "--suites", madeUpSuite(t), "--target", url, "--out", out, "--history", "")
	g.Expect(code).To(Equal(exitcode.RunError), stdout+stderr)
	g.Expect(stderr).To(ContainSubstring("3 decisions failed at the target (action error, provider_error)"))
	for _, r := range readResults(t, out) {
		g.Expect(r.Decision.Action).To(Equal(router.Fail))
		g.Expect(r.Failure).To(Equal(harness.FailProviderError), "never a refusal")
	}
}

func TestTargetFlagMistakesAreUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--versions", v2, "--suites", "../../suites/ops", "--target", "ftp://host/route"}, "want http://HOST/route, https://HOST/route or exec:CMD"},
		{[]string{"run", "--versions", v2, "--suites", "../../suites/ops", "--target", "exec:  "}, "names no command"},
		{[]string{"run", "--versions", v2, "--suites", "../../suites/ops", "--target", "http://u:p@host/route"}, "credentials in the URL"},
		{[]string{"run", "--versions", v2, "--suites", "../../suites/ops", "--target", "http://localhost:9/route", "--judge", "builtin"}, "drop --judge and --embedder"},
		{[]string{"route", "--version", v2, "--target", "localhost:8080", "hello"}, "want http://HOST/route"},
		{[]string{"gate", "--config", "../../routebench.yaml", "--base-version", v2, "--head-version", v2, "--target", "tcp://x"}, "want http://HOST/route"},
	} {
		code, stdout, stderr := runCLI(tc.args...)
		if code != exitcode.Usage {
			t.Errorf("%v: exit %d, want %d\n%s%s", tc.args, code, exitcode.Usage, stdout, stderr)
		}
		if !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: stderr lacks %q:\n%s", tc.args, tc.want, stderr)
		}
	}
}

func TestRouteThroughATarget(t *testing.T) {
	needPython(t)
	g := NewWithT(t)
	code, out, errOut := routeCLI(t, "--version", v2, "--scopes", "alerts:read", "--target", pyTarget, "show me the alerts of zone east")
	g.Expect(code).To(Equal(exitcode.Pass), errOut)
	var d router.Decision
	g.Expect(json.Unmarshal([]byte(out), &d)).To(Succeed(), out)
	g.Expect(d.Action).To(Equal(router.Execute))
	g.Expect(d.Skill).To(Equal("query_alerts_by_zone"))
	g.Expect(d.Version).To(HavePrefix("v2@"))
	g.Expect(d.Model).To(Equal("target:" + pyTarget))
}

func TestGateThroughATargetIsNeverNotEvaluated(t *testing.T) {
	g := NewWithT(t)
	config, base, head := untestedGate(t, "")
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := runCLI("gate", "--config", config, "--base-version", base, "--head-version", head, "--out", out, "--history", "", "--target", servedV2(t))
	g.Expect(code).To(Equal(exitcode.Pass), stdout+stderr)
	g.Expect(stdout).NotTo(ContainSubstring("NOT EVALUATED"))
	g.Expect(stdout).To(ContainSubstring("gate passed for ops@"))
	var rec struct {
		Pass     bool `json:"pass"`
		Verdicts []struct {
			Untested     []string `json:"untested_layers"`
			NotEvaluated bool     `json:"not_evaluated"`
			Notes        []string `json:"notes"`
		} `json:"verdicts"`
	}
	data, err := os.ReadFile(filepath.Join(out, "gate.json"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(json.Unmarshal(data, &rec)).To(Succeed())
	g.Expect(rec.Pass).To(BeTrue())
	g.Expect(rec.Verdicts[0].Untested).To(BeEmpty())
	g.Expect(rec.Verdicts[0].NotEvaluated).To(BeFalse())
	g.Expect(rec.Verdicts[0].Notes).To(ContainElement(ContainSubstring("taken to read every layer: no layer is reported untested")))
	for _, r := range readResults(t, out) {
		g.Expect(r.Decision.Model).To(HavePrefix("target:http://127.0.0.1:"))
	}
}

func TestReplayOfATargetRecordingNeedsTheTarget(t *testing.T) {
	needPython(t)
	g := NewWithT(t)
	suite := madeUpSuite(t)
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := runCLI("run", "--versions", v2, "--suites", suite, "--target", pyTarget, "--out", out, "--history", "")
	g.Expect(code).To(Equal(exitcode.Pass), stdout+stderr)
	results := filepath.Join(out, harness.ResultsFile)

	code, _, stderr = runCLI("replay", results, "made-up-alerts")
	g.Expect(code).To(Equal(exitcode.Usage))
	g.Expect(stderr).To(ContainSubstring("was recorded from target " + pyTarget))

	code, stdout, stderr = runCLI("replay", results, "made-up-alerts", "--target", pyTarget)
	g.Expect(code).To(Equal(exitcode.Pass), stdout+stderr)
	g.Expect(stdout).To(ContainSubstring("SAME: today's decision is the recorded one."))
	g.Expect(stdout).To(ContainSubstring("routed by target " + pyTarget))
}

// syncBuffer is a bytes.Buffer safe to read while the command writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestServeAnswersUntilSIGTERM(t *testing.T) {
	g := NewWithT(t)
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() { done <- run([]string{"serve", "--version", v2, "--addr", "127.0.0.1:0"}, &stdout, &stderr) }()
	var base string
	g.Eventually(func() string {
		line := stdout.String()
		if i := strings.Index(line, "listening on "); i >= 0 {
			base = strings.Fields(line[i+len("listening on "):])[0]
		}
		return base
	}, 30*time.Second, 20*time.Millisecond).Should(HavePrefix("http://127.0.0.1:"), stderr.String())
	g.Expect(base).NotTo(HaveSuffix(":0"), "the real port is printed")

	resp, err := http.Get(base + "/version")
	g.Expect(err).NotTo(HaveOccurred())
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	g.Expect(string(body)).To(ContainSubstring(`"version":"v2@`))
	resp, err = http.Post(base+"/route", "application/json", strings.NewReader(`{"id":"r1","text":"restart payment-api in staging","caller":{"scopes":["ops:write"],"disabled":[]}}`))
	g.Expect(err).NotTo(HaveOccurred())
	var d router.Decision
	g.Expect(json.NewDecoder(resp.Body).Decode(&d)).To(Succeed())
	resp.Body.Close()
	g.Expect(d.Skill).To(Equal("restart_service"))

	// serve has SIGTERM in hand by the time it prints its address.
	g.Expect(syscall.Kill(os.Getpid(), syscall.SIGTERM)).To(Succeed())
	g.Eventually(done, 35*time.Second).Should(Receive(Equal(exitcode.Pass)))
	g.Expect(stderr.String()).To(ContainSubstring("serve: stopped"))
}

func TestServeRejectsBadFlags(t *testing.T) {
	g := NewWithT(t)
	code, _, stderr := runCLI("serve")
	g.Expect(code).To(Equal(exitcode.Usage))
	g.Expect(stderr).To(ContainSubstring("--version is required"))
	code, _, stderr = runCLI("serve", "--version", v2, "--addr", "256.0.0.1:99999")
	g.Expect(code).To(Equal(exitcode.RunError))
	g.Expect(stderr).To(ContainSubstring("listen on 256.0.0.1:99999"))
	code, _, _ = runCLI("serve", "--version", v2, "--max-request-bytes", "0")
	g.Expect(code).To(Equal(exitcode.Usage))
}
