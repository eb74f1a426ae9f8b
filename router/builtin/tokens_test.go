package builtin

import (
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// rawTokensByRune is rawTokens as it was written before it read ASCII
// bytes without decoding: rune by rune, the wrapping punctuation trimmed
// by strings.ContainsRune.
func rawTokensByRune(text string) []span {
	var out []span
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		from, to := start, end
		start = -1
		for from < to && strings.ContainsRune(`([{<"'>`, rune(text[from])) {
			from++
		}
		for to > from && strings.ContainsRune(`,.;:!?)]}>"'`, rune(text[to-1])) {
			to--
		}
		if from < to {
			out = append(out, span{from, to})
		}
	}
	for i, r := range text {
		if unicode.IsSpace(r) || isHan(r) || r >= 0x3000 && r <= 0x303f || r >= 0xff00 && r <= 0xffef {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(text))
	return out
}

var _ = Describe("rawTokens", func() {
	It("splits as the rune-by-rune reading does", func() {
		pieces := strings.Split("ORD-1|(ORD-2),|x|'q'|\"a\"|[b]|{c}|<d>|.|,|;|:|!|?| |\t|\n|\v|\f|\r|\u0085|\u00a0|\u2028|\u3000|，|。|！|ｘ|华东|\xff|\xe2\x84|é|/static/app.js|a@b.co|>>|((", "|")
		texts := append(madeUpTexts(7, 20000, pieces), "", " ", "(", "''", "a", "refund (ORD-20261103), please.")
		tokens := 0
		for _, t := range texts {
			want := rawTokensByRune(t)
			Expect(slices.Collect(rawTokens(t))).To(Equal(want), "on %q", t)
			tokens += len(want)
		}
		Expect(tokens).To(BeNumerically(">", 20000))
	})

	It("stops when the caller does", func() {
		n := 0
		for range rawTokens("a b c d") {
			if n++; n == 2 {
				break
			}
		}
		Expect(n).To(Equal(2))
	})
})

// splitClausesByRune is splitClauses as it was written before it read
// ASCII bytes without decoding.
func splitClausesByRune(text string) []span {
	var out []span
	start := 0
	emit := func(end int) {
		seg := text[start:end]
		lead := len(seg) - len(strings.TrimLeftFunc(seg, trimmable))
		if v := strings.TrimFunc(seg, trimmable); v != "" {
			out = append(out, span{start + lead, start + lead + len(v)})
		}
	}
	for i, r := range text {
		if strings.ContainsRune("，,；;。！？!?\n、", r) {
			emit(i)
			start = i + utf8.RuneLen(r)
		}
	}
	emit(len(text))
	return out
}

var _ = Describe("splitClauses", func() {
	It("splits as the rune-by-rune reading does", func() {
		pieces := strings.Split("新建|工单|，|,|；|;|。|！|？|!|?|\n|、| |x|'|\"|.|-|/|#|\xff|\xe2\x80|\ufffd|：|abc", "|")
		texts := append(madeUpTexts(9, 20000, pieces), "", ",", "a,b", "新建工单，库存")
		clauses := 0
		for _, t := range texts {
			want := splitClausesByRune(t)
			Expect(splitClauses(t)).To(Equal(want), "on %q", t)
			clauses += len(want)
		}
		Expect(clauses).To(BeNumerically(">", 20000))
	})
})

// BenchmarkSplitClausesLong splits 50 KB of short clauses.
func BenchmarkSplitClausesLong(b *testing.B) {
	text := strings.Repeat("ab, 新建；c!", 3500)
	for b.Loop() {
		if n := len(splitClauses(text)); n != 10500 {
			b.Fatal("clauses lost", n)
		}
	}
}

var _ = Describe("runeSet", func() {
	It("finds what strings.ContainsAny finds", func() {
		pieces := strings.Split("a|Z|9| |\"|'|`|“|”|「|『|』|零|十|千|华|é|\xff|\xe2\x80|\xe2|\x80\x9c|\ufffd|=|:|x", "|")
		texts := append(madeUpTexts(11, 20000, pieces), "", "\xe2\x80\x9c", "\xe2\xe2\x80\x9c")
		for _, chars := range []string{"\"“「『'`", numeralRunes, "=:", "“", "\ufffd", "é9"} {
			set, held := newRuneSet(chars), 0
			for _, t := range texts {
				want := strings.ContainsAny(t, chars)
				Expect(set.in(t)).To(Equal(want), "%q in %q", chars, t)
				if want {
					held++
				}
			}
			Expect(held).To(BeNumerically(">", 1000), "%q", chars)
			Expect(held).To(BeNumerically("<", len(texts)), "%q", chars)
		}
	})
})

var _ = Describe("loneLatinWord", func() {
	It("reads the words it remembers for a text against each candidate's taken spans", func() {
		text := "Gateway 和 billing 今天的错误率"
		lower := lowerASCII(text)
		billing := strings.Index(text, "billing")
		for range 2 { // the second time, from what it remembers
			_, _, ok := loneLatinWord(text, lower, &spans{})
			Expect(ok).To(BeFalse(), "two words: neither is the lone one")
			v, sp, ok := loneLatinWord(text, lower, &spans{list: []span{{billing, billing + 7}}})
			Expect(ok).To(BeTrue())
			Expect(v).To(Equal("Gateway"))
			Expect(sp).To(Equal(span{0, 7}))
		}
	})
})

// BenchmarkRawTokensLong splits 50 KB of wrapped, punctuated tokens: the
// split must read the text about once.
func BenchmarkRawTokensLong(b *testing.B) {
	text := strings.Repeat("((ORD-1)),, 华\u00a0", 3000)
	for b.Loop() {
		n := 0
		for range rawTokens(text) {
			n++
		}
		if n != 3000 {
			b.Fatal("tokens lost", n)
		}
	}
}
