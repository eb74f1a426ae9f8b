package workflow_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router/registry"
	"github.com/routebench/routebench/workflow"
)

// A made-up registry whose write asks for an extra scope by param value.
const vaultSkills = `
skills:
  - name: count_crates
    description: Count crates in a hall.
    side_effect: read
    permission_scope: [c:read]
    params_schema: {type: object, required: [hall], properties: {hall: {type: string}}}
  - name: move_crates
    description: Move crates between halls.
    side_effect: write
    permission_scope: [c:write]
    confirm: normal
    params_schema:
      type: object
      required: [hall]
      properties:
        hall: {type: string, enum: [north, vault], x-permission: {vault: [c:vault]}}
`

var _ = Describe("permission pre-flight", func() {
	flow := lines(
		"workflows:",
		"  - name: shift",
		"    description: Count, then move crates.",
		"    params_schema: {type: object, required: [hall], properties: {hall: {type: string}}}",
		"    nodes:",
		`      - {id: count, tool: count_crates, params: {hall: "{{params.hall}}"}}`,
		`      - {id: move, tool: move_crates, after: [count], params: {hall: "{{params.hall}}"}}`,
	)
	run := func(hall string) (*workflow.Outcome, *workflow.ScriptedConfirmer) {
		skills, err := registry.ParseSkills("skills.yaml", []byte(vaultSkills))
		Expect(err).NotTo(HaveOccurred())
		reg, err := registry.New(skills)
		Expect(err).NotTo(HaveOccurred())
		set, err := workflow.Parse("workflows.yaml", flow, reg)
		Expect(err).NotTo(HaveOccurred())
		tools := workflow.NewSimTools(workflow.SimScript{
			"count_crates": {ok(map[string]any{"count": 4.0})},
			"move_crates":  {ok(map[string]any{"moved": 4.0})},
		})
		c := workflow.NewScriptedConfirmer(workflow.ConfirmResponse{Answer: workflow.Yes})
		e := &workflow.Engine{Tools: tools, Registry: reg, Store: workflow.NewMemoryStore(), Clock: workflow.NewManualClock(epoch)}
		o, err := e.Run(context.Background(), workflow.RunInput{ID: "r", Workflow: set.Workflows[0],
			Params: map[string]any{"hall": hall}, Caller: workflow.Caller{Scopes: []string{"c:read", "c:write"}}, Confirmer: c})
		Expect(err).NotTo(HaveOccurred())
		return o, c
	}

	It("refuses before any call or question when a node's params, known from the workflow's own, need a scope the caller lacks", func() {
		o, _ := run("vault")
		Expect(o.Outcome).To(Equal(workflow.Refused))
		Expect(o.StoppedAt).To(Equal("move"))
		Expect(o.ErrorMessage).To(ContainSubstring("c:vault"))
		Expect(o.Calls).To(BeEmpty(), "nothing is read for a task that will be refused")
		Expect(o.Confirmations).To(BeEmpty(), "nobody is asked to approve it")
	})

	It("runs the same workflow when the value needs no extra scope", func() {
		o, _ := run("north")
		Expect(o.Outcome).To(Equal(workflow.Completed))
		Expect(o.CallSkills()).To(Equal([]string{"count_crates", "move_crates"}))
	})
})
