package harness_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/harness/stats"
	"github.com/routebench/routebench/router"
)

// A judge answer naming a skill outside the candidates acts on nothing but
// is the judge's failure (DESIGN §6): these specs hold the scoring to that,
// whatever action the router settled on.
var _ = Describe("Scoring an invalid_skill judge answer", func() {
	invalid := router.Error{Category: router.CatSchemaError, Path: "/skill", Rule: router.RuleInvalidSkill, Message: `the judge chose "wipe_all", which is not a candidate skill`}
	// failed is what the router decides today: action error, the judge call
	// flagged in the trace.
	failed := func() router.Decision {
		d := decide(router.Fail, "", 0)
		d.Trace = []router.TraceStep{
			{Stage: harness.StageRecall, Top: []string{"query_orders_by_region"}},
			{Stage: harness.StageJudge, Attempt: 1, Raw: `{"skill":"wipe_all","confidence":0.9,"params":{}}`, Choice: "wipe_all", Errors: []router.Error{invalid}},
		}
		d.Errors = []router.Error{invalid}
		return d
	}
	// legacy is how routers before the rule reported it: a refusal carrying
	// the old invalid_skill category, with a clean judge step.
	legacy := func() router.Decision {
		d := decide(router.Refuse, "", 0.9)
		d.Trace[1] = router.TraceStep{Stage: harness.StageJudge, Attempt: 1, Raw: `{"skill":"wipe_all"}`, Choice: "wipe_all"}
		d.Errors = []router.Error{{Category: router.CatInvalidSkill, Message: "not a candidate"}}
		return d
	}
	// none is a judge that said plainly that nothing fits.
	none := func() router.Decision {
		d := decide(router.Refuse, "", 0.9)
		d.Trace[1].Attempt = 1
		return d
	}
	expectRefuse := harness.Expect{Action: router.Refuse}

	DescribeTable("never passes a case expecting a refusal, and its failure is schema_error",
		func(d router.Decision) {
			c := &harness.Case{ID: "refuse-me", Suite: harness.SuiteAdversarial, Input: "x", Caller: fullCaller, Expect: expectRefuse}
			v := harness.Check(c, d, testRegistry())
			Expect(v.Pass).To(BeFalse())
			Expect(v.Failure).To(Equal(harness.FailSchemaError))
			Expect(harness.DecisionCorrect(expectRefuse, d)).To(BeFalse())
		},
		Entry("action error with the schema_error rule invalid_skill", failed()),
		Entry("a refusal carrying the older invalid_skill category", legacy()),
	)

	It("counts it in schema_pass_rate and invalid_skill_rate with Wilson intervals, and never as a refusal", func() {
		results := []harness.Result{
			{Version: "v@1", Case: "a", Suite: harness.SuiteAdversarial, Expect: expectRefuse, Decision: failed()},
			{Version: "v@1", Case: "b", Suite: harness.SuiteAdversarial, Expect: expectRefuse, Decision: legacy()},
			{Version: "v@1", Case: "c", Suite: harness.SuiteAdversarial, Expect: expectRefuse, Decision: none()},
		}
		for i := range results {
			c := &harness.Case{ID: results[i].Case, Suite: results[i].Suite, Input: "x", Caller: fullCaller, Expect: expectRefuse}
			v := harness.Check(c, results[i].Decision, testRegistry())
			results[i].Pass, results[i].Failure = v.Pass, v.Failure
		}
		Expect(results[2].Pass).To(BeTrue(), "a plain none is a correct refusal")

		all := harness.Score(results).Versions[0].Groups[harness.GroupAll]
		isr := all.Metrics[harness.InvalidSkillRate]
		Expect([]int{isr.K, isr.N}).To(Equal([]int{2, 3}), "over cases with a judge output")
		lo, hi := stats.Wilson(2, 3, 0.95)
		Expect(*isr.Lo).To(BeNumerically("~", lo, 1e-9))
		Expect(*isr.Hi).To(BeNumerically("~", hi, 1e-9))

		spr := all.Metrics[harness.SchemaPassRate]
		Expect([]int{spr.K, spr.N}).To(Equal([]int{1, 3}), "both invalid outputs are failed judge outputs")

		Expect(all.Metrics[harness.RefusalRecall].K).To(Equal(1), "only the plain none refused")
		Expect(all.Metrics[harness.RefusalPrecision].N).To(Equal(1), "neither invalid answer is a decided refusal")
		Expect(all.Metrics[harness.RefusalAccuracy].K).To(Equal(1))
		Expect(all.Failures[harness.FailSchemaError]).To(Equal(2))
	})

	It("is a metric gates accept, where lower is better", func() {
		info, ok := harness.LookupMetric(harness.InvalidSkillRate)
		Expect(ok).To(BeTrue())
		Expect(info.Kind).To(Equal(harness.KindRate))
		Expect(info.HigherIsBetter).To(BeFalse())
		t, err := harness.ParseThreshold("invalid_skill_rate{suite:adversarial} <= 0.01")
		Expect(err).NotTo(HaveOccurred())
		Expect(t.Metric).To(Equal(harness.InvalidSkillRate))
	})

	It("counts a judge output that named a non-candidate even when the decision stood on another answer", func() {
		d := decide(router.Clarify, "query_orders_by_region", 0.9)
		d.Trace = []router.TraceStep{
			{Stage: harness.StageRecall, Top: []string{"query_orders_by_region"}},
			{Stage: harness.StageJudge, Attempt: 1, Choice: "query_orders_by_region"},
			{Stage: harness.StageJudge, Attempt: 2, Choice: "wipe_all", Errors: []router.Error{invalid}},
		}
		calls, passed := harness.JudgeCalls(d)
		Expect([]int{calls, passed}).To(Equal([]int{2, 1}))
		ind := harness.Indicators(harness.Result{Expect: harness.Expect{Action: router.Clarify}, Decision: d})
		Expect(ind).To(HaveKeyWithValue(harness.InvalidSkillRate, true))
		Expect(ind).To(HaveKeyWithValue(harness.SchemaPassRate, false))
	})
})
