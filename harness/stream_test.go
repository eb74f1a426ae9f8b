package harness_test

import (
	"context"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/router"
)

var _ = Describe("ReadCases", func() {
	// caseView is what ReadCases promises: the result with its decision,
	// caller and workflow runs cleared.
	caseView := func(r harness.Result) harness.Result {
		r.Decision, r.Caller, r.Workflow, r.Resume = router.Decision{}, router.Caller{}, nil, nil
		return r
	}
	read := func(rs harness.ResultStream, positions []int, with func(harness.ResultStream, []int, func(int, *harness.Result) error) error) map[int]harness.Result {
		got := map[int]harness.Result{}
		Expect(with(rs, positions, func(i int, r *harness.Result) error {
			got[i] = *r
			return nil
		})).To(Succeed())
		return got
	}

	It("reads a results file's lines without their decisions, and everything else as Read does, through Select and Concat too", func() {
		dir := GinkgoT().TempDir()
		_, err := harness.Run(context.Background(), runConfig(dir, runCases(4), 2))
		Expect(err).NotTo(HaveOccurred())
		fs := harness.NewFileStream(filepath.Join(dir, harness.ResultsFile))
		n, err := fs.Len()
		Expect(err).NotTo(HaveOccurred())
		Expect(n).To(Equal(8))
		var base string
		Expect(harness.ReadCases(fs, []int{7}, func(_ int, r *harness.Result) error { base = r.Version; return nil })).To(Succeed())

		for _, rs := range []harness.ResultStream{fs, harness.VersionFirst(fs, base)} {
			positions := []int{6, 1, 3}
			full := read(rs, positions, harness.ResultStream.Read)
			cut := read(rs, positions, harness.ReadCases)
			Expect(cut).To(HaveLen(3))
			for _, p := range positions {
				Expect(full[p].Decision.Action).NotTo(BeEmpty(), "the full read has the decision")
				Expect(cut[p]).To(Equal(caseView(full[p])), "result %d", p)
			}
		}
	})

	It("gives a stream in memory its results whole", func() {
		rs := harness.SliceStream{{Case: "c1", Input: "restart the api", Decision: router.Decision{Action: "execute", Skill: "restart_service"}}}
		Expect(read(rs, []int{0}, harness.ReadCases)[0]).To(Equal(rs[0]))
	})

	It("names a position the file does not have", func() {
		dir := GinkgoT().TempDir()
		_, err := harness.Run(context.Background(), runConfig(dir, runCases(2), 1))
		Expect(err).NotTo(HaveOccurred())
		fs := harness.NewFileStream(filepath.Join(dir, harness.ResultsFile))
		err = harness.ReadCases(fs, []int{5}, func(int, *harness.Result) error { return nil })
		Expect(err).To(MatchError(ContainSubstring("no result 5")))
	})
})
