package stats_test

import (
	"math"
	"math/rand/v2"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness/stats"
)

const (
	exc  = stats.Excluded
	miss = stats.Miss
	hit  = stats.Hit
)

// build repeats (count, base, head) groups into pairs.
func build(spec ...[3]int) []stats.Pair {
	var out []stats.Pair
	for _, s := range spec {
		for range s[0] {
			out = append(out, stats.Pair{Base: stats.Outcome(s[1]), Head: stats.Outcome(s[2])})
		}
	}
	return out
}

var (
	mixed40  = build([3]int{20, 2, 2}, [3]int{10, 1, 1}, [3]int{2, 2, 1}, [3]int{8, 1, 2})
	excluded = build([3]int{5, 2, 2}, [3]int{3, 1, 2}, [3]int{1, 2, 1}, [3]int{2, 0, 2}, [3]int{1, 2, 0}, [3]int{4, 0, 0}, [3]int{2, 1, 1})
	tiny     = build([3]int{1, 2, 1}, [3]int{1, 1, 2}, [3]int{1, 0, 2})
)

// expectPercentiles checks that iv's bounds are the confidence interval's
// tail quantiles of dist up to Monte Carlo error: at most the tail's
// share of dist lies strictly below Lo, and at least that share at or
// below it (likewise for Hi), each within eps.
func expectPercentiles(iv stats.Interval, confidence float64, dist distribution, eps float64) {
	GinkgoHelper()
	tail := (1 - confidence) / 2
	Expect(dist.below(iv.Lo)).To(BeNumerically("<=", tail+eps), "share below lo")
	Expect(dist.atOrBelow(iv.Lo)).To(BeNumerically(">=", tail-eps), "share at or below lo")
	Expect(dist.below(iv.Hi)).To(BeNumerically("<=", 1-tail+eps), "share below hi")
	Expect(dist.atOrBelow(iv.Hi)).To(BeNumerically(">=", 1-tail-eps), "share at or below hi")
}

// quantileError is four standard errors of an empirical tail share over
// reps draws, plus one draw's share for type-7 interpolation.
func quantileError(confidence float64, reps int) float64 {
	tail := (1 - confidence) / 2
	return 4*math.Sqrt(tail*(1-tail)/float64(reps)) + 1/float64(reps)
}

var _ = Describe("Bootstrap", func() {
	def := stats.NewBootstrap(stats.DefaultThresholds)

	// The ideal bootstrap (every possible resample, weighted by its
	// probability) is enumerated for these small inputs; the interval
	// must sit at its tail quantiles within Monte Carlo error, and the
	// number of defined resamples must match its share of them.
	DescribeTable("gives the exact bootstrap's percentiles",
		func(bs stats.Bootstrap, pairs []stats.Pair) {
			iv := bs.Interval(pairs)
			ideal := exactBootstrap(pairs)
			expectPercentiles(iv, bs.Confidence, ideal, quantileError(bs.Confidence, iv.Replicates))
			b := float64(bs.Resamples)
			Expect(float64(iv.Replicates)).To(BeNumerically("~", b*ideal.defined,
				4*math.Sqrt(math.Max(0, b*ideal.defined*(1-ideal.defined)))+0.5))
		},
		Entry("40 cases, b=2 c=8", def, mixed40),
		Entry("with excluded cases", def, excluded),
		Entry("tiny: some resamples degenerate", def, tiny),
		Entry("B=500, 90%, seed 42", stats.Bootstrap{Resamples: 500, Confidence: 0.9, Seed: 42}, mixed40),
		Entry("B=20000, 99%, seed 3", stats.Bootstrap{Resamples: 20000, Confidence: 0.99, Seed: 3}, excluded),
	)

	// Too many cases to enumerate: the reference is the per-case
	// resampling it replaced, with 20,000 resamples; both sides carry
	// Monte Carlo error.
	DescribeTable("agrees with resampling case by case",
		func(pairs []stats.Pair) {
			const b = 20000
			bs := stats.Bootstrap{Resamples: b, Confidence: 0.95, Seed: 5}
			iv := bs.Interval(pairs)
			ref := perCaseDeltas(b, 6, pairs)
			Expect(iv.Replicates).To(Equal(b))
			expectPercentiles(iv, bs.Confidence, empirical(ref), 2*quantileError(bs.Confidence, b))
		},
		Entry("300 cases as in the benchmark", build([3]int{200, 2, 2}, [3]int{50, 1, 1}, [3]int{20, 2, 1}, [3]int{30, 1, 2})),
		Entry("2,000 cases, denominators differing", build([3]int{900, 2, 2}, [3]int{300, 1, 1}, [3]int{120, 2, 1},
			[3]int{150, 1, 2}, [3]int{200, 0, 2}, [3]int{80, 2, 0}, [3]int{150, 0, 1}, [3]int{100, 1, 0}, [3]int{500, 0, 0})),
	)

	// Pinned so that a change to the resampling's stream shows up here:
	// it changes every interval a report has published.
	It("gives the same interval as before for the default settings", func() {
		Expect(def.Interval(mixed40)).To(Equal(stats.Interval{Lo: 0, Hi: 0.3, Replicates: 2000}))
	})
	// A metric and its complement (hit and miss swapped under both
	// versions) move by opposite deltas; their intervals must mirror each
	// other exactly, not just within Monte Carlo error, or a report would
	// show two bounds for what is one fact.
	DescribeTable("gives a metric's complement the mirrored interval",
		func(scale int) {
			spec := [][3]int{{30, 2, 2}, {10, 1, 1}, {3, 2, 1}, {9, 1, 2}, {2, 0, 2}, {1, 0, 1}, {4, 2, 0}, {1, 1, 0}, {6, 0, 0}}
			var mirrored [][3]int
			for i := range spec {
				spec[i][0] *= scale
				swap := func(o int) int { return map[int]int{0: 0, 1: 2, 2: 1}[o] }
				mirrored = append(mirrored, [3]int{spec[i][0], swap(spec[i][1]), swap(spec[i][2])})
			}
			iv, mv := def.Interval(build(spec...)), def.Interval(build(mirrored...))
			Expect(iv.Lo).NotTo(Equal(iv.Hi))
			Expect(mv.Lo).To(BeNumerically("~", -iv.Hi, 1e-12))
			Expect(mv.Hi).To(BeNumerically("~", -iv.Lo, 1e-12))
			Expect(mv.Replicates).To(Equal(iv.Replicates))
		},
		Entry("66 cases (inversion)", 1),
		Entry("66,000 cases (BTRD)", 1000),
	)
	It("gives the same interval on every call", func() {
		Expect(def.Interval(excluded)).To(Equal(def.Interval(excluded)))
	})
	It("does not depend on the order of the pairs", func() {
		shuffled := slices.Clone(excluded)
		rand.New(rand.NewPCG(1, 1)).Shuffle(len(shuffled), func(i, j int) {
			shuffled[i], shuffled[j] = shuffled[j], shuffled[i]
		})
		Expect(shuffled).NotTo(Equal(excluded))
		Expect(def.Interval(shuffled)).To(Equal(def.Interval(excluded)))
	})
	It("collapses to the delta when every case moved the same way", func() {
		iv := def.Interval(build([3]int{30, 1, 2}))
		Expect([]float64{iv.Lo, iv.Hi}).To(Equal([]float64{1, 1}))
	})
	It("is roughly the normal-approximation interval for a large sample", func() {
		// 400 cases, b=20 c=40: delta 0.05, sd sqrt((60/400 - 0.05^2)/400) = 0.0192.
		pairs := build([3]int{300, 2, 2}, [3]int{40, 1, 1}, [3]int{20, 2, 1}, [3]int{40, 1, 2})
		iv := def.Interval(pairs)
		Expect(iv.Lo).To(BeNumerically("~", 0.05-1.96*0.0192, 0.006))
		Expect(iv.Hi).To(BeNumerically("~", 0.05+1.96*0.0192, 0.006))
	})
	It("centres on the delta for 100,000 cases and narrows as 1/sqrt(n)", func() {
		// b=5,000 c=7,500 of 100,000: delta 0.025, sd sqrt((0.125 - 0.025^2)/100000) = 0.001115.
		pairs := build([3]int{60000, 2, 2}, [3]int{27500, 1, 1}, [3]int{5000, 2, 1}, [3]int{7500, 1, 2})
		iv := def.Interval(pairs)
		Expect(iv.Lo).To(BeNumerically("~", 0.025-1.96*0.001115, 0.0003))
		Expect(iv.Hi).To(BeNumerically("~", 0.025+1.96*0.001115, 0.0003))
	})
	It("gives no interval without counted cases", func() {
		Expect(def.Interval(build([3]int{3, 0, 0}))).To(Equal(stats.Interval{}))
	})
})

var _ = Describe("ComparePaired", func() {
	th := stats.DefaultThresholds

	It("reports rates, delta, discordant counts and significance", func() {
		d := stats.ComparePaired(build([3]int{20, 2, 2}, [3]int{10, 1, 1}, [3]int{0, 2, 1}, [3]int{12, 1, 2}), th)
		Expect([]int{d.BaseK, d.BaseN, d.HeadK, d.HeadN, d.B, d.C}).To(Equal([]int{20, 42, 32, 42, 0, 12}))
		Expect(d.Delta).To(BeNumerically("~", 12.0/42, 1e-12))
		Expect(d.P).To(BeNumerically("~", 2*1.0/4096, 1e-15))
		Expect(d.Significant).To(BeTrue())
		Expect(d.Warnings).To(BeEmpty())
	})
	It("warns instead of claiming a change with too few discordant cases", func() {
		d := stats.ComparePaired(build([3]int{20, 2, 2}, [3]int{3, 1, 2}), th)
		Expect(d.Delta).To(BeNumerically(">", 0.1))
		Expect(d.Significant).To(BeFalse())
		Expect(d.Warnings).To(ContainElement(stats.Warning{Kind: stats.WarnFewDiscordant,
			Message: "only 3 discordant cases: need >= 6 to detect a change at alpha 0.05; add cases"}))
	})
	It("honours a larger MinDiscordant even when p < alpha", func() {
		strict := th
		strict.MinDiscordant = 10
		d := stats.ComparePaired(build([3]int{8, 1, 2}), strict)
		Expect(d.P).To(BeNumerically("<", 0.05))
		Expect(d.Significant).To(BeFalse())
		Expect(d.Warnings[0].Kind).To(Equal(stats.WarnFewDiscordant))
	})
	It("warns when a version counts no case", func() {
		d := stats.ComparePaired(build([3]int{4, 0, 2}), th)
		Expect(d.Warnings[0].Kind).To(Equal(stats.WarnNoCases))
		Expect(d.Significant).To(BeFalse())
		Expect(d.P).To(Equal(1.0))
	})
	It("uses McNemar when every case counts in both versions", func() {
		d := stats.ComparePaired(build([3]int{20, 2, 2}, [3]int{4, 0, 0}, [3]int{12, 1, 2}), th)
		Expect(d.Test).To(Equal(stats.TestMcNemar))
		Expect(d.Significant).To(BeTrue())
	})
	// refusal_precision counts the cases a version refused: base refused
	// 20 (8 rightly), head 40 (36 rightly), and only 2 cases were refused
	// by both, so McNemar sees no discordant case at all (p=1) while the
	// rates moved +0.5 with an interval far from 0.
	It("judges a metric whose denominators differ by the bootstrap interval", func() {
		pairs := build([3]int{8, 2, 0}, [3]int{10, 1, 0}, [3]int{2, 2, 2}, [3]int{34, 0, 2}, [3]int{4, 0, 1}, [3]int{30, 0, 0})
		d := stats.ComparePaired(pairs, th)
		Expect([]int{d.BaseK, d.BaseN, d.HeadK, d.HeadN, d.B, d.C}).To(Equal([]int{10, 20, 36, 40, 0, 0}))
		Expect(d.Test).To(Equal(stats.TestBootstrap))
		Expect(d.Interval.Lo).To(BeNumerically(">", 0))
		Expect(d.Significant).To(BeTrue())
		Expect(d.P).To(Equal(1.0), "no McNemar p-value is claimed")
		Expect(d.Warnings).NotTo(ContainElement(HaveField("Kind", stats.WarnFewDiscordant)))
	})
	It("is not significant by the bootstrap when the interval holds 0", func() {
		pairs := build([3]int{5, 2, 0}, [3]int{5, 1, 0}, [3]int{6, 0, 2}, [3]int{4, 0, 1})
		d := stats.ComparePaired(pairs, th)
		Expect(d.Test).To(Equal(stats.TestBootstrap))
		Expect(d.Interval.Lo).To(BeNumerically("<", 0))
		Expect(d.Significant).To(BeFalse())
	})
	It("flags dropped degenerate resamples", func() {
		d := stats.ComparePaired(tiny, th)
		Expect(d.Warnings).To(ContainElement(HaveField("Kind", stats.WarnDegenerateResamples)))
	})
})

var _ = Describe("Thresholds", func() {
	It("defaults are valid", func() {
		Expect(stats.DefaultThresholds.Validate()).To(Succeed())
		Expect(stats.DefaultThresholds.Discordant()).To(Equal(6))
	})
	DescribeTable("rejects values out of range, naming the field",
		func(mod func(*stats.Thresholds), field string) {
			th := stats.DefaultThresholds
			mod(&th)
			Expect(th.Validate()).To(MatchError(ContainSubstring(field)))
		},
		Entry("alpha 0", func(t *stats.Thresholds) { t.Alpha = 0 }, "alpha"),
		Entry("alpha 1.5", func(t *stats.Thresholds) { t.Alpha = 1.5 }, "alpha"),
		Entry("confidence 1", func(t *stats.Thresholds) { t.Confidence = 1 }, "confidence"),
		Entry("resamples 10", func(t *stats.Thresholds) { t.Resamples = 10 }, "resamples"),
		Entry("negative min discordant", func(t *stats.Thresholds) { t.MinDiscordant = -1 }, "min discordant"),
	)
})

var _ = Describe("the bootstrap with memory", func() {
	It("gives Bootstrap's interval for every set of pairs, asked once or again, in any order", func() {
		th := stats.DefaultThresholds
		plain, memo := stats.NewBootstrap(th), stats.NewMemoBootstrap(th)
		rng := rand.New(rand.NewPCG(4, 9))
		var sets [][]stats.Pair
		for range 40 {
			sets = append(sets, build([3]int{rng.IntN(30), int(hit), int(hit)}, [3]int{rng.IntN(5), int(hit), int(miss)},
				[3]int{rng.IntN(5), int(miss), int(hit)}, [3]int{rng.IntN(10), int(miss), int(miss)},
				[3]int{rng.IntN(3), int(exc), int(hit)}, [3]int{rng.IntN(20), int(exc), int(exc)}))
		}
		for round := range 3 {
			for _, ps := range sets {
				if round == 2 {
					ps = slices.Clone(ps)
					rng.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
				}
				Expect(memo.Interval(ps)).To(Equal(plain.Interval(ps)))
			}
		}
	})
})
