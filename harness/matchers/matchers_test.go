package matchers_test

import (
	"os"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/harness/matchers"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

func conf(f float64) *float64 { return &f }
func kept(n int) *int         { return &n }

// alertsDecision executes query_alerts_by_zone for 华东, with a full trace.
func alertsDecision() router.Decision {
	return router.Decision{
		Action: router.Execute, Skill: "query_alerts_by_zone", Confidence: 0.91, Stage: "judge",
		Params: map[string]any{"zone": "east", "start": "2026-11-23", "days": 7},
		Trace: []router.TraceStep{
			{Stage: "policy", Kept: kept(7), Dropped: []string{"delete_test_data"}},
			{Stage: "rules", Matched: []string{}},
			{Stage: "recall", Top: []string{"query_alerts_by_zone", "query_orders_by_region"}},
			{Stage: "judge", Provider: "builtin", Choice: "query_alerts_by_zone", Confidence: conf(0.91)},
		},
	}
}

var _ = Describe("decision matchers", func() {
	It("match the action and skill", func() {
		d := alertsDecision()
		Expect(d).To(matchers.RouteTo("query_alerts_by_zone"))
		Expect(&d).To(matchers.RouteTo("query_alerts_by_zone"))
		Expect(d).NotTo(matchers.RouteTo("query_orders_by_region"))
		Expect(d).NotTo(matchers.Refuse())
		Expect(d).NotTo(matchers.Clarify())
		Expect(d).To(matchers.NeverAct("delete_test_data", "query_orders_by_region"))
		Expect(d).NotTo(matchers.NeverAct("query_alerts_by_zone"))
	})

	It("match confirmations with their gate", func() {
		d := router.Decision{Action: router.Confirm, Skill: "refund_order", Gate: registry.GateIrreversible}
		Expect(d).To(matchers.Confirm("refund_order", registry.GateIrreversible))
		Expect(d).To(matchers.Confirm("refund_order", ""))
		Expect(d).NotTo(matchers.Confirm("refund_order", registry.GateNormal))
		Expect(d).NotTo(matchers.RouteTo("refund_order"))
		d.Gate = ""
		Expect(d).NotTo(matchers.Confirm("refund_order", ""), "a confirm without a gate is never right")
	})

	It("match clarifications by the candidates offered", func() {
		d := router.Decision{Action: router.Clarify, Candidates: []router.Candidate{{Skill: "a", Score: 0.7}, {Skill: "b", Score: 0.6}}}
		Expect(d).To(matchers.Clarify("a", "b"))
		Expect(d).To(matchers.Clarify())
		Expect(d).NotTo(matchers.Clarify("a", "c"))
	})

	It("match params as a subset, with matchers", func() {
		d := alertsDecision()
		Expect(d).To(matchers.HaveParams(map[string]any{"zone": "east", "days": 7.0}))
		Expect(d).To(matchers.HaveParams(map[string]any{
			"zone":     harness.ParamMatcher{AnyOf: []any{"east", "south"}},
			"start":    harness.ParamMatcher{Regex: `^2026-11-\d\d$`},
			"severity": harness.ParamMatcher{Absent: true},
		}))
		Expect(d).NotTo(matchers.HaveParams(map[string]any{"zone": "west"}))
	})

	It("say what was expected and decided, and show the trace", func() {
		m := matchers.RouteTo("query_orders_by_region")
		ok, err := m.Match(alertsDecision())
		Expect(err).NotTo(HaveOccurred())
		Expect(ok).To(BeFalse())
		msg := m.FailureMessage(alertsDecision())
		Expect(msg).To(ContainSubstring("Expected the router to execute query_orders_by_region"))
		Expect(msg).To(ContainSubstring("decided: execute query_alerts_by_zone at confidence 0.91 by judge"))
		Expect(msg).To(ContainSubstring("policy  kept 7 dropped [delete_test_data]"))
		Expect(msg).To(ContainSubstring("recall  top [query_alerts_by_zone query_orders_by_region]"))
		Expect(msg).To(ContainSubstring("judge   provider builtin choice query_alerts_by_zone confidence 0.91"))

		p := matchers.HaveParams(map[string]any{"zone": "west"})
		_, _ = p.Match(alertsDecision())
		Expect(p.FailureMessage(alertsDecision())).To(ContainSubstring(`why: zone: want "west", got "east" (value)`))
	})

	It("do not take a judge answer naming a non-candidate for a refusal, and say why", func() {
		d := router.Decision{Action: router.Refuse, Errors: []router.Error{{Category: router.CatInvalidSkill, Message: "not a candidate"}}}
		m := matchers.Refuse()
		ok, err := m.Match(d)
		Expect(err).NotTo(HaveOccurred())
		Expect(ok).To(BeFalse())
		Expect(m.FailureMessage(d)).To(ContainSubstring("invalid_skill"))
		Expect(router.Decision{Action: router.Refuse}).To(matchers.Refuse())
	})

	It("reject what is not a decision", func() {
		_, err := matchers.Refuse().Match("refuse")
		Expect(err).To(MatchError(ContainSubstring("expected a router.Decision, got string")))
	})

	It("check a case's whole expectation, naming the failure category", func() {
		c := &harness.Case{ID: "alerts-001", Input: "华东区最近的告警", Caller: router.Caller{Scopes: []string{"alerts:read"}},
			Expect: harness.Expect{Action: router.Execute, Skill: "query_orders_by_region"}}
		m := matchers.MeetExpectation(c, nil)
		ok, err := m.Match(alertsDecision())
		Expect(err).NotTo(HaveOccurred())
		Expect(ok).To(BeFalse())
		msg := m.FailureMessage(alertsDecision())
		Expect(msg).To(ContainSubstring(`meet case alerts-001 ("华东区最近的告警"): execute query_orders_by_region`))
		// With no registry, acting on anything is a policy violation: code
		// cannot vouch for a skill it does not know.
		Expect(msg).To(ContainSubstring("why: failure category policy_violation: policy violation: acted on"))

		data, err := os.ReadFile("../testdata/skills.yaml")
		Expect(err).NotTo(HaveOccurred())
		skills, err := registry.ParseSkills("skills.yaml", data)
		Expect(err).NotTo(HaveOccurred())
		reg, err := registry.New(skills)
		Expect(err).NotTo(HaveOccurred())
		c.Expect = harness.Expect{Action: router.Execute, Skill: "query_alerts_by_zone",
			Params: map[string]harness.ParamMatcher{"zone": {Equals: "east"}}, Never: []string{"delete_test_data"}}
		Expect(alertsDecision()).To(matchers.MeetExpectation(c, reg))
		c.Caller.Scopes = nil
		Expect(alertsDecision()).NotTo(matchers.MeetExpectation(c, reg), "acting outside the caller's scopes")
	})
})
