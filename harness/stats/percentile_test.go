package stats_test

import (
	"math"
	"math/rand/v2"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness/stats"
)

var _ = Describe("the bootstrap's percentiles", func() {
	It("are those of the sorted deltas, found by selection, with ties, runs and any length", func() {
		rng := rand.New(rand.NewPCG(12, 34))
		for round := range 3000 {
			n := 1 + rng.IntN(300)
			if round%100 == 0 {
				n = 2000 + rng.IntN(2000)
			}
			xs := make([]float64, n)
			distinct := 1 + rng.IntN(n)
			for i := range xs {
				switch round % 4 {
				case 0: // few values, many ties, as a small group's deltas
					xs[i] = float64(rng.IntN(distinct)-distinct/2) / float64(distinct)
				case 1: // ascending
					xs[i] = float64(i)
				case 2: // descending with plateaus
					xs[i] = float64((n - i) / 7)
				default:
					xs[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(6)-3))
				}
			}
			tail := rng.Float64() / 2
			if round%50 == 0 {
				tail = 0
			}
			own, reference := stats.PercentilesForTest(xs, tail, 1-tail)
			Expect(own).To(Equal(reference), "n %d, tail %v", n, tail)
			// Either order of the two quantiles.
			own, reference = stats.PercentilesForTest(xs, 1-tail, tail)
			Expect(own).To(Equal(reference), "n %d, tail %v", n, tail)
		}
	})
})
