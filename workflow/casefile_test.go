package workflow_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.yaml.in/yaml/v3"

	"github.com/routebench/routebench/workflow"
)

func node(doc []byte) *yaml.Node {
	GinkgoHelper()
	var n yaml.Node
	Expect(yaml.Unmarshal(doc, &n)).To(Succeed())
	return n.Content[0]
}

var _ = Describe("Case decoders", func() {
	It("read tools_sim in the DESIGN §11 shape", func() {
		s, err := workflow.DecodeToolsSim("case.yaml", "tools_sim", node(lines(
			"get_gauge: [{fault: timeout}, {ok: {value: 3}}]",
			"file_report: [{fault: client_error, code: 409, message: \"report exists\"}]",
			"list_widgets: {fault: rate_limited, retry_after: 2}",
			"shred_boxes: [{ok: {n: 1}, preview: {count: 14, items: [a, b, c, d]}, when: {shelf: A}}]",
		)), testRegistry())
		Expect(err).NotTo(HaveOccurred())
		Expect(s["get_gauge"]).To(HaveLen(2))
		Expect(s["get_gauge"][1].OK).To(Equal(map[string]any{"value": 3.0}))
		Expect(s["file_report"][0].Code).To(Equal(409))
		Expect(s["list_widgets"][0].RetryAfter).To(Equal(2 * time.Second))
		Expect(s["shred_boxes"][0].Preview.Count).To(Equal(14))
		Expect(s["shred_boxes"][0].When).To(Equal(map[string]any{"shelf": "A"}))
		Expect(s["file_report"][0].Pos.Line).To(Equal(2))
	})

	DescribeTable("reject bad tools_sim with file:line",
		func(doc []byte, prefix string, fragments ...string) {
			_, err := workflow.DecodeToolsSim("case.yaml", "tools_sim", node(doc), testRegistry())
			expectProblem(problemLines(err), prefix, fragments...)
		},
		Entry("unknown skill", lines("get_gauges: [{ok: {}}]"), "case.yaml:1: tools_sim.get_gauges:", "did you mean get_gauge?"),
		Entry("unknown fault", lines("get_gauge: [{fault: time_out}]"), "case.yaml:1: tools_sim.get_gauge[0].fault:", "did you mean timeout?"),
		Entry("both ok and fault", lines("get_gauge: [{ok: {}, fault: empty}]"), "case.yaml:1: tools_sim.get_gauge[0]:", "both ok and fault"),
		Entry("client code out of range", lines("get_gauge: [{fault: client_error, code: 503}]"), "case.yaml:1: tools_sim.get_gauge[0].code:", "from 400 to 499"),
		Entry("code on a timeout", lines("get_gauge:", "  - {fault: timeout, code: 504}"), "case.yaml:2: tools_sim.get_gauge[0].code:", "client_error and server_error"),
		Entry("unknown answer field", lines("get_gauge: [{ok: {}, mesage: x}]"), "case.yaml:1: tools_sim.get_gauge[0].mesage:", "did you mean message?"),
	)

	It("read model_script steps and reject bad ones with file:line", func() {
		steps, err := workflow.DecodeModelScript("case.yaml", "model_script", node(lines(
			"- {call: get_gauge, params: {name: x}}",
			"- {retry: report}",
			"- {claim: success, node: report}",
			"- {follow: plan}",
		)))
		Expect(err).NotTo(HaveOccurred())
		Expect(steps).To(HaveLen(4))
		Expect(steps[0]).To(HaveField("Kind", workflow.StepCall))
		Expect(steps[0].Params).To(Equal(map[string]any{"name": "x"}))
		Expect(steps[2]).To(HaveField("Node", "report"))

		_, err = workflow.DecodeModelScript("case.yaml", "model_script", node(lines(
			"- {follow: plan}",
			"- {claim: maybe}",
			"- {call: x, retry: y}",
		)))
		ls := problemLines(err)
		expectProblem(ls, "case.yaml:2: model_script[1].claim:", "write success or failure")
		expectProblem(ls, "case.yaml:3: model_script[2]:", "exactly one of")
	})

	It("read confirm as one answer or a list, and reject unknown answers", func() {
		c, err := workflow.DecodeConfirm("case.yaml", "confirm", node(lines("{answer: yes, revoke_scopes: [t:send]}")))
		Expect(err).NotTo(HaveOccurred())
		r := c.Confirm(context.Background(), workflow.ConfirmRequest{})
		Expect(r.Answer).To(Equal(workflow.Yes))
		Expect(r.Revoked).To(Equal([]string{"t:send"}))

		c, err = workflow.DecodeConfirm("case.yaml", "confirm", node(lines("[{answer: yes}, {answer: timeout}]")))
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Confirm(context.Background(), workflow.ConfirmRequest{}).Answer).To(Equal(workflow.Yes))
		Expect(c.Confirm(context.Background(), workflow.ConfirmRequest{}).Answer).To(Equal(workflow.Timeout))
		Expect(c.Confirm(context.Background(), workflow.ConfirmRequest{}).Answer).To(Equal(workflow.Timeout), "the last answer repeats")

		_, err = workflow.DecodeConfirm("case.yaml", "confirm", node(lines("answer: sure")))
		expectProblem(problemLines(err), "case.yaml:1: confirm.answer:", "yes, no, timeout or pending")
	})
})

// failingDiscovery is a Tools whose discovery is down or answers too much.
type failingDiscovery struct {
	workflow.Tools
	avail []string
	err   error
}

func (f failingDiscovery) Discover(context.Context, []string) ([]string, error) {
	return f.avail, f.err
}

var _ = Describe("FailClosed", func() {
	cands := []string{"get_gauge", "list_widgets", "file_report"}

	It("shrinks candidates to what discovery finds, never adds", func() {
		got := workflow.FailClosed(context.Background(), failingDiscovery{avail: []string{"file_report", "peek_vault", "get_gauge"}}, cands)
		Expect(got).To(Equal([]string{"get_gauge", "file_report"}))
	})

	It("leaves nothing when discovery fails", func() {
		got := workflow.FailClosed(context.Background(), failingDiscovery{err: context.DeadlineExceeded}, cands)
		Expect(got).To(BeEmpty())
	})

	It("drops a simulated source whose first answer is unavailable", func() {
		tools := workflow.NewSimTools(workflow.SimScript{"list_widgets": {fault(workflow.FaultUnavailable)}, "get_gauge": {ok(map[string]any{"value": 1})}})
		Expect(workflow.FailClosed(context.Background(), tools, cands)).To(Equal([]string{"get_gauge", "file_report"}))
	})
})

var _ = Describe("Guards", func() {
	It("catch a misbehaving engine from its outcome's facts alone", func() {
		o := &workflow.Outcome{
			Outcome:         workflow.Completed,
			SideEffectOrder: []string{"a", "b"},
			Calls: []workflow.Call{
				{Node: "r", Skill: "get_gauge", SideEffect: "read", Attempt: 1, Start: 1, End: 2, Status: "error", Code: "400", Message: "no"},
				{Node: "r", Skill: "get_gauge", SideEffect: "read", Attempt: 2, Start: 3, End: 4, Status: "ok"},
				{Node: "b", Skill: "ping_team", SideEffect: "send", Attempt: 1, Key: "k2", Start: 5, End: 8, Status: "ok"},
				{Node: "a", Skill: "file_report", SideEffect: "write", Attempt: 1, Key: "k1", Start: 6, End: 7, Status: "ok"},
				{Node: "a", Skill: "file_report", SideEffect: "write", Attempt: 1, Key: "k1", Start: 9, End: 10, Status: "ok"},
			},
			Receipts:      []workflow.Receipt{{Node: "a", Key: "k1", Status: "success"}, {Node: "a", Key: "k1", Status: "success"}},
			Confirmations: []workflow.Confirmation{{Node: "a", Answer: workflow.Yes, Seq: 5}},
			Report:        workflow.Report{Succeeded: []string{"a", "b"}},
			Claims:        []workflow.Claim{{Claim: "success", Verified: false}},
		}
		g := workflow.Guards(o)
		Expect(g.IllegalRetries).To(Equal(1), "a retry after a 400")
		Expect(g.DuplicateSideEffects).To(Equal(1))
		Expect(g.WriteOrderViolations).To(Equal(3), "a and b overlap, b ran before a, and a ran again after b")
		Expect(g.ConfirmationMisses).To(Equal(1), "b was never confirmed")
		Expect(g.UnverifiedClaims).To(Equal(2), "b reported and completed without a receipt")
		Expect(g.UnverifiedClaimsFlagged).To(Equal(1))
		Expect(g.SilentFailures).To(BeZero(), "the 400 was retried (illegally) into a success")
	})

	It("catch a failure hidden behind a completed outcome or a paraphrase", func() {
		o := &workflow.Outcome{Outcome: workflow.Completed, Calls: []workflow.Call{{Node: "r", Skill: "get_gauge", Attempt: 1, Status: "error", Code: "409", Message: "exists"}}}
		Expect(workflow.Guards(o).SilentFailures).To(Equal(1))
		o.Outcome, o.StoppedAt, o.ErrorCode, o.ErrorMessage = workflow.Failed, "r", "409", "it probably exists"
		Expect(workflow.Guards(o).SilentFailures).To(Equal(1))
		o.ErrorMessage = "exists"
		Expect(workflow.Guards(o).SilentFailures).To(BeZero())
	})
})
