package reports

import (
	"bytes"
	"hash/maphash"
	"slices"
	"strings"
	"sync"
)

// caseIDs is the case id of every result a report counts, in the order
// they were added, without a string or a map entry a result: each
// distinct id is stored once, back to back in one array, and numbered;
// a result keeps its id's number (4 bytes). The case table walks the ids
// sorted with each one's positions, and junit.xml sorts a testsuite's
// cases by id, both from here. On a million results that is about 40 MB
// where a map of ids to positions took over 100.
type caseIDs struct {
	text []byte   // the distinct ids, back to back
	end  []uint32 // where id number n ends in text
	// slots is an open-addressing table of id numbers + 1 (0 is empty),
	// a power of two long, at most half full; it goes once the results are
	// grouped, and lookups search the sorted ids instead.
	slots []uint32
	seed  maphash.Seed
	// at is the id number of each result added; pos its position in the
	// stream, nil while results came as positions 0, 1, 2…
	at  []uint32
	pos []int

	// grouped is built once, when first asked for (writers may ask side
	// by side).
	once    sync.Once
	grouped *idGroups
}

// idGroups are the results grouped by id: sorted lists the id numbers in
// id order; the results of id number n are members[start[n]:start[n+1]]
// (indexes in add order, so in stream order).
type idGroups struct {
	sorted  []uint32
	start   []uint32
	members []uint32
}

func newCaseIDs() *caseIDs { return &caseIDs{seed: maphash.MakeSeed()} }

// add counts the result at stream position i, whose case is id, and
// returns its id's number.
func (t *caseIDs) add(i int, id string) uint32 {
	if t.grouped != nil {
		panic("reports: a result added to case ids already grouped")
	}
	if t.pos == nil && i != len(t.at) {
		t.pos = make([]int, len(t.at), cap(t.at))
		for k := range t.pos {
			t.pos[k] = k
		}
	}
	if t.pos != nil {
		t.pos = append(t.pos, i)
	}
	n := t.number(id)
	t.at = append(t.at, n)
	return n
}

// number finds id's number, numbering it when new.
func (t *caseIDs) number(id string) uint32 {
	if 2*(len(t.end)+1) > len(t.slots) {
		t.grow()
	}
	mask := uint64(len(t.slots) - 1)
	for s := maphash.String(t.seed, id) & mask; ; s = (s + 1) & mask {
		switch k := t.slots[s]; {
		case k == 0:
			t.text = append(t.text, id...)
			t.end = append(t.end, uint32(len(t.text)))
			n := uint32(len(t.end) - 1)
			t.slots[s] = n + 1
			return n
		case string(t.bytes(k-1)) == id:
			return k - 1
		}
	}
}

// lookup finds id's number without numbering it.
func (t *caseIDs) lookup(id string) (uint32, bool) {
	if t.slots == nil {
		sorted := t.groups().sorted
		i, found := slices.BinarySearchFunc(sorted, id, func(n uint32, id string) int { return strings.Compare(string(t.bytes(n)), id) })
		if !found {
			return 0, false
		}
		return sorted[i], true
	}
	mask := uint64(len(t.slots) - 1)
	for s := maphash.String(t.seed, id) & mask; ; s = (s + 1) & mask {
		switch k := t.slots[s]; {
		case k == 0:
			return 0, false
		case string(t.bytes(k-1)) == id:
			return k - 1, true
		}
	}
}

func (t *caseIDs) grow() {
	slots := make([]uint32, max(1024, 2*len(t.slots)))
	mask := uint64(len(slots) - 1)
	for n := range t.end {
		s := maphash.Bytes(t.seed, t.bytes(uint32(n))) & mask
		for slots[s] != 0 {
			s = (s + 1) & mask
		}
		slots[s] = uint32(n) + 1
	}
	t.slots = slots
}

func (t *caseIDs) bytes(n uint32) []byte {
	start := uint32(0)
	if n > 0 {
		start = t.end[n-1]
	}
	return t.text[start:t.end[n]]
}

// id is id number n.
func (t *caseIDs) id(n uint32) string { return string(t.bytes(n)) }

// count is how many distinct ids there are.
func (t *caseIDs) count() int { return len(t.end) }

// position is the stream position of the k-th result added.
func (t *caseIDs) position(k uint32) int {
	if t.pos == nil {
		return int(k)
	}
	return t.pos[k]
}

// compare orders id numbers by their ids.
func (t *caseIDs) compare(a, b uint32) int { return bytes.Compare(t.bytes(a), t.bytes(b)) }

// groups are the results grouped by id, built on first use: by then every
// result has been added.
func (t *caseIDs) groups() *idGroups {
	t.once.Do(func() {
		g := &idGroups{sorted: make([]uint32, t.count()), start: make([]uint32, t.count()+1)}
		for n := range g.sorted {
			g.sorted[n] = uint32(n)
		}
		slices.SortFunc(g.sorted, t.compare)
		for _, n := range t.at {
			g.start[n+1]++
		}
		for n := range t.count() {
			g.start[n+1] += g.start[n]
		}
		g.members = make([]uint32, len(t.at))
		next := slices.Clone(g.start[:t.count()])
		for k, n := range t.at {
			g.members[next[n]] = uint32(k)
			next[n]++
		}
		t.grouped, t.slots = g, nil
	})
	return t.grouped
}

// positions appends the stream positions of id number n's results, in
// stream order, to buf.
func (t *caseIDs) positions(n uint32, buf []int) []int {
	g := t.groups()
	for _, k := range g.members[g.start[n]:g.start[n+1]] {
		buf = append(buf, t.position(k))
	}
	return buf
}

// order is the case table's walk: ids sorted, each with its positions.
func (t *caseIDs) order() caseOrder { return idOrder{t} }

// caseOrder is positions of a stream grouped by case ID, IDs sorted (the
// case table's walk; see harness.CaseOrder).
type caseOrder interface {
	Len() int
	ID(i int) string
	// Positions appends the i-th ID's positions, in stream order, to buf.
	Positions(i int, buf []int) []int
}

type idOrder struct{ t *caseIDs }

func (o idOrder) Len() int        { return o.t.count() }
func (o idOrder) ID(i int) string { return o.t.id(o.t.groups().sorted[i]) }
func (o idOrder) Positions(i int, buf []int) []int {
	return o.t.positions(o.t.groups().sorted[i], buf)
}
