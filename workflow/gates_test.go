package workflow_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/workflow"
)

func preview(n int) *workflow.Preview {
	list := make([]any, n)
	for i := range list {
		list[i] = fmt.Sprintf("box-%02d", i)
	}
	return &workflow.Preview{Count: n, Items: list}
}

var shredFlow = withHead(`      - {id: shred, tool: shred_boxes, params: {shelf: "{{params.shelf}}"}}`)

var _ = Describe("Gates", func() {
	DescribeTable("the batch gate triggers by count: above 10, with the count and 3 samples",
		func(n int, wantBatch bool) {
			// report is a normal-gate skill: only the count can make it batch.
			h := newHarness(workflow.SimScript{"file_report": {{OK: map[string]any{"report_id": "R"}, Preview: preview(n)}}})
			w := mustParse(h.reg, withHead(`      - {id: report, tool: file_report, params: {title: "{{params.shelf}}"}}`))
			c := workflow.NewScriptedConfirmer(workflow.ConfirmResponse{Answer: workflow.Yes})
			o := h.run(w, workflow.RunInput{Params: shelf, Confirmer: c})
			Expect(o.Outcome).To(Equal(workflow.Completed))
			asked := c.Asked()
			Expect(asked).To(HaveLen(1))
			if wantBatch {
				Expect(asked[0].Gate).To(Equal("batch"))
				Expect(asked[0].Count).To(Equal(n))
				Expect(asked[0].Sample).To(Equal([]any{"box-00", "box-01", "box-02"}))
				Expect(asked[0].Message).To(ContainSubstring(fmt.Sprintf("%d items", n)))
			} else {
				Expect(asked[0].Gate).To(Equal("normal"))
			}
			Expect(o.Receipts[0].Preview.Count).To(Equal(n))
		},
		Entry("10 items: normal", 10, false),
		Entry("11 items: batch", 11, true),
	)

	It("asks a batch skill's gate even under the threshold", func() {
		h := newHarness(workflow.SimScript{"shred_boxes": {{OK: map[string]any{"n": 2}, Preview: preview(2)}}})
		c := workflow.NewScriptedConfirmer(workflow.ConfirmResponse{Answer: workflow.Yes})
		o := h.run(mustParse(h.reg, shredFlow), workflow.RunInput{Params: shelf, Confirmer: c})
		Expect(o.Outcome).To(Equal(workflow.Completed))
		Expect(c.Asked()[0].Gate).To(Equal("batch"))
		Expect(c.Asked()[0].Sample).To(HaveLen(2))
	})

	Describe("irreversible actions", func() {
		voidFlow := withHead(`      - {id: void, tool: void_invoice, params: {invoices: ["{{params.shelf}}", "INV-2"]}}`)

		It("refuses bulk from the params, before asking anyone", func() {
			h := newHarness(workflow.SimScript{"void_invoice": {ok(map[string]any{"voided": 2})}})
			c := workflow.NewScriptedConfirmer(workflow.ConfirmResponse{Answer: workflow.Yes})
			o := h.run(mustParse(h.reg, voidFlow), workflow.RunInput{Params: shelf, Confirmer: c})
			Expect(o.Outcome).To(Equal(workflow.Refused))
			Expect(o.Reason).To(Equal(workflow.ReasonIrreversibleBulk))
			Expect(o.ErrorMessage).To(ContainSubstring("must be done one at a time"))
			Expect(o.Calls).To(BeEmpty())
			Expect(c.Asked()).To(BeEmpty())
		})

		It("refuses bulk from the preview", func() {
			h := newHarness(workflow.SimScript{"void_invoice": {{OK: map[string]any{"voided": 3}, Preview: preview(3)}}})
			w := mustParse(h.reg, withHead(`      - {id: void, tool: void_invoice, params: {invoice: "{{params.shelf}}"}}`))
			o := h.run(w, workflow.RunInput{Params: shelf, Confirmer: yes()})
			Expect(o.Outcome).To(Equal(workflow.Refused))
			Expect(o.ErrorMessage).To(ContainSubstring("would affect 3 items"))
			Expect(o.Calls).To(BeEmpty())
		})

		It("asks the irreversible gate for one item", func() {
			h := newHarness(workflow.SimScript{"void_invoice": {ok(map[string]any{"voided": 1})}})
			w := mustParse(h.reg, withHead(`      - {id: void, tool: void_invoice, params: {invoice: "{{params.shelf}}"}}`))
			c := workflow.NewScriptedConfirmer(workflow.ConfirmResponse{Answer: workflow.Yes})
			o := h.run(w, workflow.RunInput{Params: shelf, Confirmer: c})
			Expect(o.Outcome).To(Equal(workflow.Completed))
			Expect(c.Asked()[0].Gate).To(Equal("irreversible"))
		})
	})

	Describe("confirmations", func() {
		DescribeTable("only yes goes on",
			func(answer workflow.Answer, status workflow.Status, reason string) {
				h := newHarness(happyScript())
				c := workflow.NewScriptedConfirmer(workflow.ConfirmResponse{Answer: answer})
				o := h.run(mustParse(h.reg, pipeline), workflow.RunInput{Params: shelf, Confirmer: c})
				Expect(o.Outcome).To(Equal(status))
				Expect(o.Reason).To(Equal(reason))
				Expect(o.StoppedAt).To(Equal("report"))
				Expect(o.CallSkills()).To(Equal([]string{"list_widgets", "get_gauge"}), "no side effect without a yes")
				Expect(o.Receipts).To(BeEmpty())
			},
			Entry("a timeout is a refusal", workflow.Timeout, workflow.Refused, workflow.ReasonConfirmTimeout),
			Entry("no refuses", workflow.No, workflow.Refused, workflow.ReasonDeclined),
			Entry("a garbled answer is a timeout", workflow.Answer("maybe"), workflow.Refused, workflow.ReasonConfirmTimeout),
			Entry("pending suspends", workflow.Pending, workflow.AwaitingConfirmation, workflow.ReasonAwaiting),
		)

		It("suspends at the first gate when nobody can answer, showing the question", func() {
			h := newHarness(happyScript())
			o := h.run(mustParse(h.reg, pipeline), workflow.RunInput{Params: shelf})
			Expect(o.Outcome).To(Equal(workflow.AwaitingConfirmation))
			Expect(o.Pending).NotTo(BeNil())
			Expect(o.Pending.Node).To(Equal("report"))
			Expect(o.Nodes[2].Status).To(Equal(workflow.NodePending))
		})

		It("checks permissions again after a yes: a scope revoked while waiting stops the run", func() {
			h := newHarness(happyScript())
			c := workflow.NewScriptedConfirmer(workflow.ConfirmResponse{Answer: workflow.Yes, Revoked: []string{"t:send"}})
			o := h.run(mustParse(h.reg, pipeline), workflow.RunInput{Params: shelf, Confirmer: c})
			Expect(o.Outcome).To(Equal(workflow.Refused))
			Expect(o.Reason).To(Equal(workflow.ReasonPermRevoked))
			Expect(o.StoppedAt).To(Equal("report"))
			Expect(o.ErrorMessage).To(ContainSubstring("t:send"))
			Expect(o.CallSkills()).NotTo(ContainElement("file_report"))
			Expect(eventsOf(o, workflow.EvPermRevoked)).To(HaveLen(1))
		})

		It("lets a confirm node meet the normal gate of the write right after it, and refuses on its timeout", func() {
			flow := withHead(
				`      - {id: gauge, tool: get_gauge, params: {name: "{{params.shelf}}"}}`,
				`      - {id: ok_to_file, confirm: {message: "file it? gauge is {{gauge.value}}", timeout: 5m}}`,
				`      - {id: report, tool: file_report, after: [ok_to_file, gauge], params: {title: t}}`,
			)
			h := newHarness(happyScript())
			c := workflow.NewScriptedConfirmer(workflow.ConfirmResponse{Answer: workflow.Yes})
			o := h.run(mustParse(h.reg, flow), workflow.RunInput{Params: shelf, Confirmer: c})
			Expect(o.Outcome).To(Equal(workflow.Completed))
			Expect(c.Asked()).To(HaveLen(1), "one question covers the write")
			Expect(c.Asked()[0].Message).To(Equal("file it? gauge is 7"))
			Expect(c.Asked()[0].Timeout.Minutes()).To(Equal(5.0))
			Expect(o.Confirmations[1].Via).To(Equal("ok_to_file"))

			h2 := newHarness(happyScript())
			o2 := h2.run(mustParse(h2.reg, flow), workflow.RunInput{Params: shelf, Confirmer: workflow.NewScriptedConfirmer()})
			Expect(o2.Outcome).To(Equal(workflow.Refused))
			Expect(o2.StoppedAt).To(Equal("ok_to_file"))
			Expect(o2.Reason).To(Equal(workflow.ReasonConfirmTimeout))
		})
	})
})
