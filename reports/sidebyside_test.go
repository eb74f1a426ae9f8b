package reports_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/reports"
)

var _ = Describe("The side-by-side view", func() {
	It("marks the cases the versions disagree on, for its only-differences filter", func() {
		html := renderHTML(fixtureInput(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC), false))
		Expect(html).To(ContainSubstring(`<section id="side-by-side">`))
		var differ []string
		for _, c := range caseDataOf(html)["c"].([]any) {
			if c.(map[string]any)["df"] != nil {
				differ = append(differ, c.(map[string]any)["id"].(string))
			}
		}
		Expect(differ).To(Equal([]string{"alerts-vs-orders-002", "ambiguous-004", "injection-003"}))
	})

	It("is left out for one version", func() {
		in := fixtureInput(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC), false)
		in.Results = in.Results[:5]
		in.Summary.Versions = in.Summary.Versions[:1]
		in.Meta = reports.MetaFromResults(in.Results)
		Expect(renderHTML(in)).NotTo(ContainSubstring(`<section id="side-by-side">`))
	})
})
