// Package compactint keeps a long list of int64s that are nearly always
// small (a decision's latency in microseconds) in 4 bytes each, and in 8
// only once one does not fit: a million results' latencies are 4 MB, not 8.
package compactint

import "math"

// List is an append-only list of int64s.
type List struct {
	small []uint32
	// large holds every value once one did not fit in small, which is
	// then let go.
	large []int64
}

// Append adds x at the end.
func (l *List) Append(x int64) {
	if l.large == nil && x >= 0 && x <= math.MaxUint32 {
		l.small = append(l.small, uint32(x))
		return
	}
	if l.large == nil {
		l.large = make([]int64, len(l.small), max(len(l.small)+1, cap(l.small)))
		for i, v := range l.small {
			l.large[i] = int64(v)
		}
		l.small = nil
	}
	l.large = append(l.large, x)
}

// At is the k-th value appended.
func (l *List) At(k int) int64 {
	if l.large != nil {
		return l.large[k]
	}
	return int64(l.small[k])
}

// Len is how many values were appended.
func (l *List) Len() int {
	if l.large != nil {
		return len(l.large)
	}
	return len(l.small)
}
