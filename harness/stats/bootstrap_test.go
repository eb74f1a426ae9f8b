package stats_test

import (
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
	// Same sets as testdata/reference.py.
	mixed40  = build([3]int{20, 2, 2}, [3]int{10, 1, 1}, [3]int{2, 2, 1}, [3]int{8, 1, 2})
	excluded = build([3]int{5, 2, 2}, [3]int{3, 1, 2}, [3]int{1, 2, 1}, [3]int{2, 0, 2}, [3]int{1, 2, 0}, [3]int{4, 0, 0}, [3]int{2, 1, 1})
	tiny     = build([3]int{1, 2, 1}, [3]int{1, 1, 2}, [3]int{1, 0, 2})
)

var _ = Describe("Bootstrap", func() {
	def := stats.NewBootstrap(stats.DefaultThresholds)

	// Reference intervals from testdata/reference.py: an independent Python
	// implementation (PCG-DXSM from its published constants, same index
	// reduction, type-7 percentiles). Equality to 1e-12 means both draw the
	// same resamples, which is the byte-for-byte reproducibility we promise.
	DescribeTable("matches the Python reference",
		func(bs stats.Bootstrap, pairs []stats.Pair, lo, hi float64, reps int) {
			iv := bs.Interval(pairs)
			Expect(iv.Lo).To(BeNumerically("~", lo, 1e-12))
			Expect(iv.Hi).To(BeNumerically("~", hi, 1e-12))
			Expect(iv.Replicates).To(Equal(reps))
		},
		Entry("40 cases, b=2 c=8", def, mixed40, 0.0, 0.3, 2000),
		Entry("with excluded cases", def, excluded, -0.13193681318681305, 0.49350649350649345, 2000),
		Entry("tiny: some resamples degenerate", def, tiny, -1.0, 1.0, 1934),
		Entry("B=500, 90%, seed 42", stats.Bootstrap{Resamples: 500, Confidence: 0.9, Seed: 42}, mixed40, 0.025000000000000022, 0.275, 500),
	)

	It("gives the same interval on every call", func() {
		Expect(def.Interval(excluded)).To(Equal(def.Interval(excluded)))
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
