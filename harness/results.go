package harness

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
		if _, err := bw.Write(line); err != nil {
			return fmt.Errorf("write results: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write results: %w", err)
	}
	return nil
}

// encodeResult is one results.jsonl line, newline included. Every line
// carries the format version.
func encodeResult(r *Result) ([]byte, error) {
	r.Format = FormatVersion
	b, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("encode result %s/%s: %w", r.Version, r.Case, err)
	}
	return append(b, '\n'), nil
}

// WriteResultsFile replaces path with the results, atomically: a reader
// never sees half a file.
func WriteResultsFile(path string, results []Result) error {
	return writeAtomic(path, func(w io.Writer) error { return WriteResults(w, results) })
}

// ReadResults reads a results.jsonl file. A last line cut off mid-write (an
// interrupted run) is an error here; `run --resume` repairs such a file.
func ReadResults(path string) ([]Result, error) {
	results, torn, err := readResultsFile(path)
	if err != nil {
		return nil, err
	}
	if torn >= 0 {
		return nil, fmt.Errorf("read %s: the last line is cut off (an interrupted run?); finish it with `routebench run --resume`", path)
	}
	return results, nil
}

// readResultsFile decodes every complete line. torn is the byte offset of
// a cut-off last line (no newline, not valid JSON), or -1.
func readResultsFile(path string) (results []Result, torn int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, -1, fmt.Errorf("read results: %w", err)
	}
	defer f.Close()
	results, torn, err = decodeResults(f, path)
	return results, torn, err
}

func decodeResults(r io.Reader, name string) ([]Result, int64, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var results []Result
	var offset int64
	for lineNo := 1; ; lineNo++ {
		line, err := br.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			if len(bytes.TrimSpace(line)) == 0 {
				return results, -1, nil
			}
			var res Result
			if json.Unmarshal(line, &res) != nil {
				return results, offset, nil
			}
			// A complete object without its newline: keep it.
			if err := checkFormat(res, name, lineNo); err != nil {
				return nil, -1, err
			}
			return append(results, res), -1, nil
		}
		if err != nil {
			return nil, -1, fmt.Errorf("read %s: %w", name, err)
		}
		offset += int64(len(line))
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var res Result
		if err := json.Unmarshal(line, &res); err != nil {
			return nil, -1, fmt.Errorf("%s:%d: not a result line: %v", name, lineNo, err)
		}
		if err := checkFormat(res, name, lineNo); err != nil {
			return nil, -1, err
		}
		results = append(results, res)
	}
}

func checkFormat(r Result, name string, line int) error {
	if r.Format != FormatVersion {
		return fmt.Errorf("%s:%d: results format %d, this routebench reads format %d; re-run with this version", name, line, r.Format, FormatVersion)
	}
	if r.Version == "" || r.Case == "" {
		return fmt.Errorf("%s:%d: result without version or case", name, line)
	}
	return nil
}

// WriteSummaryFile writes summary.json, indented. encoding/json sorts map
// keys, so equal summaries give equal bytes.
func WriteSummaryFile(path string, s Summary) error {
	return writeAtomic(path, func(w io.Writer) error {
		b, err := json.MarshalIndent(s, "", "  ")
		if err != nil {
			return fmt.Errorf("encode summary: %w", err)
		}
		_, err = w.Write(append(b, '\n'))
		return err
	})
}

// ReadSummaryFile reads summary.json.
func ReadSummaryFile(path string) (Summary, error) {
	var s Summary
	b, err := os.ReadFile(path)
	if err != nil {
		return s, fmt.Errorf("read summary: %w", err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("read summary %s: %w", path, err)
	}
	return s, nil
}

func writeAtomic(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	// CreateTemp makes 0600 files; outputs are meant to be shared.
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := write(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
