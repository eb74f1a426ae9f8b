package builtin

import (
	"math/rand/v2"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("a word scan", func() {
	It("finds each word a text holds, overlapping, nested and Han ones included", func() {
		words := []string{"he", "she", "his", "hers", "last", "last week", "week", "上周", "周", "上个月", "个", "a", "aaa"}
		scan := newWordScan(words)
		pieces := []string{"h", "e", "s", "r", "i", "she", "hers", "last", "las", "t", " ", "week", "wee", "上", "周", "个", "月", "上个",
			"a", "aa", "x", "\xe4", "\xff", "LAST"}
		rng := rand.New(rand.NewPCG(12, 3))
		seen := 0
		for range 20000 {
			var b strings.Builder
			for range rng.IntN(10) {
				b.WriteString(pieces[rng.IntN(len(pieces))])
			}
			text := b.String()
			var want uint64
			for k, w := range words {
				if strings.Contains(text, w) {
					want |= 1 << k
				}
			}
			Expect(scan.holds(text)).To(Equal(want), "%q", text)
			if want != 0 {
				seen++
			}
		}
		Expect(seen).To(BeNumerically(">", 15000))
		Expect(scan.holds("")).To(BeZero())
	})
})
