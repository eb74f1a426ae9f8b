package spool

import (
	"bytes"
	"fmt"
	"io"
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
