package stats

import "slices"

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
