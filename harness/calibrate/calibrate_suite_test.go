package calibrate_test

import (
	"github.com/routebench/routebench/internal/specrun"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/harness/calibrate"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

func TestCalibrate(t *testing.T) {
	RegisterFailHandler(Fail)
	specrun.RunSpecs(t, "calibrate")
}

// skillsYAML is a tiny ops registry: two confusable read skills and a
// write skill behind an irreversible gate.
const skillsYAML = `skills:
  - name: query_orders_by_region
    description: Look up orders of one sales region.
    side_effect: read
    permission_scope: ['orders:read']
    params_schema:
      type: object
      required: [region]
      properties:
        region: {type: string, enum: [east, west]}
    examples:
      - input: orders of the east region
        params: {region: east}
    counter_examples: [alerts of the east zone]
  - name: query_alerts_by_zone
    description: Look up alerts of one zone.
    side_effect: read
    permission_scope: ['alerts:read']
    params_schema:
      type: object
      properties:
        zone: {type: string, enum: [east, west]}
    examples:
      - input: alerts in the east zone
        params: {zone: east}
    counter_examples: [orders of the east region]
  - name: refund_order
    description: Refund an order.
    side_effect: write
    permission_scope: ['orders:write']
    confirm: irreversible
    params_schema:
      type: object
      properties:
        order_id: {type: string}
    examples:
      - input: refund ORD-12345678
        params: {order_id: ORD-12345678}
    counter_examples: [show ORD-12345678]
`

const (
	orders = "query_orders_by_region"
	alerts = "query_alerts_by_zone"
	refund = "refund_order"
)

func testRegistry() *registry.Registry {
	skills, err := registry.ParseSkills("skills.yaml", []byte(skillsYAML))
	Expect(err).NotTo(HaveOccurred())
	reg, err := registry.New(skills)
	Expect(err).NotTo(HaveOccurred())
	return reg
}

var caller = router.Caller{Scopes: []string{"orders:read", "alerts:read", "orders:write"}}

// judged is a decision as the router makes it under always-acting bands:
// the judge chose skill at conf, the bands acted, params were valid.
// ranking is the judge's ranking (best first); it defaults to the skill.
func judged(reg *registry.Registry, skill string, conf float64, ranking ...string) router.Decision {
	if len(ranking) == 0 {
		ranking = []string{skill}
	}
	cands := make([]router.Candidate, len(ranking))
	for i, s := range ranking {
		cands[i] = router.Candidate{Skill: s, Score: conf - 0.1*float64(i)}
	}
	c := conf
	d := router.Decision{
		Action: router.Execute, Skill: skill, Params: map[string]any{}, Confidence: conf, Stage: harness.StageJudge,
		Candidates: cands, Errors: []router.Error{}, Version: "v@1", Model: "fake",
		Trace: []router.TraceStep{
			{Stage: harness.StageRecall, Top: ranking},
			{Stage: harness.StageJudge, Choice: skill, Confidence: &c, Attempt: 1},
			{Stage: "bands", Choice: skill, Confidence: &c},
			{Stage: "params", Choice: skill},
		},
	}
	if s := reg.Skill(skill); s.SideEffect.Acts() {
		d.Action, d.Gate = router.Confirm, s.Confirm
	}
	return d
}

// none is the judge answering "none": a refusal at any bands.
func none(conf float64) router.Decision {
	c := conf
	return router.Decision{
		Action: router.Refuse, Params: map[string]any{}, Confidence: conf, Stage: harness.StageJudge,
		Candidates: []router.Candidate{}, Errors: []router.Error{}, Version: "v@1", Model: "fake",
		Trace: []router.TraceStep{
			{Stage: harness.StageRecall, Top: []string{orders}},
			{Stage: harness.StageJudge, Choice: router.NoneChoice, Confidence: &c, Attempt: 1},
		},
	}
}

func kase(id string, e harness.Expect) *harness.Case {
	return &harness.Case{ID: id, Suite: harness.SuiteNormal, Input: id, Caller: caller, Expect: e}
}

// synthetic is a banded record for sweeps that need many cases: acting is
// right or wrong, clarifying and refusing are both wrong.
func synthetic(id string, conf float64, right bool, se registry.SideEffect) calibrate.Record {
	act := router.Execute
	if se.Acts() {
		act = router.Confirm
	}
	choice := "s"
	if !right {
		choice = "t"
	}
	return calibrate.Record{
		Case: id, Expect: act, ExpectSkill: "s", Judged: true, JudgeChoice: choice, JudgeConfidence: conf,
		Banded: true, Skill: "s", SideEffect: se, Confidence: conf,
		Outcomes: [3]calibrate.Outcome{
			{Action: act, Skill: choice, WrongExec: !right, Correct: right},
			{Action: router.Clarify, Skill: choice},
			{Action: router.Refuse},
		},
	}
}
