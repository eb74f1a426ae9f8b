package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/internal/exitcode"
)

// TestMain points the default history away from the source tree (every
// run and gate in these tests appends to it) and fixes its clock and
// commit, so entries are the same on every machine.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "routebench-history-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defaultHistoryPath = filepath.Join(dir, "history.jsonl")
	historyNow = func() time.Time { return time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC) }
	historyCommit = func() string { return "0123456789abcdef0123456789abcdef01234567" }
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func TestRunAndGateAppendTheirHeadlineMetricsToTheHistory(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	hist := filepath.Join(dir, "h", "history.jsonl")

	for i := range 2 {
		out := filepath.Join(dir, fmt.Sprint("run", i))
		code, _, stderr := runCLI(smallRun(out, "--history", hist)...)
		g.Expect(code).To(Equal(0), stderr)
		g.Expect(stderr).NotTo(ContainSubstring("warning"))
	}
	config, base, head := untestedGate(t, "  untested_layers: warn\n")
	code, _, stderr := runCLI("gate", "--config", config, "--base-version", base, "--head-version", head,
		"--out", filepath.Join(dir, "gate"), "--history", hist)
	g.Expect(code).To(Equal(0), stderr)

	entries, total, err := harness.ReadHistory(hist, 0)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(total).To(Equal(3))
	first := entries[0]
	g.Expect(first.Time).To(Equal("2026-11-30T10:00:00Z"))
	g.Expect(first.Commit).To(Equal("0123456789abcdef0123456789abcdef01234567"))
	g.Expect(first.Command).To(Equal("run"))
	g.Expect(first.Versions).To(HaveLen(1))
	g.Expect(first.Versions[0].Name).To(Equal("v1"))
	g.Expect(first.Versions[0].Version).To(MatchRegexp(`^v1@[0-9a-f]{8}$`))
	g.Expect(first.Versions[0].Metrics).To(HaveKey("decision_accuracy"))
	g.Expect(first.Versions[0].Metrics).To(HaveKey("policy_violations"))
	g.Expect(first.Versions[0].Metrics).NotTo(HaveKey("skill_accuracy"))
	// The same run on the same tree at the same (injected) time: the same line.
	lines := strings.Split(strings.TrimSpace(readFile(t, hist)), "\n")
	g.Expect(lines[1]).To(Equal(lines[0]))
	g.Expect(entries[2].Command).To(Equal("gate"))
	g.Expect(entries[2].Versions).To(HaveLen(1), "the gate records its head only")

	// The run's report draws what the history held after this run.
	page := readFile(t, filepath.Join(dir, "run1", "report.html"))
	g.Expect(page).To(ContainSubstring(`<section id="trend">`))
	g.Expect(page).To(ContainSubstring("runs #1–#2 of 2"))
	g.Expect(readFile(t, filepath.Join(dir, "gate", "report.html"))).To(ContainSubstring("runs #1–#3 of 3"))

	// `report --history` draws it too; without it, no trend.
	code, _, stderr = runCLI("report", filepath.Join(dir, "run0", "results.jsonl"), "-o", filepath.Join(dir, "r.html"), "--history", hist)
	g.Expect(code).To(Equal(0), stderr)
	g.Expect(readFile(t, filepath.Join(dir, "r.html"))).To(ContainSubstring("runs #1–#3 of 3"))
	code, _, stderr = runCLI("report", filepath.Join(dir, "run0", "results.jsonl"), "-o", filepath.Join(dir, "plain.html"))
	g.Expect(code).To(Equal(0), stderr)
	g.Expect(readFile(t, filepath.Join(dir, "plain.html"))).NotTo(ContainSubstring(`id="trend"`))
}

func TestHistoryThatCannotBeWrittenIsAWarningNotAFailedRun(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	// A directory where the file should be: neither appended to nor read.
	hist := filepath.Join(dir, "history.jsonl")
	g.Expect(os.Mkdir(hist, 0o755)).To(Succeed())
	out := filepath.Join(dir, "out")
	code, _, stderr := runCLI(smallRun(out, "--history", hist)...)
	g.Expect(code).To(Equal(0), stderr)
	g.Expect(stderr).To(ContainSubstring("warning: this run is not in the history: append history: open " + hist + ": is a directory"))
	g.Expect(stderr).To(ContainSubstring("warning: report.html has no trend chart"))
	g.Expect(readFile(t, filepath.Join(out, "report.html"))).NotTo(ContainSubstring(`id="trend"`))

	// --history "" turns the history off, silently.
	code, _, stderr = runCLI(smallRun(filepath.Join(dir, "off"), "--history", "")...)
	g.Expect(code).To(Equal(0), stderr)
	g.Expect(stderr).NotTo(ContainSubstring("history"))
}

// writeMadeUpHistory appends n runs of v1 and v2 with decision accuracy
// climbing a point a run and a policy violation in every third run.
func writeMadeUpHistory(t *testing.T, path string, n int) {
	t.Helper()
	for i := range n {
		s := harness.Summary{}
		for vi, name := range []string{"v1", "v2"} {
			acc := math.Min(1, 0.70+float64(vi)*0.1+float64(i)/100)
			s.Versions = append(s.Versions, harness.VersionSummary{Name: name, Version: fmt.Sprintf("%s@%08d", name, i/6),
				Groups: map[string]harness.Group{"all": {N: 100, Metrics: map[string]harness.Rate{
					harness.DecisionAccuracy:   {Value: acc, N: 100},
					harness.WrongExecutionRate: {Value: 0.05, N: 100},
					harness.PolicyViolations:   {Value: float64(i % 3 / 2), N: 100},
				}}}})
		}
		e := harness.NewHistoryEntry(harness.HistoryRun, time.Date(2026, 11, 1+i, 9, 0, 0, 0, time.UTC), "c0ffee", s)
		if err := harness.AppendHistory(path, e); err != nil {
			t.Fatal(err)
		}
	}
}

func TestHistoryPrintsEachMetricsLastValuesWithSparklineAndDelta(t *testing.T) {
	g := NewWithT(t)
	hist := filepath.Join(t.TempDir(), "history.jsonl")
	writeMadeUpHistory(t, hist, 12)

	code, stdout, stderr := runCLI("history", "--history", hist)
	g.Expect(code).To(Equal(0), stderr)
	want := hist + `: 12 runs; the last 10 values of each metric, oldest first

v1  v1@00000001  (2 prompt fingerprints in these runs)
  decision_accuracy     ▁▂▃▃▄▅▆▆▇█  0.810  +1.0 pp vs previous
    0.720 0.730 0.740 0.750 0.760 0.770 0.780 0.790 0.800 0.810
  wrong_execution_rate  ▅▅▅▅▅▅▅▅▅▅  0.050  ±0.0 pp vs previous
    0.050 0.050 0.050 0.050 0.050 0.050 0.050 0.050 0.050 0.050
  policy_violations     █▁▁█▁▁█▁▁█  1  +1 vs previous
    1 0 0 1 0 0 1 0 0 1

v2  v2@00000001  (2 prompt fingerprints in these runs)
  decision_accuracy     ▁▂▃▃▄▅▆▆▇█  0.910  +1.0 pp vs previous
    0.820 0.830 0.840 0.850 0.860 0.870 0.880 0.890 0.900 0.910
  wrong_execution_rate  ▅▅▅▅▅▅▅▅▅▅  0.050  ±0.0 pp vs previous
    0.050 0.050 0.050 0.050 0.050 0.050 0.050 0.050 0.050 0.050
  policy_violations     █▁▁█▁▁█▁▁█  1  +1 vs previous
    1 0 0 1 0 0 1 0 0 1

rates 0-1, change from the run before in percentage points; policy_violations is a count
`
	g.Expect(stdout).To(Equal(want))

	// Twenty values still fit 100 columns: they wrap under their metric.
	long := filepath.Join(t.TempDir(), "long.jsonl")
	writeMadeUpHistory(t, long, 30)
	code, stdout, stderr = runCLI("history", "--history", long, "--last", "20")
	g.Expect(code).To(Equal(0), stderr)
	for _, line := range strings.Split(stdout, "\n") {
		if !strings.HasPrefix(line, long) {
			g.Expect(utf8.RuneCountInString(line)).To(BeNumerically("<=", 100), line)
		}
	}
	g.Expect(stdout).To(ContainSubstring("  decision_accuracy     ▁▁▂▂▂▃▃▄▄▄▅▅▅▆▆▇▇▇██  0.990  +1.0 pp vs previous\n" +
		"    0.800 0.810 0.820 0.830 0.840 0.850 0.860 0.870 0.880 0.890 0.900 0.910 0.920 0.930 0.940 0.950\n" +
		"    0.960 0.970 0.980 0.990\n"))

	code, stdout, stderr = runCLI("history", "--history", hist, "--last", "3", "--json")
	g.Expect(code).To(Equal(0), stderr)
	var trend harness.Trend
	g.Expect(json.Unmarshal([]byte(stdout), &trend)).To(Succeed())
	g.Expect(trend.Total).To(Equal(12))
	g.Expect(trend.Versions[1].Metrics[0].Points).To(HaveLen(3))
	g.Expect(trend.Versions[1].Metrics[0].Points[2].Run).To(Equal(12))
	g.Expect(*trend.Versions[1].Metrics[0].Delta).To(BeNumerically("~", 0.01, 1e-9))
}

func TestHistoryNamesAMissingFileAndABadLine(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	missing := filepath.Join(dir, "none.jsonl")
	code, _, stderr := runCLI("history", "--history", missing)
	g.Expect(code).To(Equal(exitcode.Usage))
	g.Expect(stderr).To(ContainSubstring(missing + " does not exist: `routebench run` and `routebench gate` write it"))

	hist := filepath.Join(dir, "history.jsonl")
	writeMadeUpHistory(t, hist, 2)
	f, err := os.OpenFile(hist, os.O_APPEND|os.O_WRONLY, 0)
	g.Expect(err).NotTo(HaveOccurred())
	_, err = f.WriteString("{not json}\n")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(f.Close()).To(Succeed())
	code, _, stderr = runCLI("history", "--history", hist)
	g.Expect(code).To(Equal(exitcode.Usage))
	g.Expect(stderr).To(ContainSubstring(hist + ":3: not a history entry"))

	code, _, stderr = runCLI("report", "x.jsonl", "--history", hist)
	g.Expect(code).To(Equal(exitcode.Usage))
	code, _, stderr = runCLI("history", "--history", hist, "--last", "0")
	g.Expect(code).To(Equal(exitcode.Usage))
	g.Expect(stderr).To(ContainSubstring("--last must be >= 1"))
}
