package harness

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"sort"

	"github.com/routebench/routebench/internal/inputfile"
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
	// spool holds what a pipe (`<(git show …)`, /dev/stdin) gave, which
	// can be read only once while a stream is read several times: an
	// unlinked temporary file, gone when the process ends.
	spool *os.File
	// digesting says the first pass also digests the bytes it reads
	// (DigestWhileReading), into digest once it has read them all.
	digesting bool
	digest    *ResultsDigest
}

// DigestWhileReading asks the first pass (Each) to digest the file as
// DigestResultsFile does, from the bytes it reads anyway: a writer of
// summary.json then does not read a large results file once more.
func (s *FileStream) DigestWhileReading() { s.digesting = true }

// Digest is the file's digest from a first pass asked to take it that
// read the whole file; false before one has.
func (s *FileStream) Digest() (ResultsDigest, bool) {
	if s.digest == nil {
		return ResultsDigest{}, false
	}
	return *s.digest, true
}

// resultsReader is an open results file: read from the start, or at offsets.
type resultsReader interface {
	io.Reader
	io.ReaderAt
	io.Closer
}

type spoolReader struct{ *io.SectionReader }

func (spoolReader) Close() error { return nil }

// open opens the results for one pass. A path that is not a regular file
// is copied to the spool on first use.
func (s *FileStream) open() (resultsReader, error) {
	if s.spool == nil {
		f, err := os.Open(s.Path)
		if err != nil {
			return nil, fmt.Errorf("read results: %w", err)
		}
		st, err := f.Stat()
		if err != nil || st.Mode().IsRegular() {
			return f, err
		}
		defer f.Close()
		if err := NotResults(s.Path, st.Mode()); err != nil {
			return nil, err
		}
		spool, err := os.CreateTemp("", "routebench-results-*.jsonl")
		if err != nil {
			return nil, fmt.Errorf("read results %s: spool a pipe: %w", s.Path, err)
		}
		os.Remove(spool.Name())
		if _, err := io.Copy(spool, f); err != nil {
			spool.Close()
			return nil, fmt.Errorf("read results %s: %w", s.Path, err)
		}
		s.spool = spool
	}
	st, err := s.spool.Stat()
	if err != nil {
		return nil, fmt.Errorf("read results %s: %w", s.Path, err)
	}
	return spoolReader{io.NewSectionReader(s.spool, 0, st.Size())}, nil
}

// NewFileStream streams the results file at path.
// NotResults says why a path of mode m cannot hold results, or is nil
// for a regular file or a pipe (copied aside once). A device such as
// /dev/zero never ends: read, or copied aside, it would fill memory or the
// disk.
func NotResults(path string, m fs.FileMode) error {
	if m.IsRegular() || m&fs.ModeNamedPipe != 0 {
		return nil
	}
	return fmt.Errorf("read results %s: it is %s; give a results.jsonl file or a pipe", path, inputfile.DescribeMode(m))
}

func NewFileStream(path string) *FileStream { return &FileStream{Path: path} }

// Each implements ResultStream; a bad line is a *ResultsError naming it.
func (s *FileStream) Each(fn func(int, *Result) error) error {
	f, err := s.open()
	if err != nil {
		return err
	}
	defer f.Close()
	record := !s.indexed
	if record {
		s.offsets = s.offsets[:0]
	}
	br := bufio.NewReaderSize(f, 1<<16)
	dec := getDecoder()
	defer putDecoder(dec)
	var digest hash.Hash
	lines := 0
	if record && s.digesting && s.digest == nil {
		digest = sha256.New()
	}
	var offset int64
	var buf []byte
	i := 0
	for lineNo := 1; ; lineNo++ {
		line, rerr := readLine(br, buf[:0])
		buf = line
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return &ResultsError{Path: s.Path, Line: lineNo, Err: rerr}
		}
		if digest != nil {
			digest.Write(line)
			if len(line) > 0 && line[len(line)-1] == '\n' {
				lines++
			}
		}
		start := offset
		offset += int64(len(line))
		if len(bytes.TrimSpace(line)) > 0 {
			var res Result
			if err := dec.line(line, &res, s.Path, lineNo, rerr != nil); err != nil {
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
	if digest != nil {
		s.digest = &ResultsDigest{SHA256: hex.EncodeToString(digest.Sum(nil)), Lines: lines}
	}
	return nil
}

// readLine appends the next line of br (newline included, if it has one)
// to buf: one buffer serves every line of a pass, where ReadBytes would
// allocate each line anew.
func readLine(br *bufio.Reader, buf []byte) ([]byte, error) {
	for {
		frag, err := br.ReadSlice('\n')
		buf = append(buf, frag...)
		if len(buf) > maxResultLine {
			return buf, fmt.Errorf("a line longer than %d bytes: not a results.jsonl line", maxResultLine)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return buf, err
		}
	}
}

// maxResultLine bounds one results.jsonl line, so a file that is not one
// (no newline for gigabytes) is refused instead of read into memory. A
// result holds a judge's prompt and answer, each far below this. A
// variable only so that a spec can lower it.
var maxResultLine = 256 << 20

// line decodes one results.jsonl line; last says it had no newline.
func (d *resultDecoder) line(line []byte, res *Result, path string, lineNo int, last bool) error {
	if err := d.decode(line, res, false); err != nil {
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
	dec := getDecoder()
	defer putDecoder(dec)
	return s.readAt(positions, func(i int, line []byte) error {
		var res Result
		// The line number is not known here without counting blank
		// lines; Each has already read every line without error.
		if err := dec.decode(line, &res, false); err != nil {
			return fmt.Errorf("read results %s: result %d changed while it was read: %w", s.Path, i+1, err)
		}
		return fn(i, &res)
	})
}

// readCases implements caseReader: Read, each line decoded into caseLine.
func (s *FileStream) readCases(positions []int, fn func(int, *Result) error) error {
	dec := getDecoder()
	defer putDecoder(dec)
	return s.readAt(positions, func(i int, line []byte) error {
		var res Result
		if err := dec.decode(line, &res, true); err != nil {
			return fmt.Errorf("read results %s: result %d changed while it was read: %w", s.Path, i+1, err)
		}
		return fn(i, &res)
	})
}

// readAt calls fn with the lines at the given positions, in the order
// given; line is only valid during the call.
func (s *FileStream) readAt(positions []int, fn func(i int, line []byte) error) error {
	if !s.indexed {
		if err := s.Each(func(int, *Result) error { return nil }); err != nil {
			return err
		}
	}
	f, err := s.open()
	if err != nil {
		return err
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
		if err := fn(i, buf); err != nil {
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

// ReadCases is rs.Read for readers that need only what a result says
// about its case and its outcome, not how the router got there: the
// result's Decision, Caller, Workflow and Resume may be left zero (a
// file's lines are decoded without them, which is most of a line's
// decoding work: the decision's candidates and trace). Everything else,
// conversation turns included, is as Read gives it.
func ReadCases(rs ResultStream, positions []int, fn func(i int, r *Result) error) error {
	if c, ok := rs.(caseReader); ok {
		return c.readCases(positions, fn)
	}
	return rs.Read(positions, fn)
}

// caseReader is a stream that can read results without their decisions.
type caseReader interface {
	readCases(positions []int, fn func(int, *Result) error) error
}

// caseLine decodes a results line without the parts ReadCases leaves
// out: its fields named like Result's shadow them (encoding/json prefers
// the shallower field), and skipJSON only steps over the value.
type caseLine struct {
	Result
	Decision skipJSON `json:"decision"`
	Caller   skipJSON `json:"caller"`
	Workflow skipJSON `json:"workflow"`
	Resume   skipJSON `json:"resume"`
}

// skipJSON accepts any JSON value and keeps nothing of it.
type skipJSON struct{}

func (*skipJSON) UnmarshalJSON([]byte) error { return nil }

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
// comes first.
func VersionFirst(rs ResultStream, version string) ResultStream {
	return Concat(
		Select(rs, func(r *Result) bool { return r.Version == version }),
		Select(rs, func(r *Result) bool { return r.Version != version }))
}

// Select is the results of rs that keep accepts, numbered from 0 in their
// order. The first Each learns where each one is in rs (an int a result).
func Select(rs ResultStream, keep func(*Result) bool) ResultStream {
	return &selected{inner: rs, keep: keep}
}

type selected struct {
	inner ResultStream
	keep  func(*Result) bool
	order []int // position in inner of each kept result
}

func (s *selected) Each(fn func(int, *Result) error) error {
	record := s.order == nil
	var order []int
	k := 0
	err := s.inner.Each(func(j int, r *Result) error {
		if !s.keep(r) {
			return nil
		}
		if record {
			order = append(order, j)
		}
		k++
		return fn(k-1, r)
	})
	if err == nil && record {
		if order == nil {
			order = []int{}
		}
		s.order = order
	}
	return err
}

func (s *selected) Read(positions []int, fn func(int, *Result) error) error {
	return s.read(positions, fn, s.inner.Read)
}

// read maps positions to inner ones and reads those with readInner.
func (s *selected) read(positions []int, fn func(int, *Result) error,
	readInner func([]int, func(int, *Result) error) error) error {
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
	return readInner(inner, func(j int, r *Result) error { return fn(back[j], r) })
}

func (s *selected) readCases(positions []int, fn func(int, *Result) error) error {
	return s.read(positions, fn, func(inner []int, fn func(int, *Result) error) error {
		return ReadCases(s.inner, inner, fn)
	})
}

func (s *selected) Len() (int, error) {
	if s.order == nil {
		if err := s.Each(func(int, *Result) error { return nil }); err != nil {
			return 0, err
		}
	}
	return len(s.order), nil
}

// Concat is the streams one after the other, numbered on from 0.
func Concat(parts ...ResultStream) ResultStream { return &concat{parts: parts} }

type concat struct {
	parts []ResultStream
}

func (c *concat) Each(fn func(int, *Result) error) error {
	offset := 0
	for _, p := range c.parts {
		n := 0
		err := p.Each(func(j int, r *Result) error {
			n++
			return fn(offset+j, r)
		})
		if err != nil {
			return err
		}
		offset += n
	}
	return nil
}

// Read reads each run of consecutive positions that fall in one part with
// one call of that part's Read.
func (c *concat) Read(positions []int, fn func(int, *Result) error) error {
	return c.read(positions, fn, ResultStream.Read)
}

func (c *concat) readCases(positions []int, fn func(int, *Result) error) error {
	return c.read(positions, fn, ReadCases)
}

// read is Read with readPart reading from one part.
func (c *concat) read(positions []int, fn func(int, *Result) error,
	readPart func(ResultStream, []int, func(int, *Result) error) error) error {
	starts := make([]int, len(c.parts)+1)
	for i, p := range c.parts {
		n, err := p.Len()
		if err != nil {
			return err
		}
		starts[i+1] = starts[i] + n
	}
	partOf := func(pos int) int {
		return sort.Search(len(c.parts), func(i int) bool { return starts[i+1] > pos })
	}
	for i := 0; i < len(positions); {
		part := partOf(positions[i])
		if part == len(c.parts) || positions[i] < 0 {
			return fmt.Errorf("read results: no result %d", positions[i])
		}
		j := i
		var local []int
		for ; j < len(positions) && positions[j] >= starts[part] && positions[j] < starts[part+1]; j++ {
			local = append(local, positions[j]-starts[part])
		}
		if err := readPart(c.parts[part], local, func(k int, r *Result) error { return fn(starts[part]+k, r) }); err != nil {
			return err
		}
		i = j
	}
	return nil
}

func (c *concat) Len() (int, error) {
	total := 0
	for _, p := range c.parts {
		n, err := p.Len()
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}
