package harness

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// A tally gives back what a map of counts holds, sorted, whatever the
// order, repeats and signs of the latencies, at every size around its
// merges.
func TestLatencyTallyCountsAsAMap(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 511, 512, 513, 5000, 60_000} {
		for _, spread := range []int64{1, 3, 2000, 5_000_000} {
			var tally latencyTally
			want := map[int64]int{}
			for range n {
				us := r.Int64N(spread)
				if r.IntN(50) == 0 {
					us = -us
				}
				tally.add(us)
				want[us]++
			}
			got := tally.appendTo(nil)
			slices.SortFunc(got, func(a, b latencyCount) int { return int(a.us - b.us) })
			sum := map[int64]int{}
			for i, lc := range got {
				sum[lc.us] += lc.n
				if i > 0 && got[i-1].us > lc.us {
					t.Fatalf("n %d, spread %d: out of order", n, spread)
				}
			}
			if len(sum) != len(want) {
				t.Fatalf("n %d, spread %d: %d distinct latencies, want %d", n, spread, len(sum), len(want))
			}
			for us, k := range want {
				if sum[us] != k {
					t.Fatalf("n %d, spread %d: latency %d counted %d times, want %d", n, spread, us, sum[us], k)
				}
			}
			// What was merged is sorted, each latency once.
			prev, first := int64(0), true
			for us := range tally.counted {
				if !first && us <= prev {
					t.Fatalf("n %d, spread %d: merged latencies not increasing at %d", n, spread, us)
				}
				prev, first = us, false
			}
		}
	}
}
