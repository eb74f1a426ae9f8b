package harness

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/routebench/routebench/internal/cputime"
)

// cpuLoop runs body b.N times and reports the process's CPU time per
// operation (user and system, GC workers included) beside ns/op: on a
// shared machine it moves far less than wall time.
func cpuLoop(b *testing.B, body func()) {
	b.Helper()
	cpu0 := cputime.Process()
	for b.Loop() {
		body()
	}
	b.ReportMetric(float64((cputime.Process()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

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
		cpuLoop(b, func() {
			var r Result
			if err := json.Unmarshal(line, &r); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("fast", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		b.ReportAllocs()
		var d resultDecoder
		cpuLoop(b, func() {
			var r Result
			if err := d.decode(line, &r, false); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("encoding-json-caseOnly", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		b.ReportAllocs()
		cpuLoop(b, func() {
			var c caseLine
			if err := json.Unmarshal(line, &c); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("fast-caseOnly", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		b.ReportAllocs()
		var d resultDecoder
		cpuLoop(b, func() {
			var r Result
			if err := d.decode(line, &r, true); err != nil {
				b.Fatal(err)
			}
		})
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
		cpuLoop(b, func() {
			enc, err := json.Marshal(&r)
			if err != nil {
				b.Fatal(err)
			}
			_ = append(enc, '\n') // as encodeResult did
		})
	})
	b.Run("fast", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		b.ReportAllocs()
		cpuLoop(b, func() {
			l, err := marshalLine(&r)
			if err != nil {
				b.Fatal(err)
			}
			l.release() // as the writer does once the line is written
		})
	})
}
