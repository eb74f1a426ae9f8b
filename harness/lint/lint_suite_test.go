package lint_test

import (
	"context"
	"github.com/routebench/routebench/internal/specrun"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/harness/lint"
)

func TestLint(t *testing.T) {
	RegisterFailHandler(Fail)
	specrun.RunSpecs(t, "lint")
}

// lintVersions lints version directories against suite cases loaded
// without skill-name checks, so a suite may name skills a version lacks.
func lintVersions(opts lint.Options, suites []string, dirs ...string) lint.Report {
	var targets []lint.Target
	for _, d := range dirs {
		targets = append(targets, lint.LoadDir(d))
	}
	in := lint.Input{Targets: targets}
	if len(suites) > 0 {
		cases, err := harness.LoadSuites(suites)
		Expect(err).NotTo(HaveOccurred())
		in.Cases = cases
	}
	return lint.Lint(context.Background(), in, opts)
}

// pick returns the findings of one check, for one skill when skill is set.
func pick(r lint.Report, check, skill string) []lint.Finding {
	var out []lint.Finding
	for _, f := range r.Findings {
		if f.Check == check && (skill == "" || f.Skill == skill) {
			out = append(out, f)
		}
	}
	return out
}

// checks lists the distinct checks that found something, for one version
// name prefix ("v2@") when given.
func checks(r lint.Report, version string) map[string]int {
	out := map[string]int{}
	for _, f := range r.Findings {
		if version == "" || len(f.Version) >= len(version) && f.Version[:len(version)] == version {
			out[f.Check]++
		}
	}
	return out
}
