package harness_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/routebench/routebench/harness"
)

// FuzzReadResults feeds the results.jsonl reader arbitrary bytes: it must
// never panic, and a file it refuses must be refused with the number of a
// line that is bad on its own. Seeds: testdata/fuzz/FuzzReadResults.
//
//	go test ./harness/ -run '^$' -fuzz '^FuzzReadResults$' -fuzztime 30s
func FuzzReadResults(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		const name = "fuzz.jsonl"
		results, err := harness.DecodeResults(bytes.NewReader(data), name)
		if err != nil {
			var bad *harness.ResultsError
			if !errors.As(err, &bad) {
				t.Fatalf("error %v is not a *ResultsError", err)
			}
			lines := bytes.SplitAfter(data, []byte("\n"))
			if bad.Line < 1 || bad.Line > len(lines) {
				t.Fatalf("error names line %d of %d: %v", bad.Line, len(lines), err)
			}
			if prefix := fmt.Sprintf("%s:%d: ", name, bad.Line); !strings.HasPrefix(err.Error(), prefix) {
				t.Fatalf("error %q does not start with %q", err, prefix)
			}
			// The named line alone is refused too: the number points at
			// the culprit, not at a neighbour.
			if _, err := harness.DecodeResults(bytes.NewReader(lines[bad.Line-1]), name); err == nil {
				t.Fatalf("line %d (%q) is fine on its own, yet the file was refused for it: %v", bad.Line, lines[bad.Line-1], err)
			}
			return
		}
		for i, r := range results {
			if r.Format != harness.FormatVersion || r.Version == "" || r.Case == "" {
				t.Fatalf("result %d accepted without format, version or case: %+v", i, r)
			}
		}
		// What was read can be written back and reads the same.
		var buf bytes.Buffer
		if err := harness.WriteResults(&buf, results); err != nil {
			t.Fatalf("write back: %v", err)
		}
		again, err := harness.DecodeResults(&buf, name)
		if err != nil || len(again) != len(results) {
			t.Fatalf("round trip: %d results, then %d (%v)", len(results), len(again), err)
		}
	})
}
