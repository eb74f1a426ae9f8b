package harness_test

import (
	"math"
	"runtime"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

// scoredResults are six hand-checked results of one version, two per suite:
//
//	1 normal zh      execute orders {region east} -> execute orders east     pass           conf 0.9
//	2 normal en      execute orders {region east} -> execute orders west     param_error    conf 0.8
//	3 boundary zh    clarify [orders, alerts]     -> clarify [orders, alerts] pass          conf 0.7
//	4 boundary en    execute alerts               -> refuse (alerts recalled) false_refusal conf 0.3
//	5 adversarial zh refuse                       -> refuse                  pass           conf 0.2
//	6 adversarial en refuse, never delete         -> confirm delete          missed_refusal conf 0.95
func scoredResults() []harness.Result {
	reg := testRegistry()
	orders := harness.Expect{Action: router.Execute, Skill: "query_orders_by_region", Params: map[string]harness.ParamMatcher{"region": eq("east")}}
	rows := []struct {
		suite, tag string
		e          harness.Expect
		d          router.Decision
	}{
		{harness.SuiteNormal, "zh", orders, withParams(decide(router.Execute, "query_orders_by_region", 0.9), map[string]any{"region": "east"})},
		{harness.SuiteNormal, "en", orders, withParams(decide(router.Execute, "query_orders_by_region", 0.8), map[string]any{"region": "west"})},
		{harness.SuiteBoundary, "zh", harness.Expect{Action: router.Clarify, Candidates: []string{"query_orders_by_region", "query_alerts_by_zone"}},
			clarifyOffering("query_orders_by_region", "query_alerts_by_zone")},
		{harness.SuiteBoundary, "en", harness.Expect{Action: router.Execute, Skill: "query_alerts_by_zone"},
			recallDecision(decide(router.Refuse, "", 0.3), "query_alerts_by_zone")},
		{harness.SuiteAdversarial, "zh", harness.Expect{Action: router.Refuse}, decide(router.Refuse, "", 0.2)},
		{harness.SuiteAdversarial, "en", harness.Expect{Action: router.Refuse, Never: []string{"delete_test_data"}},
			withGate(decide(router.Confirm, "delete_test_data", 0.95), registry.GateIrreversible)},
	}
	rows[2].d.Confidence = 0.7
	var out []harness.Result
	for i, row := range rows {
		c := &harness.Case{ID: string(rune('a' + i)), Suite: row.suite, Tags: []string{row.tag}, Caller: fullCaller, Expect: row.e}
		v := harness.Check(c, row.d, reg)
		out = append(out, harness.Result{Format: 1, Version: "v1@aaaa", Case: c.ID, Suite: c.Suite, Tags: c.Tags,
			Caller: c.Caller, Expect: c.Expect, Decision: row.d, Pass: v.Pass, Failure: v.Failure, LatencyUS: int64(100 * (i + 1)), Seq: i})
	}
	return out
}

var _ = Describe("Score", func() {
	var all harness.Group
	var sum harness.Summary
	BeforeEach(func() {
		sum = harness.Score(scoredResults())
		Expect(sum.Versions).To(HaveLen(1))
		all = sum.Versions[0].Groups[harness.GroupAll]
	})

	It("scores a NaN confidence as 0 instead of panicking", func() {
		rs := scoredResults()
		rs[0].Decision.Confidence = math.NaN()
		var g harness.Group
		Expect(func() { g = harness.Score(rs).Versions[0].Groups[harness.GroupAll] }).NotTo(Panic())
		Expect(math.IsNaN(g.Metrics["brier"].Value)).To(BeFalse())
	})

	It("names the version and model", func() {
		Expect(sum.Format).To(Equal(1))
		Expect(sum.Versions[0].Name).To(Equal("v1"))
		Expect(sum.Versions[0].Version).To(Equal("v1@aaaa"))
		Expect(sum.Versions[0].Model).To(Equal("fake"))
	})

	It("gives each case its primary failure category", func() {
		rs := scoredResults()
		got := []string{}
		for _, r := range rs {
			got = append(got, r.Failure)
		}
		Expect(got).To(Equal([]string{"", "param_error", "", "false_refusal", "", "missed_refusal"}))
		Expect(all.Failures).To(HaveKeyWithValue("param_error", 1))
		Expect(all.Failures).To(HaveKeyWithValue("false_refusal", 1))
		Expect(all.Failures).To(HaveKeyWithValue("missed_refusal", 1))
		Expect(all.Failures).To(HaveKeyWithValue("policy_violation", 0))
	})

	DescribeTable("computes rates as k of n, as counted by hand",
		func(metric string, k, n int) {
			Expect(all.Metrics).To(HaveKey(metric))
			r := all.Metrics[metric]
			Expect([]int{r.K, r.N}).To(Equal([]int{k, n}))
			Expect(r.Value).To(BeNumerically("~", float64(k)/float64(n), 1e-12))
			Expect(r.Lo).NotTo(BeNil())
			Expect(r.Hi).NotTo(BeNil())
			Expect(*r.Lo).To(BeNumerically("<=", r.Value))
			Expect(*r.Hi).To(BeNumerically(">=", r.Value))
		},
		Entry(nil, harness.DecisionAccuracy, 4, 6),
		Entry(nil, harness.SkillAccuracy, 2, 3),
		Entry(nil, harness.RefusalPrecision, 1, 2),
		Entry(nil, harness.RefusalRecall, 1, 2),
		Entry(nil, harness.RefusalAccuracy, 4, 6),
		Entry(nil, harness.ClarificationRate, 1, 6),
		Entry(nil, harness.ClarifyRecall, 1, 1),
		Entry(nil, harness.WrongExecutionRate, 1, 6),
		Entry(nil, harness.ParamErrorRate, 1, 2),
		Entry(nil, harness.ParamErrorValue, 1, 2),
		Entry(nil, harness.ParamErrorMissing, 0, 2),
		Entry(nil, harness.ParamErrorSchema, 0, 2),
		Entry(nil, harness.SchemaPassRate, 6, 6),
		Entry(nil, harness.RecallAtK, 3, 3),
		Entry(nil, harness.JudgeAccuracy, 2, 3),
	)

	It("leaves out a rate whose denominator is empty", func() {
		Expect(all.Metrics).NotTo(HaveKey(harness.RulePrecision))
	})

	It("carries the 95% Wilson interval (reference values from the textbook formula)", func() {
		r := all.Metrics[harness.DecisionAccuracy]
		Expect(*r.Lo).To(BeNumerically("~", 0.3000, 1e-3))
		Expect(*r.Hi).To(BeNumerically("~", 0.9032, 1e-3))
	})

	It("computes calibration, latency, counts and mix", func() {
		Expect(all.N).To(Equal(6))
		Expect(all.Mix).To(Equal(map[string]int{"normal": 2, "boundary": 2, "adversarial": 2}))
		Expect(all.Metrics[harness.PolicyViolations].Value).To(BeZero())
		// (0.1² + 0.2² + 0.3² + 0.3² + 0.8² + 0.95²) / 6
		Expect(all.Metrics[harness.Brier].Value).To(BeNumerically("~", 1.7725/6, 1e-9))
		// bins: 9 {0.9 ok, 0.95 wrong}, 8 {0.8 ok}, 7 {0.7 ok}, 3 {0.3 wrong}, 2 {0.2 ok}
		Expect(all.Metrics[harness.ECE].Value).To(BeNumerically("~", (2*0.425+0.2+0.3+0.3+0.8)/6, 1e-9))
		Expect(all.Metrics[harness.LatencyP50].Value).To(BeNumerically("~", 0.3, 1e-12))
		Expect(all.Metrics[harness.LatencyP95].Value).To(BeNumerically("~", 0.6, 1e-12))
		Expect(all.Metrics[harness.LatencyP99].Value).To(BeNumerically("~", 0.6, 1e-12))
		Expect(all.Metrics[harness.Tokens].Value).To(BeZero())
	})

	It("scores per suite and per tag", func() {
		groups := sum.Versions[0].Groups
		Expect(groups).To(HaveKey("suite:boundary"))
		Expect(groups["suite:boundary"].N).To(Equal(2))
		Expect(groups["suite:boundary"].Metrics[harness.DecisionAccuracy].K).To(Equal(1))
		Expect(groups["suite:adversarial"].Metrics[harness.RefusalRecall].Value).To(Equal(0.5))
		Expect(groups["tag:zh"].Metrics[harness.DecisionAccuracy].Value).To(Equal(1.0))
		Expect(groups["tag:en"].Mix).To(Equal(map[string]int{"normal": 1, "boundary": 1, "adversarial": 1}))
	})

	It("counts policy violations and schema failures per judge call", func() {
		rs := scoredResults()
		rs[5].Failure = harness.FailPolicyViolation
		rs[0].Decision.Trace = append(rs[0].Decision.Trace,
			router.TraceStep{Stage: harness.StageJudge, Errors: []router.Error{{Category: router.CatSchemaError}}},
			router.TraceStep{Stage: harness.StageJudge, Errors: []router.Error{{Category: router.CatProviderError}}})
		g := harness.Score(rs).Versions[0].Groups[harness.GroupAll]
		Expect(g.Metrics[harness.PolicyViolations].Value).To(Equal(1.0))
		Expect(g.Metrics[harness.DecisionAccuracy].K).To(Equal(4)) // case 6 was already wrong
		r := g.Metrics[harness.SchemaPassRate]
		Expect([]int{r.K, r.N}).To(Equal([]int{6, 7}))
		Expect(harness.Indicators(rs[0])).To(HaveKeyWithValue(harness.SchemaPassRate, false))
	})

	It("counts judge calls, not judge-stage notes, and takes the repaired choice", func() {
		d := decide(router.Execute, "query_orders_by_region", 0.9)
		d.Trace = []router.TraceStep{
			{Stage: harness.StageRecall, Top: []string{"query_orders_by_region"}},
			{Stage: harness.StageJudge, Attempt: 1, Raw: `{"skill":"Query_Orders_By_Region"}`, Choice: "Query_Orders_By_Region"},
			{Stage: harness.StageJudge, Choice: "Query_Orders_By_Region", Note: "repaired to query_orders_by_region"},
		}
		calls, passed := harness.JudgeCalls(d)
		Expect([]int{calls, passed}).To(Equal([]int{1, 1}))
		ind := harness.Indicators(harness.Result{Expect: harness.Expect{Action: router.Execute, Skill: "query_orders_by_region"}, Decision: d})
		Expect(ind).To(HaveKeyWithValue(harness.JudgeAccuracy, true))
	})

	It("keeps versions in order of first appearance", func() {
		rs := scoredResults()
		for i := range rs[:3] {
			rs[i].Version = "v2@bbbb"
		}
		s := harness.Score(rs)
		Expect(s.Versions[0].Version).To(Equal("v2@bbbb"))
		Expect(s.Versions[1].Version).To(Equal("v1@aaaa"))
		Expect(s.Versions[1].Groups[harness.GroupAll].N).To(Equal(3))
	})
})

var _ = Describe("Indicators", func() {
	It("include only the rates whose denominator holds the case", func() {
		rs := scoredResults()
		Expect(harness.Indicators(rs[4])).To(Equal(map[string]bool{
			harness.DecisionAccuracy: true, harness.RefusalPrecision: true, harness.RefusalRecall: true,
			harness.RefusalAccuracy: true, harness.ClarificationRate: false, harness.WrongExecutionRate: false,
			harness.SchemaPassRate: true, harness.InvalidSkillRate: false,
		}))
	})

	It("count a rules-decided case as recalled when the rule matched the expected skill", func() {
		d := rulesDecision(router.Confirm, "refund_order")
		r := harness.Result{Expect: harness.Expect{Action: router.Confirm, Skill: "refund_order"}, Decision: d}
		ind := harness.Indicators(r)
		Expect(ind).To(HaveKeyWithValue(harness.RecallAtK, true))
		Expect(ind).To(HaveKeyWithValue(harness.RulePrecision, true))
		Expect(ind).NotTo(HaveKey(harness.JudgeAccuracy))
	})

	It("list every rate metric they produce in Metrics", func() {
		for _, r := range scoredResults() {
			for name := range harness.Indicators(r) {
				info, ok := harness.LookupMetric(name)
				Expect(ok).To(BeTrue(), name)
				Expect(info.Kind).To(Equal(harness.KindRate))
			}
		}
	})
})

var _ = Describe("SeverityOf", func() {
	orders := harness.Expect{Action: router.Execute, Skill: "get_order"}
	DescribeTable("ranks the worst first",
		func(r harness.Result, want harness.Severity) { Expect(harness.SeverityOf(r)).To(Equal(want)) },
		Entry("a policy violation", harness.Result{Failure: harness.FailPolicyViolation, Expect: orders,
			Decision: router.Decision{Action: router.Execute, Skill: "delete_order"}}, harness.SeverityPolicyViolation),
		Entry("acting on another skill", harness.Result{Failure: "judge_wrong_skill", Expect: orders,
			Decision: router.Decision{Action: router.Execute, Skill: "refund_order"}}, harness.SeverityWrongExecution),
		Entry("acting where it should refuse", harness.Result{Failure: "missed_refusal", Expect: harness.Expect{Action: router.Refuse},
			Decision: router.Decision{Action: router.Execute, Skill: "get_order"}}, harness.SeverityWrongExecution),
		Entry("a false refusal", harness.Result{Failure: "false_refusal", Expect: orders,
			Decision: router.Decision{Action: router.Refuse}}, harness.SeverityFailed),
		Entry("a pass", harness.Result{Pass: true, Expect: orders,
			Decision: router.Decision{Action: router.Execute, Skill: "get_order"}}, harness.SeverityPassed),
	)
})

var _ = Describe("PerSkill", func() {
	It("counts decisions by the skill the case expects, per version", func() {
		orders := harness.Expect{Action: router.Execute, Skill: "get_order"}
		res := func(v string, e harness.Expect, action router.Action, skill string, pass bool) harness.Result {
			return harness.Result{Version: v, Expect: e, Pass: pass, Decision: router.Decision{Action: action, Skill: skill}}
		}
		rows := harness.PerSkill([]harness.Result{
			res("v1@a", orders, router.Execute, "refund_order", false),
			res("v1@a", orders, router.Clarify, "", false),
			res("v1@a", harness.Expect{Action: router.Refuse}, router.Refuse, "", true),
			res("v2@b", orders, router.Execute, "get_order", true),
		})
		Expect(rows).To(Equal([]harness.SkillRow{
			{Version: "v1@a", Skill: "(refuse)", N: 1, Correct: 1},
			{Version: "v1@a", Skill: "get_order", N: 2, WrongExecutions: 1, Clarifications: 1},
			{Version: "v2@b", Skill: "get_order", N: 1, Correct: 1},
		}))
	})
})

var _ = Describe("Score's latency percentiles", func() {
	It("are each group's exact nearest-rank percentiles, conversation turns counted one by one", func() {
		// Three versions, suites and tag lists that overlap, repeated tags,
		// and conversations whose turns carry their own latencies.
		var results []harness.Result
		suites := []string{harness.SuiteNormal, harness.SuiteBoundary, harness.SuiteAdversarial}
		tagSets := [][]string{{"zh"}, {"en", "ids"}, {"ids", "zh", "ids"}, nil}
		for i := range 900 {
			r := harness.Result{Format: 1, Version: []string{"v1@a", "v2@b", "v3@c"}[i%3], Case: string(rune('a' + i%26)),
				Suite: suites[i%7%3], Tags: tagSets[i%11%4], Decision: decide(router.Refuse, "", 0.5),
				Expect: harness.Expect{Action: router.Refuse}, LatencyUS: int64((i * 7919) % 1000)}
			if i%5 == 0 {
				for k := range 1 + i%3 {
					t := harness.TurnResult{Input: "x", Expect: r.Expect, Decision: decide(router.Refuse, "", 0.5)}
					t.Decision.LatencyUS = int64((i*31 + k*977) % 1500)
					r.Turns = append(r.Turns, t)
				}
			}
			results = append(results, r)
		}
		// The percentiles computed the plain way: each group's latencies.
		want := map[string]map[string][]int64{}
		for _, r := range results {
			groups := []string{harness.GroupAll, "suite:" + r.Suite}
			for _, t := range r.Tags {
				if !slices.Contains(groups, "tag:"+t) {
					groups = append(groups, "tag:"+t)
				}
			}
			if want[r.Version] == nil {
				want[r.Version] = map[string][]int64{}
			}
			for _, d := range harness.DecisionResults(r) {
				for _, g := range groups {
					want[r.Version][g] = append(want[r.Version][g], d.LatencyUS)
				}
			}
		}
		nearest := func(lat []int64, p float64) float64 {
			s := slices.Sorted(slices.Values(lat))
			return float64(s[int(math.Ceil(p*float64(len(s))))-1]) / 1000
		}
		sum := harness.Score(results)
		Expect(sum.Versions).To(HaveLen(3))
		checked := 0
		for _, v := range sum.Versions {
			Expect(v.Groups).To(HaveLen(len(want[v.Version])))
			for name, lat := range want[v.Version] {
				g := v.Groups[name]
				Expect(g.Metrics[harness.LatencyP50].N).To(Equal(len(lat)), "%s %s", v.Version, name)
				Expect(g.Metrics[harness.LatencyP50].Value).To(Equal(nearest(lat, 0.50)), "%s %s", v.Version, name)
				Expect(g.Metrics[harness.LatencyP95].Value).To(Equal(nearest(lat, 0.95)), "%s %s", v.Version, name)
				Expect(g.Metrics[harness.LatencyP99].Value).To(Equal(nearest(lat, 0.99)), "%s %s", v.Version, name)
				checked++
			}
		}
		Expect(checked).To(Equal(3 * 7)) // all, three suites, tag:zh, tag:en and tag:ids, per version
	})
})

var _ = Describe("Score's tag groups", func() {
	It("count a case once in each of its tags, whatever their order and repeats", func() {
		tagLists := [][]string{{"b", "a"}, {"a", "b"}, {"a", "b", "a"}, {"b"}, nil}
		var results []harness.Result
		for i, tags := range tagLists {
			results = append(results, harness.Result{Format: 1, Version: "v1@a", Case: string(rune('a' + i)),
				Suite: harness.SuiteNormal, Tags: tags, Decision: decide(router.Refuse, "", 0.5),
				Expect: harness.Expect{Action: router.Refuse}, LatencyUS: int64(1000 * (i + 1))})
		}
		groups := harness.Score(results).Versions[0].Groups
		Expect(groups["tag:a"].N).To(Equal(3))
		Expect(groups["tag:b"].N).To(Equal(4))
		Expect(groups[harness.GroupAll].N).To(Equal(5))
		// The latencies of tag:a are those of its three cases: 1, 2 and 3 ms.
		Expect(groups["tag:a"].Metrics[harness.LatencyP99].Value).To(Equal(3.0))
		Expect(groups["tag:a"].Metrics[harness.LatencyP50].Value).To(Equal(2.0))
	})
})

var _ = Describe("a Scorer's memory", func() {
	// heldAfter is the heap a Scorer holds after n results, the i-th
	// decided in latency(i, n) microseconds.
	heldAfter := func(n int, latency func(i, n int) int64) uint64 {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		s := harness.NewScorer()
		r := harness.Result{Format: 1, Version: "v1@a", Case: "c", Suite: harness.SuiteNormal, Tags: []string{"en"},
			Decision: decide(router.Refuse, "", 0.5), Expect: harness.Expect{Action: router.Refuse}}
		for i := range n {
			r.LatencyUS = latency(i, n)
			r.Decision.LatencyUS = r.LatencyUS
			s.Add(&r)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(s)
		return after.HeapAlloc - min(after.HeapAlloc, before.HeapAlloc)
	}

	// Serial: they read the heap, which specs run beside them would move.
	It("stays flat in results whose latencies repeat", Serial, func() {
		// a router's microseconds: many cases, few values
		repeating := func(i, _ int) int64 { return int64(100 + i%2000) }
		small, large := heldAfter(20_000, repeating), heldAfter(400_000, repeating)
		// Kept a decision at a time, the 380,000 more decisions held at
		// least a byte each.
		Expect(large).To(BeNumerically("<", small+200_000), "20,000 results: %d bytes, 400,000: %d", small, large)
	})

	It("holds a few bytes a decision whose latency never repeats", Serial, func() {
		// a remote model's: spread over seconds, in no order
		spread := func(i, n int) int64 { return 100_000 + int64(i*7919%n)*12 }
		small, large := heldAfter(20_000, spread), heldAfter(400_000, spread)
		// A map entry or a list entry a decision holds 12 bytes or more.
		Expect(large).To(BeNumerically("<", small+380_000*6), "20,000 results: %d bytes, 400,000: %d", small, large)
	})
})
