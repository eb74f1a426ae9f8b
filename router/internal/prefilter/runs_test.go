package prefilter_test

import (
	"math/rand/v2"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router/internal/prefilter"
)

// windows lists Runs as [from, to) pairs.
func windows(a *prefilter.Alphabet, text string) [][2]int {
	var out [][2]int
	for from, to := range a.Runs(text) {
		out = append(out, [2]int{from, to})
	}
	return out
}

var _ = Describe("a regexp's alphabet", func() {
	alphabetOf := func(p string) *prefilter.Alphabet { return prefilter.AlphabetOf(regexp.MustCompile(p)) }

	It("is known only for matches of bounded runes, never empty, asserting at most word boundaries", func() {
		Expect(alphabetOf(`\d{4}-\d{2}`)).NotTo(BeNil())
		Expect(alphabetOf(`\bsku\d+\b`)).NotTo(BeNil())
		Expect(alphabetOf(`(?i)sku|件`)).NotTo(BeNil())
		Expect(alphabetOf(`sku.\d`)).To(BeNil())    // any rune
		Expect(alphabetOf(`[^"]+`)).To(BeNil())     // holds U+FFFD
		Expect(alphabetOf(`^\d+`)).To(BeNil())      // a text anchor
		Expect(alphabetOf(`(?m)\d+$`)).To(BeNil())  // a line anchor
		Expect(alphabetOf(`\d*`)).To(BeNil())       // matches empty
		Expect(alphabetOf(`(?:ab)?\b`)).To(BeNil()) // matches empty
	})

	It("yields the long enough runs with a byte of context either side", func() {
		a := alphabetOf(`\d{3}`)
		Expect(windows(a, "ab 12 345 6789")).To(Equal([][2]int{{5, 10}, {9, 14}}))
		Expect(windows(a, "123")).To(Equal([][2]int{{0, 3}}))
		Expect(windows(a, "")).To(BeEmpty())
		// Runes outside ASCII count as one; a stray byte ends a run.
		h := alphabetOf(`[一二三]{2}`)
		Expect(windows(h, "x一二y三\xff三")).To(Equal([][2]int{{0, 8}}))
	})

	It("skips runs without a rune every match holds", func() {
		a := alphabetOf(`[ ,]*(\d+|x)`)
		Expect(windows(a, "a , b 7,c")).To(Equal([][2]int{{4, 9}}))
		Expect(windows(a, "a , b")).To(BeEmpty())
	})

	It("folds a case-insensitive literal into every rune it matches", func() {
		a := alphabetOf(`(?i)k\d`)
		Expect(windows(a, "..\u212a7..")).To(Equal([][2]int{{1, 7}}))
		Expect(windows(a, "..K7..k8")).To(Equal([][2]int{{1, 5}, {5, 8}}))
	})
})

var _ = Describe("a filtered regexp", func() {
	// Made-up patterns with the shapes extraction rules have: captures that
	// do not take part, word boundaries, case folding, Han literals.
	patterns := []string{
		`(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})`,
		`\b(\d{1,2})[-/.](\d{1,2})[-/.](\d{4})\b`,
		`今天|今日|\btoday\b`,
		`(?i)inv-\d{3}`,
		`(?i)\bk(\d+)\b`,
		`\B\d+x`,
		`(a|(b))+c?`,
		`[0-9_]+\b`,
		`(?:号|日)\s*(\d+)`,
		`(?:标题|title)\s*[:：]?\s*(.+)`,
		`x(?:y|z)*`,
	}
	pieces := []string{"2026-11-03", "11/3/2026", "1.2.2030", "12026-1-1", "today", "Today", "todays", "今天", "今日", "日 7", "号12",
		"inv-123", "INV-1234", "k12", "K7", "\u212a9", "_", "9x", "x", "ab", "bbc", "a", "title: 看", "标题", "xyzzy",
		" ", "  ", "\n", "-", "/", ".", "é", "\xff", "\xe4\xbb", "\ufffd", "q", "zz", "42"}
	random := func(rng *rand.Rand, n int) string {
		var b strings.Builder
		for b.Len() < n {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}

	It("finds what the regexp finds, in short and long texts", func() {
		rng := rand.New(rand.NewPCG(3, 11))
		found := 0
		for _, p := range patterns {
			re := regexp.MustCompile(p)
			f := prefilter.Filter(re)
			for i := range 1500 {
				text := random(rng, []int{8, 40, 300, 1200}[i%4])
				want := re.FindAllStringSubmatchIndex(text, -1)
				Expect(f.FindAllSubmatchIndex(text)).To(Equal(want), "%s in %q", p, text)
				Expect(f.FindAllIndex(text)).To(Equal(re.FindAllStringIndex(text, -1)), "%s in %q", p, text)
				Expect(f.FindSubmatchIndex(text)).To(Equal(re.FindStringSubmatchIndex(text)), "%s in %q", p, text)
				found += len(want)
			}
		}
		Expect(found).To(BeNumerically(">", 10000))
	})

	It("does not search a text without the literals every match holds", func() {
		f := prefilter.Filter(regexp.MustCompile(`(?i)inv-\d{3}`))
		Expect(f.FindAllIndex(strings.Repeat("no invoice 123 ", 40))).To(BeNil())
		Expect(f.FindAllIndex(strings.Repeat("x", 300) + "INV-123")).To(Equal([][]int{{300, 307}}))
	})
})
