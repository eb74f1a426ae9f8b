package spool

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
)

// readAll is everything the spool's reader gives.
func readAll(t *testing.T, s *Spool) []byte {
	t.Helper()
	r, err := s.Reader()
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The same writes and truncations give the same bytes whether the spool
// stays in memory, moves to a file midway, or writes every byte to it.
func TestSpoolKeepsWhatWasWrittenInMemoryOrInAFile(t *testing.T) {
	for _, inMemory := range []int{1 << 20, 100, 0} {
		s := New("test", inMemory)
		var want bytes.Buffer
		for i := range 200 {
			line := fmt.Sprintf("record %d\n", i)
			if _, err := s.Write([]byte(line)); err != nil {
				t.Fatal(err)
			}
			want.WriteString(line)
			if i == 120 {
				// take back the last 20 records, as a retracted file does
				cut := int64(bytes.Index(want.Bytes(), []byte("record 101\n")))
				if err := s.Truncate(cut); err != nil {
					t.Fatal(err)
				}
				want.Truncate(int(cut))
			}
		}
		if s.Len() != int64(want.Len()) {
			t.Errorf("in memory %d: Len %d, want %d", inMemory, s.Len(), want.Len())
		}
		if got := readAll(t, s); !bytes.Equal(got, want.Bytes()) {
			t.Errorf("in memory %d: read back %d bytes that differ from the %d written", inMemory, len(got), want.Len())
		}
		if inMemory == 0 && s.file == nil {
			t.Errorf("in memory 0: no file was used")
		}
		// Read twice: a spool is read back as often as needed.
		if got := readAll(t, s); !bytes.Equal(got, want.Bytes()) {
			t.Errorf("in memory %d: second read differs", inMemory)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Write([]byte("x")); err == nil {
			t.Errorf("in memory %d: a write after Close succeeded", inMemory)
		}
	}
}

func TestSpoolRefusesATruncationPastItsEnd(t *testing.T) {
	s := New("test", 0)
	if _, err := s.Write([]byte("abc")); err != nil {
		t.Fatal(err)
	}
	if err := s.Truncate(4); err == nil {
		t.Errorf("truncating 3 bytes to 4 succeeded")
	}
}

// Records read at their offsets, in any order, are what was written,
// whether the spool stayed in memory or moved to a file.
func TestSpoolReadsRecordsAtTheirOffsets(t *testing.T) {
	for _, inMemory := range []int{1 << 20, 100, 0} {
		s := New("test", inMemory)
		var at []int64
		for i := range 50 {
			at = append(at, s.Len())
			if _, err := fmt.Fprintf(s, "record %d;", i); err != nil {
				t.Fatal(err)
			}
		}
		r, err := s.ReaderAt()
		if err != nil {
			t.Fatal(err)
		}
		for _, i := range []int{49, 0, 17, 18, 3} {
			want := fmt.Sprintf("record %d;", i)
			got := make([]byte, len(want))
			if _, err := r.ReadAt(got, at[i]); err != nil {
				t.Fatalf("in memory %d: record %d: %v", inMemory, i, err)
			}
			if string(got) != want {
				t.Errorf("in memory %d: record %d read back as %q", inMemory, i, got)
			}
		}
	}
}

// Records read back by position are what was put there, in order or not,
// with gaps, and with a position put again (the last put counts), in
// memory or in a file.
func TestRecordsReadBackByPosition(t *testing.T) {
	for _, inMemory := range []int{1 << 20, 100, 0} {
		for _, order := range []string{"in order", "with gaps", "out of order"} {
			r := NewRecords("test", inMemory)
			want := map[int]string{}
			put := func(i int) {
				rec := fmt.Sprintf("record %d of %d bytes", i, 20+i%7)
				rec += strings.Repeat("x", i%7)
				r.Put(i, []byte(rec))
				want[i] = rec
			}
			for i := range 300 {
				switch {
				case order == "with gaps" && i%5 == 2:
				case order == "out of order" && i == 150:
					put(10) // again, later: this one counts
					put(i)
				default:
					put(i)
				}
			}
			rr, err := r.Reader()
			if err != nil {
				t.Fatal(err)
			}
			var buf []byte
			for _, i := range []int{299, 0, 64, 63, 128, 10, 151, 7, 12} {
				got, err := rr.Read(i, buf)
				if w, ok := want[i]; !ok {
					if err == nil {
						t.Errorf("%d, %s: record %d was never put, read %q", inMemory, order, i, got)
					}
					continue
				} else if err != nil || string(got) != w {
					t.Errorf("%d, %s: record %d read back as %q, %v; want %q", inMemory, order, i, got, err, w)
				}
				buf = got
			}
		}
	}
}

// A batch of records read together is each record as Read gives it,
// whatever the positions' order, with repeats, neighbours and records
// put out of order, in memory or in a file.
func TestRecordsReadInBatches(t *testing.T) {
	for _, inMemory := range []int{1 << 20, 0} {
		for _, outOfOrder := range []bool{false, true} {
			r := NewRecords("test", inMemory)
			want := map[int]string{}
			for i := range 500 {
				if i%9 == 4 {
					continue // a gap
				}
				rec := fmt.Sprintf("record %d;", i) + strings.Repeat("x", i%13)
				r.Put(i, []byte(rec))
				want[i] = rec
			}
			if outOfOrder {
				r.Put(7, []byte("record 7 again"))
				want[7] = "record 7 again"
			}
			rr, err := r.Reader()
			if err != nil {
				t.Fatal(err)
			}
			var buf []byte
			var recs [][]byte
			for batch := range 200 {
				var positions []int
				for k := range 1 + batch%40 {
					i := (batch*7919 + k*k*31 + k) % 500
					if batch%3 == 0 {
						i = (batch + k) % 500 // neighbours
					}
					if _, ok := want[i]; ok {
						positions = append(positions, i)
						if k%5 == 0 {
							positions = append(positions, i) // again
						}
					}
				}
				buf, recs, err = rr.ReadBatch(positions, buf, recs)
				if err != nil {
					t.Fatalf("%d, %v: batch %d: %v", inMemory, outOfOrder, batch, err)
				}
				if len(recs) != len(positions) {
					t.Fatalf("%d, %v: batch %d: %d records for %d positions", inMemory, outOfOrder, batch, len(recs), len(positions))
				}
				for k, i := range positions {
					if string(recs[k]) != want[i] {
						t.Errorf("%d, %v: batch %d: record %d read as %q, want %q", inMemory, outOfOrder, batch, i, recs[k], want[i])
					}
				}
			}
			if _, _, err := rr.ReadBatch([]int{0, 4}, nil, nil); err == nil {
				t.Errorf("%d, %v: a batch with a record never put read without error", inMemory, outOfOrder)
			}
		}
	}
}
