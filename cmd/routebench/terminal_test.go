package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/internal/exitcode"
	"github.com/routebench/routebench/internal/textwrap"
)

// Defect 6 of issue 11: Ginkgo's label-filter errors carry ANSI colour
// codes, which show as garbage in CI logs; stderr here is a buffer, not a
// terminal.
func TestLabelFilterErrorHasNoANSICodes(t *testing.T) {
	g := NewWithT(t)
	code, _, stderr := runCLI("run", "--versions", "../../fixtures/ops/prompts/v1", "--suites", "../../suites/ops", "--label-filter", "suite:(", "--out", t.TempDir()+"/out")
	g.Expect(code).To(Equal(exitcode.Usage))
	g.Expect(stderr).NotTo(ContainSubstring("\x1b["))
	g.Expect(stderr).NotTo(ContainSubstring("{{"))
	g.Expect(stderr).To(ContainSubstring("syntax error at column 6: missing set operation\n  suite:(\n       ^"))
}

// Defect 12 of issue 11: provider flags (--base-url, --max-cost, ...) were
// global, so the help of commands that never call a model listed them.
func TestProviderFlagsOnlyOnCommandsThatCallAProvider(t *testing.T) {
	g := NewWithT(t)
	for cmd, calls := range map[string]bool{
		"route": true, "run": true, "gate": true, "calibrate": true, "replay": true,
		"compare": false, "report": false, "merge": false, "lint": false, "import": false, "bfcl-check": false,
	} {
		code, stdout, stderr := runCLI(cmd, "--help")
		g.Expect(code).To(Equal(exitcode.Pass), "%s: %s", cmd, stderr)
		for _, flag := range []string{"--base-url", "--cassettes", "--max-cost", "--rpm", "--judge-tools-off"} {
			if calls {
				g.Expect(stdout).To(ContainSubstring(flag), "%s calls a provider", cmd)
			} else {
				g.Expect(stdout).NotTo(ContainSubstring(flag), "%s never calls a provider", cmd)
			}
		}
	}
	code, stdout, _ := runCLI("--help")
	g.Expect(code).To(Equal(exitcode.Pass))
	g.Expect(stdout).NotTo(ContainSubstring("--base-url"))
	code, _, stderr := runCLI("compare", "a.jsonl", "b.jsonl", "--max-cost", "1")
	g.Expect(code).To(Equal(exitcode.Usage))
	g.Expect(stderr).To(ContainSubstring("unknown flag: --max-cost"))
}

// Defect 10 of issue 11: the README's compare example must work after the
// README's run (out/results.jsonl holding v1 and v2), as written.
func TestReadmeCompareExampleWorksAfterTheReadmeRun(t *testing.T) {
	g := NewWithT(t)
	readme, err := os.ReadFile("../../README.md")
	g.Expect(err).NotTo(HaveOccurred())
	m := regexp.MustCompile("`routebench (compare [^`\\[]*)").FindSubmatch(readme)
	g.Expect(m).NotTo(BeNil(), "README lists a compare example")
	args := strings.Fields(string(m[1]))

	dir := t.TempDir()
	code, _, stderr := runCLI("run", "--versions", "../../fixtures/ops/prompts/v1,../../fixtures/ops/prompts/v2",
		"--suites", "../../suites/ops/normal.yaml", "--out", filepath.Join(dir, "out"))
	g.Expect(code).To(Equal(exitcode.Pass), stderr)
	t.Chdir(dir)
	code, stdout, stderr := runCLI(args...)
	g.Expect(code).To(Equal(exitcode.Pass), "routebench %s: %s", strings.Join(args, " "), stderr)
	g.Expect(stdout).To(ContainSubstring("base v1@"))

	// Without the flags, both are asked for in one message.
	code, _, stderr = runCLI("compare", "out", "out")
	g.Expect(code).To(Equal(exitcode.Usage))
	g.Expect(strings.Count(stderr, "\n")).To(Equal(1), stderr)
	g.Expect(stderr).To(ContainSubstring("name one with --base-version and one with --head-version"))
}

// widest is the display width of s's widest line.
func widest(s string) (int, string) {
	w, line := 0, ""
	for _, l := range strings.Split(s, "\n") {
		if n := textwrap.Width(l); n > w {
			w, line = n, l
		}
	}
	return w, line
}

// Defect 4 of issue 11: the run table was 203 columns and lint's findings
// ~350 and compare 293, so at 100 columns every row wrapped. Not a
// terminal: 100 columns.
func TestDefaultTablesFitOneHundredColumns(t *testing.T) {
	g := NewWithT(t)
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := runCLI("run", "--config", "../../routebench.yaml", "--out", out)
	g.Expect(code).To(Equal(exitcode.Pass), stderr)
	w, line := widest(stdout)
	g.Expect(w).To(BeNumerically("<=", 100), "run: %q", line)
	g.Expect(stdout).To(ContainSubstring("  group  "))
	g.Expect(stdout).To(ContainSubstring("  group        flows"), "the workflow table fits too")
	g.Expect(stdout).To(ContainSubstring("  group        convs"), "the conversation table fits too")
	g.Expect(stdout).NotTo(ContainSubstring("["), "compact: values only")

	code, wide, _ := runCLI("run", "--config", "../../routebench.yaml", "--out", out, "--wide")
	g.Expect(code).To(Equal(exitcode.Pass))
	g.Expect(wide).To(MatchRegexp(`0\.\d{3} \[0\.\d\d,[01]\.\d\d\]`), "--wide shows intervals")

	code, stdout, stderr = runCLI("compare", out, out, "--base-version", "v1", "--head-version", "v2")
	g.Expect(code).To(Equal(exitcode.Pass), stderr)
	w, line = widest(stdout)
	g.Expect(w).To(BeNumerically("<=", 100), "compare: %q", line)
	g.Expect(stdout).To(MatchRegexp(`\n    \S.* -> .*"`), "a flipped case: the change and the input under its id")
	_, wide, _ = runCLI("compare", out, out, "--base-version", "v1", "--head-version", "v2", "--wide")
	g.Expect(wide).To(ContainSubstring("95% interval"))

	code, stdout, stderr = runCLI("gate", "--config", "../../routebench.yaml", "--base-version", "../../fixtures/ops/prompts/v2",
		"--head-version", "../../fixtures/ops/prompts/v3", "--out", filepath.Join(t.TempDir(), "gate"))
	g.Expect(code).To(Equal(exitcode.GateFailed), stderr)
	w, line = widest(stdout)
	g.Expect(w).To(BeNumerically("<=", 100), "gate: %q", line)

	code, stdout, _ = runCLI("lint", "--config", "../../routebench.yaml")
	g.Expect(code).To(Or(Equal(exitcode.Pass), Equal(exitcode.GateFailed)))
	w, line = widest(stdout)
	g.Expect(w).To(BeNumerically("<=", 100), "lint: %q", line)
	g.Expect(stdout).To(MatchRegexp(`\n    \S`), "a long finding continues indented under its item")
}

// Issue 11 asks for every command's output at 100 columns: calibrate was
// 179 columns (its held-out table 123) and replay 284 (a trace step's JSON
// on one line). --wide keeps the whole lines.
func TestCalibrateAndReplayFitOneHundredColumns(t *testing.T) {
	g := NewWithT(t)
	args := []string{"calibrate", "--version", "../../fixtures/ops/prompts/v2", "--suites", "../../suites/ops"}
	code, stdout, stderr := runCLI(args...)
	g.Expect(code).To(Equal(exitcode.Pass), stderr)
	w, line := widest(stdout)
	g.Expect(w).To(BeNumerically("<=", 100), "calibrate: %q", line)
	g.Expect(stdout).To(MatchRegexp(`\n0\.\d{3} n=\d+ +`+"|"+`wrong_execution_rate +0\.\d{3} n=\d+ `), "compact: values only")
	g.Expect(stdout).To(ContainSubstring("c = the current read bands"), "the short marks are explained")
	_, wide, _ := runCLI(append(args, "--wide")...)
	g.Expect(wide).To(MatchRegexp(`0\.\d{3} \[0\.\d{3}, 0\.\d{3}\] n=\d+`), "--wide shows intervals")
	g.Expect(wide).To(ContainSubstring("<- current (read)"))

	dir, ver, suite := lockerWorkspace(t)
	out := filepath.Join(dir, "out")
	code, _, stderr = runCLI("run", "--versions", ver, "--suites", suite, "--out", out)
	g.Expect(code).To(Equal(exitcode.Pass), stderr)
	results := filepath.Join(out, harness.ResultsFile)
	code, stdout, stderr = runCLI("replay", results, "lk-open-1")
	g.Expect(code).To(Equal(exitcode.Pass), stdout+stderr)
	w, line = widest(stdout)
	g.Expect(w).To(BeNumerically("<=", 100), "replay: %q", line)
	g.Expect(stdout).To(MatchRegexp(`\n  bands +\{.*\n    \S`), "a long trace step continues indented under its stage")
	_, wide, _ = runCLI("replay", results, "lk-open-1", "--wide")
	g.Expect(wide).To(MatchRegexp(`\n  bands    \{.*-> confirm"\}\n`), "--wide: one line per step")
}

// Issue 11: a run of more than two versions compares each with the base
// and, from the third on, with the previous one; one file of two versions
// compares them as before.
func TestCompareOneFileOfSeveralVersionsPrintsTheSeries(t *testing.T) {
	g := NewWithT(t)
	dir, ver, suite := lockerWorkspace(t)
	v8, v9 := filepath.Join(dir, "prompts", "v8"), filepath.Join(dir, "prompts", "v9")
	copyDir(t, ver, v8)
	copyDir(t, ver, v9)
	g.Expect(os.WriteFile(filepath.Join(v9, "version.yaml"), []byte("description: lockers\nrouter:\n  top_k: 3\n  embedder: builtin\n  judge: builtin\n  bands: {execute: 0.99, clarify: 0.6}\n"), 0o644)).To(Succeed())
	out := filepath.Join(dir, "out")
	code, _, stderr := runCLI("run", "--versions", ver+","+v8+","+v9, "--suites", suite, "--out", out)
	g.Expect(code).To(Equal(exitcode.Pass), stderr)

	code, stdout, stderr := runCLI("compare", out)
	g.Expect(code).To(Equal(exitcode.Pass), stderr)
	g.Expect(stdout).To(ContainSubstring("versions: v7@"))
	g.Expect(stdout).To(ContainSubstring("v8 vs v7 (base)"))
	g.Expect(stdout).To(ContainSubstring("v9 vs v7 (base)"))
	g.Expect(stdout).To(ContainSubstring("v9 vs v8 (previous)"))
	w, line := widest(stdout)
	g.Expect(w).To(BeNumerically("<=", 100), "series: %q", line)
	code, same, _ := runCLI("compare", out, out)
	g.Expect(code).To(Equal(exitcode.Pass))
	g.Expect(same).To(Equal(stdout), "the same file twice is one file")

	two := filepath.Join(dir, "two")
	code, _, stderr = runCLI("run", "--versions", ver+","+v9, "--suites", suite, "--out", two)
	g.Expect(code).To(Equal(exitcode.Pass), stderr)
	code, stdout, stderr = runCLI("compare", two)
	g.Expect(code).To(Equal(exitcode.Pass), stderr)
	code, pair, _ := runCLI("compare", two, two, "--base-version", "v7", "--head-version", "v9")
	g.Expect(code).To(Equal(exitcode.Pass))
	g.Expect(stdout).To(Equal(pair), "two versions: the pair as today")
	g.Expect(stdout).NotTo(ContainSubstring("(previous)"))
}
