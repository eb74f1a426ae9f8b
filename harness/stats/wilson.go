// Package stats holds the statistics routebench reports: Wilson intervals
// for rates, and (in their own files) paired tests for comparisons.
package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Confidence is the level of every interval routebench reports.
const Confidence = 0.95

// z returns the two-sided standard normal quantile for a confidence level.
func z(level float64) float64 {
	return distuv.UnitNormal.Quantile(1 - (1-level)/2)
}

// Wilson returns the Wilson score interval for k successes in n trials at
// the given confidence level. It stays inside [0,1] and behaves at k=0 and
// k=n, unlike the normal approximation. n=0 gives the vacuous [0,1].
func Wilson(k, n int, level float64) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	zz := z(level)
	nf := float64(n)
	p := float64(k) / nf
	den := 1 + zz*zz/nf
	centre := (p + zz*zz/(2*nf)) / den
	half := zz / den * math.Sqrt(p*(1-p)/nf+zz*zz/(4*nf*nf))
	return math.Max(0, centre-half), math.Min(1, centre+half)
}
