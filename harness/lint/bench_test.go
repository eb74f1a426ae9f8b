package lint_test

import (
	"context"
	"os"
	"testing"

	"github.com/routebench/routebench/harness/lint"
)

// BenchmarkLintLargeRegistry lints an imported registry given by
// ROUTEBENCH_LINT_BENCH (a version directory, e.g. from
// `routebench import clinc150 ... --out DIR` -> DIR/version) and, when set,
// ROUTEBENCH_LINT_BENCH_SUITES. Without it, it lints the ops demo's v2.
func BenchmarkLintLargeRegistry(b *testing.B) {
	dir := os.Getenv("ROUTEBENCH_LINT_BENCH")
	suites := os.Getenv("ROUTEBENCH_LINT_BENCH_SUITES")
	if dir == "" {
		dir, suites = "../../fixtures/ops/prompts/v2", "../../suites/ops"
	}
	targets := []lint.Target{lint.LoadDir(dir)}
	if targets[0].Err != nil {
		b.Fatal(targets[0].Err)
	}
	in := lint.Input{Targets: targets}
	if suites != "" {
		in.Cases, in.SuiteFindings = lint.LoadSuites([]string{suites}, targets)
	}
	b.ResetTimer()
	for b.Loop() {
		r := lint.Lint(context.Background(), in, lint.Options{})
		b.ReportMetric(float64(len(r.Findings)), "findings")
	}
}
