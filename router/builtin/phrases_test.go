package builtin

import (
	"fmt"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("fixed phrases read from a regexp", func() {
	It("find what the date rules' regexps find, on made-up texts", func() {
		pieces := strings.Split("今天|今日|今|天|日|昨天|前天|上周|上个星期|上星期|上个|礼拜|上礼拜|本周|这周|这个星期|本星期|本月|这个月|上个月|上月|月|"+
			"today|todays|yesterday|the day before yesterday|day before|last week|last weekend|previous week|this week|this month|last month|previous month|"+
			"to|day| |  |x|_|9|-|.|'|\t|中|\xff|\xe4\xbb|é", "|")
		texts := append(madeUpTexts(21, 30000, pieces), "", "xtoday", "today_", "today9", "9today", "-today-", "上个上个月", "今今天")
		rules := 0
		for i, r := range dateRules {
			if r.phrases == nil {
				continue
			}
			rules++
			found := matchesAgree(texts, func(t string) [][]int { return r.re.FindAllStringSubmatchIndex(t, -1) },
				func(t string) [][]int { return fixedPhraseMatches(r.phrases, t) }, fmt.Sprintf("rule %d", i))
			Expect(found).To(BeNumerically(">", 100), "rule %d", i)
		}
		Expect(rules).To(Equal(7), "today, yesterday, the day before, last and this week, this and last month")
	})

	It("find what the regexps find in long texts of many matches", func() {
		// Phrases written thousands of times, some where their \b does not
		// hold, interleaved with others: each phrase's next place is
		// remembered across matches, and must never be passed over.
		texts := []string{
			strings.Repeat("今天xtodayx", 3000),
			strings.Repeat("what did i buy today and ", 2000) + "今日",
			strings.Repeat("上个月 last month 上月xlast monthx ", 1500),
			strings.Repeat("today", 4000) + " today " + strings.Repeat("今天今日", 2000),
		}
		for i, r := range dateRules {
			if r.phrases == nil {
				continue
			}
			for _, t := range texts {
				Expect(fixedPhraseMatches(r.phrases, t)).To(Equal(r.re.FindAllStringSubmatchIndex(t, -1)), "rule %d on a text of %d bytes", i, len(t))
			}
		}
	})

	It("are read in the regexp's order of preference", func() {
		Expect(fixedPhrasesOf(`a(?:b)?|\bcd\b`)).To(Equal([]fixedPhrase{{text: "ab"}, {text: "a"}, {text: "cd", before: true, after: true}}))
		Expect(fixedPhrasesOf(`x[yz]`)).To(Equal([]fixedPhrase{{text: "xy"}, {text: "xz"}}))
		re := regexp.MustCompile(`a(?:b)?|\bcd\b`)
		for _, t := range []string{"ab", "a", "abcd", "a cd", "xcd", "cdab"} {
			Expect(fixedPhraseMatches(fixedPhrasesOf(re.String()), t)).To(Equal(re.FindAllStringSubmatchIndex(t, -1)), "%q", t)
		}
	})

	It("are not read from a regexp of anything else", func() {
		for _, expr := range []string{`a*`, `(?i)today`, `a\bb`, `x?`, `\d{4}`, `[a-z]+`, `a.b`, `^a`, `a??`, `(`} {
			Expect(fixedPhrasesOf(expr)).To(BeNil(), expr)
		}
	})
})
