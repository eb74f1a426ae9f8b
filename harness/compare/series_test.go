package compare_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/harness/compare"
	"github.com/routebench/routebench/harness/stats"
)

// Three versions over the same 30 cases: v2 fixes 10 of v1's failures, v3
// breaks 8 of them again. Against the base v3 still looks better; against
// v2, the version before it, it is worse: a lead needs both.
func threeVersions() ([]harness.Result, compare.IndicatorFunc) {
	good, bad := ok(da), with(ok(), da, false)
	v1, v2, v3 := newRun("v1@00000001"), newRun("v2@00000002"), newRun("v3@00000003")
	v1.add("stay", "normal", 12, true, good)
	v2.add("stay", "normal", 12, true, good)
	v3.add("stay", "normal", 12, true, good)
	v1.add("fix", "boundary", 10, false, bad)
	v2.add("fix", "boundary", 10, true, good)
	v3.add("fix", "boundary", 10, true, good)
	v1.add("flap", "adversarial", 8, false, bad)
	v2.add("flap", "adversarial", 8, true, good)
	v3.add("flap", "adversarial", 8, false, bad)
	return slices.Concat(v1.results, v2.results, v3.results), indicators(v1, v2, v3)
}

var _ = Describe("Series", func() {
	series := func() compare.Series {
		results, ind := threeVersions()
		return compare.PairedSeriesWith(results, stats.DefaultThresholds, ind)
	}

	It("compares each later version with the base and, from the third on, with the previous one", func() {
		s := series()
		Expect(s.Versions).To(Equal([]string{"v1@00000001", "v2@00000002", "v3@00000003"}))
		var pairs []string
		for _, c := range s.Comparisons {
			pairs = append(pairs, c.Against+": "+c.Base+" -> "+c.Head)
		}
		Expect(pairs).To(Equal([]string{
			"base: v1@00000001 -> v2@00000002",
			"base: v1@00000001 -> v3@00000003",
			"previous: v2@00000002 -> v3@00000003",
		}))

		vsBase, ok := s.Against("v3@00000003", compare.AgainstBase)
		Expect(ok).To(BeTrue())
		Expect(metric(vsBase, "all", da).Delta).To(BeNumerically("~", 10.0/30, 1e-12))
		Expect(vsBase.Broken).To(BeEmpty())
		vsPrev, ok := s.Against("v3@00000003", compare.AgainstPrevious)
		Expect(ok).To(BeTrue())
		Expect(metric(vsPrev, "all", da).Delta).To(BeNumerically("~", -8.0/30, 1e-12))
		Expect(metric(vsPrev, "all", da).Symbol).To(Equal("-"))
		Expect(vsPrev.Broken).To(HaveLen(8))

		// The second version's previous one is the base: one comparison serves both.
		prev, ok := s.Against("v2@00000002", compare.AgainstPrevious)
		Expect(ok).To(BeTrue())
		Expect(prev.Base).To(Equal("v1@00000001"))
		Expect(prev.Against).To(Equal(compare.AgainstBase))
		_, ok = s.Against("v1@00000001", compare.AgainstBase)
		Expect(ok).To(BeFalse(), "the base is compared with nothing")
	})

	It("has nothing to compare with one version", func() {
		results, ind := threeVersions()
		s := compare.PairedSeriesWith(results[:30], stats.DefaultThresholds, ind)
		Expect(s.Versions).To(HaveLen(1))
		Expect(s.Comparisons).To(BeEmpty())
	})

	It("renders the series as in testdata/series.golden, and its JSON names each comparison's base", func() {
		var buf bytes.Buffer
		Expect(compare.WriteSeriesText(&buf, series())).To(Succeed())
		golden := filepath.Join("testdata", "series.golden")
		if *update {
			Expect(os.WriteFile(golden, buf.Bytes(), 0o644)).To(Succeed())
		}
		want, err := os.ReadFile(golden)
		Expect(err).NotTo(HaveOccurred(), "run go test ./harness/compare/ -args -update to create it")
		Expect(buf.String()).To(Equal(string(want)))
		for line := range bytes.Lines(buf.Bytes()) {
			Expect(len([]rune(string(bytes.TrimRight(line, "\n"))))).To(BeNumerically("<=", 100), string(line))
		}

		js, err := json.Marshal(series())
		Expect(err).NotTo(HaveOccurred())
		Expect(string(js)).To(ContainSubstring(`"against":"previous"`))
	})
})

var _ = Describe("PairedSeriesStream", func() {
	// Three versions with conversations (several units a case), a case
	// whose hash changed, one run under one version only, a duplicate and
	// a hash that is not hex.
	results := func() []harness.Result {
		base, _ := threeVersions()
		var out []harness.Result
		for i, r := range base {
			switch i % 30 {
			case 3:
				r.Turns = []harness.TurnResult{{Input: "a", Expect: r.Expect, Decision: r.Decision, Pass: true},
					{Input: "b", Expect: r.Expect, Decision: r.Decision, Pass: r.Pass}}
			case 5:
				if i >= 60 {
					r.CaseHash = "changed"
				}
			case 7:
				if i < 30 {
					r.Case += "-only"
				}
			case 9:
				out = append(out, r) // a duplicate
			case 11:
				r.CaseHash = "not hex"
			}
			out = append(out, r)
		}
		return out
	}

	It("pairs from records read back from memory or from a temporary file exactly as from results in memory", func() {
		rs := results()
		want, err := json.Marshal(compare.PairedSeries(rs, stats.DefaultThresholds))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(want)).To(ContainSubstring(compare.WarnHashChanged))
		Expect(string(want)).To(ContainSubstring(compare.WarnDuplicate))
		Expect(string(want)).To(MatchRegexp(`"input":"[^"]+"`), "flips carry their heads' texts")
		for _, above := range []int{1 << 30, 0, 100} {
			restore := compare.SpillAbove(above)
			s, err := compare.PairedSeriesStream(harness.SliceStream(rs), stats.DefaultThresholds)
			restore()
			Expect(err).NotTo(HaveOccurred())
			got, err := json.Marshal(s)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(got)).To(Equal(string(want)), "spilled above %d bytes", above)
		}
	})

	It("pairs from a Scorer's indicators (AddScored) exactly as from its own, conversations' turns included", func() {
		rs := results()
		want, err := json.Marshal(compare.PairedSeries(rs, stats.DefaultThresholds))
		Expect(err).NotTo(HaveOccurred())
		scorer := harness.NewScorer()
		c := compare.NewSeriesCollector(nil)
		for i := range rs {
			scorer.Add(&rs[i])
			c.AddScored(i, &rs[i], scorer.DecisionIndicators())
		}
		s, err := c.Series(harness.SliceStream(rs), stats.DefaultThresholds)
		Expect(err).NotTo(HaveOccurred())
		got, err := json.Marshal(s)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(got)).To(Equal(string(want)))
	})

	It("leaves given indicators aside where the collector has metrics of its own, or where they do not fit the result", func() {
		rs, ind := threeVersions()
		want, err := json.Marshal(compare.PairedSeriesWith(rs, stats.DefaultThresholds, ind))
		Expect(err).NotTo(HaveOccurred())
		wrong := []harness.IndicatorBits{{Has: 1, Val: 1}}
		c := compare.NewSeriesCollector(ind)
		for i := range rs {
			c.AddScored(i, &rs[i], wrong)
		}
		s, err := c.Series(harness.SliceStream(rs), stats.DefaultThresholds)
		Expect(err).NotTo(HaveOccurred())
		got, err := json.Marshal(s)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(got)).To(Equal(string(want)), "own metrics")

		rs = results()
		want, err = json.Marshal(compare.PairedSeries(rs, stats.DefaultThresholds))
		Expect(err).NotTo(HaveOccurred())
		c = compare.NewSeriesCollector(nil)
		for i := range rs {
			c.AddScored(i, &rs[i], []harness.IndicatorBits{})
		}
		s, err = c.Series(harness.SliceStream(rs), stats.DefaultThresholds)
		Expect(err).NotTo(HaveOccurred())
		got, err = json.Marshal(s)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(got)).To(Equal(string(want)), "no indicators given")
	})
})
