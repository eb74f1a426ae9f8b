package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/internal/exitcode"
	"github.com/routebench/routebench/internal/outdir"
)

// smallRun is a quick run of one version over the get_order cases.
func smallRun(out string, extra ...string) []string {
	return append([]string{"run", "--config", "../../routebench.yaml", "--versions", "../../fixtures/ops/prompts/v1",
		"--suites", "../../suites/ops", "--label-filter", "skill:get_order", "--concurrency", "2", "--out", out}, extra...)
}

func TestOutputFolderInUseIsRefusedNamingTheHolder(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	// Held through another open file description: flock(2) makes this
	// process a stranger to the lock, as a second routebench would be.
	lock, err := outdir.Acquire(out)
	g.Expect(err).NotTo(HaveOccurred())
	want := fmt.Sprintf("%s/ is in use by routebench pid %d; wait for it or use another --out", out, os.Getpid())

	code, _, stderr := runCLI(smallRun(out)...)
	g.Expect(code).To(Equal(exitcode.Usage), stderr)
	g.Expect(stderr).To(ContainSubstring(want))
	_, err = os.Stat(filepath.Join(out, harness.ResultsFile))
	g.Expect(os.IsNotExist(err)).To(BeTrue(), "the second run writes nothing")

	code, _, stderr = runCLI("gate", "--config", "../../routebench.yaml", "--base-version", "../../fixtures/ops/prompts/v1",
		"--head-version", "../../fixtures/ops/prompts/v2", "--out", out)
	g.Expect(code).To(Equal(exitcode.Usage), stderr)
	g.Expect(stderr).To(ContainSubstring(want))

	// A run elsewhere, then merged into the held folder.
	other := filepath.Join(dir, "other")
	code, _, stderr = runCLI(smallRun(other)...)
	g.Expect(code).To(Equal(0), stderr)
	code, _, stderr = runCLI("merge", other, "-o", out)
	g.Expect(code).To(Equal(exitcode.Usage), stderr)
	g.Expect(stderr).To(ContainSubstring(want))

	// The holder is gone but its lock file, with its pid, stays behind:
	// that must not block.
	g.Expect(lock.Release()).To(Succeed())
	g.Expect(os.WriteFile(filepath.Join(out, outdir.LockFile), []byte("999999\n"), 0o644)).To(Succeed())
	code, _, stderr = runCLI(smallRun(out)...)
	g.Expect(code).To(Equal(0), stderr)
	// And the run released it: the next one may start.
	again, err := outdir.Acquire(out)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(again.Release()).To(Succeed())
}

func TestAnOutputFolderThatCannotBeUsedIsAUsageError(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	g.Expect(os.WriteFile(file, []byte("x"), 0o644)).To(Succeed())
	code, _, stderr := runCLI(smallRun(file)...)
	g.Expect(code).To(Equal(exitcode.Usage), stderr)
	g.Expect(stderr).To(ContainSubstring("output folder " + file + " cannot be used: it is a file, not a folder; give --out a folder"))

	dangling := filepath.Join(dir, "dangling")
	g.Expect(os.Symlink(filepath.Join(dir, "gone"), dangling)).To(Succeed())
	code, _, stderr = runCLI(smallRun(dangling)...)
	g.Expect(code).To(Equal(exitcode.Usage), stderr)
	g.Expect(stderr).To(ContainSubstring("cannot be used: it is a symlink to " + filepath.Join(dir, "gone") + ", which does not exist"))
}

func TestLabelFilterMatchingNothingIsAUsageError(t *testing.T) {
	g := NewWithT(t)
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := runCLI("run", "--config", "../../routebench.yaml", "--label-filter", "suite:adversrial && lang:zh", "--out", out)
	g.Expect(code).To(Equal(exitcode.Usage), stderr)
	g.Expect(stderr).To(ContainSubstring(`--label-filter "suite:adversrial && lang:zh" matches none of the`))
	g.Expect(stderr).To(ContainSubstring(`no case has label "suite:adversrial" (did you mean "suite:adversarial"?)`))
	g.Expect(stderr).To(ContainSubstring("\n  suite:   suite:adversarial, suite:boundary, suite:normal\n"))
	g.Expect(stderr).To(ContainSubstring("\n  version: version:v1, version:v2\n"))
	g.Expect(stderr).To(MatchRegexp(`\n  skill:   skill:[a-z_]+, `))
	g.Expect(stderr).To(ContainSubstring("\n  lang:    lang:en, lang:zh\n"))
	g.Expect(stderr).To(MatchRegexp(`\n  tags:    \S`))
	_, err := os.Stat(out)
	g.Expect(os.IsNotExist(err)).To(BeTrue(), "nothing is written")
}

func TestResumeFromACorruptResultsFileIsAUsageError(t *testing.T) {
	g := NewWithT(t)
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := runCLI(smallRun(out)...)
	g.Expect(code).To(Equal(0), stderr)
	path := filepath.Join(out, harness.ResultsFile)
	lines := strings.SplitAfter(readFile(t, path), "\n")
	g.Expect(len(lines)).To(BeNumerically(">", 3))
	lines[1] = "{\"format\":1,\"version\":\"v1@\n" // a broken line with lines after it
	g.Expect(os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644)).To(Succeed())

	code, _, stderr = runCLI(smallRun(out, "--resume")...)
	g.Expect(code).To(Equal(exitcode.Usage), stderr)
	g.Expect(stderr).To(ContainSubstring(path + ":2: not a result line"))
	g.Expect(stderr).To(ContainSubstring("run without --resume to start over"))
}

func TestSummaryRecordsItsResultsAndReportRewritesAStaleOne(t *testing.T) {
	g := NewWithT(t)
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := runCLI(smallRun(out)...)
	g.Expect(code).To(Equal(0), stderr)
	ok, why, err := harness.SummaryMatches(out)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(ok).To(BeTrue(), why)
	summary, err := harness.ReadSummaryFile(filepath.Join(out, harness.SummaryFile))
	g.Expect(err).NotTo(HaveOccurred())
	results, err := harness.ReadResults(filepath.Join(out, harness.ResultsFile))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(summary.Results.Lines).To(Equal(len(results)))
	entries, err := os.ReadDir(out)
	g.Expect(err).NotTo(HaveOccurred())
	for _, e := range entries {
		g.Expect(e.Name()).NotTo(ContainSubstring(".tmp-"), "no temporary file is left behind")
	}

	// Other results beside the old summary (as a run killed after
	// rewriting results.jsonl would leave): report says so and rewrites it.
	path := filepath.Join(out, harness.ResultsFile)
	lines := strings.SplitAfter(strings.TrimSuffix(readFile(t, path), "\n"), "\n")
	g.Expect(os.WriteFile(path, []byte(strings.Join(lines[:len(lines)-1], "")), 0o644)).To(Succeed())
	code, stdout, stderr := runCLI("report", path, "-o", filepath.Join(out, "report.html"))
	g.Expect(code).To(Equal(0), stderr)
	g.Expect(stdout).To(ContainSubstring(fmt.Sprintf("was scored from other results (%d lines", len(lines))))
	g.Expect(stdout).To(ContainSubstring("rewrote it from the results"))
	ok, why, err = harness.SummaryMatches(out)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(ok).To(BeTrue(), why)
}

func TestRunRemovesOutputsOfOldResultsBeforeWritingNewOnes(t *testing.T) {
	g := NewWithT(t)
	out := filepath.Join(t.TempDir(), "out")
	g.Expect(os.MkdirAll(out, 0o755)).To(Succeed())
	for _, name := range []string{harness.SummaryFile, "report.html", "junit.xml", "summary.md"} {
		g.Expect(os.WriteFile(filepath.Join(out, name), []byte("old"), 0o644)).To(Succeed())
	}
	// A run that fails half-way (bad input to resume from) after the
	// outputs were cleared must not leave the old ones claiming to be its.
	g.Expect(os.WriteFile(filepath.Join(out, harness.ResultsFile), []byte("not json\n{}\n"), 0o644)).To(Succeed())
	code, _, stderr := runCLI(smallRun(out, "--resume")...)
	g.Expect(code).To(Equal(exitcode.Usage), stderr)
	for _, name := range []string{harness.SummaryFile, "report.html", "junit.xml", "summary.md"} {
		_, err := os.Stat(filepath.Join(out, name))
		g.Expect(os.IsNotExist(err)).To(BeTrue(), "%s of the old results is gone", name)
	}
}
