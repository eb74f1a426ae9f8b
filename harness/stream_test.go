package harness_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"

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

var _ = Describe("a file stream's digest", func() {
	It("is DigestResultsFile's, taken by the first pass when asked, whatever the file's blank lines and last line", func() {
		dir := GinkgoT().TempDir()
		_, err := harness.Run(context.Background(), runConfig(dir, runCases(3), 2))
		Expect(err).NotTo(HaveOccurred())
		data, err := os.ReadFile(filepath.Join(dir, harness.ResultsFile))
		Expect(err).NotTo(HaveOccurred())
		lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
		for name, text := range map[string]string{
			"as written":            string(data),
			"blank lines":           "\n" + lines[0] + "\n  \n" + strings.Join(lines[1:], "") + "\n\n",
			"no newline at the end": strings.TrimSuffix(string(data), "\n"),
			"CRLF line ends":        strings.ReplaceAll(string(data), "\n", "\r\n"),
			"no results at all":     "",
		} {
			path := filepath.Join(dir, "r.jsonl")
			Expect(os.WriteFile(path, []byte(text), 0o644)).To(Succeed())
			want, err := harness.DigestResultsFile(path)
			Expect(err).NotTo(HaveOccurred())

			fs := harness.NewFileStream(path)
			fs.DigestWhileReading()
			_, ok := fs.Digest()
			Expect(ok).To(BeFalse(), name+": no digest before a pass")
			Expect(fs.Each(func(int, *harness.Result) error { return nil })).To(Succeed(), name)
			got, ok := fs.Digest()
			Expect(ok).To(BeTrue(), name)
			Expect(got).To(Equal(want), name)
			Expect(fs.Each(func(int, *harness.Result) error { return nil })).To(Succeed(), name)
			again, _ := fs.Digest()
			Expect(again).To(Equal(want), name+": a second pass keeps it")
		}
		// Not asked, the pass takes none.
		fs := harness.NewFileStream(filepath.Join(dir, harness.ResultsFile))
		Expect(fs.Each(func(int, *harness.Result) error { return nil })).To(Succeed())
		_, ok := fs.Digest()
		Expect(ok).To(BeFalse())
	})
})
