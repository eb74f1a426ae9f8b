package harness

import (
	"encoding/binary"
	"slices"
)

// latencyTally counts a group set's decisions by latency, for exact
// percentiles in memory that does not grow with the decisions. The
// distinct latencies seen so far are kept sorted, each written as a
// varint gap from the one before and a uvarint count: a router whose
// microseconds repeat (the builtin models') costs a few hundred bytes a
// group set, and one whose never do (a remote model's, spread over
// seconds) about four bytes a decision, less than a map entry or a plain
// list of them. Latencies arrive in any order: they wait in fresh until
// there are an eighth as many as distinct ones counted (at least
// minFresh), then are sorted and merged in, so merging costs a constant
// number of passes a latency.
type latencyTally struct {
	packed   []byte
	distinct int
	fresh    []int64
}

const minFresh = 512

func (t *latencyTally) add(us int64) {
	t.fresh = append(t.fresh, us)
	if len(t.fresh) >= max(minFresh, t.distinct/8) {
		t.merge()
	}
}

// merge moves the fresh latencies into packed.
func (t *latencyTally) merge() {
	if len(t.fresh) == 0 {
		return
	}
	slices.Sort(t.fresh)
	out := make([]byte, 0, len(t.packed)+3*len(t.fresh))
	distinct, prev := 0, int64(0)
	put := func(us int64, n uint64) {
		out = binary.AppendVarint(out, us-prev)
		out = binary.AppendUvarint(out, n)
		prev = us
		distinct++
	}
	fresh := t.fresh
	for us, n := range t.counted {
		for len(fresh) > 0 && fresh[0] < us {
			v, k := runOf(fresh)
			put(v, uint64(k))
			fresh = fresh[k:]
		}
		if len(fresh) > 0 && fresh[0] == us {
			_, k := runOf(fresh)
			n += uint64(k)
			fresh = fresh[k:]
		}
		put(us, n)
	}
	for len(fresh) > 0 {
		v, k := runOf(fresh)
		put(v, uint64(k))
		fresh = fresh[k:]
	}
	t.packed, t.distinct, t.fresh = out, distinct, t.fresh[:0]
}

// runOf is the first of sorted latencies and how many times it stands
// at their head.
func runOf(sorted []int64) (int64, int) {
	k := 1
	for k < len(sorted) && sorted[k] == sorted[0] {
		k++
	}
	return sorted[0], k
}

// counted yields the merged latencies in increasing order with their
// counts (not the fresh ones).
func (t *latencyTally) counted(yield func(us int64, n uint64) bool) {
	b, us := t.packed, int64(0)
	for len(b) > 0 {
		gap, w := binary.Varint(b)
		n, w2 := binary.Uvarint(b[w:])
		if w <= 0 || w2 <= 0 {
			panic("harness: a latency tally's bytes are damaged")
		}
		b = b[w+w2:]
		us += gap
		if !yield(us, n) {
			return
		}
	}
}

// appendTo appends every latency counted, merged or fresh, to buf, the
// fresh ones one by one (the caller sorts and sums them).
func (t *latencyTally) appendTo(buf []latencyCount) []latencyCount {
	for us, n := range t.counted {
		buf = append(buf, latencyCount{us, int(n)})
	}
	for _, us := range t.fresh {
		buf = append(buf, latencyCount{us, 1})
	}
	return buf
}
