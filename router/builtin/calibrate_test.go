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
		Expect(c.theta).To(Equal(calPrior))
		Expect(c.floor).To(Equal(minFloor))
		Expect(c.confidence(calInput{prob: 0.5})).To(BeNumerically("~", sigmoid(calPrior[0]), 1e-12))
	})

	It("recovers a known logistic and is reliable on it", func() {
		truth := [calFeatures]float64{-2, 1, 0.5, 3}
		rng := rand.New(rand.NewPCG(1, 2))
		var obs []heldOut
		for range 20000 {
			m := rng.Float64() * 6
			o := heldOut{calInput: calInput{margin: m, prob: sigmoid(m - 2*rng.Float64()), fit: rng.Float64() * 0.8}, weight: 1}
			x := calFeaturesOf(o.calInput)
			z := truth[0]*x[0] + truth[1]*x[1] + truth[2]*x[2] + truth[3]*x[3]
			o.correct = rng.Float64() < sigmoid(z)
			obs = append(obs, o)
		}
		c := fitCalibration(obs)
		for k := range truth {
			Expect(c.theta[k]).To(BeNumerically("~", truth[k], 0.35), "theta[%d] = %v", k, c.theta)
		}
		conf := make([]float64, len(obs))
		correct := make([]bool, len(obs))
		for i, o := range obs {
			conf[i], correct[i] = c.confidence(o.calInput), o.correct
		}
		Expect(reliability(conf, correct)).To(BeNumerically("<", 0.05))
	})

	It("leans on the prior when a registry has few examples", func() {
		// Three right answers prove little: theta moves toward them, but
		// not to a confident extreme.
		in := calInput{margin: 1, prob: 0.6, fit: 0.3}
		right := heldOut{calInput: in, correct: true, weight: 1}
		c := fitCalibration([]heldOut{right, right, right})
		Expect(c.confidence(in)).To(BeNumerically("<", 0.95))
		Expect(c.confidence(in)).To(BeNumerically(">", fitCalibration(nil).confidence(in)))
	})

	It("matches the held-out accuracy of the registry it was fitted on", func() {
		f := fittedFor(testSkills(), defaultTopK)
		obs := f.heldOut(f.trainingItems(defaultWeights, max(trainCands, defaultTopK+1)))
		Expect(f.cal.items).To(Equal(len(obs)))
		var sumConf, sumRight, sumW float64
		for _, o := range obs {
			sumConf += o.weight * f.cal.confidence(o.calInput)
			if o.correct {
				sumRight += o.weight
			}
			sumW += o.weight
		}
		Expect(sumConf / sumW).To(BeNumerically("~", sumRight/sumW, 0.05))
		Expect(f.cal.floor).To(BeNumerically(">=", minFloor))
		Expect(f.cal.floor).To(BeNumerically("<=", maxFloor))
	})

	It("orders confidence by margin and by fit", func() {
		c := fittedFor(testSkills(), defaultTopK).cal
		Expect(c.confidence(calInput{margin: 3, prob: 0.9, fit: 0.3})).To(BeNumerically(">", c.confidence(calInput{margin: 1, prob: 0.6, fit: 0.3})))
		Expect(c.confidence(calInput{margin: 2, prob: 0.8, fit: 0.5})).To(BeNumerically(">", c.confidence(calInput{margin: 2, prob: 0.8, fit: 0.1})))
		Expect(c.confidence(calInput{margin: -2, prob: 0.1, fit: 0.3})).To(BeNumerically("<", 0.5), "a candidate behind another is likely wrong")
	})
})
