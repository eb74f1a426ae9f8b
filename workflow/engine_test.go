package workflow_test

import (
	"encoding/json"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	. "github.com/onsi/gomega/gstruct"

	"github.com/routebench/routebench/workflow"
)

// pipeline: two reads (parallel), a write after both, a send after it.
var pipeline = withHead(
	`      - {id: widgets, tool: list_widgets, params: {shelf: "{{params.shelf}}"}}`,
	`      - {id: gauge, tool: get_gauge, params: {name: "{{params.shelf}}"}}`,
	`      - {id: report, tool: file_report, after: [widgets, gauge], params: {title: "{{widgets.count}} widgets, gauge {{gauge.value}}"}}`,
	`      - {id: ping, tool: ping_team, after: [report], params: {to: ops, text: "filed {{report.report_id}}"}}`,
)

func happyScript() workflow.SimScript {
	return workflow.SimScript{
		"list_widgets": {ok(items(5))},
		"get_gauge":    {ok(map[string]any{"value": 7})},
		"file_report":  {ok(map[string]any{"report_id": "RPT-9"})},
		"ping_team":    {ok(map[string]any{"sent": true})},
	}
}

var shelf = map[string]any{"shelf": "B7"}

var _ = Describe("Engine", func() {
	It("completes a plan: reads together, writes alone and in order, with receipts", func() {
		h := newHarness(happyScript())
		w := mustParse(h.reg, pipeline)
		o := h.run(w, workflow.RunInput{Params: shelf, Confirmer: yes()})
		Expect(o.Outcome).To(Equal(workflow.Completed))
		Expect(o.CallSkills()).To(Equal([]string{"list_widgets", "get_gauge", "file_report", "ping_team"}))
		r, g := o.Calls[0], o.Calls[1]
		Expect(r.Start < g.End && g.Start < r.End).To(BeTrue(), "the two reads were let overlap")
		Expect(o.Calls[2].Params).To(HaveKeyWithValue("title", "5 widgets, gauge 7"))
		Expect(o.Calls[3].Params).To(HaveKeyWithValue("text", "filed RPT-9"))
		Expect(o.Calls[2].Start).To(BeNumerically(">", o.Calls[1].End))
		Expect(o.Calls[3].Start).To(BeNumerically(">", o.Calls[2].End))
		Expect(o.Receipts).To(HaveLen(2))
		Expect(o.Receipts[0]).To(MatchFields(IgnoreExtras, Fields{"Skill": Equal("file_report"), "Operation": Equal("write"), "Status": Equal("success")}))
		Expect(o.Receipts[0].ExternalID).NotTo(BeEmpty())
		Expect(o.Report.Succeeded).To(Equal([]string{"report", "ping"}))
		Expect(o.SideEffectsExecuted()).To(Equal(2))
		Expect(o.Checkpoints.Written).To(HaveLen(4))
		Expect(o.Nodes).To(HaveEach(HaveField("Status", workflow.NodeDone)))
	})

	It("derives idempotency keys itself, only for side effects, and the same for the same input", func() {
		h := newHarness(happyScript())
		w := mustParse(h.reg, pipeline)
		o1 := h.run(w, workflow.RunInput{ID: "r-a", Params: shelf, Confirmer: yes()})
		h2 := newHarness(happyScript())
		o2 := h2.run(w, workflow.RunInput{ID: "r-a", Params: shelf, Confirmer: yes()})
		h3 := newHarness(happyScript())
		o3 := h3.run(w, workflow.RunInput{ID: "r-b", Params: shelf, Confirmer: yes()})
		Expect(o1.Calls[0].Key).To(BeEmpty(), "reads carry no key")
		Expect(o1.Calls[2].Key).To(HavePrefix("idk-"))
		Expect(o2.Calls[2].Key).To(Equal(o1.Calls[2].Key))
		Expect(o3.Calls[2].Key).NotTo(Equal(o1.Calls[2].Key), "another run, another key")
		Expect(o1.Calls[3].Key).NotTo(Equal(o1.Calls[2].Key))
	})

	It("serialises the same run to the same JSON", func() {
		var out [2][]byte
		for i := range out {
			h := newHarness(happyScript())
			o := h.run(mustParse(h.reg, pipeline), workflow.RunInput{Params: shelf, Confirmer: yes()})
			b, err := json.Marshal(o)
			Expect(err).NotTo(HaveOccurred())
			out[i] = b
		}
		Expect(string(out[1])).To(Equal(string(out[0])))
	})

	Describe("retries", func() {
		DescribeTable("retries once on timeout, 429 and 5xx",
			func(first workflow.SimResponse) {
				s := happyScript()
				s["get_gauge"] = []workflow.SimResponse{first, ok(map[string]any{"value": 1})}
				h := newHarness(s)
				o := h.run(mustParse(h.reg, pipeline), workflow.RunInput{Params: shelf, Confirmer: yes()})
				Expect(o.Outcome).To(Equal(workflow.Completed))
				Expect(o.Retries).To(Equal(map[string]int{"gauge": 1}))
				Expect(o.CallSkills()).To(Equal([]string{"list_widgets", "get_gauge", "get_gauge", "file_report", "ping_team"}))
				Expect(o.Nodes[1].Status).To(Equal(workflow.NodeRetried))
			},
			Entry("timeout", fault(workflow.FaultTimeout)),
			Entry("429", workflow.SimResponse{Fault: workflow.FaultRateLimited, RetryAfter: 7 * time.Second}),
			Entry("503", workflow.SimResponse{Fault: workflow.FaultServerError, Code: 503}),
		)

		It("waits Retry-After on the clock, never by sleeping", func() {
			s := happyScript()
			s["list_widgets"] = []workflow.SimResponse{{Fault: workflow.FaultRateLimited, RetryAfter: 42 * time.Second}, ok(items(1))}
			h := newHarness(s)
			h.run(mustParse(h.reg, pipeline), workflow.RunInput{Params: shelf, Confirmer: yes()})
			Expect(h.clock.Slept()).To(Equal([]time.Duration{42 * time.Second}))
		})

		It("retries at most once, then fails with the second error verbatim", func() {
			s := happyScript()
			s["get_gauge"] = []workflow.SimResponse{fault(workflow.FaultTimeout), {Fault: workflow.FaultServerError, Code: 502, Message: "upstream gauge farm is down"}, ok(map[string]any{"value": 1})}
			h := newHarness(s)
			o := h.run(mustParse(h.reg, pipeline), workflow.RunInput{Params: shelf, Confirmer: yes()})
			Expect(o.Outcome).To(Equal(workflow.Failed))
			Expect(o.StoppedAt).To(Equal("gauge"))
			Expect(o.ErrorCode).To(Equal("502"))
			Expect(o.ErrorMessage).To(Equal("upstream gauge farm is down"))
			Expect(o.CallSkills()).To(Equal([]string{"list_widgets", "get_gauge", "get_gauge"}))
			Expect(o.Retries).To(Equal(map[string]int{"gauge": 1}))
		})

		DescribeTable("never retries a non-retryable error, and names it verbatim",
			func(resp workflow.SimResponse, code, msg string) {
				s := happyScript()
				s["file_report"] = []workflow.SimResponse{resp, ok(map[string]any{"report_id": "never"})}
				h := newHarness(s)
				o := h.run(mustParse(h.reg, pipeline), workflow.RunInput{Params: shelf, Confirmer: yes()})
				Expect(o.Outcome).To(Equal(workflow.Failed))
				Expect(o.StoppedAt).To(Equal("report"))
				Expect(o.ErrorCode).To(Equal(code))
				Expect(o.ErrorMessage).To(ContainSubstring(msg))
				Expect(o.Retries).To(BeEmpty())
				Expect(o.CallSkills()).To(Equal([]string{"list_widgets", "get_gauge", "file_report"}))
				Expect(o.Report.Succeeded).To(BeEmpty())
				Expect(o.Nodes[3].Status).To(Equal(workflow.NodePending), "nothing after a failure runs")
			},
			Entry("409", workflow.SimResponse{Fault: workflow.FaultClientError, Code: 409, Message: "report already filed"}, "409", "report already filed"),
			Entry("400", workflow.SimResponse{Fault: workflow.FaultClientError}, "400", "bad request"),
			Entry("malformed", workflow.SimResponse{Fault: workflow.FaultMalformed, Body: map[string]any{"rid": 3}}, "malformed", "does not match its result_schema"),
		)

		It("does not retry a source that becomes unavailable mid-run", func() {
			s := happyScript()
			s["file_report"] = []workflow.SimResponse{
				{OK: map[string]any{"report_id": "x"}, When: map[string]any{"title": "not this one"}},
				{Fault: workflow.FaultUnavailable, Message: "reports backend gone"},
			}
			h := newHarness(s)
			o := h.run(mustParse(h.reg, pipeline), workflow.RunInput{Params: shelf, Confirmer: yes()})
			Expect(o.Outcome).To(Equal(workflow.Failed))
			Expect(o.ErrorCode).To(Equal("unavailable"))
			Expect(o.ErrorMessage).To(Equal("reports backend gone"))
			Expect(o.Retries).To(BeEmpty())
		})

		It("stops at once on params that fail the skill's schema, before calling", func() {
			h := newHarness(happyScript())
			w := mustParse(h.reg, withHead(
				`      - {id: widgets, tool: list_widgets, params: {shelf: "{{params.tone}}"}}`,
			))
			o := h.run(w, workflow.RunInput{Params: map[string]any{"shelf": "B", "tone": 3}, Confirmer: yes()})
			Expect(o.Outcome).To(Equal(workflow.Failed))
			Expect(o.Reason).To(Equal(workflow.ReasonParamsInvalid))
			Expect(o.Calls).To(BeEmpty())
		})

		It("stops at once on a permission the params need, before calling", func() {
			h := newHarness(happyScript())
			o := h.run(mustParse(h.reg, pipeline), workflow.RunInput{Params: shelf, Confirmer: yes(),
				Caller: workflow.Caller{Scopes: []string{"w:read", "g:read", "t:send"}}})
			Expect(o.Outcome).To(Equal(workflow.Refused))
			Expect(o.ErrorCode).To(Equal(workflow.ReasonPermissionDenied))
			Expect(o.ErrorMessage).To(ContainSubstring("r:write"))
			Expect(o.Calls).To(BeEmpty(), "a workflow never lends its nodes a scope")
		})

		It("reuses the idempotency key on the retry of a side effect", func() {
			s := happyScript()
			s["file_report"] = []workflow.SimResponse{fault(workflow.FaultTimeout), ok(map[string]any{"report_id": "RPT-2"})}
			h := newHarness(s)
			o := h.run(mustParse(h.reg, pipeline), workflow.RunInput{Params: shelf, Confirmer: yes()})
			Expect(o.Outcome).To(Equal(workflow.Completed))
			Expect(o.Calls[2].Skill).To(Equal("file_report"))
			Expect(o.Calls[3].Skill).To(Equal("file_report"))
			Expect(o.Calls[3].Attempt).To(Equal(2))
			Expect(o.Calls[3].Key).To(Equal(o.Calls[2].Key))
			Expect(o.Receipts[0].Status).To(Equal("failed"))
			Expect(o.Receipts[1].Status).To(Equal("success"))
			Expect(o.SideEffectsExecuted()).To(Equal(2))
		})
	})

	It("reports an empty result with the skill that produced it", func() {
		s := happyScript()
		s["get_gauge"] = []workflow.SimResponse{fault(workflow.FaultEmpty)}
		h := newHarness(s)
		w := mustParse(h.reg, withHead(`      - {id: gauge, tool: get_gauge, params: {name: "{{params.shelf}}"}}`))
		o := h.run(w, workflow.RunInput{Params: shelf})
		Expect(o.Outcome).To(Equal(workflow.Completed))
		Expect(o.Report.Empty).To(Equal([]workflow.EmptyResult{{Node: "gauge", SkillUsed: "get_gauge"}}))
		Expect(o.Nodes[0].Summary.Empty).To(BeTrue())
		Expect(o.Nodes[0].Summary.SkillUsed).To(Equal("get_gauge"))
		Expect(eventsOf(o, workflow.EvEmpty)).To(HaveLen(1))
	})

	It("fails honestly when an empty result leaves a later step without input", func() {
		s := happyScript()
		s["list_widgets"] = []workflow.SimResponse{ok(map[string]any{"items": []any{}})}
		h := newHarness(s)
		w := mustParse(h.reg, withHead(
			`      - {id: widgets, tool: list_widgets, params: {shelf: "{{params.shelf}}"}}`,
			`      - {id: gauge, tool: get_gauge, params: {name: "{{widgets.items[0].sku}}"}}`,
		))
		o := h.run(w, workflow.RunInput{Params: shelf})
		Expect(o.Outcome).To(Equal(workflow.Failed))
		Expect(o.StoppedAt).To(Equal("gauge"))
		Expect(o.Reason).To(Equal(workflow.ReasonMissingInput))
		Expect(o.ErrorMessage).To(ContainSubstring("has 0 items"))
		Expect(o.CallSkills()).To(Equal([]string{"list_widgets"}), "nothing guessed")
		Expect(o.Report.Empty).To(Equal([]workflow.EmptyResult{{Node: "widgets", SkillUsed: "list_widgets"}}))
	})

	It("passes outputs on as summaries (count, 3 items, ref) and keeps the raw output by ref", func() {
		s := happyScript()
		s["list_widgets"] = []workflow.SimResponse{ok(items(40))}
		h := newHarness(s)
		o := h.run(mustParse(h.reg, pipeline), workflow.RunInput{Params: shelf, Confirmer: yes()})
		sum := o.Nodes[0].Summary
		Expect(sum.Count).To(Equal(40))
		Expect(sum.Items).To(HaveLen(3))
		raw, found, err := h.store.Output(sum.Ref)
		Expect(err).NotTo(HaveOccurred())
		Expect(found).To(BeTrue())
		var full map[string]any
		Expect(json.Unmarshal(raw, &full)).To(Succeed())
		Expect(full["items"]).To(HaveLen(40))
	})

	It("fails closed at discovery: nothing runs when a source is unavailable", func() {
		s := happyScript()
		s["ping_team"] = []workflow.SimResponse{fault(workflow.FaultUnavailable)}
		h := newHarness(s)
		o := h.run(mustParse(h.reg, pipeline), workflow.RunInput{Params: shelf, Confirmer: yes()})
		Expect(o.Outcome).To(Equal(workflow.Failed))
		Expect(o.StoppedAt).To(Equal("ping"))
		Expect(o.ErrorCode).To(Equal("unavailable"))
		Expect(o.Calls).To(BeEmpty())
	})
})
