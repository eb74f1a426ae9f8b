package builtin

import (
	"math"
	"math/rand/v2"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// denseTrain is the linear layer's training over a dense rows × skills
// matrix, as it was before only the touched weights were held: the
// reference the held layout must match weight for weight.
func denseTrain(m *model, lt linTexts, items []trainItem, ts trainSettings, seed uint64) (bias, w []float32) {
	S := len(m.skills)
	bias, w = make([]float32, S), make([]float32, m.linCount*S)
	beta := make([]float32, numEvidence)
	for k := range beta {
		beta[k] = float32(ts.Beta0 * defaultWeights[k])
	}
	order := make([]int, len(items))
	for i := range order {
		order[i] = i
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	epochs := epochsFor(ts.Epochs, len(items))
	steps, step := epochs*len(items), 0
	for range epochs {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, o := range order {
			it := &items[o]
			rate := ts.Rate * (1 - 0.9*float64(step)/float64(steps))
			step++
			terms := lt.of(it.text)
			z := make([]float64, len(it.cands))
			for c, s := range it.cands {
				z[c] = float64(bias[s])
				for k, b := range beta {
					z[c] += float64(b) * it.evs[c][k]
				}
			}
			for _, e := range terms {
				for c, s := range it.cands {
					z[c] += float64(e.x * w[int(e.row)*S+int(s)])
				}
			}
			softmaxInPlace(z)
			g := make([]float64, len(z))
			if it.label >= 0 {
				for c := range z {
					g[c] = z[c]
					if int(it.cands[c]) == it.label {
						g[c] -= 1
					}
				}
			} else {
				pa := 0.0
				for c := range z {
					if int(it.cands[c]) == it.avoid {
						pa = z[c]
					}
				}
				for c := range z {
					if int(it.cands[c]) == it.avoid {
						g[c] = pa
					} else {
						g[c] = z[c] - z[c]/math.Max(1-pa, 1e-6)
					}
				}
			}
			for c, s := range it.cands {
				bias[s] -= float32(rate * 0.1 * g[c])
			}
			for _, e := range terms {
				x := float64(e.x)
				for c, s := range it.cands {
					p := int(e.row)*S + int(s)
					w[p] -= float32(rate * (g[c]*x + ts.L2*float64(w[p])))
				}
			}
		}
	}
	return bias, w
}

// heldLayout holds the weights training on items touches, with their
// places, whatever newLinLayout would choose.
func heldLayout(lt linTexts, items []trainItem, rows, skills int) *linLayout {
	lay := touchedLayout(lt, items, rows, skills)
	lay.place(lt, items)
	return lay
}

var _ = Describe("the linear layer's weights", func() {
	It("are the dense matrix's, bit for bit, held densely or only where training touches them, with places or without", func() {
		for _, m := range []*model{newModel(testSkills()), newModel(wordySkills(30, 5))} {
			items := m.trainingItems(defaultWeights, trainCands)
			lt := m.linTexts()
			S := len(m.skills)
			held := heldLayout(lt, items, m.linCount, S)
			// Fewer weights held than the dense matrix has: the point.
			Expect(held.n).To(BeNumerically("<", m.linCount*S))
			// Held without a places table, as for more skills than a
			// place numbers: every weight looked up.
			lookedUp := touchedLayout(lt, items, m.linCount, S)
			Expect(held.placesOf).NotTo(BeNil())
			Expect(lookedUp.placesOf).To(BeNil())
			for _, lay := range []*linLayout{held, lookedUp, denseLayout(m.linCount, S)} {
				// A fold trains on some items with the layout of all of them.
				some := items[:len(items)*2/3]
				for _, train := range [][]trainItem{items, some} {
					lm := m.trainOn(lt, lay, train, defaultTraining, trainSeed)
					bias, dense := denseTrain(m, lt, train, defaultTraining, trainSeed)
					Expect(lm.bias).To(Equal(bias))
					counted, nonzero := 0, 0
					for r := range m.linCount {
						for s := range S {
							want := dense[r*S+s]
							if want != 0 {
								nonzero++
							}
							if lay.at(int32(r), int32(s)) >= 0 {
								counted++
							}
							Expect(math.Float32bits(lm.weight(int32(r), int32(s)))).To(Equal(math.Float32bits(want)), "dense %v, row %d skill %d", lay.dense, r, s)
						}
					}
					Expect(counted).To(Equal(lay.n))
					Expect(nonzero).To(BeNumerically(">", 0))
				}
			}
		}
	})

	It("are held densely when three dense layers cost no more than the held ones and their places", func() {
		m := newModel(testSkills())
		items := m.trainingItems(defaultWeights, trainCands)
		lt := m.linTexts()
		S := len(m.skills)
		held := heldLayout(lt, items, m.linCount, S)
		lay := newLinLayout(lt, items, m.linCount, S)
		// In bytes: three dense layers against three held ones and a
		// places table of two bytes a place.
		Expect(lay.dense).To(Equal(3*4*m.linCount*S <= 2*placeCount(lt, items)+3*4*held.n))
	})
})
