package harness_test

import (
	"bytes"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/internal/textwrap"
)

var _ = Describe("WriteCompactTable", func() {
	summary := harness.Summary{Versions: []harness.VersionSummary{{
		Version: "bfcl-live_multiple@0123abcd",
		Groups: map[string]harness.Group{
			harness.GroupAll: {N: 1234, Mix: map[string]int{"normal": 1234}, Metrics: map[string]harness.Rate{
				harness.DecisionAccuracy: {Value: 0.8125, N: 1234}, harness.PolicyViolations: {Value: 2, N: 1234},
				harness.LatencyP95: {Value: 12.25, N: 1234}}},
			"suite:a-suite-with-a-long-name": {N: 1234, Metrics: map[string]harness.Rate{harness.DecisionAccuracy: {Value: 1, N: 1234}}},
		},
	}}}

	It("fits the width given, leaving out columns from the right and naming them", func() {
		var b bytes.Buffer
		Expect(harness.WriteCompactTable(&b, summary, 60)).To(Succeed())
		for _, line := range strings.Split(b.String(), "\n") {
			Expect(textwrap.Width(line)).To(BeNumerically("<=", 60), line)
		}
		Expect(b.String()).To(ContainSubstring("bfcl-live_multiple@0123abcd\n  all "))
		Expect(b.String()).To(MatchRegexp(`  a-suite-with-a-long-name\s+1234\s+1\.000`))
		Expect(b.String()).To(ContainSubstring("left out to fit 60 columns: "))
		Expect(b.String()).To(ContainSubstring("p95ms"))
	})

	It("shows every column when they fit, values without intervals", func() {
		var b bytes.Buffer
		Expect(harness.WriteCompactTable(&b, summary, 120)).To(Succeed())
		Expect(b.String()).NotTo(ContainSubstring("left out"))
		Expect(b.String()).To(MatchRegexp(`  all\s+1234\s+0\.812\s+-\s+-\s+-\s+-\s+-\s+-\s+-\s+2\s+12\.2\n`))
	})
})
