package workflow_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/workflow"
)

func call(skill string, params map[string]any) workflow.Step {
	return workflow.Step{Kind: workflow.StepCall, Skill: skill, Params: params}
}

var _ = Describe("A misbehaving model", func() {
	It("is stopped at the third identical call (doom loop), which is never sent", func() {
		s := happyScript()
		h := newHarness(s)
		m := workflow.NewScriptModel(call("get_gauge", map[string]any{"name": "x"}), call("get_gauge", map[string]any{"name": "x"}), call("get_gauge", map[string]any{"name": "x"}))
		o := h.run(mustParse(h.reg, pipeline), workflow.RunInput{Params: shelf, Confirmer: yes(), Model: m})
		Expect(o.Outcome).To(Equal(workflow.Stopped))
		Expect(o.Reason).To(Equal(workflow.ReasonDoomLoop))
		Expect(o.ErrorMessage).To(ContainSubstring("ask the user"))
		Expect(o.CallSkills()).To(Equal([]string{"get_gauge", "get_gauge"}))
		Expect(workflow.Guards(o).DoomLoopsStopped).To(Equal(1))
		Expect(h.tools.Received()).To(HaveLen(2))
	})

	It("counts plan calls in the same window: two more asks of a plan call stop the run", func() {
		h := newHarness(happyScript())
		same := map[string]any{"name": "B7"}
		m := workflow.NewScriptModel(workflow.Step{Kind: workflow.StepFollow}, call("get_gauge", same), call("get_gauge", same))
		flow := withHead(`      - {id: gauge, tool: get_gauge, params: {name: "{{params.shelf}}"}}`,
			`      - {id: w2, tool: list_widgets, after: [gauge], params: {shelf: s}}`)
		o := h.run(mustParse(h.reg, flow), workflow.RunInput{Params: shelf, Model: m})
		Expect(o.Outcome).To(Equal(workflow.Stopped))
		Expect(o.CallSkills()).To(Equal([]string{"get_gauge", "get_gauge"}))
	})

	It("does not stop different arguments", func() {
		h := newHarness(happyScript())
		m := workflow.NewScriptModel(call("get_gauge", map[string]any{"name": "a"}), call("get_gauge", map[string]any{"name": "b"}), call("get_gauge", map[string]any{"name": "a"}))
		o := h.run(mustParse(h.reg, pipeline), workflow.RunInput{Params: shelf, Confirmer: yes(), Model: m})
		Expect(o.Outcome).To(Equal(workflow.Completed))
	})

	DescribeTable("never calls a skill the caller may not use",
		func(skill string, disabled []string, code string) {
			h := newHarness(happyScript())
			m := workflow.NewScriptModel(call(skill, map[string]any{}))
			o := h.run(mustParse(h.reg, pipeline), workflow.RunInput{Params: shelf, Confirmer: yes(), Model: m,
				Caller: workflow.Caller{Scopes: []string{"w:read", "g:read", "r:write", "t:send"}, Disabled: disabled}})
			Expect(o.Outcome).To(Equal(workflow.Completed))
			Expect(o.CallSkills()).NotTo(ContainElement(skill))
			blocked := eventsOf(o, workflow.EvCallBlocked)
			Expect(blocked).To(HaveLen(1))
			Expect(blocked[0].Code).To(Equal(code))
		},
		Entry("out of scope", "peek_vault", nil, workflow.ReasonPermissionDenied),
		Entry("disabled", "shred_boxes", []string{"shred_boxes"}, workflow.ReasonSkillDisabled),
		Entry("unknown", "summon_widgets", nil, "unknown_skill"),
	)

	It("refuses a run that needs a disabled skill before anything runs", func() {
		h := newHarness(happyScript())
		o := h.run(mustParse(h.reg, pipeline), workflow.RunInput{Params: shelf, Confirmer: yes(),
			Caller: workflow.Caller{Scopes: allScopes, Disabled: []string{"ping_team"}}})
		Expect(o.Outcome).To(Equal(workflow.Refused))
		Expect(o.Reason).To(Equal(workflow.ReasonSkillDisabled))
		Expect(o.Calls).To(BeEmpty())
	})

	It("never sends a side effect on the model's word, and never a key twice", func() {
		h := newHarness(happyScript())
		m := workflow.NewScriptModel(
			call("file_report", map[string]any{"title": "mine"}), // off plan
			workflow.Step{Kind: workflow.StepFollow}, workflow.Step{Kind: workflow.StepFollow},
			call("file_report", map[string]any{"title": "5 widgets, gauge 7"}), // a repeat of the plan's write
		)
		o := h.run(mustParse(h.reg, pipeline), workflow.RunInput{Params: shelf, Confirmer: yes(), Model: m})
		Expect(o.Outcome).To(Equal(workflow.Completed))
		Expect(o.CallSkills()).To(Equal([]string{"list_widgets", "get_gauge", "file_report", "ping_team"}))
		Expect(eventsOf(o, workflow.EvCallBlocked)[0].Code).To(Equal("off_plan_side_effect"))
		dup := eventsOf(o, workflow.EvDuplicateBlocked)
		Expect(dup).To(HaveLen(1))
		Expect(dup[0].Key).To(Equal(o.Calls[2].Key))
	})

	It("gets no retry of a 400 however often it insists", func() {
		s := happyScript()
		s["file_report"] = []workflow.SimResponse{{Fault: workflow.FaultClientError, Code: 400, Message: "title too vague"}, ok(map[string]any{"report_id": "no"})}
		h := newHarness(s)
		retry := workflow.Step{Kind: workflow.StepRetry, Node: "report"}
		m := workflow.NewScriptModel(retry, retry, retry)
		o := h.run(mustParse(h.reg, pipeline), workflow.RunInput{Params: shelf, Confirmer: yes(), Model: m})
		Expect(o.Outcome).To(Equal(workflow.Failed))
		Expect(o.ErrorCode).To(Equal("400"))
		Expect(o.ErrorMessage).To(Equal("title too vague"))
		refused := eventsOf(o, workflow.EvRetryRefused)
		Expect(refused).To(HaveLen(3))
		Expect(refused[0].Code).To(Equal("not_retryable"))
		Expect(o.CallSkills()).To(Equal([]string{"list_widgets", "get_gauge", "file_report"}))
		Expect(o.Retries).To(BeEmpty())
	})

	It("is flagged when it claims success without a receipt", func() {
		s := happyScript()
		s["file_report"] = []workflow.SimResponse{{Fault: workflow.FaultServerError, Code: 500}, {Fault: workflow.FaultServerError, Code: 500}}
		h := newHarness(s)
		m := workflow.NewScriptModel(workflow.Step{Kind: workflow.StepClaim, Claim: "success"}, workflow.Step{Kind: workflow.StepClaim, Claim: "success", Node: "report"})
		o := h.run(mustParse(h.reg, pipeline), workflow.RunInput{Params: shelf, Confirmer: yes(), Model: m})
		Expect(o.Outcome).To(Equal(workflow.Failed))
		Expect(o.Claims).To(HaveLen(2))
		Expect(o.Claims).To(HaveEach(HaveField("Verified", false)))
		Expect(o.Claims[1].Why).To(ContainSubstring("no success receipt"))
		Expect(o.Report.Succeeded).To(BeEmpty())
		Expect(workflow.Guards(o).UnverifiedClaimsFlagged).To(Equal(2))
	})

	It("has a true claim verified", func() {
		h := newHarness(happyScript())
		m := workflow.NewScriptModel(workflow.Step{Kind: workflow.StepClaim, Claim: "success", Node: "ping"})
		o := h.run(mustParse(h.reg, pipeline), workflow.RunInput{Params: shelf, Confirmer: yes(), Model: m})
		Expect(o.Claims).To(ConsistOf(HaveField("Verified", true)))
	})
})
