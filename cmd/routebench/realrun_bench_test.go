package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/internal/cputime"
)

// BenchmarkWriteOutputsRealRun scores a real run's results.jsonl and
// writes all its outputs, as `run` does once routing is done: the
// harness's share of a run but for encoding the results. One op is one
// whole pass; cpu-s/op is the process's CPU time (GC and the second core
// included), steadier than wall time on a shared machine.
//
//	ROUTEBENCH_RUN=/tmp/cases/out go test ./cmd/routebench -run '^$' -bench WriteOutputsRealRun -benchtime 3x
func BenchmarkWriteOutputsRealRun(b *testing.B) {
	src := os.Getenv("ROUTEBENCH_RUN")
	if src == "" {
		b.Skip("set ROUTEBENCH_RUN to a run's output directory")
	}
	data, err := os.ReadFile(filepath.Join(src, harness.ResultsFile))
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, harness.ResultsFile), data, 0o644); err != nil {
		b.Fatal(err)
	}
	cpu0 := cputime.Process()
	for b.Loop() {
		if err := writeOutputs(io.Discard, dir, nil, false, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cputime.Process()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
}
