package compactint

import (
	"math"
	"testing"
)

// Values read back are those appended, before and after one that does
// not fit in 4 bytes (negative or too large) moves the list to 8.
func TestListKeepsEveryValue(t *testing.T) {
	for _, odd := range []int64{-1, math.MaxUint32 + 1, math.MaxInt64, math.MinInt64} {
		var l List
		var want []int64
		for i := range 1000 {
			x := int64(i * 7919)
			if i == 600 {
				x = odd
			}
			l.Append(x)
			want = append(want, x)
			if i == 300 && l.large != nil {
				t.Fatalf("small values moved the list to 8 bytes")
			}
		}
		if l.Len() != len(want) {
			t.Fatalf("odd %d: Len %d, want %d", odd, l.Len(), len(want))
		}
		for k, x := range want {
			if got := l.At(k); got != x {
				t.Fatalf("odd %d: At(%d) = %d, want %d", odd, k, got, x)
			}
		}
	}
}
