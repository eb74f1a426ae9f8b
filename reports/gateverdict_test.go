package reports_test

import (
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/harness/gate"
	"github.com/routebench/routebench/reports"
)

var _ = Describe("A gate's report.html", func() {
	It("opens with the gate verdict, NOT EVALUATED with its reason, before any metric", func() {
		html := renderHTML(reports.Input{Gate: []reports.GateVerdict{{
			Head: "v3@cccccccc", Base: "v3@bbbbbbbb", Outcome: "NOT EVALUATED",
			Reasons: []string{"not evaluated: persona.md changed; the judge does not read it", "<b>escaped</b>"},
		}}})
		at := strings.Index(html, `<section id="gate">`)
		Expect(at).To(BeNumerically(">", 0))
		Expect(at).To(BeNumerically("<", strings.Index(html, `<section id="metrics">`)))
		Expect(html).To(ContainSubstring(`<div class="verdict gate-banner gate-not-evaluated">`))
		Expect(html).To(ContainSubstring(`<strong class="outcome">NOT EVALUATED</strong> head <strong>v3@cccccccc</strong> against base <strong>v3@bbbbbbbb</strong>`))
		Expect(html).To(ContainSubstring("<li>not evaluated: persona.md changed; the judge does not read it</li>"))
		Expect(html).To(ContainSubstring("&lt;b&gt;escaped&lt;/b&gt;"))
	})

	It("shows every threshold with its measured value and the regression table before the metrics", func() {
		in := fixtureInput(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC), true)
		in.Meta.Versions[0].Role, in.Meta.Versions[1].Role = "base", "head"
		in.Gate = []reports.GateVerdict{{
			Head: in.Meta.Versions[1].ID, Base: in.Meta.Versions[0].ID, Outcome: "FAIL",
			Thresholds: []gate.ThresholdResult{
				{Threshold: gate.Threshold{Text: "decision_accuracy >= 0.85", Metric: harness.DecisionAccuracy, Group: "all"},
					Measured: true, Value: 0.4, N: 5, Reason: "0.400 (n=5), needs >= 0.85"},
				{Threshold: gate.Threshold{Text: "policy_violations == 0", Metric: harness.PolicyViolations, Group: "all"},
					Measured: true, Value: 0, N: 5, Pass: true},
			},
			Regressions: []gate.RuleResult{{Metric: harness.DecisionAccuracy, Measured: true, Base: 0.6, Head: 0.4,
				Drop: 0.2, MaxDrop: 0.02, Worse: 2, Better: 1, P: 0.5, Alpha: 0.05, Pass: true}},
		}}
		html := renderHTML(in)
		order := []string{`<section id="gate">`, `<strong class="outcome">FAIL</strong> head`,
			`<tr class="crossed"><td><code>decision_accuracy &gt;= 0.85</code></td><td class="num">40.0%</td><td class="num">5</td><td>✗ crossed</td>`,
			`<tr class="held"><td><code>policy_violations == 0</code></td><td class="num">0</td>`,
			`<table class="gate-checks regressions">`,
			`<td><code>decision_accuracy</code></td><td class="num">60.0%</td><td class="num">40.0%</td><td class="num">&#43;20.0 pp</td><td class="num">2.0 pp</td><td class="num">2 / 1</td><td class="num">p=0.500 (α 0.05)</td><td>✓ held</td>`,
			`<dl class="meta">`, `<section id="verdict">`, `<section id="metrics">`}
		last := -1
		for _, s := range order {
			at := strings.Index(html, s)
			Expect(at).To(BeNumerically(">", last), "%q should come after the one before it", s)
			last = at
		}
		// The head is labelled head, never base.
		Expect(html).To(ContainSubstring(`<strong>` + in.Meta.Versions[1].ID + `</strong> <span class="tag role-head">head</span>`))
		Expect(html).To(ContainSubstring(`<strong>` + in.Meta.Versions[0].ID + `</strong> <span class="tag role-base">base</span>`))
	})

	It("labels a gate's heads as heads when no base ran", func() {
		in := fixtureInput(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC), false)
		for i := range in.Meta.Versions {
			in.Meta.Versions[i].Role = "head"
		}
		html := renderHTML(in)
		Expect(html).NotTo(ContainSubstring(`role-base`))
		var md strings.Builder
		Expect(reports.WriteMarkdown(&md, in)).To(Succeed())
		Expect(md.String()).To(ContainSubstring("(head)"))
		Expect(md.String()).NotTo(ContainSubstring("(base)"))
	})

	It("shows no gate section outside a gate", func() {
		Expect(renderHTML(reports.Input{})).NotTo(ContainSubstring(`<section id="gate">`))
	})
})
