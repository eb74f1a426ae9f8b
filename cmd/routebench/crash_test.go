package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
)

// crashCases is how many cases the crash suite holds: far more than a run
// finishes in the moments between its first results and the kill, on any
// machine, so the kill always lands mid-run.
const crashCases = 6000

// writeCrashSuite writes a suite of n made-up order queries.
func writeCrashSuite(t *testing.T, dir string, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("suite: normal\ndefaults:\n  caller: {scopes: [orders:read]}\n  now: \"2026-11-30T10:00:00+08:00\"\ncases:\n")
	regions := []string{"华东", "华南", "华北", "west"}
	for i := range n {
		fmt.Fprintf(&b, "  - id: crash-%05d\n    input: \"查一下%s大区最近%d天的订单 #%d\"\n    expect: {action: execute, skill: query_orders_by_region}\n",
			i, regions[i%len(regions)], 1+i%30, i)
	}
	path := filepath.Join(dir, "crash.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// countLines is the number of complete lines in path (0 when absent).
func countLines(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	return strings.Count(string(b), "\n")
}

// TestKilledRunResumesToConsistentOutputs SIGKILLs a real `routebench
// run` process once results.jsonl has lines, then checks that --resume
// finishes the run with every case exactly once and outputs that agree.
func TestKilledRunResumesToConsistentOutputs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs thousands of cases")
	}
	g := NewWithT(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "routebench")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	suite := writeCrashSuite(t, dir, crashCases)
	out := filepath.Join(dir, "out")
	args := []string{"run", "--versions", "../../fixtures/ops/prompts/v1", "--suites", suite, "--out", out, "--concurrency", "2"}

	cmd := exec.Command(bin, args...)
	// The binary caches fits in the user cache folder by default; a test
	// keeps to its own directory.
	cmd.Env = append(os.Environ(), "ROUTEBENCH_CACHE="+filepath.Join(dir, "cache"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	g.Expect(cmd.Start()).To(Succeed())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	results := filepath.Join(out, harness.ResultsFile)
	// Wait on progress, not on time: however slow the machine, the kill
	// comes after some results and long before the last.
	for countLines(results) < 50 {
		select {
		case err := <-exited:
			t.Fatalf("the run ended (%v) before it could be killed; raise crashCases\n%s", err, stderr.String())
		case <-time.After(5 * time.Millisecond):
		}
	}
	g.Expect(cmd.Process.Signal(syscall.SIGKILL)).To(Succeed())
	<-exited
	killedAt := countLines(results)
	g.Expect(killedAt).To(BeNumerically("<", crashCases), "killed mid-run")
	_, err := os.Stat(filepath.Join(out, harness.SummaryFile))
	g.Expect(os.IsNotExist(err)).To(BeTrue(), "no summary beside results it was not scored from")

	// The killed process's lock file stays; it must not block the resume.
	code, _, errOut := runCLI(append(args, "--resume")...)
	g.Expect(code).To(Equal(0), errOut)
	g.Expect(errOut).To(MatchRegexp(`resumed: kept \d+ results, ran \d+`))

	rs, err := harness.ReadResults(results)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(rs).To(HaveLen(crashCases))
	seen := map[string]int{}
	for _, r := range rs {
		seen[r.Case]++
	}
	g.Expect(seen).To(HaveLen(crashCases))
	for id, n := range seen {
		g.Expect(n).To(Equal(1), "case %s", id)
	}
	ok, why, err := harness.SummaryMatches(out)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(ok).To(BeTrue(), why)
	code, stdout, errOut := runCLI("report", results, "-o", filepath.Join(dir, "report.html"))
	g.Expect(code).To(Equal(0), errOut)
	g.Expect(stdout).To(ContainSubstring(fmt.Sprintf("%d results, 1 versions", crashCases)))
	g.Expect(stdout).NotTo(ContainSubstring("rewrote"), "the summary was already right")
}
