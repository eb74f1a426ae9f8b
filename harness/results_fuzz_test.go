package harness_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
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

// FuzzDecodeResult decodes arbitrary bytes as one results line with
// harness.DecodeResult and with json.Unmarshal, and ReadCases' way with
// and without its fast path: each pair must give the same value, or the
// same error. The value then encodes to json.Marshal's bytes. Seeds: a real run's lines (testdata/results/sample.jsonl),
// a few unusual ones, and testdata/fuzz/FuzzDecodeResult.
//
//	go test ./harness/ -run '^$' -fuzz '^FuzzDecodeResult$' -fuzztime 60s
func FuzzDecodeResult(f *testing.F) {
	sample, err := os.ReadFile("testdata/results/sample.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	for _, line := range bytes.SplitAfter(sample, []byte("\n")) {
		f.Add(line)
	}
	for _, s := range []string{
		`{"format":1,"version":"v","case":"c","tags":null,"decision":{"params":{"a":[1,{"b":null}],"a":"x"},"trace":[{"kept":3,"confidence":0.5}]}}`,
		`{"format":1,"version":"v\u00e9","case":"c","masked":{"k\u0041":"ok"},"turns":[{"input":"x","decision":{"skill":"s"}}]}`,
		`{"Format":1,"version":"v","case":"c","expect":{"params":{"p":{"equals":1,"any_of":[1,"2"]}},"calls":[],"retries":{"n":1}}}`,
		`{"format":1,"version":"v","case":"c","workflow":{"checkpoints":{"written":[{"time":"2026-11-30T10:00:00Z"}]}},"resume":null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var fast, slow harness.Result
		ferr := harness.DecodeResult(line, &fast)
		serr := json.Unmarshal(line, &slow)
		if fmt.Sprint(ferr) != fmt.Sprint(serr) {
			t.Fatalf("%q: DecodeResult error %v, encoding/json %v", line, ferr, serr)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%q: DecodeResult gave %+v, encoding/json %+v", line, fast, slow)
		}
		// What was read encodes to json.Marshal's bytes.
		want, werr := json.Marshal(&slow)
		got, gerr := harness.MarshalResult(&slow)
		if fmt.Sprint(gerr) != fmt.Sprint(werr) || !bytes.Equal(got, want) {
			t.Fatalf("%q: encoded as %s (%v), json.Marshal %s (%v)", line, got, gerr, want, werr)
		}
		// Written as results.jsonl after a longer line, twice (the lines'
		// buffers are pooled and reused), each line is still json.Marshal's
		// bytes and a newline.
		if werr == nil {
			long := harness.Result{Format: harness.FormatVersion, Version: "v", Case: "long", Input: strings.Repeat("long input ", 200)}
			r := slow
			r.Format = harness.FormatVersion
			wantLong, err := json.Marshal(&long)
			if err != nil {
				t.Fatal(err)
			}
			wantLine, err := json.Marshal(&r)
			if err != nil {
				t.Fatal(err)
			}
			var file bytes.Buffer
			if err := harness.WriteResults(&file, []harness.Result{long, r, r}); err != nil {
				t.Fatalf("%q: WriteResults: %v", line, err)
			}
			want := string(wantLong) + "\n" + string(wantLine) + "\n" + string(wantLine) + "\n"
			if file.String() != want {
				t.Fatalf("%q: WriteResults wrote %q, want %q", line, file.String(), want)
			}
		}
		cases, cerr := harness.DecodeCaseLine(line)
		casesJSON, cjerr := harness.UnmarshalCaseLine(line)
		if fmt.Sprint(cerr) != fmt.Sprint(cjerr) {
			t.Fatalf("%q: ReadCases' error %v, by encoding/json %v", line, cerr, cjerr)
		}
		if !reflect.DeepEqual(cases, casesJSON) {
			t.Fatalf("%q: ReadCases gave %+v, by encoding/json %+v", line, cases, casesJSON)
		}
	})
}
