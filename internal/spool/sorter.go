package spool

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sync"
)

// Sorter sorts records too many to hold in memory, as a report sorts a
// million results by case ID: each record is a key and a value in a
// numbered part, and Each gives a part's records sorted by key, records
// with equal keys in the order they were added. Up to inMemory bytes of
// records are held (and sorted) in memory, three quarters for their
// bytes and a quarter for where each lies; each time they outgrow it
// they are sorted and written out as a run to an unlinked temporary
// file, and Each merges the runs. So memory stays the same however many
// records there are, but for a few bytes a run.
type Sorter struct {
	name     string
	inMemory int
	// data holds the records in memory back to back, each key then
	// value; recs says where each lies, in the order added until sorted.
	data []byte
	recs []sortRec
	// runs holds the runs written out, each its records sorted by part
	// then key, and bounds[r][p] where part p of run r starts (a part
	// ends where the next starts; parts past the last a run has are
	// empty in it).
	runs   *Spool
	bounds [][]int64
	out    []byte // a run's bytes on their way to runs

	mu   sync.Mutex // guards finishing
	done bool
	src  io.ReaderAt
	err  error
}

// sortRec is where a record in memory lies: data[off:off+klen] is its
// key, the vlen bytes after it its value. off also orders records added
// earlier first.
type sortRec struct {
	part, off, klen, vlen uint32
}

// sortRecSize is what a record costs in memory beside its bytes.
const sortRecSize = 16

// NewSorter starts an empty sorter that holds up to inMemory bytes of
// records in memory; name says what it sorts, in its temporary file's
// name and its errors.
func NewSorter(name string, inMemory int) *Sorter {
	return &Sorter{name: name, inMemory: inMemory}
}

// Add adds a record of key and value to part (0 or more). Add may not
// follow Each. A failed write fails Each, which reports it.
func (s *Sorter) Add(part int, key, value []byte) {
	if s.done {
		panic("spool: a record added to a sorter already read")
	}
	n := len(key) + len(value)
	dataRoom, recsRoom := s.inMemory-s.inMemory/4, max(1, s.inMemory/4/sortRecSize)
	if len(s.recs) > 0 && (len(s.data)+n > dataRoom || len(s.recs) == recsRoom) {
		s.spill()
	}
	// The room is taken at once, not grown into by append's doubling: a
	// sorter that fills it (every large run's) then holds its budget,
	// not twice it, and leaves no garbage behind.
	if s.recs == nil {
		s.data, s.recs = make([]byte, 0, dataRoom), make([]sortRec, 0, recsRoom)
	}
	off := len(s.data)
	s.data = append(s.data, key...)
	s.data = append(s.data, value...)
	s.recs = append(s.recs, sortRec{part: uint32(part), off: uint32(off), klen: uint32(len(key)), vlen: uint32(len(value))})
}

func (s *Sorter) key(r sortRec) []byte { return s.data[r.off : r.off+r.klen] }

func (s *Sorter) value(r sortRec) []byte { return s.data[r.off+r.klen : r.off+r.klen+r.vlen] }

// sortInMemory sorts the records in memory by part, key and order added.
func (s *Sorter) sortInMemory() {
	slices.SortFunc(s.recs, func(a, b sortRec) int {
		if c := cmp.Compare(a.part, b.part); c != 0 {
			return c
		}
		if c := bytes.Compare(s.key(a), s.key(b)); c != 0 {
			return c
		}
		return cmp.Compare(a.off, b.off)
	})
}

// sortOutChunk is how many bytes of a run are gathered before they are
// written.
const sortOutChunk = 64 << 10

// spill writes the records in memory out as a run, sorted.
func (s *Sorter) spill() {
	if s.runs == nil {
		s.runs = New(s.name, 0)
	}
	s.sortInMemory()
	var bounds []int64
	out := s.out[:0]
	for _, r := range s.recs {
		for len(bounds) <= int(r.part) {
			bounds = append(bounds, s.runs.Len()+int64(len(out)))
		}
		out = binary.AppendUvarint(out, uint64(r.klen))
		out = append(out, s.key(r)...)
		out = binary.AppendUvarint(out, uint64(r.vlen))
		out = append(out, s.value(r)...)
		if len(out) >= sortOutChunk {
			s.runs.Write(out) // a failed write fails Each, which reports it
			out = out[:0]
		}
	}
	s.runs.Write(out)
	bounds = append(bounds, s.runs.Len()) // where the last part ends
	s.bounds = append(s.bounds, bounds)
	s.out = out[:0]
	s.data, s.recs = s.data[:0], s.recs[:0]
}

// finish ends adding, once: with runs written, what is left in memory
// becomes the last run; else the records are sorted where they are.
func (s *Sorter) finish() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return s.err
	}
	s.done = true
	if s.runs == nil {
		s.sortInMemory()
		return nil
	}
	if len(s.recs) > 0 {
		s.spill()
	}
	s.data, s.recs, s.out = nil, nil, nil
	s.src, s.err = s.runs.ReaderAt()
	return s.err
}

// Each hands part's records to fn sorted by key, equal keys in the order
// added; key and value are fn's until it returns. Adding ends at the
// first Each. Several may read a sorter side by side.
func (s *Sorter) Each(part int, fn func(key, value []byte) error) error {
	if err := s.finish(); err != nil {
		return err
	}
	if s.runs == nil {
		from, _ := slices.BinarySearchFunc(s.recs, uint32(part), func(r sortRec, p uint32) int { return cmp.Compare(r.part, p) })
		for _, r := range s.recs[from:] {
			if r.part != uint32(part) {
				break
			}
			if err := fn(s.key(r), s.value(r)); err != nil {
				return err
			}
		}
		return nil
	}
	return s.merge(part, fn)
}

// runCursor reads one run's section of a part.
type runCursor struct {
	r          *bufio.Reader
	run        int
	key, value []byte
}

// runReadBuffer is how much of each run a merge reads at a time.
const runReadBuffer = 16 << 10

var errDamagedRun = errors.New("a damaged run")

// next reads the cursor's next record; false at the end of its section.
func (c *runCursor) next() (bool, error) {
	var err error
	if c.key, err = readChunk(c.r, c.key); err != nil {
		if err == io.EOF {
			return false, nil
		}
		return false, err
	}
	if c.value, err = readChunk(c.r, c.value); err == io.EOF {
		err = errDamagedRun
	}
	return err == nil, err
}

// readChunk reads a length and that many bytes into buf.
func readChunk(r *bufio.Reader, buf []byte) ([]byte, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		if err == io.ErrUnexpectedEOF {
			err = errDamagedRun
		}
		return buf, err
	}
	if n > math.MaxUint32 {
		return buf, errDamagedRun
	}
	buf = slices.Grow(buf[:0], int(n))[:n]
	if _, err := io.ReadFull(r, buf); err != nil {
		return buf, errDamagedRun
	}
	return buf, nil
}

// merge hands part's records in the runs to fn in order: a heap of the
// runs' cursors, the least key on top, ties to the earlier run.
func (s *Sorter) merge(part int, fn func(key, value []byte) error) error {
	var heap []*runCursor
	less := func(a, b *runCursor) bool {
		if c := bytes.Compare(a.key, b.key); c != 0 {
			return c < 0
		}
		return a.run < b.run
	}
	down := func(i int) {
		for {
			l := 2*i + 1
			if l >= len(heap) {
				return
			}
			m := l
			if r := l + 1; r < len(heap) && less(heap[r], heap[l]) {
				m = r
			}
			if !less(heap[m], heap[i]) {
				return
			}
			heap[i], heap[m] = heap[m], heap[i]
			i = m
		}
	}
	fail := func(err error) error { return fmt.Errorf("keep %s: %w", s.name, err) }
	for run, b := range s.bounds {
		if part+1 >= len(b) || b[part] == b[part+1] {
			continue
		}
		size := b[part+1] - b[part]
		c := &runCursor{r: bufio.NewReaderSize(io.NewSectionReader(s.src, b[part], size), int(min(size, runReadBuffer))), run: run}
		ok, err := c.next()
		if err != nil {
			return fail(err)
		}
		if ok {
			heap = append(heap, c)
		}
	}
	for i := len(heap)/2 - 1; i >= 0; i-- {
		down(i)
	}
	for len(heap) > 0 {
		c := heap[0]
		if err := fn(c.key, c.value); err != nil {
			return err
		}
		ok, err := c.next()
		if err != nil {
			return fail(err)
		}
		if !ok {
			heap[0] = heap[len(heap)-1]
			heap = heap[:len(heap)-1]
		}
		down(0)
	}
	return nil
}

// Close lets the temporary file go; the sorter cannot be used after.
func (s *Sorter) Close() error {
	s.data, s.recs = nil, nil
	if s.runs == nil {
		return nil
	}
	return s.runs.Close()
}
