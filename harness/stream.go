package harness

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
)

// ResultStream is results read one at a time, so that scoring and reports
// hold counters instead of every result: a large run's results.jsonl (its
// traces above all) stays on disk. Each call of Each starts over.
type ResultStream interface {
	// Each calls fn with every result in order; i counts from 0. r is
	// only valid during the call.
	Each(fn func(i int, r *Result) error) error
	// Read calls fn with the results at the given positions (as Each
	// numbers them), in the order given.
	Read(positions []int, fn func(i int, r *Result) error) error
	// Len is the number of results; it may read the stream once.
	Len() (int, error)
}

// SliceStream is results already in memory.
type SliceStream []Result

// Each implements ResultStream.
func (s SliceStream) Each(fn func(int, *Result) error) error {
	for i := range s {
		if err := fn(i, &s[i]); err != nil {
			return err
		}
	}
	return nil
}

// Read implements ResultStream.
func (s SliceStream) Read(positions []int, fn func(int, *Result) error) error {
	for _, i := range positions {
		if err := fn(i, &s[i]); err != nil {
			return err
		}
	}
	return nil
}

// Len implements ResultStream.
func (s SliceStream) Len() (int, error) { return len(s), nil }

// FileStream reads a results.jsonl line by line. The first Each records
// where every line starts (8 bytes a result), so Read can fetch results
// out of order without reading the rest.
type FileStream struct {
	Path    string
	offsets []int64 // line starts, and the file's length last
	indexed bool
}

// NewFileStream streams the results file at path.
func NewFileStream(path string) *FileStream { return &FileStream{Path: path} }

// Each implements ResultStream; a bad line is a *ResultsError naming it.
func (s *FileStream) Each(fn func(int, *Result) error) error {
	f, err := os.Open(s.Path)
	if err != nil {
		return fmt.Errorf("read results: %w", err)
	}
	defer f.Close()
	record := !s.indexed
	if record {
		s.offsets = s.offsets[:0]
	}
	br := bufio.NewReaderSize(f, 1<<16)
	var offset int64
	i := 0
	for lineNo := 1; ; lineNo++ {
		line, rerr := br.ReadBytes('\n')
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return &ResultsError{Path: s.Path, Line: lineNo, Err: rerr}
		}
		start := offset
		offset += int64(len(line))
		if len(bytes.TrimSpace(line)) > 0 {
			var res Result
			if err := decodeLine(line, &res, s.Path, lineNo, rerr != nil); err != nil {
				return err
			}
			if record {
				s.offsets = append(s.offsets, start)
			}
			if err := fn(i, &res); err != nil {
				return err
			}
			i++
		}
		if rerr != nil {
			break
		}
	}
	if record {
		s.offsets = append(s.offsets, offset)
		s.indexed = true
	}
	return nil
}

// decodeLine decodes one results.jsonl line; last says it had no newline.
func decodeLine(line []byte, res *Result, path string, lineNo int, last bool) error {
	if err := json.Unmarshal(line, res); err != nil {
		if last {
			return &ResultsError{Path: path, Line: lineNo,
				Err: errors.New("the last line is cut off (an interrupted run?); finish it with `routebench run --resume`")}
		}
		return &ResultsError{Path: path, Line: lineNo, Err: fmt.Errorf("not a result line: %v; fix or delete the line", err)}
	}
	return checkFormat(*res, path, lineNo)
}

// Read implements ResultStream.
func (s *FileStream) Read(positions []int, fn func(int, *Result) error) error {
	if !s.indexed {
		if err := s.Each(func(int, *Result) error { return nil }); err != nil {
			return err
		}
	}
	f, err := os.Open(s.Path)
	if err != nil {
		return fmt.Errorf("read results: %w", err)
	}
	defer f.Close()
	var buf []byte
	for _, i := range positions {
		if i < 0 || i >= len(s.offsets)-1 {
			return fmt.Errorf("read results %s: no result %d", s.Path, i)
		}
		start, end := s.offsets[i], s.offsets[i+1]
		if n := int(end - start); cap(buf) < n {
			buf = make([]byte, n)
		} else {
			buf = buf[:n]
		}
		if _, err := f.ReadAt(buf, start); err != nil {
			return fmt.Errorf("read results %s: %w", s.Path, err)
		}
		var res Result
		// The line number is not known here without counting blank
		// lines; Each has already read every line without error.
		if err := json.Unmarshal(buf, &res); err != nil {
			return fmt.Errorf("read results %s: result %d changed while it was read: %w", s.Path, i+1, err)
		}
		if err := fn(i, &res); err != nil {
			return err
		}
	}
	return nil
}

// Len implements ResultStream.
func (s *FileStream) Len() (int, error) {
	if !s.indexed {
		if err := s.Each(func(int, *Result) error { return nil }); err != nil {
			return 0, err
		}
	}
	return len(s.offsets) - 1, nil
}

// CaseOrder is positions of a stream grouped by case ID: IDs sorted, and
// each ID's positions in stream order. Reports that show a case with all
// its versions side by side walk it with ResultStream.Read; it holds an
// ID and an int per result, not the results.
type CaseOrder struct {
	IDs       []string
	Positions [][]int
}

// CaseOrderOf reads the stream once for its case IDs.
func CaseOrderOf(s ResultStream) (CaseOrder, error) {
	byID := map[string][]int{}
	if err := s.Each(func(i int, r *Result) error {
		byID[r.Case] = append(byID[r.Case], i)
		return nil
	}); err != nil {
		return CaseOrder{}, err
	}
	o := CaseOrder{IDs: make([]string, 0, len(byID))}
	for id := range byID {
		o.IDs = append(o.IDs, id)
	}
	sort.Strings(o.IDs)
	o.Positions = make([][]int, len(o.IDs))
	for i, id := range o.IDs {
		o.Positions[i] = byID[id]
	}
	return o, nil
}

// VersionFirst is rs with the given version's results moved to the front
// (in their order), then the rest in theirs: the base of every delta
// comes first. It numbers results in that order; the first Each learns
// where each one is in rs (an int a result).
func VersionFirst(rs ResultStream, version string) ResultStream {
	return &versionFirst{inner: rs, version: version}
}

type versionFirst struct {
	inner   ResultStream
	version string
	order   []int // position in inner of each result, in this stream's order
}

func (s *versionFirst) Each(fn func(int, *Result) error) error {
	record := s.order == nil
	var order []int
	i := 0
	for _, first := range []bool{true, false} {
		err := s.inner.Each(func(j int, r *Result) error {
			if (r.Version == s.version) != first {
				return nil
			}
			if record {
				order = append(order, j)
			}
			i++
			return fn(i-1, r)
		})
		if err != nil {
			return err
		}
	}
	if record {
		s.order = order
	}
	return nil
}

func (s *versionFirst) Read(positions []int, fn func(int, *Result) error) error {
	if s.order == nil {
		if err := s.Each(func(int, *Result) error { return nil }); err != nil {
			return err
		}
	}
	inner := make([]int, len(positions))
	back := make(map[int]int, len(positions))
	for k, p := range positions {
		if p < 0 || p >= len(s.order) {
			return fmt.Errorf("read results: no result %d", p)
		}
		inner[k] = s.order[p]
		back[s.order[p]] = p
	}
	return s.inner.Read(inner, func(j int, r *Result) error { return fn(back[j], r) })
}

func (s *versionFirst) Len() (int, error) { return s.inner.Len() }
