package spool

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A sorter gives each part's records as a stable sort by key would,
// whether they stay in memory, spill into a few runs or into many, with
// repeated keys, an empty key and keys that are prefixes of others.
func TestSorterSortsEachPartStablyByKey(t *testing.T) {
	type rec struct {
		part       int
		key, value string
	}
	r := rand.New(rand.NewPCG(3, 4))
	var all []rec
	for i := range 5000 {
		key := fmt.Sprintf("case-%d", r.IntN(1500))
		switch i % 499 {
		case 0:
			key = ""
		case 1:
			key = "case-"
		}
		all = append(all, rec{part: r.IntN(4) * 2, key: key, value: fmt.Sprintf("v%d", i)})
	}
	for _, inMemory := range []int{1 << 30, 20 << 10, 100} {
		s := NewSorter("test", inMemory)
		for _, x := range all {
			s.Add(x.part, []byte(x.key), []byte(x.value))
		}
		if inMemory < 1<<30 && len(s.bounds) < 2 {
			t.Errorf("in memory %d: %d runs written, want several", inMemory, len(s.bounds))
		}
		for part := range 9 {
			var want []string
			for _, x := range all {
				if x.part == part {
					want = append(want, x.key+"="+x.value)
				}
			}
			slices.SortStableFunc(want, func(a, b string) int {
				return bytes.Compare([]byte(a[:bytes.IndexByte([]byte(a), '=')]), []byte(b[:bytes.IndexByte([]byte(b), '=')]))
			})
			// Read twice: a part may be read as often as needed.
			for range 2 {
				var got []string
				err := s.Each(part, func(key, value []byte) error {
					got = append(got, string(key)+"="+string(value))
					return nil
				})
				if err != nil {
					t.Fatalf("in memory %d, part %d: %v", inMemory, part, err)
				}
				if !slices.Equal(got, want) {
					t.Errorf("in memory %d, part %d: %d records differ from the %d of a stable sort", inMemory, part, len(got), len(want))
				}
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// What fn returns stops Each and comes back from it.
func TestSorterStopsAtFnsError(t *testing.T) {
	for _, inMemory := range []int{1 << 20, 10} {
		s := NewSorter("test", inMemory)
		for i := range 10 {
			s.Add(0, []byte{byte('a' + i)}, nil)
		}
		stop := fmt.Errorf("stop")
		n := 0
		err := s.Each(0, func(key, value []byte) error {
			n++
			if n == 3 {
				return stop
			}
			return nil
		})
		if err != stop || n != 3 {
			t.Errorf("in memory %d: Each returned %v after %d records, want stop after 3", inMemory, err, n)
		}
	}
}

// A run that cannot be written (here: no temporary file can be made)
// fails every Each with an error naming what the sorter sorts, and no
// record is handed out: nothing is silently left out of a sort.
func TestSorterReportsAFailedSpill(t *testing.T) {
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing"))
	s := NewSorter("case-ids", 100)
	for i := range 50 {
		s.Add(i%2, []byte{byte('a' + i%26)}, []byte("v"))
	}
	for part := range 2 {
		err := s.Each(part, func(key, value []byte) error {
			t.Errorf("part %d: record %q handed out by a sorter whose runs were not written", part, key)
			return nil
		})
		if err == nil || !strings.HasPrefix(err.Error(), "keep case-ids: ") {
			t.Errorf("part %d: Each returned %v, want an error starting \"keep case-ids: \"", part, err)
		}
	}
	if err := s.Close(); err != nil {
		t.Error(err)
	}
}

// Records appended to a spool read back by their spans, alone or in a
// batch in any order, in memory or in a file.
func TestSpansReadBack(t *testing.T) {
	for _, inMemory := range []int{1 << 20, 0} {
		s := New("test", inMemory)
		var spans []Span
		var want []string
		for i := range 300 {
			rec := fmt.Sprintf("record %d;", i) + string(bytes.Repeat([]byte("y"), i%11))
			spans = append(spans, s.Append([]byte(rec)))
			want = append(want, rec)
		}
		sr, err := s.SpanReader()
		if err != nil {
			t.Fatal(err)
		}
		if got, err := sr.Read(spans[17], nil); err != nil || string(got) != want[17] {
			t.Errorf("in memory %d: record 17 read as %q, %v", inMemory, got, err)
		}
		pick := []int{299, 3, 4, 150, 3, 0}
		var batch []Span
		for _, i := range pick {
			batch = append(batch, spans[i])
		}
		_, recs, err := sr.ReadBatch(batch, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		for k, i := range pick {
			if string(recs[k]) != want[i] {
				t.Errorf("in memory %d: record %d read in a batch as %q", inMemory, i, recs[k])
			}
		}
	}
}
