package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routebench/routebench/internal/exitcode"
)

// A bad gate block is a config error for every command that loads the
// config, not only for gate (DESIGN §7): run and lint stop before work.
func TestRunAndLintRejectABadGateBlock(t *testing.T) {
	dir := t.TempDir()
	versions, err := filepath.Abs(lintData + "good")
	if err != nil {
		t.Fatal(err)
	}
	suites, err := filepath.Abs(lintData + "good-suites")
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "routebench.yaml")
	text := "versions: [" + versions + "]\nsuites: [" + suites + "]\ngate:\n" +
		"  thresholds: [decision_acuracy >= 0.85]\n  regression: {metrics: [decision_accuracy], alpha: 3}\n"
	if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	want := []string{
		cfg + `:4: gate.thresholds[0]: column 16: unknown metric "decision_acuracy" (did you mean decision_accuracy?)`,
		cfg + ":5: gate.regression.alpha: column 53: 3: a significance level is between 0 and 1, e.g. 0.05",
	}
	out := filepath.Join(dir, "out")
	for _, args := range [][]string{{"run", "--config", cfg, "--out", out}, {"lint", "--config", cfg}} {
		code, _, stderr := runCLI(args...)
		if code != exitcode.Usage {
			t.Errorf("%s: exit %d, want %d (stderr %s)", args[0], code, exitcode.Usage, stderr)
		}
		for _, w := range want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: stderr lacks %q:\n%s", args[0], w, stderr)
			}
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("run wrote %s for a config it rejected", out)
	}
}
