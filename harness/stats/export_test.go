package stats

import (
	"math"
	"slices"
)

// Binomial exposes the bootstrap's binomial sampler to the external specs.
var Binomial = binomial

// LogRatioToMode exposes BTRD's far-from-the-mode acceptance bound.
var LogRatioToMode = logRatioToMode

// PercentilesForTest is the bootstrap's two percentiles of xs by
// selection, next to percentile of xs sorted, which they must equal.
func PercentilesForTest(xs []float64, q1, q2 float64) (own, reference [2]float64) {
	sorted := slices.Clone(xs)
	slices.Sort(sorted)
	reference = [2]float64{percentile(sorted, q1), percentile(sorted, q2)}
	own[0], own[1] = percentiles(slices.Clone(xs), q1, q2)
	return own, reference
}

// percentile interpolates linearly between the order statistics around
// q*(len-1) of sorted xs (Hyndman and Fan's type 7, numpy's default).
func percentile(sorted []float64, q float64) float64 {
	h := q * float64(len(sorted)-1)
	lo := math.Floor(h)
	i := int(lo)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-lo)*(sorted[i+1]-sorted[i])
}
