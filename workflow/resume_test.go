package workflow_test

import (
	"context"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/workflow"
)

var _ = Describe("Checkpoints", func() {
	It("resume a re-run: done nodes are skipped and recorded, the failed one runs again", func() {
		s := happyScript()
		s["ping_team"] = []workflow.SimResponse{{Fault: workflow.FaultServerError, Code: 503}, {Fault: workflow.FaultServerError, Code: 503}}
		h := newHarness(s)
		w := mustParse(h.reg, pipeline)
		first := h.run(w, workflow.RunInput{ID: "task-7", Params: shelf, Confirmer: yes()})
		Expect(first.Outcome).To(Equal(workflow.Failed))
		Expect(first.StoppedAt).To(Equal("ping"))

		h.tools = workflow.NewSimTools(happyScript()) // the outage is over
		second := h.run(w, workflow.RunInput{ID: "task-7", Params: shelf, Confirmer: yes()})
		Expect(second.Outcome).To(Equal(workflow.Completed))
		Expect(second.Checkpoints.Skipped).To(Equal([]string{"widgets", "gauge", "report"}))
		Expect(second.CallSkills()).To(Equal([]string{"ping_team"}), "the report is not filed twice")
		Expect(second.Calls[0].Params).To(HaveKeyWithValue("text", "filed RPT-9"), "outputs restored from the store")
		Expect(workflow.Guards(second).ResumeSkippedNodes).To(Equal(3))
		Expect(second.Nodes[2].Status).To(Equal(workflow.NodeSkipped))
	})

	It("skip exactly the nodes whose input hash is unchanged", func() {
		h := newHarness(happyScript())
		w := mustParse(h.reg, pipeline)
		h.run(w, workflow.RunInput{ID: "task-8", Params: shelf, Confirmer: yes()})
		h.tools = workflow.NewSimTools(happyScript())
		o := h.run(w, workflow.RunInput{ID: "task-8", Params: map[string]any{"shelf": "C1"}, Confirmer: yes()})
		// New params change both reads; their outputs (scripted the same)
		// make the write's input, and so its key, the same: it is skipped.
		Expect(o.CallSkills()).To(Equal([]string{"list_widgets", "get_gauge"}))
		Expect(o.Checkpoints.Skipped).To(Equal([]string{"report", "ping"}))
	})

	It("never send a key twice even when the checkpoint was lost after the call", func() {
		h := newHarness(happyScript())
		w := mustParse(h.reg, pipeline)
		first := h.run(w, workflow.RunInput{ID: "task-9", Params: shelf, Confirmer: yes()})
		// A store that kept the ledger but lost every checkpoint: a crash
		// between the call and its checkpoint.
		ledgerOnly := workflow.NewMemoryStore()
		for _, rc := range first.Receipts {
			Expect(ledgerOnly.SaveExecuted(rc.Key, rc)).To(Succeed())
			raw, _, _ := h.store.Output(rc.OutputRef)
			Expect(ledgerOnly.SaveOutput(rc.OutputRef, raw)).To(Succeed())
		}
		h.store, h.tools = ledgerOnly, workflow.NewSimTools(happyScript())
		o := h.run(w, workflow.RunInput{ID: "task-9", Params: shelf, Confirmer: yes()})
		Expect(o.Outcome).To(Equal(workflow.Completed))
		Expect(o.CallSkills()).To(Equal([]string{"list_widgets", "get_gauge"}))
		Expect(eventsOf(o, workflow.EvDuplicateBlocked)).To(HaveLen(2))
	})

	It("survive a process restart in a FileStore", func() {
		path := filepath.Join(GinkgoT().TempDir(), "cp.json")
		reg := testRegistry()
		w := mustParse(reg, pipeline)
		s := happyScript()
		s["ping_team"] = []workflow.SimResponse{{Fault: workflow.FaultClientError, Code: 403, Message: "team muted"}}
		runOnce := func(script workflow.SimScript) *workflow.Outcome {
			store, err := workflow.OpenFileStore(path)
			Expect(err).NotTo(HaveOccurred())
			e := &workflow.Engine{Tools: workflow.NewSimTools(script), Store: store, Clock: workflow.NewManualClock(epoch)}
			o, err := e.Run(context.Background(), workflow.RunInput{ID: "task-f", Workflow: w, Params: shelf, Caller: workflow.Caller{Scopes: allScopes}, Confirmer: yes()})
			Expect(err).NotTo(HaveOccurred())
			return o
		}
		Expect(runOnce(s).ErrorMessage).To(Equal("team muted"))
		o := runOnce(happyScript())
		Expect(o.Outcome).To(Equal(workflow.Completed))
		Expect(o.Checkpoints.Skipped).To(HaveLen(3))
	})
})

var _ = Describe("Decisions", func() {
	flow := withHead(
		`      - {id: gauge, tool: get_gauge, params: {name: "{{params.shelf}}"}}`,
		`      - {id: level, decision: {on: "{{gauge.state}}", cases: {hot: report, calm: calm}}}`,
		`      - {id: report, tool: file_report, after: [level, gauge], params: {title: "gauge at {{gauge.value}}"}}`,
		`      - {id: ping, tool: ping_team, after: [report], params: {to: ops, text: "{{report.report_id}}"}}`,
		`      - {id: calm, aggregate: [gauge], rule: first_non_empty}`,
	)
	gauge := func(state string) workflow.SimScript {
		s := happyScript()
		s["get_gauge"] = []workflow.SimResponse{ok(map[string]any{"value": 3.5, "state": state})}
		return s
	}

	It("takes the chosen case and skips the other branch with what depends on it", func() {
		h := newHarness(gauge("calm"))
		o := h.run(mustParse(h.reg, flow), workflow.RunInput{Params: shelf, Confirmer: yes()})
		Expect(o.Outcome).To(Equal(workflow.Completed))
		Expect(o.CallSkills()).To(Equal([]string{"get_gauge"}))
		st := map[string]workflow.NodeStatus{}
		for _, n := range o.Nodes {
			st[n.ID] = n.Status
		}
		Expect(st).To(Equal(map[string]workflow.NodeStatus{"gauge": "done", "level": "done", "report": "skipped", "ping": "skipped", "calm": "done"}))
		Expect(workflow.Guards(o).UnverifiedClaims).To(BeZero(), "skipped side effects need no receipt")
	})

	It("fails rather than guess on a value none of the cases names", func() {
		h := newHarness(gauge("warm"))
		o := h.run(mustParse(h.reg, flow), workflow.RunInput{Params: shelf, Confirmer: yes()})
		Expect(o.Outcome).To(Equal(workflow.Failed))
		Expect(o.StoppedAt).To(Equal("level"))
		Expect(o.Reason).To(Equal(workflow.ReasonNoMatchingCase))
		Expect(o.ErrorMessage).To(ContainSubstring(`"warm"`), "a value its schema allows that no case covers")
	})
})
