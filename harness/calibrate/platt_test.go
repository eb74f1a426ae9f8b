package calibrate_test

import (
	"math"
	"math/rand/v2"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness/calibrate"
)

// overconfident draws judgements whose stated confidences are too extreme
// and too high: right with probability sigmoid(0.5*logit(conf) - 0.3).
func overconfident(rng *rand.Rand, n int) []calibrate.Judgement {
	out := make([]calibrate.Judgement, n)
	for i := range out {
		conf := 0.01 + 0.98*rng.Float64()
		z := 0.5*math.Log(conf/(1-conf)) - 0.3
		out[i] = calibrate.Judgement{Confidence: conf, Correct: rng.Float64() < 1/(1+math.Exp(-z))}
	}
	return out
}

var _ = Describe("Platt scaling", func() {
	It("improves ECE and Brier of an over-confident judge on fresh data", func() {
		rng := rand.New(rand.NewPCG(42, 1))
		fit, eval := overconfident(rng, 3000), overconfident(rng, 3000)
		p := calibrate.FitPlatt(fit)
		Expect(p.Converged).To(BeTrue())
		Expect(p.A).To(BeNumerically("~", 0.5, 0.1))
		Expect(p.B).To(BeNumerically("~", -0.3, 0.1))
		before, after := calibrate.Measure(eval, nil), calibrate.Measure(eval, p.Apply)
		Expect(before.ECE).To(BeNumerically(">", 0.1))
		Expect(after.ECE).To(BeNumerically("<", before.ECE/3))
		Expect(after.Brier).To(BeNumerically("<", before.Brier))
	})

	It("is the identity when every answer is right (nothing to fit)", func() {
		js := []calibrate.Judgement{{0.9, true}, {0.7, true}}
		p := calibrate.FitPlatt(js)
		Expect(p.A).To(Equal(1.0))
		Expect(p.B).To(Equal(0.0))
		Expect(p.Apply(0.7)).To(BeNumerically("~", 0.7, 1e-9))
	})

	It("stays finite on separable answers", func() {
		js := []calibrate.Judgement{{0.2, false}, {0.3, false}, {0.8, true}, {0.9, true}}
		p := calibrate.FitPlatt(js)
		Expect(math.IsInf(p.A, 0) || math.IsNaN(p.A)).To(BeFalse())
		Expect(p.Apply(0.9)).To(BeNumerically(">", p.Apply(0.2)))
	})

	It("measures ECE over 10 bins and Brier by hand", func() {
		js := []calibrate.Judgement{{0.95, true}, {0.95, false}, {0.15, false}, {0.15, false}}
		q := calibrate.Measure(js, nil)
		// bin 9: conf 0.95, acc 0.5 -> 0.45; bin 1: conf 0.15, acc 0 -> 0.15.
		Expect(q.ECE).To(BeNumerically("~", 0.5*0.45+0.5*0.15, 1e-12))
		Expect(q.Brier).To(BeNumerically("~", (0.05*0.05+0.95*0.95+2*0.15*0.15)/4, 1e-12))
		Expect(q.Bins).To(HaveLen(10))
		Expect(q.Bins[9].N).To(Equal(2))
	})
})
