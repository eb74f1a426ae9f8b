package reports_test

import (
	"regexp"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("The per-skill table and the failure glossary", func() {
	html := func() string { return renderHTML(fixtureInput(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC), true)) }

	It("lists every expected skill, the ones acting wrongly under the head first", func() {
		page := html()
		Expect(page).To(ContainSubstring(`<section id="skills">`))
		skills := regexp.MustCompile(`(?s)<table class="per-skill">.*?</table>`).FindString(page)
		var order []string
		for _, m := range regexp.MustCompile(`<tr><th><code>([^<]+)</code></th>`).FindAllStringSubmatch(skills, -1) {
			order = append(order, m[1])
		}
		Expect(order).To(Equal([]string{"(clarify)", "query_orders_by_region", "(refuse)", "query_alerts_by_zone"}))
		// query_orders_by_region: v1 refuses one of its two cases, v2 too.
		Expect(skills).To(ContainSubstring(`<tr><th><code>query_orders_by_region</code></th><td class="num">50.0%</td><td class="num">0</td><td class="num">0</td><td class="num">2</td>`))
		// ambiguous-004: v2 executes where the case expects a clarify.
		Expect(skills).To(ContainSubstring(`<tr><th><code>(clarify)</code></th><td class="num">100.0%</td><td class="num">0</td><td class="num">1</td><td class="num">1</td><td class="num">0.0%</td><td class="num bad">1</td><td class="num">0</td><td class="num">1</td></tr>`))
	})

	It("explains each failure category the table shows, beside it", func() {
		page := html()
		failures := page[strings.Index(page, `<section id="failures">`):strings.Index(page, `<section id="skills">`)]
		Expect(failures).To(ContainSubstring(`<dt><code>judge_wrong_skill</code></dt><dd>the judge chose another skill`))
		Expect(failures).To(ContainSubstring(`<dt><code>false_refusal</code></dt><dd>refused where the case expects another action; the judge chose the expected skill, or none</dd>`))
		Expect(failures).NotTo(ContainSubstring(`<dt><code>recall_miss</code>`), "only the categories shown")
	})
})
