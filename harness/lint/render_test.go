package lint_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness/lint"
)

var sample = []lint.Finding{
	{Severity: lint.Warning, Version: "v1@aa", Skill: "a", File: "p/v1/skills.yaml", Line: 7, Check: lint.CheckWhenNotToUse, Message: "a has no when_not_to_use; add one"},
	{Severity: lint.Error, Version: "v1@aa", Skill: "a", File: "p/v1/skills.yaml", Line: 7, Check: lint.CheckConfirmGate, Message: "a has side_effect write but no confirm gate"},
	{Severity: lint.Warning, Version: "v1@aa", Skill: "a", File: "p/v1/skills.yaml", Line: 7, Check: lint.CheckCounterExamples, Message: "a has no counter_examples"},
	{Severity: lint.Warning, Version: "v1@aa", Skill: "b", File: "p/v1/skills.yaml", Line: 30, Check: lint.CheckExamples, Message: "b has 1 example"},
	{Severity: lint.Error, Version: "v1@aa", File: "p/v1", Check: lint.CheckFingerprint, Message: "no version"},
	{Severity: lint.Warning, Version: "v1@aa", Skill: "x", File: "s/normal.yaml", Line: 3, Check: lint.CheckSuiteSkill, Message: "case names x"},
}

var _ = Describe("rendering", func() {
	It("sorts by file, line, severity and check whatever the input order", func() {
		want := []string{
			"p/v1: error: fingerprint: no version",
			"p/v1/skills.yaml:7: error: confirm_gate: a has side_effect write but no confirm gate",
			"p/v1/skills.yaml:7: warning: counter_examples: a has no counter_examples",
			"p/v1/skills.yaml:7: warning: when_not_to_use: a has no when_not_to_use; add one",
			"p/v1/skills.yaml:30: warning: examples: b has 1 example",
			"s/normal.yaml:3: warning: suite_skill: case names x",
		}
		for seed := range uint64(5) {
			fs := append([]lint.Finding(nil), sample...)
			rand.New(rand.NewPCG(seed, 1)).Shuffle(len(fs), func(i, j int) { fs[i], fs[j] = fs[j], fs[i] })
			lint.Sort(fs)
			got := make([]string, len(fs))
			for i, f := range fs {
				got[i] = f.String()
			}
			Expect(got).To(Equal(want))
		}
	})

	It("writes one text line per finding and a count", func() {
		fs := append([]lint.Finding(nil), sample[:2]...)
		lint.Sort(fs)
		var b bytes.Buffer
		Expect(lint.WriteText(&b, lint.Report{Versions: []string{"v1@aa"}, Findings: fs})).To(Succeed())
		Expect(b.String()).To(Equal(
			"p/v1/skills.yaml:7: error: confirm_gate: a has side_effect write but no confirm gate\n" +
				"p/v1/skills.yaml:7: warning: when_not_to_use: a has no when_not_to_use; add one\n" +
				"lint: 1 error, 1 warning in v1@aa\n"))
	})

	It("writes JSON that reads back to the same findings, with counts", func() {
		var b bytes.Buffer
		rep := lint.Report{Versions: []string{"v1@aa"}, Findings: sample}
		Expect(lint.WriteJSON(&b, rep)).To(Succeed())
		var got struct {
			Format   int            `json:"format"`
			Versions []string       `json:"versions"`
			Counts   map[string]int `json:"counts"`
			Findings []lint.Finding `json:"findings"`
		}
		Expect(json.Unmarshal(b.Bytes(), &got)).To(Succeed())
		Expect(got.Format).To(Equal(1))
		Expect(got.Findings).To(Equal(sample))
		Expect(got.Counts).To(Equal(map[string]int{"error": 2, "warning": 4}))
	})

	It("writes empty lists, not null, for a clean run", func() {
		var b bytes.Buffer
		Expect(lint.WriteJSON(&b, lint.Report{})).To(Succeed())
		Expect(b.String()).To(ContainSubstring(`"findings": []`))
		Expect(b.String()).To(ContainSubstring(`"versions": []`))
	})
})
