package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/internal/exitcode"
)

// untestedGate writes two copies of the demo version v2 that differ only in
// persona.md, a config with the given gate block over one made-up suite,
// and returns the config path and the two version directories.
func untestedGate(t *testing.T, gateBlock string) (config, base, head string) {
	t.Helper()
	dir := t.TempDir()
	base, head = filepath.Join(dir, "base", "ops"), filepath.Join(dir, "head", "ops")
	copyDir(t, "../../fixtures/ops/prompts/v2", base)
	copyDir(t, "../../fixtures/ops/prompts/v2", head)
	persona := filepath.Join(head, "persona.md")
	data, err := os.ReadFile(persona)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(persona, append(data, []byte("\nAnswer in the tone of a patient senior engineer.\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	suite := "suite: normal\ndefaults:\n  caller: {scopes: [orders:read, alerts:read]}\n  now: \"2026-11-30T10:00:00+08:00\"\ncases:\n" +
		"  - id: made-up-weather\n    input: what's the weather on the moon tomorrow\n    expect: {action: refuse}\n" +
		"  - id: made-up-vague\n    input: something about the east\n    expect: {action: clarify}\n"
	if err := os.WriteFile(filepath.Join(dir, "cases.yaml"), []byte(suite), 0o644); err != nil {
		t.Fatal(err)
	}
	config = filepath.Join(dir, "routebench.yaml")
	text := "suites: [" + filepath.Join(dir, "cases.yaml") + "]\ngate:\n  thresholds: [policy_violations == 0]\n" + gateBlock
	if err := os.WriteFile(config, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return config, base, head
}

func TestGateOnAChangeTheBuiltinJudgeCannotReadIsNotEvaluated(t *testing.T) {
	g := NewWithT(t)
	config, base, head := untestedGate(t, "")
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := runCLI("gate", "--config", config, "--base-version", base, "--head-version", head, "--out", out)
	g.Expect(code).To(Equal(exitcode.GateFailed), stdout+stderr)
	g.Expect(stdout).To(ContainSubstring("gate NOT EVALUATED for ops@"))
	// Long verdict lines wrap at 100 columns: compare the words.
	g.Expect(strings.Join(strings.Fields(stdout), " ")).To(ContainSubstring("not evaluated: persona.md changed; the judge does not read it"))
	g.Expect(stdout).NotTo(ContainSubstring("constraints.md"), "only the file that changed is named")
	g.Expect(stderr).To(ContainSubstring("verdict NOT EVALUATED"))

	md, err := os.ReadFile(filepath.Join(out, "summary.md"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(string(md)).To(HavePrefix("## routebench gate: ⚠️ NOT EVALUATED\n"))
	g.Expect(string(md)).To(ContainSubstring("**NOT EVALUATED**: not evaluated: persona.md changed; the judge does not read it"))

	html, err := os.ReadFile(filepath.Join(out, "report.html"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(string(html)).To(ContainSubstring(`<strong class="outcome">NOT EVALUATED</strong>`))
	g.Expect(string(html)).To(ContainSubstring("<li>not evaluated: persona.md changed; the judge does not read it</li>"))

	var rec struct {
		Pass     bool `json:"pass"`
		Verdicts []struct {
			Untested     []string `json:"untested_layers"`
			NotEvaluated bool     `json:"not_evaluated"`
		} `json:"verdicts"`
	}
	data, err := os.ReadFile(filepath.Join(out, "gate.json"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(json.Unmarshal(data, &rec)).To(Succeed())
	g.Expect(rec.Pass).To(BeFalse())
	g.Expect(rec.Verdicts[0].Untested).To(Equal([]string{"persona.md"}))
	g.Expect(rec.Verdicts[0].NotEvaluated).To(BeTrue())
}

func TestGateWithUntestedLayersWarnLetsTheOtherChecksDecide(t *testing.T) {
	g := NewWithT(t)
	config, base, head := untestedGate(t, "  untested_layers: warn\n")
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := runCLI("gate", "--config", config, "--base-version", base, "--head-version", head, "--out", out)
	g.Expect(code).To(Equal(exitcode.Pass), stdout+stderr)
	g.Expect(stdout).To(ContainSubstring("gate passed for ops@"))
	g.Expect(stdout).To(ContainSubstring("warning: not evaluated: persona.md changed; the judge does not read it"))
	md, err := os.ReadFile(filepath.Join(out, "summary.md"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(string(md)).To(HavePrefix("## routebench gate: ✅ passed\n"))
	g.Expect(string(md)).To(ContainSubstring("⚠️ **warning**: not evaluated: persona.md changed"))
}

func TestGateRejectsABadUntestedLayersValueBeforeRunning(t *testing.T) {
	g := NewWithT(t)
	config, base, head := untestedGate(t, "  untested_layers: warning\n")
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := runCLI("gate", "--config", config, "--base-version", base, "--head-version", head, "--out", out)
	g.Expect(code).To(Equal(exitcode.Usage), stderr)
	g.Expect(stderr).To(ContainSubstring(`gate.untested_layers: column 20: "warning" is not a choice (did you mean warn?)`))
	_, err := os.Stat(out)
	g.Expect(os.IsNotExist(err)).To(BeTrue(), "nothing ran")
}
