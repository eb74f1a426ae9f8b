package main

import (
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
)

// --memprofile keeps, per phase of the run, the heap profile of its peak,
// and the highest of them all; each is a gzipped pprof profile.
func TestRunMemProfileKeepsEachPhasesPeak(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	suite := filepath.Join(dir, "s.yaml")
	g.Expect(os.WriteFile(suite, []byte("suite: normal\ncases:\n  - id: a\n    input: 查一下华东区上周的订单\n    expect: {action: refuse}\n"), 0o644)).To(Succeed())
	profile := filepath.Join(dir, "heap.pprof")
	code, _, stderr := runCLI("run", "--versions", "../../fixtures/ops/prompts/v1", "--suites", suite,
		"--out", filepath.Join(dir, "out"), "--history", "", "--memprofile", profile)
	g.Expect(code).To(Equal(0), stderr)
	g.Expect(stderr).To(ContainSubstring("heap profile at the peak live heap ("))
	for _, path := range []string{profile, profile + ".load", profile + ".route", profile + ".score"} {
		data, err := os.ReadFile(path)
		g.Expect(err).NotTo(HaveOccurred(), path)
		g.Expect(len(data)).To(BeNumerically(">", 2), path)
		g.Expect(data[:2]).To(Equal([]byte{0x1f, 0x8b}), "%s is a gzipped profile", path)
	}
	leftovers, err := filepath.Glob(profile + "*.tmp")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(leftovers).To(BeEmpty())
}
