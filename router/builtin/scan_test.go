package builtin

import (
	"math/rand/v2"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

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
		found := 0
		for _, t := range texts {
			want := explicitRe.FindAllStringSubmatchIndex(t, -1)
			Expect(explicitMatches(t)).To(Equal(want), "%q", t)
			found += len(want)
		}
		Expect(found).To(BeNumerically(">", 10000))
	})

	It("find what numberWordRe finds", func() {
		pieces := strings.Split("one|ONE|One|six|SIX|\u017fix|\u017fIX|\u212a|dozen|a dozen|A DOZEN|a  dozen|eight|eighteen|eighty|"+
			"ten|often|seven|seventeen|x|_|9| |-|.|中|\xff|\xe2\x84|\u212aey|thousand|hundred|twelve|zero|nine|ninety|s|e|n", "|")
		texts := append(madeUpTexts(2, 40000, pieces), "", "two hundred", "a dozen eggs", "someone", "one-two", "ſix", "oneſix")
		found := 0
		for _, t := range texts {
			want := numberWordRe.FindAllStringIndex(t, -1)
			Expect(numberWordMatches(t)).To(Equal(want), "%q", t)
			found += len(want)
		}
		Expect(found).To(BeNumerically(">", 10000))
	})
})
