package harness

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/routebench/routebench/internal/inputfile"
	"github.com/routebench/routebench/internal/outdir"
	"github.com/routebench/routebench/router"
)

// File names in an output directory.
const (
	ResultsFile = "results.jsonl"
	SummaryFile = "summary.json"
)

// WriteResults writes results as JSON lines, one per result, in the order
// given.
func WriteResults(w io.Writer, results []Result) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	for i := range results {
		line, err := encodeResult(&results[i])
		if err != nil {
			return err
		}
		_, err = bw.Write(line.b)
		line.release()
		if err != nil {
			return fmt.Errorf("write results: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write results: %w", err)
	}
	return nil
}

// encodeResult is one results.jsonl line, newline included, to release
// once written. Every line carries the format version.
func encodeResult(r *Result) (*encodedLine, error) {
	r.Format = FormatVersion
	line, err := marshalLine(r)
	if err != nil {
		return nil, fmt.Errorf("encode result %s/%s: %w", r.Version, r.Case, err)
	}
	return line, nil
}

// WriteResultsFile replaces path with the results, atomically: a reader
// never sees half a file.
func WriteResultsFile(path string, results []Result) error {
	return writeAtomic(path, func(w io.Writer) error { return WriteResults(w, results) })
}

// ResultsError is a results.jsonl that cannot be read as results: bad
// input, not a failed run. Line is 1-based; 0 when the whole file is at
// fault (it cannot be opened or read).
type ResultsError struct {
	Path string
	Line int
	Err  error
}

func (e *ResultsError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.Path, e.Err)
}

func (e *ResultsError) Unwrap() error { return e.Err }

// ReadResults reads a results.jsonl file. A last line cut off mid-write (an
// interrupted run) is an error here; `run --resume` repairs such a file.
func ReadResults(path string) ([]Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && !st.IsDir() {
		if err := NotResults(path, st.Mode()); err != nil {
			return nil, err
		}
	}
	return DecodeResults(f, path)
}

// DecodeResults reads results.jsonl from r; name is what errors call it.
// Every problem is a *ResultsError naming the line: a line that is not a
// result, a result of another format, and a last line cut off mid-write.
func DecodeResults(r io.Reader, name string) ([]Result, error) {
	results, torn, err := decodeResults(r, name)
	if err != nil {
		return nil, err
	}
	if torn != nil {
		return nil, &ResultsError{Path: name, Line: torn.line,
			Err: errors.New("the last line is cut off (an interrupted run?); finish it with `routebench run --resume`")}
	}
	return results, nil
}

// tornLine is a last line without its newline that is not a whole result:
// what a process killed mid-write leaves behind.
type tornLine struct {
	line   int
	offset int64 // where it starts: the file's good length
	size   int
}

func decodeResults(r io.Reader, name string) ([]Result, *tornLine, error) {
	var results []Result
	torn, err := scanResults(r, name, func(res *Result, _ []byte, _ int64) error {
		results = append(results, *res)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return results, torn, nil
}

// scanResults decodes results.jsonl line by line, calling fn with each
// result, its line (newline included; valid only during the call) and
// where the line starts; torn is
// a cut-off last line, left out. Any other bad line is a *ResultsError.
func scanResults(r io.Reader, name string, fn func(res *Result, line []byte, offset int64) error) (*tornLine, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	dec := getDecoder()
	defer putDecoder(dec)
	var offset int64
	var buf []byte
	for lineNo := 1; ; lineNo++ {
		line, err := readLine(br, buf[:0])
		buf = line
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, &ResultsError{Path: name, Line: lineNo, Err: err}
		}
		last := err != nil
		if len(bytes.TrimSpace(line)) == 0 {
			if last {
				return nil, nil
			}
			offset += int64(len(line))
			continue
		}
		var res Result
		if jerr := dec.decode(line, &res, false); jerr != nil {
			if last {
				// No newline and not a whole object: cut off mid-write.
				return &tornLine{line: lineNo, offset: offset, size: len(line)}, nil
			}
			return nil, &ResultsError{Path: name, Line: lineNo, Err: fmt.Errorf("not a result line: %v; fix or delete the line", jerr)}
		}
		// A complete object without its newline is kept: the process
		// died between the object and its newline.
		if err := checkFormat(res, name, lineNo); err != nil {
			return nil, err
		}
		if err := fn(&res, line, offset); err != nil {
			return nil, err
		}
		if last {
			return nil, nil
		}
		offset += int64(len(line))
	}
}

func checkFormat(r Result, name string, line int) error {
	if r.Format != FormatVersion {
		return &ResultsError{Path: name, Line: line, Err: fmt.Errorf("results format %d, this routebench reads format %d; re-run with this version", r.Format, FormatVersion)}
	}
	if r.Version == "" || r.Case == "" {
		return &ResultsError{Path: name, Line: line, Err: errors.New(`result without "version" or "case"; every line is one (version, case)`)}
	}
	// A decision routebench could not have written (an edited or damaged
	// line) would be scored and rendered as if it could.
	if err := router.CheckRecordedDecision(r.Decision, "decision"); err != nil {
		return &ResultsError{Path: name, Line: line, Err: fmt.Errorf("%w; fix or delete the line", err)}
	}
	for i := range r.Turns {
		if err := router.CheckRecordedDecision(r.Turns[i].Decision, fmt.Sprintf("turns[%d].decision", i)); err != nil {
			return &ResultsError{Path: name, Line: line, Err: fmt.Errorf("%w; fix or delete the line", err)}
		}
	}
	return nil
}

// ResultsDigest identifies the exact bytes of a results.jsonl, so a
// summary can say which results it was scored from.
type ResultsDigest struct {
	SHA256 string `json:"sha256"`
	Lines  int    `json:"lines"`
}

// DigestResultsFile hashes results.jsonl as it is on disk.
func DigestResultsFile(path string) (ResultsDigest, error) {
	f, err := os.Open(path)
	if err != nil {
		return ResultsDigest{}, fmt.Errorf("digest results: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	lines := &lineCounter{}
	if _, err := io.Copy(io.MultiWriter(h, lines), f); err != nil {
		return ResultsDigest{}, fmt.Errorf("digest %s: %w", path, err)
	}
	return ResultsDigest{SHA256: hex.EncodeToString(h.Sum(nil)), Lines: lines.n}, nil
}

type lineCounter struct{ n int }

func (c *lineCounter) Write(p []byte) (int, error) {
	c.n += bytes.Count(p, []byte{'\n'})
	return len(p), nil
}

// SummaryMatches reports whether dir's summary.json was scored from
// exactly dir's results.jsonl. When it was not, reason says why, for a
// note; a missing summary is not a match. Only a results.jsonl that
// cannot be read is an error.
func SummaryMatches(dir string) (ok bool, reason string, err error) {
	summaryPath := filepath.Join(dir, SummaryFile)
	s, serr := ReadSummaryFile(summaryPath)
	if errors.Is(serr, os.ErrNotExist) {
		return false, "there is no " + SummaryFile, nil
	}
	if serr != nil {
		return false, serr.Error(), nil
	}
	d, err := DigestResultsFile(filepath.Join(dir, ResultsFile))
	if err != nil {
		return false, "", err
	}
	switch {
	case s.Results == nil:
		return false, summaryPath + " does not record which results it was scored from", nil
	case *s.Results != d:
		return false, fmt.Sprintf("%s was scored from other results (%d lines, sha256 %.12s) than %s holds (%d lines, sha256 %.12s)",
			summaryPath, s.Results.Lines, s.Results.SHA256, ResultsFile, d.Lines, d.SHA256), nil
	}
	return true, "", nil
}

// WriteSummaryFile writes summary.json, indented; s.Results should say
// which results.jsonl it was scored from (DigestResultsFile). encoding/json sorts map
// keys, so equal summaries give equal bytes.
func WriteSummaryFile(path string, s Summary) error { return writeJSONFile(path, "summary", s) }

// ReadSummaryFile reads summary.json.
func ReadSummaryFile(path string) (Summary, error) {
	var s Summary
	if err := readJSONFile(path, "summary", &s); err != nil {
		return s, err
	}
	return s, nil
}

// writeJSONFile replaces path whole with v as indented JSON and a newline.
func writeJSONFile(path, what string, v any) error {
	return writeAtomic(path, func(w io.Writer) error {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return fmt.Errorf("encode %s: %w", what, err)
		}
		_, err = w.Write(append(b, '\n'))
		return err
	})
}

// readJSONFile reads a JSON record routebench wrote, bounded like every
// input (a record replaced by something huge or a FIFO is refused).
func readJSONFile(path, what string, v any) error {
	b, err := inputfile.ReadFile(path, 0)
	if err != nil {
		return fmt.Errorf("read %s: %w", what, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: not a %s record: %w", path, what, err)
	}
	return nil
}

// writeAtomic replaces path whole (see outdir.WriteFile).
func writeAtomic(path string, write func(io.Writer) error) error {
	return outdir.WriteFile(path, write)
}
