package stats

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
)

// bootstrapStream is PCG's second seed word. It is fixed so that Seed alone
// decides the resamples; changing it would change every published interval.
const bootstrapStream = 0x726f757465626e63 // "routebnc"

// DeltaInterval gives a confidence interval for head rate minus base rate
// over paired cases.
type DeltaInterval interface {
	Interval(pairs []Pair) Interval
}

// Interval is a confidence interval of a delta.
type Interval struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
	// Replicates is how many resamples gave a defined delta: a resample
	// that leaves either version with an empty denominator is dropped.
	// Zero means no interval could be computed (Lo and Hi are 0).
	Replicates int `json:"replicates"`
}

// Bootstrap is the paired percentile bootstrap: resample cases with
// replacement, recompute both rates on each resample, and take the
// percentiles of the deltas. Resampling whole cases keeps the pairing, so
// the interval is as narrow as the correlation between versions allows.
type Bootstrap struct {
	Resamples  int
	Confidence float64
	Seed       uint64
}

// NewBootstrap takes its settings from th.
func NewBootstrap(th Thresholds) Bootstrap {
	return Bootstrap{Resamples: th.Resamples, Confidence: th.Confidence, Seed: th.Seed}
}

// Interval implements DeltaInterval. Pairs excluded under both versions are
// dropped first: they cannot move either rate, and resampling only the
// cases a metric counts keeps small denominators (clarify_recall over a
// handful of clarify cases) from producing mostly empty resamples.
// The result is a pure function of the pairs and the settings.
func (bs Bootstrap) Interval(pairs []Pair) Interval {
	counted := make([]Pair, 0, len(pairs))
	for _, p := range pairs {
		if p.Base != Excluded || p.Head != Excluded {
			counted = append(counted, p)
		}
	}
	n := uint64(len(counted))
	if n == 0 || bs.Resamples <= 0 {
		return Interval{}
	}
	rng := rand.NewPCG(bs.Seed, bootstrapStream)
	deltas := make([]float64, 0, bs.Resamples)
	// Each pair's four tallies (base k and n, head k and n) are added as
	// one word: no count of a resample exceeds n draws, so below 2^16
	// pairs four 16-bit lanes hold them, else two words of 32-bit lanes.
	// The same draws, the same counts: only faster than branching on
	// every draw.
	packed := n < 1<<16
	lanes := 1
	if !packed {
		lanes = 2
	}
	incs := make([]uint64, lanes*int(n))
	for i, p := range counted {
		bk, bn := tally(p.Base, 0, 0)
		hk, hn := tally(p.Head, 0, 0)
		if packed {
			incs[i] = uint64(bk) | uint64(bn)<<16 | uint64(hk)<<32 | uint64(hn)<<48
		} else {
			incs[2*i], incs[2*i+1] = uint64(bk)|uint64(bn)<<32, uint64(hk)|uint64(hn)<<32
		}
	}
	for range bs.Resamples {
		var bk, bn, hk, hn int
		if packed {
			var acc uint64
			for range n {
				// Index in [0, n) from the high word of a 64x64 multiply;
				// math/rand's IntN does this too but does not promise its
				// algorithm across Go releases, and we promise our intervals.
				i, _ := bits.Mul64(rng.Uint64(), n)
				acc += incs[i]
			}
			bk, bn, hk, hn = int(acc&0xffff), int(acc>>16&0xffff), int(acc>>32&0xffff), int(acc>>48)
		} else {
			var base, head uint64
			for range n {
				i, _ := bits.Mul64(rng.Uint64(), n)
				base += incs[2*i]
				head += incs[2*i+1]
			}
			bk, bn, hk, hn = int(base&0xffffffff), int(base>>32), int(head&0xffffffff), int(head>>32)
		}
		if bn == 0 || hn == 0 {
			continue
		}
		deltas = append(deltas, ratio(hk, hn)-ratio(bk, bn))
	}
	if len(deltas) == 0 {
		return Interval{}
	}
	slices.Sort(deltas)
	tail := (1 - bs.Confidence) / 2
	return Interval{
		Lo:         percentile(deltas, tail),
		Hi:         percentile(deltas, 1-tail),
		Replicates: len(deltas),
	}
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
