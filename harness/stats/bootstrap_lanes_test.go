package stats_test

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness/stats"
)

// referenceInterval is the bootstrap as first written: one draw, one
// branch per tally. Interval adds packed tallies instead; both must draw
// the same resamples and count them the same.
func referenceInterval(bs stats.Bootstrap, pairs []stats.Pair) stats.Interval {
	var counted []stats.Pair
	for _, p := range pairs {
		if p.Base != stats.Excluded || p.Head != stats.Excluded {
			counted = append(counted, p)
		}
	}
	n := uint64(len(counted))
	rng := rand.NewPCG(bs.Seed, 0x726f757465626e63) // bootstrap.go's stream word
	var deltas []float64
	tally := func(o stats.Outcome, k, n int) (int, int) {
		switch o {
		case stats.Hit:
			return k + 1, n + 1
		case stats.Miss:
			return k, n + 1
		}
		return k, n
	}
	for range bs.Resamples {
		var bk, bn, hk, hn int
		for range n {
			i, _ := bits.Mul64(rng.Uint64(), n)
			bk, bn = tally(counted[i].Base, bk, bn)
			hk, hn = tally(counted[i].Head, hk, hn)
		}
		if bn == 0 || hn == 0 {
			continue
		}
		deltas = append(deltas, float64(hk)/float64(hn)-float64(bk)/float64(bn))
	}
	slices.Sort(deltas)
	pct := func(q float64) float64 {
		h := q * float64(len(deltas)-1)
		lo := math.Floor(h)
		i := int(lo)
		if i+1 >= len(deltas) {
			return deltas[len(deltas)-1]
		}
		return deltas[i] + (h-lo)*(deltas[i+1]-deltas[i])
	}
	tail := (1 - bs.Confidence) / 2
	return stats.Interval{Lo: pct(tail), Hi: pct(1 - tail), Replicates: len(deltas)}
}

var _ = Describe("Bootstrap's packed tallies", func() {
	// A made-up mix of every outcome pair, repeated to the size asked.
	mix := func(n int) []stats.Pair {
		outcomes := []stats.Outcome{stats.Excluded, stats.Miss, stats.Hit}
		out := make([]stats.Pair, n)
		for i := range out {
			out[i] = stats.Pair{Base: outcomes[i%3], Head: outcomes[(i/3+i/7)%3]}
		}
		return out
	}

	It("gives the one-branch-per-draw interval in 16-bit lanes (under 65,536 pairs)", func() {
		bs := stats.Bootstrap{Resamples: 200, Confidence: 0.95, Seed: 7}
		pairs := mix(5000)
		Expect(bs.Interval(pairs)).To(Equal(referenceInterval(bs, pairs)))
	})

	It("gives it in 32-bit lanes too (65,536 pairs or more)", func() {
		bs := stats.Bootstrap{Resamples: 8, Confidence: 0.95, Seed: 11}
		pairs := mix(110000) // two thirds counted: 73,334 pairs
		Expect(bs.Interval(pairs)).To(Equal(referenceInterval(bs, pairs)))
	})
})
