package harness

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// BenchmarkDecodeResult decodes one typical results.jsonl line (a
// single-step case the builtin router refused, 2.4 KB with its trace) with
// encoding/json and with the reflection-free decoder; caseOnly is
// ReadCases' decoding, without the decision.
//
//	go test ./harness -run '^$' -bench DecodeResult -benchmem -count 5
func BenchmarkDecodeResult(b *testing.B) {
	data, err := os.ReadFile("testdata/results/sample.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	line := data[:bytes.IndexByte(data, '\n')+1]
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		b.ReportAllocs()
		for b.Loop() {
			var r Result
			if err := json.Unmarshal(line, &r); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("fast", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		b.ReportAllocs()
		var d resultDecoder
		for b.Loop() {
			var r Result
			if err := d.decode(line, &r, false); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json-caseOnly", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		b.ReportAllocs()
		for b.Loop() {
			var c caseLine
			if err := json.Unmarshal(line, &c); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("fast-caseOnly", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		b.ReportAllocs()
		var d resultDecoder
		for b.Loop() {
			var r Result
			if err := d.decode(line, &r, true); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkEncodeResult encodes the same line's result with json.Marshal
// and with the reflection-free encoder.
//
//	go test ./harness -run '^$' -bench EncodeResult -benchmem -count 5
func BenchmarkEncodeResult(b *testing.B) {
	data, err := os.ReadFile("testdata/results/sample.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	line := data[:bytes.IndexByte(data, '\n')+1]
	var r Result
	if err := json.Unmarshal(line, &r); err != nil {
		b.Fatal(err)
	}
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		b.ReportAllocs()
		for b.Loop() {
			enc, err := json.Marshal(&r)
			if err != nil {
				b.Fatal(err)
			}
			_ = append(enc, '\n') // as encodeResult did
		}
	})
	b.Run("fast", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := marshalLine(&r); err != nil {
				b.Fatal(err)
			}
		}
	})
}
