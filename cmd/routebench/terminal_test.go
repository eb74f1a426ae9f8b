package main

import (
	"testing"

	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/internal/exitcode"
)

// Defect 6 of issue 11: Ginkgo's label-filter errors carry ANSI colour
// codes, which show as garbage in CI logs; stderr here is a buffer, not a
// terminal.
func TestLabelFilterErrorHasNoANSICodes(t *testing.T) {
	g := NewWithT(t)
	code, _, stderr := runCLI("run", "--versions", "../../fixtures/ops/prompts/v1", "--suites", "../../suites/ops", "--label-filter", "suite:(", "--out", t.TempDir()+"/out")
	g.Expect(code).To(Equal(exitcode.Usage))
	g.Expect(stderr).NotTo(ContainSubstring("\x1b["))
	g.Expect(stderr).NotTo(ContainSubstring("{{"))
	g.Expect(stderr).To(ContainSubstring("syntax error at column 6: missing set operation\n  suite:(\n       ^"))
}
