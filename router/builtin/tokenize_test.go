package builtin

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("tokenizer", func() {
	It("splits English into words, bigrams and marked character n-grams", func() {
		got := terms("Show orders")
		Expect(got).To(ContainElements("w:show", "w:orders", "b:show orders", "c:<sh", "c:ers>", "c:<orde", "c:rders"))
		Expect(got).NotTo(ContainElement("w:Show"), "text is lowercased")
	})

	It("takes character n-grams of words up to its bound and none of longer ones, at every length around it", func() {
		for n := 55; n <= 70; n++ {
			word := strings.Repeat("k", n)
			Expect(func() { terms(word) }).NotTo(Panic(), "a word of %d letters", n)
		}
		Expect(terms(strings.Repeat("k", 20))).To(ContainElement("c:<kk"))
		Expect(terms(strings.Repeat("k", 70))).NotTo(ContainElement("c:<kk"))
	})

	It("reads Chinese as characters and character bigrams", func() {
		got := terms("华东区订单")
		Expect(got).To(Equal([]string{"h:华", "h:东", "hh:华东", "h:区", "hh:东区", "h:订", "hh:区订", "h:单", "hh:订单"}))
	})

	It("keeps both scripts of a mixed request apart", func() {
		got := terms("查一下 payment-api 的 error 日志")
		Expect(got).To(ContainElements("hh:查一", "id:payment-api", "w:error", "hh:日志"))
		Expect(got).NotTo(ContainElement("w:payment"), "a glued name is one feature, not its parts")
		Expect(got).NotTo(ContainElement(HavePrefix("b:")), "no bigram across Han text")
	})

	It("makes an id one feature of its kind, not its digits", func() {
		got := terms("close TCK-204518 and ORD-20261103")
		Expect(got).To(ContainElements("id:tck-#6", "id:ord-#8"))
		Expect(got).NotTo(ContainElement("w:204518"))
	})

	It("keeps short numbers and the shape of long ones", func() {
		Expect(terms("scale to 5 replicas")).To(ContainElements("w:5", "#:1", "b:to 5"))
		Expect(terms("trace 7f3a9c21")).To(ContainElement("w:7f3a9c21"))
		Expect(terms("year 20261")).To(ContainElement("#:5"))
		Expect(terms("year 20261")).NotTo(ContainElement("w:20261"))
	})

	It("makes a date expression one feature, whatever the date", func() {
		for _, text := range []string{"华东区上周的订单", "华东区昨天的订单", "orders of the east region from 2026-11-01", "orders in the last 7 days"} {
			got := terms(text)
			Expect(got).To(ContainElement("d:date"), text)
			Expect(got).NotTo(ContainElements("hh:上周", "hh:昨天", "w:last", "w:7"), text)
		}
		Expect(terms("华东区上周的订单")).To(ContainElements("hh:华东", "hh:订单"))
	})

	It("joins contractions", func() {
		Expect(terms("don't")).To(ContainElement("w:dont"))
	})

	It("emits nothing for punctuation only", func() {
		Expect(terms("?!，。 ...")).To(BeEmpty())
	})
})

var _ = Describe("sorting a text's features by hash", func() {
	It("orders them as a comparison sort does, repeated features next to each other", func() {
		rng := rand.New(rand.NewPCG(7, 15))
		sc := new(scratch)
		for _, n := range []int{0, 1, 5, 23, 24, 25, 200, 1000, 5000} {
			fs := make([]hashedFeature, n)
			for i := range fs {
				h := rng.Uint64()
				if i > 0 && rng.IntN(4) == 0 {
					h = fs[rng.IntN(i)].hash // a repeated feature
				}
				if rng.IntN(10) == 0 {
					h >>= rng.IntN(64) // crowd the low buckets
				}
				fs[i] = hashedFeature{hash: h, kind: featureKind(h % uint64(numKinds))}
			}
			want := slices.Clone(fs)
			slices.SortStableFunc(want, func(a, b hashedFeature) int { return cmp.Compare(a.hash, b.hash) })
			got := sc.sortByHash(slices.Clone(fs))
			Expect(got).To(Equal(want), "%d features", n)
		}
	})

	It("counts the same features the same way, text after text", func() {
		sc := new(scratch)
		for _, text := range []string{"show the orders of the east region", "看看华东区上周已发货的订单", "restart payment-api restart payment-api"} {
			counts := slices.Clone(sc.countTerms(text))
			Expect(slices.IsSortedFunc(counts, func(a, b termCount) int { return cmp.Compare(a.hash, b.hash) })).To(BeTrue())
			total := 0
			for i, c := range counts {
				total += c.count
				if i > 0 {
					Expect(c.hash).NotTo(Equal(counts[i-1].hash))
				}
			}
			var l termList
			featurize(segment(text, nil), &l)
			Expect(total).To(Equal(len(l)), text)
		}
	})
})

var _ = Describe("the rune classes' shortcuts", func() {
	It("answer every rune as the Unicode tables do", func() {
		var wrong []rune
		for r := rune(0); r <= unicode.MaxRune; r++ {
			if isHan(r) != unicode.Is(unicode.Han, r) ||
				inUnifiedIdeographs(r) && (unicode.IsUpper(r) || unicode.IsLower(r) || unicode.IsTitle(r) || unicode.IsMark(r)) {
				wrong = append(wrong, r)
			}
		}
		Expect(wrong).To(BeEmpty())
		Expect(isHan('中')).To(BeTrue())
		Expect(inUnifiedIdeographs('中')).To(BeTrue())
		Expect(casedLetter('É') && casedLetter('ж')).To(BeTrue())
	})
})

// pieceHasher hashes each feature from its pieces, as featureHasher.emit
// does, but is not a *featureHasher: charGrams takes its general path.
type pieceHasher struct{ out []hashedFeature }

func (p *pieceHasher) emit(kind featureKind, a, b, c string) {
	p.out = append(p.out, hashedFeature{hash: featureHash(kind, a, b, c), kind: kind})
}

var _ = Describe("character n-grams hashed by carrying a gram's hash on", func() {
	It("are the features, in the order, that hashing each gram whole gives", func() {
		words := []string{"", "a", "ab", "abc", "orders", "replicas", "naïve", "café", "日本", "x-ray", strings.Repeat("z", 59), strings.Repeat("é", 40), strings.Repeat("q", 80)}
		rng := rand.New(rand.NewPCG(15, 2026))
		alphabet := []rune("abcdeé中-_0")
		for range 300 {
			w := make([]rune, rng.IntN(70))
			for i := range w {
				w[i] = alphabet[rng.IntN(len(alphabet))]
			}
			words = append(words, string(w))
		}
		for _, w := range words {
			var fast featureHasher
			var whole pieceHasher
			charGrams(w, &fast)
			charGrams(w, &whole)
			Expect(fast.out).To(Equal(whole.out), "%q", w)
		}
		for _, text := range []string{"Show me the refunds for ORD-20261103 from last week", "把预发的 payment-api 扩到 6 个副本 please, naïve café"} {
			var fast featureHasher
			var whole pieceHasher
			featurize(segment(text, nil), &fast)
			featurize(segment(text, nil), &whole)
			Expect(fast.out).To(Equal(whole.out), text)
			Expect(len(fast.out)).To(BeNumerically(">", 20))
		}
	})
})
