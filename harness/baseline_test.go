package harness_test

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
)

var _ = Describe("Baseline", func() {
	b := harness.Baseline{"v1": {{Case: "a", Failure: "recall_miss"}, {Case: "b", Failure: "param_error"}}}

	DescribeTable("judges a verdict against the known failures",
		func(version, id string, v harness.Verdict, want harness.BaselineOutcome) {
			Expect(b.Judge(version, id, v)).To(Equal(want))
		},
		Entry("pass, unlisted", "v1", "c", harness.Verdict{Pass: true}, harness.Passing),
		Entry("pass, listed", "v1", "a", harness.Verdict{Pass: true}, harness.Fixed),
		Entry("fail as listed", "v1", "a", harness.Verdict{Failure: "recall_miss"}, harness.KnownFailing),
		Entry("fail otherwise", "v1", "b", harness.Verdict{Failure: "wrong_band"}, harness.Changed),
		Entry("fail, unlisted", "v1", "c", harness.Verdict{Failure: "wrong_band"}, harness.Regressed),
		Entry("listed under another version only", "v2", "a", harness.Verdict{Failure: "recall_miss"}, harness.Regressed),
	)

	It("round-trips through a sorted, commented file", func() {
		path := filepath.Join(GinkgoT().TempDir(), "baseline.yaml")
		in := harness.Baseline{"v2": {}, "v1": {{Case: "z-1", Failure: "wrong_band"}, {Case: "a: colon", Failure: "recall_miss"}}}
		Expect(harness.WriteBaseline(path, in)).To(Succeed())
		text, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(text)).To(HaveSuffix("v1:\n  - {case: 'a: colon', failure: recall_miss}\n  - {case: z-1, failure: wrong_band}\nv2: []\n"))
		out, err := harness.LoadBaseline(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(out["v1"]).To(Equal([]harness.KnownFailure{{Case: "a: colon", Failure: "recall_miss"}, {Case: "z-1", Failure: "wrong_band"}}))
	})

	It("treats a missing or empty file as no known failures, and rejects unknown categories and fields", func() {
		dir := GinkgoT().TempDir()
		b, err := harness.LoadBaseline(filepath.Join(dir, "none.yaml"))
		Expect(err).NotTo(HaveOccurred())
		Expect(b).To(BeEmpty())
		Expect(os.WriteFile(filepath.Join(dir, "empty.yaml"), []byte("# nothing\n"), 0o644)).To(Succeed())
		b, err = harness.LoadBaseline(filepath.Join(dir, "empty.yaml"))
		Expect(err).NotTo(HaveOccurred())
		Expect(b).To(BeEmpty())
		Expect(os.WriteFile(filepath.Join(dir, "bad.yaml"), []byte("v1:\n  - {case: a, failure: oops}\n"), 0o644)).To(Succeed())
		_, err = harness.LoadBaseline(filepath.Join(dir, "bad.yaml"))
		Expect(err).To(MatchError(ContainSubstring(`v1[0].failure: unknown failure category "oops" (case a)`)))
		Expect(os.WriteFile(filepath.Join(dir, "field.yaml"), []byte("v1:\n  - {case: a, failur: x}\n"), 0o644)).To(Succeed())
		_, err = harness.LoadBaseline(filepath.Join(dir, "field.yaml"))
		Expect(err).To(MatchError(ContainSubstring("failur")))
	})
})
