package stats

import (
	"math"
	"testing"
)

// Reference values computed independently in Python from the textbook Wilson
// formula with z=1.959964 (python3 one-liner in the commit that added them).
func TestWilsonKnownValues(t *testing.T) {
	cases := []struct {
		k, n   int
		lo, hi float64
	}{
		{81, 263, 0.2553, 0.3662},
		{0, 10, 0, 0.2775},
		{10, 10, 0.7225, 1},
		{5, 10, 0.2366, 0.7634},
	}
	for _, c := range cases {
		lo, hi := Wilson(c.k, c.n, Confidence)
		if math.Abs(lo-c.lo) > 5e-4 || math.Abs(hi-c.hi) > 5e-4 {
			t.Errorf("Wilson(%d,%d) = [%.4f, %.4f], want [%.4f, %.4f]", c.k, c.n, lo, hi, c.lo, c.hi)
		}
	}
	if lo, hi := Wilson(0, 0, Confidence); lo != 0 || hi != 1 {
		t.Errorf("Wilson(0,0) = [%v,%v], want [0,1]", lo, hi)
	}
}
