package reports_test

import (
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/harness/compare"
	"github.com/routebench/routebench/harness/stats"
	"github.com/routebench/routebench/reports"
)

var _ = Describe("the flipped cases of a large run", func() {
	// Hundreds of flips each way: more than either report lists. Every
	// input is longer than a flip shows, so each listed flip's note needs
	// the input's whole length.
	long := strings.Repeat("告", 100)
	results := syntheticRun(2000, 2)
	for i := range results {
		results[i].Input = long + results[i].Case
	}
	base, head := results[0].Version, results[len(results)-1].Version
	// The flips counted here, by case ID.
	passed := map[string]bool{}
	fixed, broken := 0, 0
	for _, r := range results {
		if r.Version == base {
			passed[r.Case] = r.Pass
		}
	}
	for _, r := range results {
		if r.Version == head && passed[r.Case] != r.Pass {
			if r.Pass {
				fixed++
			} else {
				broken++
			}
		}
	}
	input := func(paired bool) reports.Input {
		in := reports.Input{Meta: reports.MetaFromResults(results), Results: results, Summary: harness.Score(results)}
		if paired {
			var b, h []harness.Result
			for _, r := range results {
				if r.Version == base {
					b = append(b, r)
				} else {
					h = append(h, r)
				}
			}
			in.Comparisons = []compare.Comparison{compare.Paired(b, h, stats.DefaultThresholds)}
		}
		return in
	}
	flipSection := func(html string) string {
		start := strings.Index(html, `<section id="flips">`)
		Expect(start).To(BeNumerically(">=", 0))
		return html[start : start+strings.Index(html[start:], "</section>")]
	}

	It("has hundreds of flips each way", func() {
		Expect(fixed).To(BeNumerically(">", 100))
		Expect(broken).To(BeNumerically(">", 100))
	})

	DescribeTable("are counted in full and listed up to each report's limit",
		func(paired bool) {
			var page strings.Builder
			Expect(reports.WriteHTML(&page, input(paired))).To(Succeed())
			flips := flipSection(page.String())
			Expect(flips).To(ContainSubstring(itoa(fixed) + " fixed, " + itoa(broken) + " broken"))
			Expect(flips).To(ContainSubstring("broken (" + itoa(broken) + ")"))
			Expect(flips).To(ContainSubstring("fixed (" + itoa(fixed) + ")"))
			Expect(flips).To(ContainSubstring("and " + itoa(broken) + " in all: filter the case table by “broken”."))
			Expect(flips).To(ContainSubstring("and " + itoa(fixed) + " in all: filter the case table by “fixed”."))
			Expect(strings.Count(flips, `class="case-link"`)).To(Equal(200))
			// Each listed flip's note gives its own case's whole input.
			notes := regexp.MustCompile(`data-case="([^"]+)".*title="告{80}… \[truncated, (\d+) characters in all\]"`).FindAllStringSubmatch(flips, -1)
			Expect(notes).To(HaveLen(200))
			for _, n := range notes {
				Expect(n[2]).To(Equal(itoa(100+len(n[1]))), n[1])
			}

			var md strings.Builder
			Expect(reports.WriteMarkdown(&md, input(paired))).To(Succeed())
			Expect(md.String()).To(ContainSubstring(": " + itoa(broken) + " broken, " + itoa(fixed) + " fixed"))
			Expect(md.String()).To(ContainSubstring("**Broken** (10 of " + itoa(broken) + " shown)"))
			Expect(md.String()).To(ContainSubstring("**Fixed** (10 of " + itoa(fixed) + " shown)"))
			Expect(strings.Count(md.String(), "… \\[truncated, ")).To(Equal(20))
		},
		Entry("from a paired comparison", true),
		Entry("read off the results", false),
	)

	It("lists the same flips from a paired comparison as read off the results", func() {
		var paired, unpaired strings.Builder
		Expect(reports.WriteHTML(&paired, input(true))).To(Succeed())
		Expect(reports.WriteHTML(&unpaired, input(false))).To(Succeed())
		rows := regexp.MustCompile(`<tr><td><a href="#cases" class="case-link".*</tr>`)
		Expect(rows.FindAllString(flipSection(paired.String()), -1)).To(Equal(rows.FindAllString(flipSection(unpaired.String()), -1)))
	})
})
