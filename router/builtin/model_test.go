package builtin

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"math/rand/v2"
)

var _ = Describe("similarity model", func() {
	It("takes a text back out of its centroid exactly", func() {
		skills := testSkills()
		m := newModel(skills)
		sc := getScratch()
		defer putScratch(sc)
		orders := m.byName["query_orders_by_region"]
		t := m.positives[orders][3]
		// Rebuild the centroid without t by hand and compare cosines.
		var rest []int32
		for _, p := range m.positives[orders] {
			if p != t {
				rest = append(rest, p)
			}
		}
		without, _ := m.centroidOf(rest)
		var want float64
		d := m.docs[t]
		for k, i := range d.idx {
			for j, c := range without.idx {
				if c == i {
					want += float64(d.val[k]) * float64(without.val[j])
				}
			}
		}
		sc.qIdx = append(sc.qIdx[:0], d.idx...)
		sc.qVal = append(sc.qVal[:0], d.val...)
		m.accumulate(sc)
		Expect(m.evidenceFor(sc, orders, t)[evCentroid]).To(BeNumerically("~", want, 1e-5))
	})

	It("keeps of a counter-example only what the skill's own texts never say", func() {
		m := newModel(testSkills())
		alerts := m.byName["query_alerts_by_zone"]
		for _, t := range m.negatives[alerts] {
			own := map[int32]bool{}
			for _, p := range m.positives[alerts] {
				for _, i := range m.docs[p].idx {
					own[i] = true
				}
			}
			for _, i := range m.docs[t].idx {
				Expect(own[i]).To(BeFalse(), "negative text %q kept a feature of the skill", m.texts[t].text)
			}
		}
	})
})

var _ = Describe("the vocabulary's lookup table", func() {
	It("answers every hash as the vocabulary map does", func() {
		m := newModel(testRegistry().Skills)
		Expect(m.vocab).NotTo(BeEmpty())
		for h, id := range m.vocab {
			got, ok := m.ids.get(h)
			Expect(ok).To(BeTrue())
			Expect(got).To(Equal(id))
		}
		rng := rand.New(rand.NewPCG(3, 4))
		for range 100000 {
			h := rng.Uint64()
			want, wantOK := m.vocab[h]
			got, ok := m.ids.get(h)
			Expect(ok).To(Equal(wantOK))
			Expect(got).To(Equal(want))
		}
		// Hashes that share their low bits probe past each other.
		m.vocab = map[uint64]int32{1: 0, 1 + 1<<20: 1, 1 + 2<<20: 2, 2: 3}
		m.indexVocab()
		for h, id := range m.vocab {
			got, ok := m.ids.get(h)
			Expect(ok).To(BeTrue())
			Expect(got).To(Equal(id))
		}
		_, ok := m.ids.get(1 + 3<<20)
		Expect(ok).To(BeFalse())
	})
})
