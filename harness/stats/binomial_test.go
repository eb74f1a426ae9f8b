package stats_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/routebench/routebench/harness/stats"
)

// binomialPMF is P(X = k) for X ~ Binomial(n, p), through log-gamma so
// that large n neither overflows nor underflows early.
func binomialPMF(n, k int, p float64) float64 {
	ln, _ := math.Lgamma(float64(n + 1))
	lk, _ := math.Lgamma(float64(k + 1))
	lnk, _ := math.Lgamma(float64(n - k + 1))
	return math.Exp(ln - lk - lnk + float64(k)*math.Log(p) + float64(n-k)*math.Log1p(-p))
}

// chiSquareP is the p-value of Pearson's chi-square test of the observed
// counts of each value against the binomial pmf. Values are pooled from
// each tail inwards until every cell expects at least 5 draws.
func chiSquareP(observed map[int]int, draws, n int, p float64) (float64, int) {
	type cell struct{ obs, exp float64 }
	var cells []cell
	var cur cell
	for k := 0; k <= n; k++ {
		cur.obs += float64(observed[k])
		cur.exp += float64(draws) * binomialPMF(n, k, p)
		if cur.exp >= 5 {
			cells = append(cells, cur)
			cur = cell{}
		}
	}
	// The upper tail left over joins the last cell.
	if len(cells) > 0 {
		cells[len(cells)-1].obs += cur.obs
		cells[len(cells)-1].exp += cur.exp
	}
	var stat float64
	for _, c := range cells {
		stat += (c.obs - c.exp) * (c.obs - c.exp) / c.exp
	}
	df := len(cells) - 1
	if df < 1 {
		return 1, 0
	}
	return distuv.ChiSquared{K: float64(df)}.Survival(stat), df
}

var _ = Describe("the bootstrap's binomial sampler", func() {
	It("gives the only possible value at the edges", func() {
		rng := rand.NewPCG(1, 2)
		for range 100 {
			Expect(stats.Binomial(rng, 0, 0.3)).To(Equal(0))
			Expect(stats.Binomial(rng, 0, 1)).To(Equal(0))
			Expect(stats.Binomial(rng, 50, 0)).To(Equal(0))
			Expect(stats.Binomial(rng, 50, 1)).To(Equal(50))
			Expect(stats.Binomial(rng, 1_000_000, 1)).To(Equal(1_000_000))
		}
	})

	It("is a pure function of the stream", func() {
		a, b := rand.NewPCG(9, 9), rand.NewPCG(9, 9)
		for _, n := range []int{3, 40, 10_000} {
			for range 1000 {
				Expect(stats.Binomial(a, n, 0.37)).To(Equal(stats.Binomial(b, n, 0.37)))
			}
		}
	})

	// 200,000 draws each with fixed seeds, so the outcome never changes
	// between runs; the thresholds (p-value above 1e-4, mean and variance
	// within 5 standard errors) would fail a sampler off by even a small
	// fraction of the pmf in any cell, while a correct one passes them
	// with room to spare. The settings cover both methods (inversion below
	// a mean of 10, BTRD from 10, which has its own near-mode, squeeze and
	// Stirling branches) and p near 0, 1/2 and 1 (p > 1/2 is drawn by
	// symmetry).
	DescribeTable("draws have the binomial's distribution",
		func(n int, p float64, seed uint64) {
			const draws = 200_000
			rng := rand.NewPCG(seed, 0x62696e6f6d69616c)
			observed := map[int]int{}
			var sum, sumSq float64
			for range draws {
				k := stats.Binomial(rng, n, p)
				Expect(k).To(BeNumerically(">=", 0))
				Expect(k).To(BeNumerically("<=", n))
				observed[k]++
				sum += float64(k)
				sumSq += float64(k) * float64(k)
			}
			mean := sum / draws
			variance := sumSq/draws - mean*mean
			wantMean, wantVar := float64(n)*p, float64(n)*p*(1-p)
			// Standard error of the sample mean, and of the sample
			// variance from the binomial's fourth central moment.
			seMean := math.Sqrt(wantVar / draws)
			mu4 := wantVar * (1 + 3*(float64(n)-2)*p*(1-p))
			seVar := math.Sqrt((mu4 - wantVar*wantVar) / draws)
			Expect(mean).To(BeNumerically("~", wantMean, 5*seMean))
			Expect(variance).To(BeNumerically("~", wantVar, 5*seVar))
			pval, df := chiSquareP(observed, draws, n, p)
			Expect(df).To(BeNumerically(">=", 1))
			Expect(pval).To(BeNumerically(">", 1e-4), fmt.Sprintf("chi-square over %d degrees of freedom", df))
		},
		Entry("n=2, p=0.2", 2, 0.2, uint64(1)),
		Entry("n=5, p=0.3 (inversion)", 5, 0.3, uint64(2)),
		Entry("n=19, p=0.5 (inversion, mean 9.5)", 19, 0.5, uint64(3)),
		Entry("n=20, p=0.5 (BTRD, mean 10)", 20, 0.5, uint64(4)),
		Entry("n=50, p=0.97 (inversion by symmetry)", 50, 0.97, uint64(5)),
		Entry("n=1000, p=0.001 (p near 0)", 1000, 0.001, uint64(6)),
		Entry("n=100000, p=0.00009 (p near 0, inversion)", 100_000, 0.00009, uint64(7)),
		Entry("n=100000, p=0.0002 (p near 0, BTRD)", 100_000, 0.0002, uint64(8)),
		Entry("n=200, p=0.05 (BTRD at mean 10)", 200, 0.05, uint64(9)),
		Entry("n=1000, p=0.5", 1000, 0.5, uint64(10)),
		Entry("n=10000, p=0.37", 10_000, 0.37, uint64(11)),
		Entry("n=10000, p=0.999 (p near 1, BTRD by symmetry)", 10_000, 0.999, uint64(12)),
		Entry("n=1000000, p=0.5", 1_000_000, 0.5, uint64(13)),
	)
})

// BTRD takes a candidate far from the mode only in a thin band between its
// squeezes, so an error in the Stirling evaluation there would hardly show
// in the draws above; it is checked on its own against log-gamma.
var _ = Describe("BTRD's pmf ratio to the mode", func() {
	DescribeTable("is log f(k) - log f(m) by log-gamma",
		func(n int, p float64) {
			nf, r := float64(n), p/(1-p)
			m := math.Floor((nf + 1) * p)
			lg := func(x float64) float64 { v, _ := math.Lgamma(x); return v }
			for _, k := range []float64{0, 1, 5, m - 40, m - 16, m + 16, m + 40, m + 300, nf - 1, nf} {
				if k < 0 || k > nf {
					continue
				}
				want := lg(m+1) + lg(nf-m+1) - lg(k+1) - lg(nf-k+1) + (k-m)*math.Log(r)
				// The reference cancels four log-gammas of up to n log n:
				// it is itself only good to a few ulps of those.
				tol := 1e-14*(lg(m+1)+lg(nf-m+1)+lg(k+1)+lg(nf-k+1)) + 1e-12
				got := stats.LogRatioToMode(nf, m, k, r)
				Expect(got).To(BeNumerically("~", want, tol), fmt.Sprintf("n=%d p=%g k=%g", n, p, k))
			}
		},
		Entry("n=60, p=0.5", 60, 0.5),
		Entry("n=1000, p=0.3", 1000, 0.3),
		Entry("n=100000, p=0.0002", 100_000, 0.0002),
		Entry("n=1000000, p=0.45", 1_000_000, 0.45),
	)
})
