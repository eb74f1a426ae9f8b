package builtin

import (
	"math"
	"math/rand/v2"
	"slices"
)

// linearModel corrects the similarity fit with learned per-skill feature
// weights: z_s = beta.ev_s + bias_s + sum_f x_f*W[f][s], ev_s being the
// skill's similarity evidence. It is a softmax
// regression whose prior is the similarity scorer: with W = 0 it ranks like
// the fit, and training only adds what tells confusable skills apart
// (a word that appears in both skills' texts but only one skill's examples).
type linearModel struct {
	skills int
	beta   [numEvidence]float32
	bias   []float32
	w      []float32 // row-major: feature f's weights at w[f*skills : (f+1)*skills]
}

// trainItem is one text to learn from.
type trainItem struct {
	text int // index into model.texts
	// label is the skill the text asks for, or -1 for a text that only
	// says which skill it is not for (avoid).
	label int
	avoid int // skill to push away from, or -1
	// cands are the skills the softmax runs over (the label first when
	// set), evs their similarity evidence computed without this text.
	cands []int32
	evs   []evidence
}

// trainSettings are the optimizer's knobs; fixed, not tuned per registry.
type trainSettings struct {
	Epochs int
	Rate   float64 // initial learning rate, decayed linearly to 10%
	L2     float64 // weight decay on touched rows
	// Beta0 scales defaultWeights into the evidence weights. They stay
	// fixed: learning them let the similarity prior drift towards
	// memorized texts and cost accuracy on held-out requests.
	Beta0 float64
}

var defaultTraining = trainSettings{Epochs: 16, Rate: 0.5, L2: 1e-5, Beta0: 8}

// train fits the linear model by stochastic gradient descent in a fixed,
// seeded order, so the same registry always gives the same weights.
func (m *model) train(items []trainItem, ts trainSettings, seed uint64) *linearModel {
	S := len(m.skills)
	lm := &linearModel{skills: S, bias: make([]float32, S), w: make([]float32, len(m.idf)*S)}
	for k := range lm.beta {
		lm.beta[k] = float32(ts.Beta0 * defaultWeights[k])
	}
	order := make([]int, len(items))
	for i := range order {
		order[i] = i
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	var z, g []float64
	steps := ts.Epochs * len(items)
	step := 0
	for epoch := 0; epoch < ts.Epochs; epoch++ {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, o := range order {
			it := &items[o]
			rate := ts.Rate * (1 - 0.9*float64(step)/float64(steps))
			step++
			doc := m.docs[it.text]
			n := len(it.cands)
			z, g = grow(z, n), grow(g, n)
			lm.logits(doc, it.cands, it.evs, z)
			softmaxInPlace(z)
			// gradient of the loss with respect to each logit
			switch {
			case it.label >= 0:
				for c := range n {
					g[c] = z[c]
					if int(it.cands[c]) == it.label {
						g[c] -= 1
					}
				}
			default:
				pa := 0.0
				for c := range n {
					if int(it.cands[c]) == it.avoid {
						pa = z[c]
					}
				}
				for c := range n {
					if int(it.cands[c]) == it.avoid {
						g[c] = pa
					} else {
						g[c] = z[c] - z[c]/math.Max(1-pa, 1e-6)
					}
				}
			}
			for c := range n {
				lm.bias[it.cands[c]] -= float32(rate * 0.1 * g[c])
			}
			for k, f := range doc.idx {
				x := float64(doc.val[k])
				row := lm.w[int(f)*S : int(f)*S+S]
				for c := range n {
					s := it.cands[c]
					row[s] -= float32(rate * (g[c]*x + ts.L2*float64(row[s])))
				}
			}
		}
	}
	return lm
}

// logits writes z_c for each candidate of a vector.
func (lm *linearModel) logits(v sparseVec, cands []int32, evs []evidence, z []float64) {
	S := lm.skills
	for c, s := range cands {
		zc := float64(lm.bias[s])
		for k, b := range lm.beta {
			zc += float64(b) * evs[c][k]
		}
		z[c] = zc
	}
	if linearScale == 0 {
		return
	}
	for k, f := range v.idx {
		x := v.val[k] * linearScale
		row := lm.w[int(f)*S : int(f)*S+S]
		for c, s := range cands {
			z[c] += float64(x * row[s])
		}
	}
}

// linearScale is an experiment knob: 0 ranks by similarity alone.
var linearScale float32 = 1

func grow(buf []float64, n int) []float64 {
	if cap(buf) < n {
		return make([]float64, n)
	}
	return buf[:n]
}

// softmaxInPlace turns logits into probabilities.
func softmaxInPlace(z []float64) {
	mx := math.Inf(-1)
	for _, v := range z {
		mx = max(mx, v)
	}
	var sum float64
	for i, v := range z {
		z[i] = math.Exp(v - mx)
		sum += z[i]
	}
	for i := range z {
		z[i] /= sum
	}
}

// trainingItems routes every registry text against the registry without
// itself, keeping the top maxCands skills by fit (plus the text's own
// skill) as the softmax's candidates, as the recall stage would.
func (m *model) trainingItems(w scoreWeights, maxCands int) []trainItem {
	sc := getScratch()
	defer putScratch(sc)
	items := make([]trainItem, 0, len(m.texts))
	fits := make([]skillScore, len(m.skills))
	evs := make([]evidence, len(m.skills))
	for t, st := range m.texts {
		it := trainItem{text: t, label: -1, avoid: -1}
		switch st.role {
		case rolePositive, roleHint:
			it.label = st.skill
		case roleNegative:
			it.avoid = st.skill
		}
		d := m.docs[t]
		sc.qIdx = append(sc.qIdx[:0], d.idx...)
		sc.qVal = append(sc.qVal[:0], d.val...)
		m.accumulate(sc)
		for s := range m.skills {
			evs[s] = m.evidenceFor(sc, s, int32(t))
			fits[s] = skillScore{skill: s, score: w.fit(evs[s])}
		}
		sortScores(fits)
		n := min(maxCands, len(fits))
		keep := st.skill
		for c := range n {
			if fits[c].skill == keep {
				keep = -1
			}
		}
		if keep >= 0 {
			it.cands = append(it.cands, int32(keep))
			it.evs = append(it.evs, evs[keep])
			n--
		}
		for c := range n {
			it.cands = append(it.cands, int32(fits[c].skill))
			it.evs = append(it.evs, evs[fits[c].skill])
		}
		items = append(items, it)
	}
	return items
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
