package stats_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness/stats"
)

// Reference p-values from testdata/reference.py, which sums the binomial
// tail with exact fractions (python3 testdata/reference.py).
var _ = DescribeTable("McNemarExact matches exact binomial sums",
	func(b, c int, want float64) {
		Expect(stats.McNemarExact(b, c)).To(BeNumerically("~", want, 1e-12*max(want, 1e-300)+1e-15))
	},
	Entry("nothing discordant", 0, 0, 1.0),
	Entry("3 one way", 3, 0, 0.25),
	Entry("5 one way: not reachable at 0.05", 5, 0, 0.0625),
	Entry("6 one way: smallest significant", 0, 6, 0.03125),
	Entry("1 vs 5", 1, 5, 0.21875),
	Entry("2 vs 10", 2, 10, 0.03857421875),
	Entry("balanced", 5, 5, 1.0),
	Entry("10 vs 25", 10, 25, 0.01667384780012071),
	Entry("40 vs 60", 40, 60, 0.05688793364098079),
	Entry("100 vs 150", 100, 150, 0.001883300935076157),
	Entry("20 one way", 0, 20, 1.9073486328125e-06),
	Entry("7 vs 1", 7, 1, 0.0703125),
)

var _ = Describe("McNemar", func() {
	It("is symmetric in b and c", func() {
		Expect(stats.McNemarExact(3, 11)).To(Equal(stats.McNemarExact(11, 3)))
	})
	It("tests only the pairs counted under both versions", func() {
		pairs := []stats.Pair{
			{Base: stats.Hit, Head: stats.Miss},
			{Base: stats.Miss, Head: stats.Hit}, {Base: stats.Miss, Head: stats.Hit},
			{Base: stats.Excluded, Head: stats.Hit}, // not discordant: base did not count it
			{Base: stats.Hit, Head: stats.Hit},
		}
		b, c := stats.Discordant(pairs)
		Expect([]int{b, c}).To(Equal([]int{1, 2}))
		Expect(stats.McNemar{}.PValue(pairs)).To(Equal(stats.McNemarExact(1, 2)))
	})
	It("stays finite and tiny for thousands of cases", func() {
		p := stats.McNemarExact(0, 2000)
		Expect(p).To(BeNumerically(">=", 0))
		Expect(p).To(BeNumerically("<", 1e-300))
	})
})

var _ = DescribeTable("MinDetectable is the smallest n with 2*0.5^n < alpha",
	func(alpha float64, want int) {
		Expect(stats.MinDetectable(alpha)).To(Equal(want))
		Expect(stats.McNemarExact(0, want)).To(BeNumerically("<", alpha))
		Expect(stats.McNemarExact(0, want-1)).To(BeNumerically(">=", alpha))
	},
	Entry("alpha 0.05", 0.05, 6),
	Entry("alpha 0.01", 0.01, 8),
	Entry("alpha 0.1", 0.1, 5),
)
