package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routebench/routebench/internal/exitcode"
)

// gateRepo makes a git repository in a temp dir holding one prompt version
// (prompts/ops, a copy of fixtures v2), the normal ops suite and a
// routebench.yaml with the given gate block, commits it, and changes the
// working directory into it. It returns the repository root.
func gateRepo(t *testing.T, gateBlock string) string {
	t.Helper()
	root := t.TempDir()
	copyDir(t, "../../fixtures/ops/prompts/v2", filepath.Join(root, "prompts", "ops"))
	copyFile(t, "../../suites/ops/normal.yaml", filepath.Join(root, "suites", "normal.yaml"))
	config := "versions: [prompts/ops]\nsuites: [suites]\n" + gateBlock
	if err := os.WriteFile(filepath.Join(root, "routebench.yaml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, root, "init", "-q", "-b", "main")
	git(t, root, "add", ".")
	git(t, root, "commit", "-q", "-m", "base")
	t.Chdir(root)
	return root
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	c := exec.Command("git", append([]string{"-c", "user.name=routebench", "-c", "user.email=rb@example.invalid"}, args...)...)
	c.Dir = dir
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		copyFile(t, filepath.Join(from, e.Name()), filepath.Join(to, e.Name()))
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readGateRecord(t *testing.T, dir string) gateRecord {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "gate.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec gateRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatalf("gate.json: %v", err)
	}
	return rec
}

const passingGate = `gate:
  thresholds:
    - policy_violations == 0
    - decision_accuracy >= 0
  regression:
    metrics: [decision_accuracy, param_error_rate]
    max_drop: 0.02
    alpha: 0.05
`

// Issue 11, item 14: an unchanged tree is measured like any other: the
// head is run and held to the thresholds (a version is compared with
// itself, so the base is not run again), never skipped as "no changes".
func TestGateUnchangedVersionPasses(t *testing.T) {
	root := gateRepo(t, passingGate)
	code, out, errOut := cli("gate", "--base", "HEAD", "--out", "gate-out")
	if code != exitcode.Pass {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "gate passed for ops@") {
		t.Errorf("stdout lacks the verdict:\n%s", out)
	}
	for _, f := range []string{"results.jsonl", "summary.json", "junit.xml", "report.html", "summary.md", "gate.json", "compare-ops.txt"} {
		if _, err := os.Stat(filepath.Join(root, "gate-out", f)); err != nil {
			t.Errorf("missing output %s: %v", f, err)
		}
	}
	// Unchanged since the base: the base is not run again.
	if _, err := os.Stat(filepath.Join(root, "gate-out", "base", "results.jsonl")); err == nil {
		t.Error("the unchanged base version was run")
	}
	rec := readGateRecord(t, filepath.Join(root, "gate-out"))
	if !rec.Pass || len(rec.Verdicts) != 1 || len(rec.Verdicts[0].Thresholds) != 2 || len(rec.Verdicts[0].Regressions) != 2 {
		t.Errorf("gate.json: %+v", rec)
	}
	md, _ := os.ReadFile(filepath.Join(root, "gate-out", "summary.md"))
	if !strings.HasPrefix(string(md), "## routebench gate: ✅ passed") {
		t.Errorf("summary.md does not lead with the verdict:\n%.300s", md)
	}
}

func TestGateChangedVersionIsComparedWithItsBase(t *testing.T) {
	v3, err := filepath.Abs("../../fixtures/ops/prompts/v3")
	if err != nil {
		t.Fatal(err)
	}
	root := gateRepo(t, passingGate)
	// The working tree gets v3: v2 after a bad wording edit.
	copyDir(t, v3, filepath.Join(root, "prompts", "ops"))
	code, out, errOut := cli("gate", "--base", "HEAD", "--out", "gate-out")
	if code != exitcode.Pass && code != exitcode.GateFailed {
		t.Fatalf("exit %d\nstderr:\n%s", code, errOut)
	}
	rec := readGateRecord(t, filepath.Join(root, "gate-out"))
	v := rec.Verdicts[0]
	if v.Base == "" || v.Base == v.Head || !strings.HasPrefix(v.Base, "ops@") {
		t.Errorf("verdict base %q, head %q: want two fingerprints of ops", v.Base, v.Head)
	}
	if (code == exitcode.Pass) != rec.Pass || rec.Pass != v.Pass {
		t.Errorf("exit %d but gate.json pass=%v", code, rec.Pass)
	}
	for _, f := range []string{"base/results.jsonl", "base/summary.json", "compare-ops.html", "compare-ops.txt"} {
		if _, err := os.Stat(filepath.Join(root, "gate-out", f)); err != nil {
			t.Errorf("missing output %s: %v", f, err)
		}
	}
	if !strings.Contains(out, "== ops\nbase "+v.Base+"  head "+v.Head) {
		t.Errorf("stdout lacks the comparison header:\n%.500s", out)
	}
	t.Logf("v2 -> v3 gate: pass=%v\n%s", rec.Pass, v.Message())
}

func TestGateFailsOnACrossedThreshold(t *testing.T) {
	root := gateRepo(t, "gate:\n  thresholds:\n    - policy_violations == 0\n")
	// The new threshold is a change to gate: the head is run against it.
	config := "versions: [prompts/ops]\nsuites: [suites]\ngate:\n  thresholds:\n    - wrong_execution_rate < 0\n    - policy_violations == 0\n"
	if err := os.WriteFile(filepath.Join(root, "routebench.yaml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := cli("gate", "--base", "HEAD", "--out", "gate-out")
	if code != exitcode.GateFailed {
		t.Fatalf("exit %d, want 1\n%s", code, out)
	}
	if !strings.Contains(out, "metrics wrong_execution_rate crossed") || !strings.Contains(out, "threshold wrong_execution_rate < 0: ") {
		t.Errorf("failure message does not name the threshold:\n%s", out)
	}
}

func TestGateConfigAndUsageErrors(t *testing.T) {
	gateRepo(t, "gate:\n  thresholds:\n    - decision_acuracy >= 0.85\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"gate", "--base", "HEAD"}, `routebench.yaml:5: gate.thresholds[0]: column 7: unknown metric "decision_acuracy" (did you mean decision_accuracy?)`},
		{[]string{"gate"}, "give either --base REV or both --base-version DIR and --head-version DIR"},
		{[]string{"gate", "--base", "HEAD", "--base-version", "prompts/ops"}, "give either --base REV"},
		{[]string{"gate", "--base-version", "prompts/ops"}, "go together"},
		{[]string{"gate", "--config", "nope.yaml", "--base", "HEAD"}, "nope.yaml"},
	} {
		code, _, errOut := cli(tc.args...)
		if code != exitcode.Usage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 mentioning %q", tc.args, code, errOut, tc.want)
		}
	}
}

func TestGateUnknownRevisionIsAUsageError(t *testing.T) {
	gateRepo(t, passingGate)
	code, _, errOut := cli("gate", "--base", "no-such-branch")
	if code != exitcode.Usage || !strings.Contains(errOut, "--base no-such-branch is not a commit here") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

func TestGateNewVersionIsCheckedAgainstThresholdsOnly(t *testing.T) {
	root := gateRepo(t, passingGate)
	copyDir(t, filepath.Join(root, "prompts", "ops"), filepath.Join(root, "prompts", "ops2"))
	config := "versions: [prompts/ops, prompts/ops2]\nsuites: [suites]\n" + passingGate
	if err := os.WriteFile(filepath.Join(root, "routebench.yaml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := cli("gate", "--base", "HEAD", "--out", "gate-out")
	if code != exitcode.Pass {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	rec := readGateRecord(t, filepath.Join(root, "gate-out"))
	if len(rec.Verdicts) != 2 {
		t.Fatalf("%d verdicts, want 2", len(rec.Verdicts))
	}
	v := rec.Verdicts[1]
	if v.Base != "" || len(v.Regressions) != 0 || !containsPrefix(v.Notes, "prompts/ops2 does not exist at HEAD") {
		t.Errorf("new version verdict: base %q, %d regressions, notes %q", v.Base, len(v.Regressions), v.Notes)
	}
}

func TestGateTwoDirectories(t *testing.T) {
	gateRepo(t, passingGate)
	code, out, errOut := cli("gate", "--base-version", "prompts/ops", "--head-version", "prompts/ops", "--out", "two")
	if code != exitcode.Pass {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	vs := readGateRecord(t, "two").Verdicts
	if len(vs) != 1 || vs[0].Base != vs[0].Head {
		t.Errorf("verdicts: %+v", vs)
	}
}

func containsPrefix(xs []string, prefix string) bool {
	for _, x := range xs {
		if strings.HasPrefix(x, prefix) {
			return true
		}
	}
	return false
}

// Issue 11, item 14: a failed verdict lists its worst broken cases, and the
// comparison above it listed them again.
func TestGateStdoutListsBrokenCasesOnce(t *testing.T) {
	v3, err := filepath.Abs("../../fixtures/ops/prompts/v3")
	if err != nil {
		t.Fatal(err)
	}
	root := gateRepo(t, "gate:\n  regression:\n    metrics: [decision_accuracy]\n    max_drop: 0\n    alpha: 0.5\n")
	copyDir(t, v3, filepath.Join(root, "prompts", "ops"))
	code, out, errOut := cli("gate", "--base", "HEAD", "--out", "gate-out")
	if code != exitcode.GateFailed {
		t.Fatalf("exit %d, want 1 (v2 -> v3 breaks cases)\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	rec := readGateRecord(t, filepath.Join(root, "gate-out"))
	if len(rec.Verdicts) != 1 || len(rec.Verdicts[0].Broken) == 0 {
		t.Fatalf("want a verdict naming broken cases: %+v", rec)
	}
	for _, f := range rec.Verdicts[0].Broken {
		if n := strings.Count(out, " "+f.Case+" ") + strings.Count(out, " "+f.Case+":"); n != 1 {
			t.Errorf("broken case %s is listed %d times on stdout:\n%s", f.Case, n, out)
		}
	}
}
