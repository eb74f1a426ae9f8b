package spool

import (
	"cmp"
	"fmt"
	"io"
	"slices"
)

// Records is a spool of records numbered by position (a result's place in
// its stream), put once each and read back by number in any order. Put in
// increasing order, as a pass over a stream puts them, a record costs 4
// bytes of memory (its size) and 8 bytes per 64 (where each run of 64
// starts); put out of order, 12 bytes.
type Records struct {
	spool *Spool
	// size is each record's size; a position never put has size 0.
	size []uint32
	// start[b] is where record 64*b starts, while records come in order;
	// at, once one has not, is where every record starts.
	start []int64
	at    []int64
}

// NewRecords starts an empty store; name and inMemory are the spool's.
func NewRecords(name string, inMemory int) *Records {
	return &Records{spool: New(name, inMemory)}
}

// Put keeps rec as record i. A failed write fails every read after.
func (r *Records) Put(i int, rec []byte) {
	off := r.spool.Len()
	if r.at == nil && i < len(r.size) {
		// Out of order: from now on every record says where it starts.
		r.at = make([]int64, len(r.size))
		for k := range r.size {
			r.at[k] = r.offsetInOrder(k)
		}
	}
	for len(r.size) <= i {
		if r.at == nil && len(r.size)%64 == 0 {
			r.start = append(r.start, off)
		}
		r.size = append(r.size, 0)
		if r.at != nil {
			r.at = append(r.at, off)
		}
	}
	r.size[i] = uint32(len(rec))
	if r.at != nil {
		r.at[i] = off
	}
	r.spool.Write(rec) // a failed write fails the reader, which reports it
}

// offsetInOrder is where record k starts while records came in order.
func (r *Records) offsetInOrder(k int) int64 {
	off := r.start[k/64]
	for j := k &^ 63; j < k; j++ {
		off += int64(r.size[j])
	}
	return off
}

// Has says whether record i was put (and is not empty).
func (r *Records) Has(i int) bool { return i >= 0 && i < len(r.size) && r.size[i] > 0 }

// RecordReader reads records back; it is not safe for concurrent use,
// but several may read one store side by side.
type RecordReader struct {
	r   *Records
	src io.ReaderAt
	// spans is ReadBatch's, reused.
	spans []span
}

// span is where a record of a batch lies in the store, and its place k
// in the batch.
type span struct {
	off  int64
	size int
	k    int
}

// Reader reads the records put so far. Like the spool's, the first call
// may write to its file: callers that read side by side take turns here.
func (r *Records) Reader() (*RecordReader, error) {
	src, err := r.spool.ReaderAt()
	if err != nil {
		return nil, err
	}
	return &RecordReader{r: r, src: src}, nil
}

// Read reads record i into buf (grown as needed) and returns it.
func (rr *RecordReader) Read(i int, buf []byte) ([]byte, error) {
	r := rr.r
	if !r.Has(i) {
		return nil, fmt.Errorf("keep %s: no record %d", r.spool.name, i)
	}
	off := int64(0)
	if r.at != nil {
		off = r.at[i]
	} else {
		off = r.offsetInOrder(i)
	}
	n := int(r.size[i])
	if cap(buf) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := rr.src.ReadAt(buf, off); err != nil {
		return nil, fmt.Errorf("keep %s: %w", r.spool.name, err)
	}
	return buf, nil
}

// ReadBatch reads the records at positions (each put) into buf, grown as
// needed, and returns them in the order of positions, each a slice of
// the returned buf. Records that lie close together in the store (less
// than batchGap bytes apart) are read with one read of the file: a caller
// that reads many records in an order of its own (cases sorted by ID)
// reads a batch at a time, and its records that came close together in
// the stream cost one system call, not one each.
func (rr *RecordReader) ReadBatch(positions []int, buf []byte, recs [][]byte) ([]byte, [][]byte, error) {
	r := rr.r
	spans := rr.spans[:0]
	defer func() { rr.spans = spans }()
	for k, i := range positions {
		if !r.Has(i) {
			return buf, recs, fmt.Errorf("keep %s: no record %d", r.spool.name, i)
		}
		off := int64(0)
		if r.at != nil {
			off = r.at[i]
		} else {
			off = r.offsetInOrder(i)
		}
		spans = append(spans, span{off, int(r.size[i]), k})
	}
	buf, recs, err := readSpans(rr.src, r.spool.name, spans, buf, recs)
	return buf, recs, err
}

// readSpans reads the records at spans (k numbering each one's place)
// into buf, grown as needed, and returns them in their places, each a
// slice of the returned buf: records less than batchGap bytes apart are
// read with one read of src. It sorts spans.
func readSpans(src io.ReaderAt, name string, spans []span, buf []byte, recs [][]byte) ([]byte, [][]byte, error) {
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.off, b.off) })
	// The bytes of the runs to read, as the loop below lays them out.
	total, end := int64(0), int64(0)
	for k, s := range spans {
		if k == 0 || s.off-end >= batchGap {
			end = s.off
		}
		if e := s.off + int64(s.size); e > end {
			total += e - end
			end = e
		}
	}
	if int64(cap(buf)) < total {
		buf = make([]byte, 0, total+total/4)
	}
	buf = buf[:0]
	if cap(recs) < len(spans) {
		recs = make([][]byte, len(spans), len(spans)+len(spans)/4)
	}
	recs = recs[:len(spans)]
	// A run is file bytes [runOff, runEnd) read into buf[runAt:].
	runOff, runEnd, runAt := int64(0), int64(0), 0
	flush := func() error {
		if runEnd <= runOff {
			return nil
		}
		if _, err := src.ReadAt(buf[runAt:], runOff); err != nil {
			return fmt.Errorf("keep %s: %w", name, err)
		}
		return nil
	}
	for k, s := range spans {
		end := s.off + int64(s.size)
		if k == 0 || s.off-runEnd >= batchGap {
			if err := flush(); err != nil {
				return buf, recs, err
			}
			runOff, runEnd, runAt = s.off, s.off, len(buf)
		}
		if end > runEnd {
			buf = buf[:len(buf)+int(end-runEnd)]
			runEnd = end
		}
		at := runAt + int(s.off-runOff)
		recs[s.k] = buf[at : at+s.size : at+s.size]
	}
	return buf, recs, flush()
}

// batchGap is how far apart two records of a batch may lie and still be
// read together: reading a few kilobytes in between costs less than a
// system call.
const batchGap = 4 << 10

// Span is where a record lies in a spool: the spool's Len before it was
// written, and its size.
type Span struct {
	Off  int64
	Size int
}

// Append writes rec and returns where it lies, for a SpanReader: a store
// of records that keeps no index of them, its caller keeping each one's
// span where it needs it (sorted with a case's ID, say). A failed write
// fails every read after.
func (s *Spool) Append(rec []byte) Span {
	sp := Span{Off: s.Len(), Size: len(rec)}
	s.Write(rec)
	return sp
}

// SpanReader reads records back by their spans; it is not safe for
// concurrent use, but several may read one spool side by side.
type SpanReader struct {
	name  string
	src   io.ReaderAt
	spans []span
}

// SpanReader reads the records written so far. Like Reader, the first
// call may write to its file: callers that read side by side take turns
// here.
func (s *Spool) SpanReader() (*SpanReader, error) {
	src, err := s.ReaderAt()
	if err != nil {
		return nil, err
	}
	return &SpanReader{name: s.name, src: src}, nil
}

// Read reads the record at sp into buf (grown as needed) and returns it.
func (sr *SpanReader) Read(sp Span, buf []byte) ([]byte, error) {
	buf = slices.Grow(buf[:0], sp.Size)[:sp.Size]
	if _, err := sr.src.ReadAt(buf, sp.Off); err != nil {
		return nil, fmt.Errorf("keep %s: %w", sr.name, err)
	}
	return buf, nil
}

// ReadBatch is RecordReader.ReadBatch for records given by their spans:
// they come back in the order of spans, those close together in the
// store read together.
func (sr *SpanReader) ReadBatch(spans []Span, buf []byte, recs [][]byte) ([]byte, [][]byte, error) {
	order := sr.spans[:0]
	for k, sp := range spans {
		order = append(order, span{sp.Off, sp.Size, k})
	}
	buf, recs, err := readSpans(sr.src, sr.name, order, buf, recs)
	sr.spans = order
	return buf, recs, err
}
