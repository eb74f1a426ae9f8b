package builtin

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router/registry"
)

var _ = Describe("a request's cosines for the judge's candidates", func() {
	// Requests made of registry texts' words, reordered and mixed with
	// words no skill has, against each model's skills in random subsets:
	// the cosines read from the candidates' own vectors must be the ones
	// the posting lists give, bit for bit.
	check := func(skills []*registry.Skill, seed uint64) {
		m := newModel(skills)
		rng := rand.New(rand.NewPCG(seed, 3))
		var words []string
		for _, t := range m.texts {
			words = append(words, strings.Fields(t.text)...)
		}
		sc := getScratch()
		defer putScratch(sc)
		compared := 0
		for trial := range 200 {
			w := make([]string, 1+rng.IntN(9))
			for i := range w {
				w[i] = words[rng.IntN(len(words))]
				if rng.IntN(6) == 0 {
					w[i] = "zorvex"
				}
			}
			m.query(sc, strings.Join(w, " "))
			m.accumulate(sc)
			doc := append([]float32(nil), sc.docAcc...)
			cen := append([]float32(nil), sc.cenAcc...)
			var cands []int32
			for _, s := range rng.Perm(len(m.skills))[:1+rng.IntN(min(len(m.skills), 8))] {
				cands = append(cands, int32(s))
			}
			Expect(m.accumulateOnly(sc, cands)).To(BeTrue())
			for _, s := range cands {
				Expect(math.Float32bits(sc.cenAcc[s])).To(Equal(math.Float32bits(cen[s])), "trial %d, centroid of skill %d", trial, s)
				for _, list := range [3][]int32{m.positives[s], m.hints[s], m.negatives[s]} {
					for _, t := range list {
						Expect(math.Float32bits(sc.docAcc[t])).To(Equal(math.Float32bits(doc[t])), "trial %d, text %d of skill %d", trial, t, s)
						if doc[t] != 0 {
							compared++
						}
					}
				}
			}
			Expect(sc.qPlace).To(HaveEach(int32(0)), "the places are left clear")
		}
		Expect(compared).To(BeNumerically(">", 100), "requests share words with the candidates' texts")
	}

	It("equal the posting lists' on a registry with hints and counter-examples", func() {
		expectEveryRole(newModel(testSkills()))
		check(testSkills(), 1)
	})

	It("equal the posting lists' on a registry of few words, where most texts share some", func() {
		check(wordySkills(40, 6), 2)
	})

	It("are left to the posting lists for a query listing a feature twice, which they would add twice", func() {
		m := newModel(testSkills())
		sc := getScratch()
		defer putScratch(sc)
		d := m.docs[0]
		sc.qIdx = append(sc.qIdx[:0], d.idx[0], d.idx[0])
		sc.qVal = append(sc.qVal[:0], 0.5, 0.5)
		Expect(m.accumulateOnly(sc, []int32{0})).To(BeFalse())
		Expect(sc.qPlace).To(HaveEach(int32(0)))
		m.accumulateFor(sc, []int32{0})
		Expect(sc.docAcc[0]).To(Equal(d.val[0]), "both halves added")
	})
})

// FuzzQueryCosines holds the judge's candidate-only cosines to the
// posting lists' for any request text, on a registry of roles of every
// kind and on one of few words, with candidates picked from the text.
func FuzzQueryCosines(f *testing.F) {
	for _, s := range []string{"plim vosk tarn", "退款 订单 refund the order", "", "quib quib quib fesh", "\x00\xff restart"} {
		f.Add(s, uint8(3))
	}
	models := []*model{newModel(testSkills()), newModel(wordySkills(40, 6))}
	f.Fuzz(func(t *testing.T, text string, pick uint8) {
		sc := getScratch()
		defer putScratch(sc)
		for _, m := range models {
			m.query(sc, text)
			m.accumulate(sc)
			doc := append([]float32(nil), sc.docAcc...)
			cen := append([]float32(nil), sc.cenAcc...)
			var cands []int32
			for s := range m.skills {
				if (s+int(pick))%3 == 0 {
					cands = append(cands, int32(s))
				}
			}
			if !m.accumulateOnly(sc, cands) {
				continue // a feature listed twice: left to the posting lists
			}
			for _, s := range cands {
				if math.Float32bits(sc.cenAcc[s]) != math.Float32bits(cen[s]) {
					t.Fatalf("%q: centroid of skill %d: %v, posting lists %v", text, s, sc.cenAcc[s], cen[s])
				}
				for _, list := range [3][]int32{m.positives[s], m.hints[s], m.negatives[s]} {
					for _, u := range list {
						if math.Float32bits(sc.docAcc[u]) != math.Float32bits(doc[u]) {
							t.Fatalf("%q: text %d of skill %d: %v, posting lists %v", text, u, s, sc.docAcc[u], doc[u])
						}
					}
				}
			}
		}
	})
}
