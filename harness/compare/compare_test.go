package compare_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/harness/compare"
	"github.com/routebench/routebench/harness/stats"
)

const (
	da   = harness.DecisionAccuracy
	wer  = harness.WrongExecutionRate
	clar = harness.ClarificationRate
	rak  = harness.RecallAtK
)

// scenario: 52 paired cases.
//
//	stay   normal       20  pass -> pass
//	fix    boundary     12  fail -> pass  (decision right, no wrong execution)
//	break  adversarial   2  pass -> fail
//	nbreak normal        1  pass -> fail
//	clar   normal        7  pass -> pass, start clarifying
//	slip   normal       10  pass -> pass, recall_at_k lost
//
// plus a base-only, a head-only and an edited case, which must be left out.
func scenario() (*run, *run) {
	good := with(with(ok(da, rak), wer, false), clar, false)
	bad := with(with(with(ok(rak), wer, true), clar, false), da, false)
	base, head := newRun("v1@00000001"), newRun("v2@00000002")
	base.add("stay", "normal", 20, true, good)
	head.add("stay", "normal", 20, true, good)
	base.add("fix", "boundary", 12, false, bad)
	head.add("fix", "boundary", 12, true, good)
	base.add("break", "adversarial", 2, true, good)
	head.add("break", "adversarial", 2, false, bad)
	base.add("nbreak", "normal", 1, true, good)
	head.add("nbreak", "normal", 1, false, bad)
	base.add("clar", "normal", 7, true, good)
	head.add("clar", "normal", 7, true, with(good, clar, true))
	base.add("slip", "normal", 10, true, good)
	head.add("slip", "normal", 10, true, with(good, rak, false))

	base.add("gone", "normal", 1, true, good)
	head.add("new", "normal", 1, false, bad)
	base.add("edit", "normal", 1, true, good)
	head.add("edit", "normal", 1, false, bad)
	head.results[len(head.results)-1].CaseHash = "edited"
	return base, head
}

func comparison() compare.Comparison {
	base, head := scenario()
	return compare.PairedWith(base.results, head.results, stats.DefaultThresholds, indicators(base, head))
}

func metric(c compare.Comparison, group, name string) compare.Metric {
	g, ok := c.Group(group)
	ExpectWithOffset(1, ok).To(BeTrue(), "group %s", group)
	m, ok := g.Metric(name)
	ExpectWithOffset(1, ok).To(BeTrue(), "metric %s", name)
	return m
}

var _ = Describe("Paired", func() {
	It("pairs by id and hash and says what it left out", func() {
		c := comparison()
		Expect(c.Base).To(Equal("v1@00000001"))
		Expect(c.Head).To(Equal("v2@00000002"))
		Expect(c.Paired).To(Equal(52))
		Expect(c.Warnings).To(ConsistOf(
			stats.Warning{Kind: compare.WarnHashChanged, Message: "1 case changed between the runs (case_hash differs: edit-000): left out; run both versions on the same suites"},
			stats.Warning{Kind: compare.WarnUnpaired, Message: "1 case only in base (gone-000): left out; run both versions on the same suites"},
			stats.Warning{Kind: compare.WarnUnpaired, Message: "1 case only in head (new-000): left out; run both versions on the same suites"},
		))
	})

	It("names the first unpaired cases of each side in id order, however the results come", func() {
		base, head := scenario()
		rs := head.results
		for _, id := range []string{"zeta", "new-b", "alpha", "new-a", "mid"} {
			r := rs[0]
			r.Case = id
			rs = append([]harness.Result{r}, rs...)
		}
		c := compare.PairedWith(base.results, rs, stats.DefaultThresholds, indicators(base, head))
		Expect(c.Warnings).To(ContainElement(stats.Warning{Kind: compare.WarnUnpaired,
			Message: "6 cases only in head (alpha, mid, new-000, and 3 more): left out; run both versions on the same suites"}))
	})

	It("groups all cases, then suites normal, boundary, adversarial", func() {
		c := comparison()
		var names []string
		var ns []int
		for _, g := range c.Groups {
			names = append(names, g.Name)
			ns = append(ns, g.N)
		}
		Expect(names).To(Equal([]string{"all", "suite:normal", "suite:boundary", "suite:adversarial"}))
		Expect(ns).To(Equal([]int{52, 38, 12, 2}))
	})

	It("counts rates, discordant cases and the exact p-value", func() {
		m := metric(comparison(), "all", da)
		Expect([]int{m.BaseK, m.BaseN, m.HeadK, m.HeadN, m.B, m.C}).To(Equal([]int{40, 52, 49, 52, 3, 12}))
		Expect(m.Delta).To(BeNumerically("~", 9.0/52, 1e-12))
		// 2 * (C(15,0)+C(15,1)+C(15,2)+C(15,3)) / 2^15 = 2*576/32768.
		Expect(m.P).To(BeNumerically("~", 0.03515625, 1e-12))
		Expect(m.Significant).To(BeTrue())
		Expect(m.Interval.Lo).To(BeNumerically("<", m.Delta))
		Expect(m.Interval.Hi).To(BeNumerically(">", m.Delta))
	})

	DescribeTable("puts the direction of each metric into its symbol",
		func(group, name, symbol string) {
			Expect(metric(comparison(), group, name).Symbol).To(Equal(symbol))
		},
		Entry("accuracy up: better", "all", da, "+"),
		Entry("wrong executions down: better", "all", wer, "+"),
		Entry("recall lost: worse", "all", rak, "-"),
		Entry("clarifying more: neutral change", "all", clar, "*"),
		Entry("too few discordant: no claim", "suite:adversarial", da, "~"),
	)

	It("warns when too few cases changed to mean anything", func() {
		m := metric(comparison(), "suite:adversarial", da)
		Expect(m.Delta).To(Equal(-1.0))
		Expect(m.Significant).To(BeFalse())
		Expect(m.Warnings).To(ContainElement(stats.Warning{Kind: stats.WarnFewDiscordant,
			Message: "only 2 discordant cases: need >= 6 to detect a change at alpha 0.05; add cases"}))
	})

	// refusal_precision counts the cases each version refused, so the two
	// denominators differ: McNemar sees b=c=0 (p=1) while precision rose by
	// 0.4 with an interval far from 0. The bootstrap judges such a row.
	It("judges a metric with differing denominators by the bootstrap and says so", func() {
		rp := harness.RefusalPrecision
		none := ok()
		base, head := newRun("a@1"), newRun("b@2")
		for _, g := range []struct {
			prefix     string
			n          int
			base, head map[string]bool
		}{
			{"bonly-hit", 8, ok(rp), none}, {"bonly-miss", 12, with(none, rp, false), none},
			{"both", 2, ok(rp), ok(rp)}, {"honly-hit", 34, none, ok(rp)},
			{"honly-miss", 4, none, with(none, rp, false)}, {"neither", 30, none, none},
		} {
			base.add(g.prefix, "normal", g.n, true, g.base)
			head.add(g.prefix, "normal", g.n, true, g.head)
		}
		c := compare.PairedWith(base.results, head.results, stats.DefaultThresholds, indicators(base, head))
		m := metric(c, "all", rp)
		Expect([]int{m.BaseK, m.BaseN, m.HeadK, m.HeadN, m.B, m.C}).To(Equal([]int{10, 22, 36, 40, 0, 0}))
		Expect(m.Test).To(Equal(stats.TestBootstrap))
		Expect(m.Interval.Lo).To(BeNumerically(">", 0))
		Expect(m.Significant).To(BeTrue())
		Expect(m.Symbol).To(Equal("+"))

		var buf bytes.Buffer
		Expect(compare.WriteText(&buf, c, compare.TextOptions{})).To(Succeed())
		Expect(buf.String()).To(MatchRegexp(`refusal_precision +0\.455 \(22\) +0\.900 \(40\) +\+0\.445 +\[[^]]+\] +0/0 +bootstrap +- +\+\n`))
		js, err := json.Marshal(m)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(js)).To(ContainSubstring(`"test":"bootstrap"`))
	})

	It("keeps McNemar where every case counts in both versions", func() {
		Expect(metric(comparison(), "all", da).Test).To(Equal(stats.TestMcNemar))
	})

	It("lists every flip, broken ones adversarial first", func() {
		c := comparison()
		Expect(c.Fixed).To(HaveLen(12))
		var broken []string
		for _, f := range c.Broken {
			broken = append(broken, f.Suite+"/"+f.Case)
		}
		Expect(broken).To(Equal([]string{"adversarial/break-000", "adversarial/break-001", "normal/nbreak-000"}))
		f := c.Broken[0]
		Expect(f.Base).To(Equal(compare.Side{Action: "execute", Skill: "get_order"}))
		Expect(f.Head).To(Equal(compare.Side{Action: "confirm", Skill: "refund_order", Failure: "judge_wrong_skill"}))
		Expect(f.ExpectSkill).To(Equal("get_order"))
	})

	It("cuts long inputs", func() {
		base, head := newRun("a@1"), newRun("b@2")
		base.add("long", "normal", 1, true, ok(da))
		head.add("long", "normal", 1, false, with(ok(), da, false))
		head.results[0].Input = string(bytes.Repeat([]byte("华"), 200))
		c := compare.PairedWith(base.results, head.results, stats.DefaultThresholds, indicators(base, head))
		Expect([]rune(c.Broken[0].Input)).To(HaveLen(compare.InputLimit))
	})

	It("warns about duplicates and mixed versions", func() {
		base, head := scenario()
		mixed := append(base.results, head.results[0])
		c := compare.PairedWith(mixed, head.results, stats.DefaultThresholds, indicators(base, head))
		var kinds []string
		for _, w := range c.Warnings {
			kinds = append(kinds, w.Kind)
		}
		Expect(kinds).To(ContainElements(compare.WarnMixed, compare.WarnDuplicate))
	})

	It("gives the same bytes for the same cases in any order", func() {
		render := func(c compare.Comparison) []byte {
			var buf bytes.Buffer
			Expect(compare.WriteText(&buf, c, compare.TextOptions{})).To(Succeed())
			js, err := json.Marshal(c)
			Expect(err).NotTo(HaveOccurred())
			return append(buf.Bytes(), js...)
		}
		first := render(comparison())
		base, head := scenario()
		rng := rand.New(rand.NewPCG(7, 7))
		rng.Shuffle(len(base.results), func(i, j int) { base.results[i], base.results[j] = base.results[j], base.results[i] })
		rng.Shuffle(len(head.results), func(i, j int) { head.results[i], head.results[j] = head.results[j], head.results[i] })
		again := render(compare.PairedWith(base.results, head.results, stats.DefaultThresholds, indicators(base, head)))
		Expect(again).To(Equal(first))
	})

	It("renders the text table as in testdata/scenario.golden", func() {
		var buf bytes.Buffer
		Expect(compare.WriteText(&buf, comparison(), compare.TextOptions{MaxFlips: 5})).To(Succeed())
		golden := filepath.Join("testdata", "scenario.golden")
		if *update {
			Expect(os.MkdirAll("testdata", 0o755)).To(Succeed())
			Expect(os.WriteFile(golden, buf.Bytes(), 0o644)).To(Succeed())
		}
		want, err := os.ReadFile(golden)
		Expect(err).NotTo(HaveOccurred(), "run go test ./harness/compare/ -args -update to create it")
		Expect(buf.String()).To(Equal(string(want)))
	})
})

var _ = Describe("Symbol", func() {
	DescribeTable("reads direction and significance",
		func(dir compare.Direction, significant bool, gained int, want string) {
			Expect(compare.Symbol(dir, significant, gained)).To(Equal(want))
		},
		Entry(nil, compare.HigherIsBetter, true, 5, "+"),
		Entry(nil, compare.HigherIsBetter, true, -5, "-"),
		Entry(nil, compare.LowerIsBetter, true, 5, "-"),
		Entry(nil, compare.LowerIsBetter, true, -5, "+"),
		Entry(nil, compare.Neutral, true, 5, "*"),
		Entry(nil, compare.HigherIsBetter, false, 5, "~"),
	)
	It("knows the lower-is-better and neutral metrics", func() {
		Expect(compare.DirectionOf(harness.WrongExecutionRate)).To(Equal(compare.LowerIsBetter))
		Expect(compare.DirectionOf(harness.ParamErrorRate)).To(Equal(compare.LowerIsBetter))
		Expect(compare.DirectionOf(harness.ClarificationRate)).To(Equal(compare.Neutral))
		Expect(compare.DirectionOf(harness.DecisionAccuracy)).To(Equal(compare.HigherIsBetter))
	})
})
