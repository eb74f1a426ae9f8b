package builtin

import (
	"math"
	"math/rand/v2"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// reliability bins decisions by confidence and returns the largest gap
// between a bin's mean confidence and its accuracy (bins of >= 50 only).
func reliability(conf []float64, correct []bool) float64 {
	const bins = 5
	var n, sumConf, right [bins]float64
	for i, c := range conf {
		b := min(int(c*bins), bins-1)
		n[b]++
		sumConf[b] += c
		if correct[i] {
			right[b]++
		}
	}
	gap := 0.0
	for b := range bins {
		if n[b] >= 50 {
			gap = math.Max(gap, math.Abs(sumConf[b]/n[b]-right[b]/n[b]))
		}
	}
	return gap
}

var _ = Describe("calibration", func() {
	It("is the prior when there is nothing to fit", func() {
		c := fitCalibration(nil)
		Expect(c.right).To(Equal(calPrior))
		for k := range c.in {
			Expect(c.in[k]).To(BeNumerically("~", inPrior[k], 1e-9))
		}
		// A tool request that gives the tool's values and says a word of
		// its schema is in scope; one that shares neither values nor words
		// with it is not.
		Expect(c.outcome(calInput{fit: 0.2, paramCover: 1, schemaCover: 1.0 / 3}).inScope).To(BeNumerically(">", 0.5))
		Expect(c.outcome(calInput{fit: 0.2}).inScope).To(BeNumerically("<", 0.5))
	})

	It("recovers a known logistic and is reliable on it", func() {
		truth := []float64{-2, 1, 0.5, 3}
		rng := rand.New(rand.NewPCG(1, 2))
		var xs [][]float64
		var ys, ws []float64
		for range 20000 {
			m := rng.Float64() * 6
			x := rightFeaturesOf(calInput{margin: m, prob: sigmoid(m - 2*rng.Float64()), fit: rng.Float64() * 0.8})
			y := 0.0
			if rng.Float64() < sigmoid(dot(truth, x)) {
				y = 1
			}
			xs, ys, ws = append(xs, x), append(ys, y), append(ws, 1)
		}
		theta := fitLogistic(xs, ys, ws, calPrior[:], calPriorWeight)
		for k := range truth {
			Expect(theta[k]).To(BeNumerically("~", truth[k], 0.35), "theta = %v", theta)
		}
		conf := make([]float64, len(xs))
		correct := make([]bool, len(xs))
		for i, x := range xs {
			conf[i], correct[i] = sigmoid(dot(theta, x)), ys[i] == 1
		}
		Expect(reliability(conf, correct)).To(BeNumerically("<", 0.05))
	})

	It("leans on the prior when a registry has few examples", func() {
		// Three right answers prove little: the fit moves toward them, but
		// not to a confident extreme.
		in := calInput{margin: 1, prob: 0.6, fit: 0.3}
		right := heldOut{calInput: in, correct: true, weight: 1}
		c := fitCalibration([]heldOut{right, right, right})
		Expect(sigmoid(dot(c.right[:], rightFeaturesOf(in)))).To(BeNumerically("<", 0.95))
		Expect(c.confidence(in)).To(BeNumerically(">", fitCalibration(nil).confidence(in)))
	})

	It("matches the held-out accuracy of the registry it was fitted on", func() {
		f := fittedFor(testSkills(), defaultTopK)
		obs := f.heldOut(f.trainingItems(defaultWeights, max(trainCands, defaultTopK+1)))
		var sumConf, sumRight, sumW float64
		items, oos := 0, 0
		for _, o := range obs {
			if o.oos {
				oos++
				continue
			}
			items++
			sumConf += o.weight * sigmoid(dot(f.cal.right[:], rightFeaturesOf(o.calInput)))
			if o.correct {
				sumRight += o.weight
			}
			sumW += o.weight
		}
		Expect(f.cal.items).To(Equal(items))
		Expect(f.cal.oos).To(Equal(oos))
		Expect(oos).To(BeNumerically(">", 0), "every example also stands in for a request no skill covers")
		Expect(sumConf / sumW).To(BeNumerically("~", sumRight/sumW, 0.05))
	})

	It("finds its pseudo out-of-scope texts less likely in scope than its own", func() {
		f := fittedFor(testSkills(), defaultTopK)
		var in, out, nIn, nOut float64
		for _, o := range f.heldOut(f.trainingItems(defaultWeights, max(trainCands, defaultTopK+1))) {
			// On the scale the fit works on, before the prior share.
			p := sigmoid(dot(f.cal.in[:], inFeaturesOf(o.calInput)) - priorOdds())
			if o.oos {
				out, nOut = out+p, nOut+1
			} else if o.correct {
				in, nIn = in+p, nIn+1
			}
		}
		Expect(in/nIn - out/nOut).To(BeNumerically(">", 0.2))
	})

	It("orders confidence by margin and by fit", func() {
		c := fittedFor(testSkills(), defaultTopK).cal
		Expect(c.confidence(calInput{margin: 3, prob: 0.9, fit: 0.3})).To(BeNumerically(">", c.confidence(calInput{margin: 1, prob: 0.6, fit: 0.3})))
		Expect(c.confidence(calInput{margin: 2, prob: 0.8, fit: 0.5})).To(BeNumerically(">", c.confidence(calInput{margin: 2, prob: 0.8, fit: 0.1})))
		Expect(c.confidence(calInput{margin: -2, prob: 0.1, fit: 0.3})).To(BeNumerically("<", 0.5), "a candidate behind another is likely wrong")
	})

	It("does not give a lone candidate the top confidence by construction", func() {
		c := fitCalibration(nil)
		lone := func(fit, cover float64) outcome {
			return c.outcome(calInput{margin: maxMargin, prob: 1, fit: fit, nameCover: cover, paramCover: cover})
		}
		Expect(lone(0.05, 0).right).To(BeNumerically("<", 0.2))
		Expect(lone(0.05, 0).none()).To(BeTrue())
		Expect(lone(0.4, 1).right).To(BeNumerically(">", 0.9))
		Expect(lone(0.4, 1).none()).To(BeFalse())
	})

	It("answers none when out of scope is likelier than in scope, not when candidates tie", func() {
		Expect(outcome{right: 0.3, inScope: 0.35}.none()).To(BeTrue())
		Expect(outcome{right: 0.3, inScope: 0.9}.none()).To(BeFalse(), "in scope, two candidates close: a question, not none")
		Expect(outcome{right: 0.45, inScope: 0.5}.none()).To(BeFalse())
	})
})

var _ = Describe("a candidate's calibration input with the softmax worked out once", func() {
	// candidateInputAlone is candidateInput as it was written before the
	// softmax was shared: the largest logit and the sum found per
	// candidate.
	candidateInputAlone := func(z []float64, c int, evs []evidence) calInput {
		margin := maxMargin
		mx := z[c]
		for o := range z {
			if o != c {
				margin = min(margin, z[c]-z[o])
			}
			mx = max(mx, z[o])
		}
		var sum float64
		for _, v := range z {
			sum += math.Exp(v - mx)
		}
		fit := defaultWeights.fit(evs[c])
		return calInput{margin: margin, prob: math.Exp(z[c]-mx) / sum, fit: fit,
			learned: z[c]/defaultTraining.Beta0 - fit, nearest: evs[c][evNearest]}
	}
	// bits are the fields' bits, any NaN as one (a NaN's payload is never
	// read: it sorts, rounds and encodes as any NaN does).
	bits := func(in calInput) [5]uint64 {
		var out [5]uint64
		for i, x := range []float64{in.margin, in.prob, in.fit, in.learned, in.nearest} {
			out[i] = math.Float64bits(x)
			if math.IsNaN(x) {
				out[i] = math.Float64bits(math.NaN())
			}
		}
		return out
	}

	It("is the same bits as working it out per candidate", func() {
		rng := rand.New(rand.NewPCG(15, 4))
		odd := []float64{0, math.Copysign(0, -1), 1, -1, 700, -700, math.Inf(1), math.Inf(-1), math.NaN()}
		for range 5000 {
			n := 1 + rng.IntN(12)
			z, evs := make([]float64, n), make([]evidence, n)
			for i := range z {
				switch rng.IntN(5) {
				case 0:
					z[i] = odd[rng.IntN(len(odd))]
				case 1:
					if i > 0 {
						z[i] = z[rng.IntN(i)] // a tie
					}
				default:
					z[i] = rng.NormFloat64() * 4
				}
				for k := range evs[i] {
					evs[i][k] = rng.Float64()
				}
			}
			sm := softmaxOf(z)
			for c := range z {
				Expect(bits(candidateInputIn(z, c, evs, sm))).To(Equal(bits(candidateInputAlone(z, c, evs))), "%v, candidate %d", z, c)
			}
		}
	})
})
