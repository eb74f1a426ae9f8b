package prefilter_test

import (
	"regexp"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router/internal/prefilter"
)

var _ = Describe("leading literals", func() {
	DescribeTable("are read off the regexp's syntax", func(pattern string, want []string) {
		got := prefilter.LeadsOf(regexp.MustCompile(pattern))
		if want == nil {
			Expect(got).To(BeNil())
			return
		}
		Expect([]string(got)).To(ConsistOf(want))
	},
		Entry("an alternation of cue words", `(?:titled|called|关于)\s*(.+)`, []string{"titled", "called", "关于"}),
		Entry("after zero-width assertions", `\bfor\b|^(?:since)`, []string{"for", "since"}),
		Entry("a repeat at least once", `(?:ab){2,}c`, []string{"ab"}),
		Entry("not a case-folded literal", `(?i)void`, nil),
		Entry("not an optional start", `(?:the\s+)?(\d+)th`, nil),
		Entry("a class of a few runes", `[:：]\s*(.+)`, []string{":", "："}),
		Entry("not a class of many", `[a-z]+x`, nil),
		Entry("not a negated class", `[^a]x`, nil),
		Entry("not a class holding U+FFFD", `[a\x{FFFD}]b`, nil),
		Entry("not when one branch has none", `abc|\w+`, nil),
		Entry("digits, a class of ten", `x|\d`, []string{"x", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}),
		Entry("up to an invalid byte's U+FFFD", "ab\uFFFDc", []string{"ab"}),
	)

	It("say where a search may start: a byte before the first written, or nowhere", func() {
		ls := prefilter.LeadsOf(regexp.MustCompile(`(?:called|about)\s*(.+)`))
		from, ok := ls.From("a note about a ticket called x")
		Expect(ok).To(BeTrue())
		Expect(from).To(Equal(len("a note ") - 1))
		from, ok = ls.From("about")
		Expect(ok).To(BeTrue())
		Expect(from).To(Equal(0))
		_, ok = ls.From("nothing here")
		Expect(ok).To(BeFalse())
		from, ok = prefilter.Leads(nil).From("anything")
		Expect(from).To(Equal(0))
		Expect(ok).To(BeTrue())
	})

	It("leave a filtered search's answers the regexp's own, with \\b before the lead", func() {
		re := regexp.MustCompile(`\bfor\s+(\w+)`)
		f := prefilter.Filter(re)
		for _, text := range []string{"before for x", "forfor y", "a for b, c for d", "中for x", "nothing"} {
			Expect(f.FindAllSubmatchIndex(text)).To(Equal(re.FindAllStringSubmatchIndex(text, -1)), text)
			Expect(f.FindSubmatchIndex(text)).To(Equal(re.FindStringSubmatchIndex(text)), text)
			Expect(f.MatchString(text)).To(Equal(re.MatchString(text)), text)
		}
	})
})
