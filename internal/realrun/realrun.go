// Package realrun hands benchmarks the results of a real run, so the
// scoring pass's readers can be timed on what a large run writes rather
// than on a made-up handful.
package realrun

import (
	"os"
	"testing"

	"github.com/routebench/routebench/harness"
)

// Env names the results.jsonl the benchmarks read.
const Env = "ROUTEBENCH_RESULTS"

// Results reads the results.jsonl Env names, whole, or skips the
// benchmark when Env is unset; a file that cannot be read fails it.
func Results(b *testing.B) []harness.Result {
	b.Helper()
	path := os.Getenv(Env)
	if path == "" {
		b.Skip("set " + Env + " to a results.jsonl")
	}
	results, err := harness.ReadResults(path)
	if err != nil {
		b.Fatal(err)
	}
	return results
}
