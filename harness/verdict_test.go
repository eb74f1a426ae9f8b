package harness_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

var _ = Describe("Check", func() {
	var reg *registry.Registry
	BeforeEach(func() { reg = testRegistry() })

	caseOf := func(e harness.Expect) *harness.Case {
		return &harness.Case{ID: "c", Suite: harness.SuiteNormal, Input: "x", Caller: fullCaller, Expect: e}
	}
	execOrders := harness.Expect{Action: router.Execute, Skill: "query_orders_by_region",
		Params: map[string]harness.ParamMatcher{"region": eq("east")}}

	It("passes a decision that matches action, skill and params", func() {
		d := withParams(decide(router.Execute, "query_orders_by_region", 0.9), map[string]any{"region": "east", "start": "2026-11-23"})
		v := harness.Check(caseOf(execOrders), d, reg)
		Expect(v.Pass).To(BeTrue(), "%v", v.Problems)
		Expect(v.Failure).To(BeEmpty())
		Expect(harness.CheckQuietly(caseOf(execOrders), d, reg)).To(Equal(v), "a run's verdict is the same")
	})

	DescribeTable("gives exactly one primary category, by precedence",
		func(e harness.Expect, caller *router.Caller, d router.Decision, want string) {
			c := caseOf(e)
			if caller != nil {
				c.Caller = *caller
			}
			v := harness.Check(c, d, reg)
			Expect(v.Pass).To(BeFalse())
			Expect(v.Failure).To(Equal(want), "%v", v.Problems)
			Expect(harness.FailureCategories).To(ContainElement(v.Failure))
			Expect(v.Problems).NotTo(BeEmpty())
			Expect(harness.CheckQuietly(c, d, reg)).To(Equal(harness.Verdict{Failure: want}), "a run's verdict: the same, without the words")
		},
		Entry("policy_violation: acting outside the caller's scopes",
			harness.Expect{Action: router.Refuse}, &router.Caller{Scopes: []string{"orders:read"}},
			withGate(decide(router.Confirm, "delete_test_data", 0.99), registry.GateIrreversible), harness.FailPolicyViolation),
		Entry("policy_violation: acting on a disabled skill, even when it is the expected one",
			harness.Expect{Action: router.Execute, Skill: "query_alerts_by_zone"}, &router.Caller{Scopes: fullCaller.Scopes, Disabled: []string{"query_alerts_by_zone"}},
			decide(router.Execute, "query_alerts_by_zone", 0.9), harness.FailPolicyViolation),
		Entry("policy_violation: executing a side effect",
			harness.Expect{Action: router.Confirm, Skill: "refund_order"}, nil,
			decide(router.Execute, "refund_order", 0.99), harness.FailPolicyViolation),
		Entry("policy_violation: confirm without a gate",
			harness.Expect{Action: router.Confirm, Skill: "refund_order"}, nil,
			decide(router.Confirm, "refund_order", 0.99), harness.FailPolicyViolation),
		Entry("policy_violation: a param value whose x-permission the caller lacks",
			harness.Expect{Action: router.Refuse}, nil,
			withGate(withParams(decide(router.Confirm, "restart_service", 0.99), map[string]any{"service": "gw", "env": "prod"}), registry.GateNormal), harness.FailPolicyViolation),
		Entry("provider_error",
			execOrders, nil,
			router.Decision{Action: router.Fail, Errors: []router.Error{{Category: router.CatProviderError, Message: "503"}}}, harness.FailProviderError),
		Entry("schema_error",
			execOrders, nil,
			router.Decision{Action: router.Fail, Errors: []router.Error{{Category: router.CatSchemaError, Message: "not JSON"}}}, harness.FailSchemaError),
		Entry("schema_error for an unrepairable skill name",
			execOrders, nil,
			router.Decision{Action: router.Fail, Errors: []router.Error{{Category: router.CatInvalidSkill, Message: "no such"}}}, harness.FailSchemaError),
		Entry("schema_error for an invalid skill name the router turned into a refusal",
			execOrders, nil,
			router.Decision{Action: router.Refuse, Stage: harness.StageJudge, Errors: []router.Error{{Category: router.CatInvalidSkill, Message: "no such"}}}, harness.FailSchemaError),
		Entry("rule_false_positive: a rule decided the wrong skill",
			harness.Expect{Action: router.Execute, Skill: "query_orders_by_region"}, nil,
			rulesDecision(router.Confirm, "refund_order"), harness.FailRuleFalsePositive),
		Entry("recall_miss: the expected skill never reached the judge",
			execOrders, nil,
			recallDecision(decide(router.Execute, "query_alerts_by_zone", 0.9), "query_alerts_by_zone"), harness.FailRecallMiss),
		Entry("recall_miss beats false_refusal when recall dropped the skill",
			execOrders, nil,
			decide(router.Refuse, "", 0.2), harness.FailRecallMiss),
		Entry("judge_wrong_skill: recalled but another skill chosen",
			execOrders, nil,
			recallDecision(decide(router.Execute, "query_alerts_by_zone", 0.9), "query_alerts_by_zone", "query_orders_by_region"), harness.FailJudgeWrongSkill),
		Entry("judge_wrong_skill: a clarify offering other candidates",
			harness.Expect{Action: router.Clarify, Candidates: []string{"query_orders_by_region", "query_alerts_by_zone"}}, nil,
			recallDecision(clarifyOffering("query_orders_by_region", "refund_order"), "query_orders_by_region", "query_alerts_by_zone", "refund_order"), harness.FailJudgeWrongSkill),
		Entry("judge_wrong_skill: the judge chose another skill, too unsure of it to act",
			execOrders, nil,
			judgedThen(decide(router.Refuse, "", 0.45), "query_alerts_by_zone", "query_alerts_by_zone", "query_orders_by_region"), harness.FailJudgeWrongSkill),
		Entry("judge_wrong_skill: asking for another skill's params, the expected one a runner-up",
			execOrders, nil,
			judgedThen(clarifyOffering("query_alerts_by_zone", "query_orders_by_region"), "query_alerts_by_zone", "query_alerts_by_zone", "query_orders_by_region"), harness.FailJudgeWrongSkill),
		Entry("false_refusal: the judge chose the expected skill, too unsure of it to act",
			execOrders, nil,
			judgedThen(decide(router.Refuse, "", 0.45), "query_orders_by_region", "query_alerts_by_zone", "query_orders_by_region"), harness.FailFalseRefusal),
		Entry("false_refusal: recalled, then refused",
			execOrders, nil,
			recallDecision(decide(router.Refuse, "", 0.3), "query_orders_by_region"), harness.FailFalseRefusal),
		Entry("missed_refusal: acting where a refusal is expected",
			harness.Expect{Action: router.Refuse, Never: []string{"query_orders_by_region"}}, nil,
			decide(router.Execute, "query_orders_by_region", 0.9), harness.FailMissedRefusal),
		Entry("missed_refusal: clarifying where a refusal is expected",
			harness.Expect{Action: router.Refuse}, nil,
			clarifyOffering("query_orders_by_region", "query_alerts_by_zone"), harness.FailMissedRefusal),
		Entry("wrong_band: right skill, clarify instead of execute",
			execOrders, nil,
			clarifyOffering("query_orders_by_region", "query_alerts_by_zone"), harness.FailWrongBand),
		Entry("wrong_band: the wrong confirmation gate",
			harness.Expect{Action: router.Confirm, Skill: "refund_order", Gate: registry.GateIrreversible}, nil,
			withGate(decide(router.Confirm, "refund_order", 0.99), registry.GateNormal), harness.FailWrongBand),
		Entry("wrong_band: executing where a clarify between candidates is expected",
			harness.Expect{Action: router.Clarify, Candidates: []string{"query_orders_by_region", "query_alerts_by_zone"}}, nil,
			recallDecision(decide(router.Execute, "query_orders_by_region", 0.9), "query_orders_by_region", "query_alerts_by_zone"), harness.FailWrongBand),
		Entry("param_error: right action and skill, wrong value",
			execOrders, nil,
			withParams(decide(router.Execute, "query_orders_by_region", 0.9), map[string]any{"region": "west"}), harness.FailParamError),
	)

	It("fails a case where a never skill acts, even alongside the right action", func() {
		e := harness.Expect{Action: router.Confirm, Skill: "refund_order", Never: []string{"delete_test_data"}}
		d := withGate(decide(router.Confirm, "delete_test_data", 0.99), registry.GateIrreversible)
		v := harness.Check(caseOf(e), d, reg)
		Expect(v.Pass).To(BeFalse())
		Expect(v.Failure).To(Equal(harness.FailRecallMiss)) // refund_order was never recalled here
		Expect(harness.DecisionCorrect(e, d)).To(BeFalse())
	})

	It("accepts a clarify that asks about the expected skill", func() {
		e := harness.Expect{Action: router.Clarify, Skill: "refund_order"}
		d := decide(router.Clarify, "refund_order", 0.95)
		Expect(harness.Check(caseOf(e), d, reg).Pass).To(BeTrue())
	})

	It("says what was expected and what was decided", func() {
		d := withParams(decide(router.Execute, "query_orders_by_region", 0.9), map[string]any{"region": "west"})
		v := harness.Check(caseOf(execOrders), d, reg)
		Expect(v.Problems).To(ConsistOf(`param region: want "east", got "west" (value)`))
	})
})

// rulesDecision is a decision stage 1 made from one trigger match.
func rulesDecision(action router.Action, skill string) router.Decision {
	d := decide(action, skill, 1)
	d.Stage = harness.StageRules
	d.Gate = registry.GateIrreversible
	d.Trace = []router.TraceStep{{Stage: harness.StageRules, Matched: []string{skill}}}
	return d
}

// recallDecision replaces the recall stage's top-k.
func recallDecision(d router.Decision, top ...string) router.Decision {
	d.Trace = append([]router.TraceStep{{Stage: harness.StageRecall, Top: top}}, d.Trace[1:]...)
	return d
}

// judgedThen is d after recall found top and the judge chose choice; a
// clarify asks for choice's params, as the router's params question does.
func judgedThen(d router.Decision, choice string, top ...string) router.Decision {
	d.Trace = []router.TraceStep{{Stage: harness.StageRecall, Top: top}, {Stage: harness.StageJudge, Choice: choice}}
	if d.Action == router.Clarify {
		d.Skill = choice
	}
	return d
}

func clarifyOffering(skills ...string) router.Decision {
	d := decide(router.Clarify, "", 0.7)
	d.Trace = []router.TraceStep{{Stage: harness.StageRecall, Top: skills}, {Stage: harness.StageJudge, Choice: skills[0]}}
	for _, s := range skills {
		d.Candidates = append(d.Candidates, router.Candidate{Skill: s, Score: 0.5})
	}
	return d
}
