package reports_test

import (
	"bytes"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/reports"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/workflow"
)

// wfResult is a failed workflow run over a made-up plan: a read that was
// retried, a write refused with a 409, a send never reached, and a model
// claiming success anyway.
func wfResult() harness.Result {
	calls := []string{"fetch_crate", "fetch_crate", "stamp_crate"}
	o := &workflow.Outcome{Format: 1, RunID: "w1@v@1", Workflow: "ship_crate", Outcome: workflow.Failed,
		StoppedAt: "stamp", Reason: workflow.ReasonToolError, ErrorCode: "409", ErrorMessage: "<script>already stamped</script>",
		Calls: []workflow.Call{
			{Node: "fetch", Skill: calls[0], SideEffect: "read", Attempt: 1, Start: 1, End: 2, Status: "error", Code: "timeout", Message: "slow"},
			{Node: "fetch", Skill: calls[1], SideEffect: "read", Attempt: 2, Start: 3, End: 4, Status: "ok"},
			{Node: "stamp", Skill: calls[2], SideEffect: "write", Attempt: 1, Start: 6, End: 7, Status: "error", Code: "409", Message: "<script>already stamped</script>", Key: "k1"},
		},
		Retries:       map[string]int{"fetch": 1},
		Receipts:      []workflow.Receipt{{Node: "stamp", Skill: "stamp_crate", Operation: "write", Status: "failed", Key: "k1", Attempt: 1}},
		Confirmations: []workflow.Confirmation{{Node: "stamp", Gate: "normal", Answer: workflow.Yes, Seq: 5}},
		Nodes: []workflow.NodeState{
			{ID: "fetch", Kind: workflow.KindTool, Skill: "fetch_crate", Status: workflow.NodeRetried, Attempts: 2},
			{ID: "stamp", Kind: workflow.KindTool, Skill: "stamp_crate", Status: workflow.NodeFailed, Why: "409: <script>already stamped</script>"},
			{ID: "tell", Kind: workflow.KindTool, Skill: "ring_bell", Status: workflow.NodePending},
		},
		Claims: []workflow.Claim{{Claim: "success", Verified: false, Why: "no success receipt for stamp", Seq: 9}},
	}
	return harness.Result{Format: 1, Version: "v@1", Case: "w1", Suite: "normal", Tags: []string{},
		Expect:   harness.Expect{Outcome: "completed"},
		Decision: router.Decision{Action: router.Confirm, Skill: "ship_crate", Gate: "normal", Confidence: 0.9},
		Failure:  harness.FailWorkflowOutcome, Workflow: o}
}

var _ = Describe("workflow runs in reports", func() {
	It("draw each run as its nodes in order, with status, retries, receipts, confirmations and flagged claims, escaped", func() {
		rs := []harness.Result{wfResult()}
		in := reports.Input{Results: rs, Summary: harness.Score(rs)}
		html := renderHTML(in)
		Expect(html).To(ContainSubstring(`<section id="workflows">`))
		fetch := strings.Index(html, `<code>fetch</code>`)
		stamp := strings.Index(html, `<code>stamp</code>`)
		tell := strings.Index(html, `<code>tell</code>`)
		Expect(fetch).To(BeNumerically(">", 0))
		Expect(fetch < stamp && stamp < tell).To(BeTrue(), "nodes in plan order")
		Expect(html).To(ContainSubstring(`<li class="wf-node wf-retried"><code>fetch</code> tool fetch_crate: <strong>retried</strong> · retries 1`))
		Expect(html).To(ContainSubstring(`receipt write failed -`))
		Expect(html).To(ContainSubstring(`asked (normal gate): yes`))
		Expect(html).To(ContainSubstring(`class="wf-flagged">⚠ unverified: model claims success`))
		Expect(html).To(ContainSubstring(`outcome: expected completed, got failed`))
		Expect(html).NotTo(ContainSubstring(`<script>already`))
		Expect(html).To(ContainSubstring(`&lt;script&gt;already stamped&lt;/script&gt;`))
		Expect(renderHTML(in)).To(Equal(html), "deterministic")
	})

	It("leave a report without workflow cases as it was", func() {
		Expect(renderHTML(reports.Input{})).NotTo(ContainSubstring(`id="workflows"`))
	})

	It("name what differed in JUnit", func() {
		var b bytes.Buffer
		Expect(reports.WriteJUnit(&b, []harness.Result{wfResult()})).To(Succeed())
		Expect(b.String()).To(ContainSubstring(`message="decided confirm ship_crate; outcome: expected completed, got failed"`))
		Expect(b.String()).To(ContainSubstring("\n  node fetch retried retries 1\n  node stamp failed: 409"))
		Expect(b.String()).To(ContainSubstring("\nexpected: outcome completed\n"))
		Expect(b.String()).To(ContainSubstring("\ndiffers: outcome: expected completed, got failed\n"))
	})
})
