package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// PairedTest gives the p-value of the hypothesis that two versions have the
// same success rate on the same cases.
type PairedTest interface {
	PValue(pairs []Pair) float64
}

// McNemar is McNemar's exact test: under the null hypothesis each
// discordant case is equally likely to have flipped either way, so the
// smaller discordant count is Binomial(b+c, 1/2).
type McNemar struct{}

// PValue implements PairedTest over the cases counted under both versions.
func (McNemar) PValue(pairs []Pair) float64 {
	return McNemarExact(Discordant(pairs))
}

// McNemarExact returns the two-sided exact p-value for b and c discordant
// cases: min(1, 2 * P(X <= min(b, c))) with X ~ Binomial(b+c, 0.5).
// No discordant cases gives 1: nothing changed.
func McNemarExact(b, c int) float64 {
	n := b + c
	if n <= 0 || b < 0 || c < 0 {
		return 1
	}
	k := min(b, c)
	// gonum computes the CDF through the regularized incomplete beta
	// function, which stays accurate for large n where summing binomial
	// terms would underflow.
	p := 2 * distuv.Binomial{N: float64(n), P: 0.5}.CDF(float64(k))
	return math.Min(1, p)
}
