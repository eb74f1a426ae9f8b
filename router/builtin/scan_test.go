package builtin

import (
	"math/rand/v2"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// matchesAgree expects scan to find exactly what re finds in every text,
// what naming re in a failure, and returns how many matches re found, so
// a spec can tell its texts exercised the pattern.
func matchesAgree(texts []string, re, scan func(string) [][]int, what string) int {
	found := 0
	for _, t := range texts {
		want := re(t)
		ExpectWithOffset(1, scan(t)).To(Equal(want), "%s on %q", what, t)
		found += len(want)
	}
	return found
}

// madeUpTexts glues pieces into texts, seeded: the scanners must find what
// their regexps find in every one.
func madeUpTexts(seed uint64, n int, pieces []string) []string {
	rng := rand.New(rand.NewPCG(seed, 15))
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for range 1 + rng.IntN(10) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		out[i] = b.String()
	}
	return out
}

var _ = Describe("hand-written params scanners", func() {
	It("find what explicitRe finds", func() {
		pieces := strings.Split("a|Z|_x|k9|alpha|9|07| |  |\t|\n|\r|\f|\v|=|:|==|[|]|\"|'|,|;|)|(|-|.|/|@|中|\xff|\xe2\x80|x=1|mode: 'fast'|w=[0.2, 0.8]|s=\"a b\"", "|")
		texts := append(madeUpTexts(1, 40000, pieces), "", "alpha=0.05", "order-service: disk full", "weights = [0.2, 0.8]", "a=[", "b='", "c=\"x", "10:30", "x:,", "_:)")
		found := matchesAgree(texts, func(t string) [][]int { return explicitRe.FindAllStringSubmatchIndex(t, -1) }, explicitMatches, "explicitRe")
		Expect(found).To(BeNumerically(">", 10000))
	})

	It("find what numberWordRe finds", func() {
		pieces := strings.Split("one|ONE|One|six|SIX|\u017fix|\u017fIX|\u212a|dozen|a dozen|A DOZEN|a  dozen|eight|eighteen|eighty|"+
			"ten|often|seven|seventeen|x|_|9| |-|.|中|\xff|\xe2\x84|\u212aey|thousand|hundred|twelve|zero|nine|ninety|s|e|n", "|")
		texts := append(madeUpTexts(2, 40000, pieces), "", "two hundred", "a dozen eggs", "someone", "one-two", "ſix", "oneſix")
		found := matchesAgree(texts, func(t string) [][]int { return numberWordRe.FindAllStringIndex(t, -1) }, numberWordMatches, "numberWordRe")
		Expect(found).To(BeNumerically(">", 10000))
	})
})

// unitAfterAll is unitAfter trying every unit in turn, as it did before it
// looked units up by their first rune.
func unitAfterAll(text string, to int) (dimension, int) {
	rest := text[to:]
	skip := 0
	if strings.HasPrefix(rest, " ") {
		skip = 1
	}
	cand := rest[skip:]
	for _, u := range unitWords {
		w := u.word
		if len(cand) < len(w) {
			continue
		}
		head := cand[:len(w)]
		if len(w) <= 3 {
			if head != w && !(isLowerWord(w) && strings.EqualFold(head, w) && head != strings.ToUpper(head)) {
				continue
			}
		} else if !strings.EqualFold(head, w) {
			continue
		}
		end := len(w)
		if end < len(cand) && (isLatinOrDigit(rune(cand[end])) || cand[end] == '_') && !strings.HasSuffix(w, "%") {
			continue
		}
		if skip == 1 && len(w) == 1 && w != "%" && w != "K" && w != "C" && w != "F" {
			continue
		}
		if skip == 1 && len(w) <= 2 && (w == "s" || w == "h" || w == "g" || w == "m") && end < len(cand) && cand[end] == '\'' {
			continue
		}
		return u.dim, skip + end
	}
	return dimNone, 0
}

var _ = Describe("reading a unit after a number", func() {
	It("finds the unit trying every unit in turn finds", func() {
		var pieces []string
		for _, u := range unitWords {
			pieces = append(pieces, u.word, strings.ToUpper(u.word), strings.ToLower(u.word))
		}
		pieces = append(pieces, " ", "  ", "x", "'", "_", "9", "\u212a", "\u017f", "\u212aelvin", "\u017feconds", "µs", "μ", "中", "\xff", "")
		texts := madeUpTexts(3, 30000, pieces)
		read := 0
		for _, t := range texts {
			for _, at := range []int{0, len(t) / 2, len(t)} {
				for at > 0 && at < len(t) && t[at]&0xC0 == 0x80 {
					at-- // a number ends at a rune boundary
				}
				d, n := unitAfter(t, at)
				wd, wn := unitAfterAll(t, at)
				Expect([2]int{int(d), n}).To(Equal([2]int{int(wd), wn}), "%q at %d", t, at)
				if n > 0 {
					read++
				}
			}
		}
		Expect(read).To(BeNumerically(">", 5000))
	})
})

var _ = Describe("a params pattern's literal prefix", func() {
	It("is in every token the pattern matches", func() {
		tokens := madeUpTexts(4, 20000, strings.Split("ORD-|ord-|TCK-|/|x|1|12345678|-|INC-|\u212a|/static", "|"))
		for _, pat := range []string{`^ORD-\d{8}$`, `^TCK-\d{6}$`, `^/`, `ORD-\d+`, `(?i)^tck-\d+$`, `^(ORD|INC)-\d+$`, `^[a-z]+$`} {
			cp := newCompiledPattern(pat)
			Expect(cp.anchor).NotTo(BeNil())
			for _, t := range tokens {
				if cp.anchor.MatchString(t) {
					Expect(t).To(ContainSubstring(cp.prefix), "%s %q", pat, t)
				}
			}
		}
		Expect(newCompiledPattern(`^ORD-\d{8}$`).prefix).To(Equal("ORD-"))
		Expect(newCompiledPattern(`(`).anchor).To(BeNil())
	})
})

var _ = Describe("a params pattern found in a request", func() {
	It("is what trying every token and match finds, remembered or not, with or without the pre-check", func() {
		texts := madeUpTexts(7, 20000, strings.Split("ORD-| ord-|TCK-|/|x|1|12345678|204518|0042| |-|zhang.wei|.|wei|a_b|INC-|\u212a|/static|中|, ", "|"))
		for _, pat := range []string{`^ORD-\d{8}$`, `^TCK-\d{6}$`, `^/`, `^[a-z][a-z0-9_-]*(\.[a-z0-9_-]+)+$`, `^INC-\d{4}$`, `^[a-z]+$`} {
			remembered := propPlan{kind: propPattern}
			Expect(compilePattern(&remembered, pat)).To(BeTrue())
			bare := remembered
			bare.pattern = nil // no memo, no pre-check: every token is tried
			found := 0
			for i, t := range texts {
				v, sp, ok := findPattern(&bare, t)
				got := patternIn(&remembered, t)
				Expect(got.ok).To(Equal(ok), "%s %q", pat, t)
				if ok {
					found++
					Expect(got.value).To(Equal(v), "%s %q", pat, t)
					Expect(got.at).To(Equal(sp), "%s %q", pat, t)
				}
				if i%3 == 0 { // asked again, as the next close candidate asks
					Expect(patternIn(&remembered, t)).To(Equal(got))
				}
			}
			Expect(found).To(BeNumerically(">", 0), pat)
		}
		Expect(newCompiledPattern(`^[a-z][a-z0-9_-]*(\.[a-z0-9_-]+)+$`).need).NotTo(BeNil())
	})
})

var _ = Describe("the numbers scanner", func() {
	It("finds what numberRe finds", func() {
		pieces := strings.Split("$|€|£|¥|￥|$ |¥\t|€\n| |  |\t|\v|,|.|..|1|42|123|1234|1,000|12,345|1,2345|,000|.5|0.25|3.|零|一|两|十|百|千|万|x|中|e|-|\xff|\xe2\x82|年", "|")
		texts := append(madeUpTexts(7, 40000, pieces), "", "$", "$ ", "1,000,000.50", "¥ 3,200", "共计三百二十元", ".5 and 0.75", "12,34", "1,234,5678")
		found := matchesAgree(texts, func(t string) [][]int { return numberRe.FindAllStringSubmatchIndex(t, -1) }, numberMatches, "numberRe")
		Expect(found).To(BeNumerically(">", 40000))
	})
})

var _ = Describe("the numbers pre-check", func() {
	It("passes every text numberRe matches in", func() {
		texts := madeUpTexts(5, 30000, strings.Split("$|€|¥|￥| |,|.|1|42|1,000|.5|零|一|两|十|百|千|万|x|中|e|-", "|"))
		skipped := 0
		for _, t := range texts {
			if !strings.ContainsAny(t, numeralRunes) {
				skipped++
				Expect(numberRe.MatchString(t)).To(BeFalse(), "%q", t)
			}
		}
		Expect(skipped).To(BeNumerically(">", 1000))
	})
})
