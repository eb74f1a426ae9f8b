package reports_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

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
		Expect(html).To(ContainSubstring(`<div class="verdict gate-not-evaluated">`))
		Expect(html).To(ContainSubstring(`<strong class="outcome">NOT EVALUATED</strong> <strong>v3@cccccccc</strong> against base <strong>v3@bbbbbbbb</strong>`))
		Expect(html).To(ContainSubstring("<li>not evaluated: persona.md changed; the judge does not read it</li>"))
		Expect(html).To(ContainSubstring("&lt;b&gt;escaped&lt;/b&gt;"))
	})

	It("shows no gate section outside a gate", func() {
		Expect(renderHTML(reports.Input{})).NotTo(ContainSubstring(`<section id="gate">`))
	})
})
