package reports

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/routebench/routebench/internal/spool"
)

// caseIDs is the case id of every result a report counts, each with the
// result's stream position and where its view lies (caseViews), grouped
// by id and the ids sorted once every result is in: the case table's
// walk, and the positions of the few cases a flip list quotes. The
// results are sorted on disk (spool.Sorter), not held: memory is the
// same for a thousand results or a million, but for a sparse index of
// the sorted ids (one id in idBlock).
type caseIDs struct {
	sorter *spool.Sorter
	val    []byte // add's, reused
	// groupedInMemory is groups' spool's (a test's may be small).
	groupedInMemory int

	// grouped is built once, when first asked for (writers may ask side
	// by side): each distinct id in order, with its results (groupCases).
	once    sync.Once
	grouped *idGroups
}

// idGroups is the results grouped by id, ids sorted, in a spool: for each
// id, its length and bytes, how many results it has and each one's
// position and view span, in the order added (so stream order). index
// holds every idBlock-th id and where it starts, for lookup.
type idGroups struct {
	spool *spool.Spool
	// src reads spool: taken once, when grouping ends, as taking it may
	// write the spool's last bytes to its file, and readers run side by
	// side.
	src   io.ReaderAt
	count int
	index []idMark
	err   error
}

type idMark struct {
	id string
	at int64
}

// idBlock is how many ids in the grouped spool one index entry covers:
// a lookup reads through at most that many.
const idBlock = 64

// idsInMemory is how many bytes of ids and positions are sorted in
// memory, and groupedInMemory how many bytes of the grouped ids stay in
// memory, before each moves to a temporary file.
const (
	idsInMemory     = 512 << 10
	groupedInMemory = 1 << 20
)

// caseResult is one result of a case: its stream position and where its
// view lies.
type caseResult struct {
	pos  int
	view spool.Span
}

func newCaseIDs() *caseIDs { return newCaseIDsIn(idsInMemory, groupedInMemory) }

// newCaseIDsIn is newCaseIDs sorting sortInMemory bytes in memory and
// keeping groupedInMemory bytes of the grouped ids in memory.
func newCaseIDsIn(sortInMemory, groupedInMemory int) *caseIDs {
	return &caseIDs{sorter: spool.NewSorter("case-ids", sortInMemory), groupedInMemory: groupedInMemory}
}

// add counts the result at stream position i, whose case is id and whose
// view lies at view.
func (t *caseIDs) add(i int, id string, view spool.Span) {
	if t.grouped != nil {
		panic("reports: a result added to case ids already grouped")
	}
	b := binary.AppendUvarint(t.val[:0], uint64(i))
	b = binary.AppendUvarint(b, uint64(view.Off))
	b = binary.AppendUvarint(b, uint64(view.Size))
	t.val = b
	t.sorter.Add(0, []byte(id), b)
}

// groups are the results grouped by id, built on first use: by then every
// result has been added.
func (t *caseIDs) groups() *idGroups {
	t.once.Do(func() {
		g := &idGroups{spool: spool.New("case-groups", t.groupedInMemory)}
		t.grouped = g
		var out, last, members []byte
		n, started := 0, false
		end := func() {
			if !started {
				return
			}
			if g.count%idBlock == 0 {
				g.index = append(g.index, idMark{string(last), g.spool.Len() + int64(len(out))})
			}
			g.count++
			out = binary.AppendUvarint(out, uint64(len(last)))
			out = append(out, last...)
			out = binary.AppendUvarint(out, uint64(n))
			out = append(out, members...)
			if len(out) >= 64<<10 {
				g.spool.Write(out) // a failed write fails the reader, which reports it
				out = out[:0]
			}
		}
		g.err = t.sorter.Each(0, func(key, value []byte) error {
			if !started || !bytes.Equal(key, last) {
				end()
				last, members, n, started = append(last[:0], key...), members[:0], 0, true
			}
			members = append(members, value...)
			n++
			return nil
		})
		end()
		g.spool.Write(out)
		t.sorter.Close()
		if g.err == nil {
			g.src, g.err = g.spool.ReaderAt()
		}
	})
	return t.grouped
}

// count is how many distinct ids there are.
func (t *caseIDs) count() int { return t.groups().count }

// idWalk reads the grouped ids in order from a place in the spool.
type idWalk struct {
	r    *bufio.Reader
	left int // ids not yet read
	id   []byte
}

var errDamagedIDs = errors.New("keep case-groups: a damaged record")

// walkFrom reads the grouped ids from the k-th index mark on, buffer
// bytes at a time.
func (g *idGroups) walkFrom(mark, buffer int) (*idWalk, error) {
	if g.err != nil {
		return nil, g.err
	}
	w := &idWalk{left: g.count}
	if mark < len(g.index) {
		at := g.index[mark].at
		w.left -= mark * idBlock
		w.r = bufio.NewReaderSize(io.NewSectionReader(g.src, at, g.spool.Len()-at), buffer)
	} else {
		w.left = 0
	}
	return w, nil
}

// next reads the next id and appends its results to into; ok is false
// at the end. id is valid until the next call.
func (w *idWalk) next(into []caseResult) (id []byte, out []caseResult, ok bool, err error) {
	if w.left == 0 {
		return nil, into, false, nil
	}
	w.left--
	n, err := binary.ReadUvarint(w.r)
	if err != nil || n > 1<<32 {
		return nil, into, false, errDamagedIDs
	}
	w.id = slices.Grow(w.id[:0], int(n))[:n]
	if _, err := io.ReadFull(w.r, w.id); err != nil {
		return nil, into, false, errDamagedIDs
	}
	members, err := binary.ReadUvarint(w.r)
	if err != nil {
		return nil, into, false, errDamagedIDs
	}
	for range members {
		var x [3]uint64
		for k := range x {
			if x[k], err = binary.ReadUvarint(w.r); err != nil {
				return nil, into, false, errDamagedIDs
			}
		}
		into = append(into, caseResult{pos: int(x[0]), view: spool.Span{Off: int64(x[1]), Size: int(x[2])}})
	}
	return w.id, into, true, nil
}

// walk reads every id in order.
func (t *caseIDs) walk() (*idWalk, error) { return t.groups().walkFrom(0, 32<<10) }

// lookup appends the results of case id to into; found is false when no
// result has that id.
func (t *caseIDs) lookup(id string, into []caseResult) (out []caseResult, found bool, err error) {
	g := t.groups()
	// The last block whose first id is not after id.
	mark, exact := slices.BinarySearchFunc(g.index, id, func(m idMark, id string) int { return strings.Compare(m.id, id) })
	if !exact {
		if mark == 0 {
			return into, false, g.err
		}
		mark--
	}
	w, err := g.walkFrom(mark, 4<<10) // a block of ids
	if err != nil {
		return into, false, err
	}
	for range idBlock {
		start := len(into)
		got, more, ok, err := w.next(into)
		if err != nil || !ok {
			return into, false, err
		}
		switch c := strings.Compare(string(got), id); {
		case c == 0:
			return more, true, nil
		case c > 0:
			return into, false, nil
		}
		into = more[:start]
	}
	return into, false, nil
}
