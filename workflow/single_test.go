package workflow_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/workflow"
)

var _ = Describe("SingleSkill", func() {
	It("runs a plain skill as a one-node plan under the same gate and receipts", func() {
		h := newHarness(workflow.SimScript{"file_report": {ok(map[string]any{"report_id": "RPT-1"})}})
		w := workflow.SingleSkill(h.reg.Skill("file_report"), map[string]any{"title": "{{not a ref}}"})
		Expect(w.Order()).To(HaveLen(1))
		o := h.run(w, workflow.RunInput{Params: map[string]any{"title": "{{not a ref}}"}, Confirmer: yes()})
		Expect(o.Outcome).To(Equal(workflow.Completed))
		Expect(o.CallSkills()).To(Equal([]string{"file_report"}))
		Expect(o.Calls[0].Params).To(HaveKeyWithValue("title", "{{not a ref}}"), "a param value is data, never a template")
		Expect(o.Confirmations).To(HaveLen(1))
		Expect(o.Receipts).To(HaveLen(1))
		Expect(workflow.Guards(o)).To(Equal(workflow.GuardCounts{}))
	})

	It("fails the node, not the run's params, on params the skill rejects", func() {
		h := newHarness(workflow.SimScript{"list_widgets": {ok(items(1))}})
		w := workflow.SingleSkill(h.reg.Skill("list_widgets"), map[string]any{"colour": "green"})
		o := h.run(w, workflow.RunInput{Params: map[string]any{"colour": "green"}})
		Expect(o.Outcome).To(Equal(workflow.Failed))
		Expect(o.StoppedAt).To(Equal("list_widgets"))
		Expect(o.Calls).To(BeEmpty())
	})
})
