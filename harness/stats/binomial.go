package stats

import (
	"math"
	"math/rand/v2"
)

// uniform is a draw from the open interval (0, 1): the top 53 bits of one
// PCG output, offset by half a step so that 0 and 1 never come up (the
// rejection step takes a logarithm of it). math/rand's Float64 does not
// promise its algorithm across Go releases; our intervals do.
func uniform(rng *rand.PCG) float64 {
	return (float64(rng.Uint64()>>11) + 0.5) * 0x1p-53
}

// binomial draws from Binomial(n, p) exactly (up to floating point), from
// rng alone: the same stream gives the same draws.
//
// Means below inversionMean are inverted by a search up from 0, whose
// expected length is about the mean; larger ones go to btrd, whose cost
// does not grow with n. p above one half is drawn as n minus a draw with
// 1-p, so both methods only see p <= 1/2.
func binomial(rng *rand.PCG, n int, p float64) int {
	switch {
	case n <= 0 || p <= 0:
		return 0
	case p >= 1:
		return n
	case p > 0.5:
		return n - binomial(rng, n, 1-p)
	case float64(n)*p < inversionMean:
		return binomialInversion(rng, n, p)
	}
	return btrd(rng, n, p)
}

// inversionMean is where btrd takes over; Hörmann's algorithm needs a mean
// of at least 10 for its hat to cover the distribution.
const inversionMean = 10

// binomialInversion walks the pmf up from P(0) = (1-p)^n with the ratio
// P(k)/P(k-1) = ((n+1)/k - 1) * p/(1-p) until the uniform is used up.
// Rounding can leave a sliver of mass past n; a draw that lands in it is
// redrawn rather than clamped, so no value gains probability.
func binomialInversion(rng *rand.PCG, n int, p float64) int {
	q := 1 - p
	s := p / q
	a := float64(n+1) * s
	p0 := math.Pow(q, float64(n))
	for {
		u := uniform(rng)
		pk := p0
		for k := 0; k <= n; k++ {
			if u <= pk {
				return k
			}
			u -= pk
			pk *= a/float64(k+1) - s
		}
	}
}

// btrd is Hörmann's transformed rejection with decomposition ("The
// generation of binomial random variates", J. Statist. Comput. Simul. 46,
// 1993, algorithm BTRD) for n*p >= 10 and p <= 1/2. A hat of the form
// (2a/(1/2-|u|) + b)u + c transforms a uniform into a candidate k; most
// candidates come from the hat's inner box and are taken outright, the
// rest are accepted by comparing against the pmf ratio f(k)/f(m) to the
// mode m, computed by recursion near m, by squeeze bounds, or by Stirling's
// series far away. Every accepted k is exact: the hat and squeezes only
// decide how often the pmf must be evaluated.
func btrd(rng *rand.PCG, n int, p float64) int {
	nf := float64(n)
	q := 1 - p
	m := math.Floor((nf + 1) * p) // the mode
	r := p / q
	nr := (nf + 1) * r
	npq := nf * p * q
	sqrtNPQ := math.Sqrt(npq)
	b := 1.15 + 2.53*sqrtNPQ
	a := -0.0873 + 0.0248*b + 0.01*p
	c := nf*p + 0.5
	alpha := (2.83 + 5.1/b) * sqrtNPQ
	vr := 0.92 - 4.2/b
	urvr := 0.86 * vr

	for {
		v := uniform(rng)
		if v <= urvr {
			// Inside the box under the hat: always accepted.
			u := v/vr - 0.43
			return int(math.Floor((2*a/(0.5-math.Abs(u))+b)*u + c))
		}
		var u float64
		if v >= vr {
			u = uniform(rng) - 0.5
		} else {
			u = v/vr - 0.93
			u = math.Copysign(0.5, u) - u
			v = uniform(rng) * vr
		}
		us := 0.5 - math.Abs(u)
		kf := math.Floor((2*a/us+b)*u + c)
		if kf < 0 || kf > nf {
			continue
		}
		k := int(kf)
		v = v * alpha / (a/(us*us) + b)
		km := math.Abs(kf - m)
		if km <= 15 {
			// Near the mode: f(k)/f(m) as a product of pmf ratios.
			f := 1.0
			mi := int(m)
			if mi < k {
				for i := mi + 1; i <= k; i++ {
					f *= nr/float64(i) - r
				}
			} else {
				for i := k + 1; i <= mi; i++ {
					v *= nr/float64(i) - r
				}
			}
			if v <= f {
				return k
			}
			continue
		}
		// Far from the mode: squeeze log f(k)/f(m) between normal-like
		// bounds first, and only then evaluate it by Stirling's series.
		v = math.Log(v)
		rho := (km / npq) * (((km/3+0.625)*km+1.0/6)/npq + 0.5)
		t := -km * km / (2 * npq)
		if v < t-rho {
			return k
		}
		if v > t+rho {
			continue
		}
		if v <= logRatioToMode(nf, m, kf, r) {
			return k
		}
	}
}

// logRatioToMode is log(f(k)/f(m)) for the Binomial(n, p) pmf f, with
// r = p/(1-p), from Stirling's formula with its tail corrections: exact
// to rounding, without the cancellation of four log-gammas near n.
func logRatioToMode(n, m, k, r float64) float64 {
	nm := n - m + 1
	nk := n - k + 1
	h := (m+0.5)*math.Log((m+1)/(r*nm)) + stirlingTail(m) + stirlingTail(n-m)
	return h + (n+1)*math.Log(nm/nk) + (k+0.5)*math.Log(nk*r/(k+1)) - stirlingTail(k) - stirlingTail(n-k)
}

// stirlingTail is log(k!) minus Stirling's approximation
// (k+1/2)log(k+1) - (k+1) + log(2π)/2. Small k come from log-gamma; from
// 10 on, the series 1/12x - 1/360x³ + 1/1260x⁵ with x = k+1 is exact to
// double precision.
func stirlingTail(k float64) float64 {
	if k < float64(len(smallStirlingTails)) {
		return smallStirlingTails[int(k)]
	}
	x := k + 1
	xx := x * x
	return (1.0/12 - (1.0/360-1.0/1260/xx)/xx) / x
}

var smallStirlingTails = func() [10]float64 {
	var t [10]float64
	for k := range t {
		x := float64(k) + 1
		lg, _ := math.Lgamma(x)
		t[k] = lg - ((x-0.5)*math.Log(x) - x + 0.5*math.Log(2*math.Pi))
	}
	return t
}()
