package builtin

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router/registry"
)

var _ = Describe("pairwise evidence", func() {
	It("finds a text's cosine to another equal to the other's to it, bit for bit", func() {
		m := newModel(testSkills())
		sc := getScratch()
		defer putScratch(sc)
		cos := make([][]float32, len(m.texts))
		for t := range m.texts {
			d := m.docs[t]
			sc.qIdx = append(sc.qIdx[:0], d.idx...)
			sc.qVal = append(sc.qVal[:0], d.val...)
			m.accumulate(sc)
			cos[t] = append([]float32(nil), sc.docAcc...)
		}
		for t := range cos {
			for u := range t {
				Expect(math.Float32bits(cos[t][u])).To(Equal(math.Float32bits(cos[u][t])), "texts %d and %d", t, u)
			}
		}
	})

	It("gives every text the training item routing it on its own gives", func() {
		m := newModel(testSkills())
		// The registry has texts of every role, hint texts among another
		// skill's, so every branch of the pairing is taken.
		expectEveryRole(m)
		paired := m.trainingItems(defaultWeights, trainCands)
		Expect(paired).To(HaveLen(len(m.texts)))
		Expect(paired).To(Equal(itemsAlone(m, defaultWeights, trainCands)))
	})

	It("gives the same items however many cores share the skills", func() {
		// A made-up registry of few words, so most pairs of texts share
		// some and fits tie often; hints and counter-examples on some
		// skills.
		m := newModel(wordySkills(40, 6))
		alone := itemsAlone(m, defaultWeights, trainCands)
		for _, workers := range []int{1, 2, 3, 7} {
			for _, matrix := range []bool{true, false} {
				for _, near := range []bool{true, false} {
					ps := m.newPairScan(defaultWeights, trainCands)
					Expect(ps.cen).NotTo(BeNil())
					ps.workers = workers
					// 16-bit owners (a registry of thousands of texts) or
					// 32-bit ones (a small one, or past nearPositions).
					ps.near = nil
					if near {
						ps.near = nearOwners(ps.post.owner, len(ps.order))
						Expect(ps.near).NotTo(BeNil())
						ps.cen = ps.centroidCosines(nearOwners(m.cenPost.owner, len(m.skills)))
					}
					if !matrix {
						ps.cen = nil // as past cenBudget: the centroid cosines computed again where needed
					}
					Expect(ps.items()).To(Equal(alone), "%d workers, centroid cosine matrix %v, 16-bit owners %v", workers, matrix, near)
				}
			}
		}
		Expect(nearOwners([]int32{0, 1}, nearPositions+1)).To(BeNil(), "more positions than 16 bits number")
		// Fewer skills than candidates: every skill is one.
		small := newModel(wordySkills(4, 3))
		Expect(small.trainingItems(defaultWeights, trainCands)).To(Equal(itemsAlone(small, defaultWeights, trainCands)))
	})
})

// itemsAlone is the reference trainingItems is held to: every text routed
// on its own against all the others, its evidence for each skill as a
// request's (evidenceFor, the text left out), its candidates by bestScores.
func itemsAlone(m *model, w scoreWeights, maxCands int) []trainItem {
	sc := getScratch()
	defer putScratch(sc)
	n := min(maxCands, len(m.skills))
	evs := make([]evidence, len(m.skills))
	items := make([]trainItem, len(m.texts))
	for t, d := range m.docs {
		sc.qIdx = append(sc.qIdx[:0], d.idx...)
		sc.qVal = append(sc.qVal[:0], d.val...)
		m.accumulate(sc)
		for s := range evs {
			evs[s] = m.evidenceFor(sc, s, int32(t))
		}
		var best []candidate
		for _, f := range bestScores(nil, n, w, evs) {
			best = append(best, candidate{rank: rank{score: f.score, skill: int32(f.skill)}, ev: evs[f.skill]})
		}
		items[t] = m.trainingItem(t, best, evs[m.texts[t].skill])
	}
	return items
}

// expectEveryRole checks m has hint texts and counter-examples, besides
// the positive texts every registry has.
func expectEveryRole(m *model) {
	GinkgoHelper()
	hints, negatives := 0, 0
	for s := range m.skills {
		hints += len(m.hints[s])
		negatives += len(m.negatives[s])
	}
	Expect(hints).To(BeNumerically(">", 0))
	Expect(negatives).To(BeNumerically(">", 0))
}

// wordySkills makes n skills of m examples from a dozen made-up words;
// every third skill names the next in its when_not_to_use (a hint text
// for it) and has a counter-example.
func wordySkills(n, m int) []*registry.Skill {
	words := strings.Fields("plim vosk tarn quib fesh drom yalt nurb ceep woz gabble hix")
	rng := rand.New(rand.NewPCG(11, uint64(n)))
	phrase := func(k int) string {
		w := make([]string, k)
		for i := range w {
			w[i] = words[rng.IntN(len(words))]
		}
		return strings.Join(w, " ")
	}
	skills := make([]*registry.Skill, n)
	for i := range skills {
		s := &registry.Skill{Name: fmt.Sprintf("wordy_%02d", i), Description: phrase(9), WhenToUse: []string{phrase(5)}}
		if i%3 == 0 {
			s.WhenNotToUse = []string{phrase(4) + fmt.Sprintf(" (use wordy_%02d)", (i+1)%n)}
			s.CounterExamples = []string{phrase(5)}
		}
		for range m {
			s.Examples = append(s.Examples, registry.Example{Input: phrase(1 + rng.IntN(6))})
		}
		skills[i] = s
	}
	return skills
}

var _ = Describe("a text's candidates", func() {
	It("are the first of all skills sorted by fit, ties by registry order", func() {
		rng := rand.New(rand.NewPCG(3, 4))
		for trial := range 200 {
			skills := 1 + rng.IntN(40)
			evs := make([]evidence, skills)
			for s := range evs {
				// Few distinct values, so ties are common.
				evs[s][evNearest] = float64(rng.IntN(6)) / 4
				evs[s][evCentroid] = float64(rng.IntN(3)) / 2
			}
			all := make([]skillScore, skills)
			for s := range all {
				all[s] = skillScore{skill: s, score: defaultWeights.fit(evs[s])}
			}
			sortScores(all)
			n := 1 + rng.IntN(skills)
			Expect(bestScores(nil, n, defaultWeights, evs)).To(Equal(all[:n]), "trial %d", trial)
		}
	})
})

var _ = Describe("the linear layer's terms of a registry text", func() {
	It("give the logits the text's vector gives, bit for bit", func() {
		m := newModel(testSkills())
		items := m.trainingItems(defaultWeights, trainCands)
		lt := m.linTexts()
		lm := m.trainOn(lt, newLinLayout(lt, items, m.linCount, len(m.skills)), items, defaultTraining, trainSeed)
		nonzero := 0
		for _, it := range items {
			want := make([]float64, len(it.cands))
			got := make([]float64, len(it.cands))
			lm.logits(m.docs[it.text], it.cands, it.evs, want)
			lm.termLogits(lt.of(it.text), it.cands, it.evs, got)
			for c := range want {
				Expect(math.Float64bits(got[c])).To(Equal(math.Float64bits(want[c])), "text %d, candidate %d", it.text, c)
				if want[c] != 0 {
					nonzero++
				}
			}
		}
		Expect(nonzero).To(BeNumerically(">", 0))
	})
})

var _ = Describe("keeping the two largest cosines", func() {
	It("keeps the two largest positive values of any sequence, as numbers, ignoring the rest", func() {
		rng := rand.New(rand.NewPCG(5, 6))
		for trial := range 500 {
			var t [2]uint64
			var positive []float64
			for range rng.IntN(12) {
				// Repeats, zeros and negative values included.
				x := float64(rng.IntN(7)-2) / 3
				if trial%2 == 0 {
					x = rng.Float64()*2 - 0.5
				}
				addTop(&t, x)
				if x > 0 {
					positive = append(positive, x)
				}
			}
			slices.Sort(positive)
			slices.Reverse(positive)
			want := [2]float64{}
			copy(want[:], positive)
			Expect([2]float64{math.Float64frombits(t[0]), math.Float64frombits(t[1])}).To(Equal(want), "trial %d: %v", trial, positive)
		}
	})
})

// skillScore is a skill's fit score for a text.
type skillScore struct {
	skill int
	score float64
}

// bestScores, the reference for pairScan's candidates, appends to top the
// n skills of highest fit, in sortScores' order: the first n of all of
// them sorted, without sorting the rest.
func bestScores(top []skillScore, n int, w scoreWeights, evs []evidence) []skillScore {
	if n <= 0 {
		return top
	}
	for s := range evs {
		sc := skillScore{skill: s, score: w.fit(evs[s])}
		// Skills come in index order, so one tying the last kept loses.
		if len(top) == n && !(sc.score > top[n-1].score) {
			continue
		}
		i := len(top)
		if i < n {
			top = append(top, sc)
		} else {
			i = n - 1
		}
		for ; i > 0 && sc.score > top[i-1].score; i-- {
			top[i] = top[i-1]
		}
		top[i] = sc
	}
	return top
}

// sortScores orders scores descending, ties by skill index (registry
// order), so equal scores always rank the same way.
func sortScores(s []skillScore) {
	slices.SortFunc(s, func(a, b skillScore) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return a.skill - b.skill
	})
}
