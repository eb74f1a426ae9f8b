package stats_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness/stats"
)

// Intervals as the resampling's stream gave them at d21e95f, over tallies
// that take every path of the chain (small and large counts, so inversion
// and BTRD, kinds missing, counts excluded under one version): a faster
// resample must draw the very same numbers.
var _ = Describe("Bootstrap's pinned intervals", func() {
	def := stats.NewBootstrap(stats.DefaultThresholds)
	DescribeTable("are what they were",
		func(want string, spec ...[3]int) {
			Expect(fmt.Sprintf("%+v", def.Interval(build(spec...)))).To(Equal(want))
		},
		Entry("300 cases", "{Lo:-0.013333333333333308 Hi:0.07999999999999996 Replicates:2000}", [3]int{200, 2, 2}, [3]int{50, 1, 1}, [3]int{20, 2, 1}, [3]int{30, 1, 2}),
		Entry("10,000 cases, excluded on either side", "{Lo:0.018362419553076065 Hi:0.032463083234988484 Replicates:2000}", [3]int{6000, 2, 2}, [3]int{1500, 1, 1}, [3]int{400, 2, 1}, [3]int{600, 1, 2},
			[3]int{300, 0, 2}, [3]int{200, 2, 0}, [3]int{1000, 0, 0}),
		Entry("every kind", "{Lo:-0.03134796238244508 Hi:0.2185960591133005 Replicates:2000}", [3]int{30, 2, 2}, [3]int{10, 1, 1}, [3]int{3, 2, 1}, [3]int{9, 1, 2}, [3]int{2, 0, 2}, [3]int{1, 0, 1},
			[3]int{4, 2, 0}, [3]int{1, 1, 0}, [3]int{6, 0, 0}),
		Entry("hits only moved to misses", "{Lo:-0.010322420634920589 Hi:-0.005550595238095245 Replicates:2000}", [3]int{5000, 2, 2}, [3]int{40, 2, 1}),
		Entry("a head that counts new cases", "{Lo:0.02032520325203252 Hi:0.044715447154471545 Replicates:2000}", [3]int{700, 1, 1}, [3]int{20, 0, 2}, [3]int{15, 0, 1}, [3]int{3, 1, 2}),
		Entry("every pair alike under both versions", "{Lo:0 Hi:0 Replicates:2000}", [3]int{500, 2, 2}, [3]int{300, 1, 1}, [3]int{40, 0, 0}),
		Entry("every pair a hit under both", "{Lo:0 Hi:0 Replicates:2000}", [3]int{7, 2, 2}),
		Entry("large and lopsided", "{Lo:-0.010213775869075037 Hi:-0.008441807814382819 Replicates:2000}", [3]int{90000, 2, 2}, [3]int{900, 1, 1}, [3]int{450, 1, 2}, [3]int{300, 2, 1}, [3]int{2000, 2, 0}, [3]int{1000, 0, 1}),
	)
})
