package stats_test

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/routebench/routebench/harness/stats"
)

// The bootstrap draws each resample's counts of every kind of pair from
// their multinomial. The references here get the same distribution the
// long way, so the specs can hold Interval to it within Monte Carlo error.

// counted drops the pairs excluded under both versions, as Interval does.
func counted(pairs []stats.Pair) []stats.Pair {
	var out []stats.Pair
	for _, p := range pairs {
		if p.Base != stats.Excluded || p.Head != stats.Excluded {
			out = append(out, p)
		}
	}
	return out
}

// rates are one resample's head-minus-base delta, and whether both
// denominators are non-empty.
func delta(pairs []stats.Pair) (float64, bool) {
	bk, bn, hk, hn := stats.Rates(pairs)
	if bn == 0 || hn == 0 {
		return 0, false
	}
	return float64(hk)/float64(hn) - float64(bk)/float64(bn), true
}

// perCaseDeltas is the bootstrap as first written: B resamples of n cases
// drawn one at a time with replacement; it returns the defined deltas,
// sorted.
func perCaseDeltas(resamples int, seed uint64, pairs []stats.Pair) []float64 {
	pairs = counted(pairs)
	n := uint64(len(pairs))
	rng := rand.NewPCG(seed, 0x70657263617365) // any stream: only the distribution matters
	resample := make([]stats.Pair, n)
	var deltas []float64
	for range resamples {
		for j := range resample {
			i, _ := bits.Mul64(rng.Uint64(), n)
			resample[j] = pairs[i]
		}
		if d, ok := delta(resample); ok {
			deltas = append(deltas, d)
		}
	}
	slices.Sort(deltas)
	return deltas
}

// distribution is a discrete distribution of the delta over the defined
// resamples: P(delta < x) and P(delta <= x).
type distribution interface {
	below(x float64) float64
	atOrBelow(x float64) float64
}

// empirical is the distribution of a sorted sample.
type empirical []float64

// slack absorbs the rounding of deltas computed in different orders.
const slack = 1e-12

func (e empirical) below(x float64) float64 {
	return float64(sort.SearchFloat64s(e, x-slack)) / float64(len(e))
}

func (e empirical) atOrBelow(x float64) float64 {
	return float64(sort.SearchFloat64s(e, x+slack)) / float64(len(e))
}

// exact is the ideal bootstrap's distribution (infinitely many
// resamples), by enumerating every count of every kind of pair a resample
// can draw with its multinomial probability; only for small inputs.
type exact struct {
	deltas  []float64 // sorted, defined resamples only
	probs   []float64 // conditional on a defined resample
	defined float64   // P(a resample is defined)
}

func exactBootstrap(pairs []stats.Pair) exact {
	pairs = counted(pairs)
	n := len(pairs)
	kinds := map[stats.Pair]int{}
	for _, p := range pairs {
		kinds[p]++
	}
	var values []stats.Pair
	for p := range kinds {
		values = append(values, p)
	}
	lgN, _ := math.Lgamma(float64(n + 1))
	mass := map[float64]float64{}
	var defined float64
	counts := make([]int, len(values))
	var walk func(i, left int)
	walk = func(i, left int) {
		if i == len(values)-1 {
			counts[i] = left
			logP := lgN
			var resample []stats.Pair
			for j, c := range counts {
				lg, _ := math.Lgamma(float64(c + 1))
				logP += -lg + float64(c)*math.Log(float64(kinds[values[j]])/float64(n))
				for range c {
					resample = append(resample, values[j])
				}
			}
			if d, ok := delta(resample); ok {
				mass[d] += math.Exp(logP)
				defined += math.Exp(logP)
			}
			return
		}
		for c := 0; c <= left; c++ {
			counts[i] = c
			walk(i+1, left-c)
		}
	}
	walk(0, n)
	var e exact
	for d := range mass {
		e.deltas = append(e.deltas, d)
	}
	slices.Sort(e.deltas)
	for _, d := range e.deltas {
		e.probs = append(e.probs, mass[d]/defined)
	}
	e.defined = defined
	return e
}

func (e exact) below(x float64) float64 {
	var s float64
	for i, d := range e.deltas {
		if d < x-slack {
			s += e.probs[i]
		}
	}
	return s
}

func (e exact) atOrBelow(x float64) float64 {
	var s float64
	for i, d := range e.deltas {
		if d <= x+slack {
			s += e.probs[i]
		}
	}
	return s
}
