package main

import (
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
)

// run's and merge's own report.html and summary.md pair every later
// version with the base (first) one, as `routebench report` does on the
// same results: before, they printed plain differences.
func TestRunAndMergeReportsArePaired(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "run")
	code, _, stderr := runCLI("run", "--config", "../../routebench.yaml", "--label-filter", "skill:get_order", "--out", out)
	g.Expect(code).To(Equal(0), stderr)
	merged := filepath.Join(dir, "merged")
	code, _, stderr = runCLI("merge", out, "-o", merged)
	g.Expect(code).To(Equal(0), stderr)
	for _, d := range []string{out, merged} {
		html, err := os.ReadFile(filepath.Join(d, "report.html"))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(string(html)).To(ContainSubstring("(paired comparison; ~ marks changes within noise)"), d)
		g.Expect(string(html)).NotTo(ContainSubstring("no paired comparison was given"), d)
		md, err := os.ReadFile(filepath.Join(d, "summary.md"))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(string(md)).To(ContainSubstring("(significant in the paired test)"), d)
		g.Expect(string(md)).NotTo(ContainSubstring("no paired comparison was given"), d)
	}
}
