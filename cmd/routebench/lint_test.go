package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routebench/routebench/internal/exitcode"
)

const lintData = "../../harness/lint/testdata/"

func lintCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"lint"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

func TestLintDemoConfigPassesWithWarnings(t *testing.T) {
	// --wide: one line per finding, which this test checks.
	code, out, errOut := lintCLI(t, "--config", "../../routebench.yaml", "--wide")
	if code != exitcode.Pass {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, "lint: 0 errors, ") || !strings.Contains(last, "v1@") || !strings.Contains(last, "v2@") {
		t.Errorf("last line should count findings and name both versions: %q", last)
	}
	want := "../../fixtures/ops/prompts/v1/skills.yaml:7: warning: when_not_to_use: query_orders_by_region has no when_not_to_use"
	if !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
	for _, l := range lines[:len(lines)-1] {
		if strings.Count(l, ": ") < 3 {
			t.Errorf("line is not file:line: severity: check: message: %q", l)
		}
	}
}

func TestLintJSON(t *testing.T) {
	code, out, errOut := lintCLI(t, "--versions", lintData+"thin", "--suites", lintData+"good-suites", "--json")
	if code != exitcode.GateFailed {
		t.Fatalf("exit %d, want 1; stderr %s", code, errOut)
	}
	var rep struct {
		Counts   map[string]int `json:"counts"`
		Findings []struct {
			Severity, Check, File string
			Line                  int
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if rep.Counts["error"] != 2 || len(rep.Findings) != rep.Counts["error"]+rep.Counts["warning"] {
		t.Errorf("counts %v do not match %d findings", rep.Counts, len(rep.Findings))
	}
	if !strings.Contains(errOut, "lint failed: 2 errors") {
		t.Errorf("stderr should say lint failed: %q", errOut)
	}
}

func TestLintWithoutSuitesSaysWhatIsSkipped(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "routebench.yaml")
	abs, _ := filepath.Abs(lintData + "good")
	if err := os.WriteFile(cfg, []byte("versions: ["+abs+"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := lintCLI(t, "--config", cfg)
	if code != exitcode.Pass {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	if !strings.Contains(errOut, "no suites given; coverage") {
		t.Errorf("stderr should say the suite checks are skipped: %q", errOut)
	}
	if !strings.HasPrefix(out, "lint: 0 errors, 0 warnings in good@") {
		t.Errorf("a clean version prints only the count: %q", out)
	}
}

func TestLintBrokenVersionIsALintError(t *testing.T) {
	code, out, _ := lintCLI(t, "--versions", lintData+"broken", "--suites", lintData+"good-suites")
	if code != exitcode.GateFailed {
		t.Fatalf("exit %d, want 1", code)
	}
	if !strings.Contains(out, "broken/skills.yaml:11: error: load: ") {
		t.Errorf("loader problems should be findings with file:line:\n%s", out)
	}
}

func TestLintUsageErrors(t *testing.T) {
	badCfg := filepath.Join(t.TempDir(), "routebench.yaml")
	if err := os.WriteFile(badCfg, []byte("versions: [a]\nsuits: [b]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	noVersions := filepath.Join(t.TempDir(), "routebench.yaml")
	if err := os.WriteFile(noVersions, []byte("suites: [b]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string][]string{
		"missing version dir": {"--versions", lintData + "nope", "--suites", lintData + "good-suites"},
		"missing suite path":  {"--versions", lintData + "good", "--suites", lintData + "nope"},
		"similarity too high": {"--versions", lintData + "good", "--max-similarity", "1.5"},
		"similarity zero":     {"--versions", lintData + "good", "--max-similarity", "0"},
		"bad config":          {"--config", badCfg},
		"no versions":         {"--config", noVersions},
		"bad git spec":        {"--versions", "git:HEAD"},
		"unknown revision":    {"--versions", "git:no-such-rev-xyz:fixtures/ops/prompts/v2"},
		"no dir at revision":  {"--versions", "git:HEAD:fixtures/ops/prompts/v99"},
		"unknown flag":        {"--versions", lintData + "good", "--strict"},
	} {
		code, _, errOut := lintCLI(t, args...)
		if code != exitcode.Usage {
			t.Errorf("%s: exit %d, want 2 (stderr %s)", name, code, errOut)
		}
	}
}

func TestLintGitRevision(t *testing.T) {
	code, out, errOut := lintCLI(t, "--versions", "git:HEAD:fixtures/ops/prompts/v2", "--suites", "../../suites/ops")
	if code != exitcode.Pass {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	if !strings.Contains(out, "git:HEAD:fixtures/ops/prompts/v2/skills.yaml:") || !strings.Contains(out, " in v2@") {
		t.Errorf("findings should name the git version's files:\n%s", out)
	}
}
