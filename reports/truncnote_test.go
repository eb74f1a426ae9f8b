package reports_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/reports"
)

var _ = Describe("summary.md's truncation note", func() {
	// 100 characters, 300 bytes: the note must give the input's own length,
	// in the characters the cut counts.
	long := strings.Repeat("告", 100)
	input := func(paired bool) reports.Input {
		results := fixtureResults()
		for i := range results {
			results[i].Input = long
		}
		in := reports.Input{Meta: reports.MetaFromResults(results), Results: results, Summary: harness.Score(results)}
		if paired {
			in.Comparisons = pairedV1V2(results)
		}
		return in
	}

	DescribeTable("gives the input's whole length, once",
		func(paired bool) {
			var b strings.Builder
			Expect(reports.WriteMarkdown(&b, input(paired))).To(Succeed())
			md := b.String()
			Expect(md).To(ContainSubstring("| " + strings.Repeat("告", 80) + "… \\[truncated, 100 characters in all\\] |"))
			Expect(md).NotTo(ContainSubstring("bytes in all"))
		},
		Entry("flips read off the results", false),
		Entry("flips from a paired comparison", true),
	)
})
