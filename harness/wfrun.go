package harness

import (
	"context"
	"fmt"
	"time"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
	"github.com/routebench/routebench/workflow"
)

// ReasonNotRouted is the reason of a workflow case's outcome when the
// router did not act (it refused, clarified or failed): the outcome is
// refused and nothing ran.
const ReasonNotRouted = "not_routed"

// simEpoch starts a case's manual clock when the case gives no now.
var simEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// VersionWorkflows is a version prepared for workflow cases: its
// workflows, and its skills with the workflows routable among them.
type VersionWorkflows struct {
	Set *workflow.Set
	// Routing is the version's registry plus each workflow as a skill:
	// what the router chooses among and what policy is checked against.
	Routing *registry.Registry
}

// PrepareWorkflows loads v's workflows and its routing registry.
func PrepareWorkflows(v *registry.Version) (*VersionWorkflows, error) {
	set, err := LoadWorkflows(v)
	if err != nil {
		return nil, err
	}
	routing, err := RoutingRegistry(v.Registry, set)
	if err != nil {
		return nil, fmt.Errorf("route workflows of %s: %w", v.ID(), err)
	}
	return &VersionWorkflows{Set: set, Routing: routing}, nil
}

// RunWorkflowCase runs what the router decided for a workflow case through
// the engine, with the case's simulated tools, scripted model and scripted
// confirmer, and the case's caller:
//
//   - a decision acting (execute or confirm) on a workflow runs it with the
//     decision's params;
//   - a decision acting on a plain skill runs it as a one-node plan
//     (workflow.SingleSkill), so the same guards apply;
//   - any other decision runs nothing: the outcome is refused with reason
//     not_routed and no calls.
//
// The router's confirm action is the plan-level gate and counts as passed
// once the engine runs (the case is about what follows); the case's
// confirm answers are consumed by the engine's own gates, per node, in
// the order it asks. The run id is the case id and the version id, the
// checkpoint store is in memory, and the clock is a ManualClock starting
// at the case's now, so no run sleeps and equal inputs give equal
// outcomes. Reads of one wave are sent one at a time in plan order
// (MaxParallel 1): their calls still overlap in the outcome's sequence
// numbers, and scripted answers of a skill called by two nodes of the
// same wave go to them in plan order rather than in goroutine order.
//
// With a resume script, the same task runs again with the same run id and
// store, under the resume's tools (replacing the first run's skill by
// skill), its confirmations (the first run's when left out) and the plan
// model.
func RunWorkflowCase(ctx context.Context, v *registry.Version, vw *VersionWorkflows, c *Case, d router.Decision) (first, resume *workflow.Outcome, err error) {
	if c.Workflow == nil {
		return nil, nil, nil
	}
	runID := c.ID + "@" + v.ID()
	reg := v.Registry
	var set *workflow.Set
	if vw != nil {
		set = vw.Set
	}
	if c.Tools != nil {
		reg, set = c.Tools, nil // the case's own skill set replaces the version's
	}
	w := planFor(d, reg, set)
	if w == nil {
		first = notRouted(runID, d)
		if c.Workflow.Resume != nil {
			resume = notRouted(runID, d)
		}
		return first, resume, nil
	}
	start := simEpoch
	if c.Now != "" {
		if t, err := time.Parse(time.RFC3339, c.Now); err == nil {
			start = t
		}
	}
	clock := workflow.NewManualClock(start)
	store := workflow.NewMemoryStore()
	caller := workflow.Caller{Scopes: c.Caller.Scopes, Disabled: c.Caller.Disabled}
	wc := c.Workflow

	confirm, err := wc.confirmer(wc.Confirm, wc.field+".confirm")
	if err != nil {
		return nil, nil, fmt.Errorf("case %s: %w", c.ID, err)
	}
	in := workflow.RunInput{ID: runID, Workflow: w, Params: d.Params, Caller: caller, Confirmer: confirm}
	if wc.Model != nil {
		in.Model = workflow.NewScriptModel(wc.Model...)
	}
	e := &workflow.Engine{Tools: workflow.NewSimTools(wc.Tools), Registry: reg, Store: store, Clock: clock, MaxParallel: 1}
	if first, err = e.Run(ctx, in); err != nil {
		return nil, nil, fmt.Errorf("case %s under %s: %w", c.ID, v.ID(), err)
	}
	if wc.Resume == nil {
		return first, nil, nil
	}
	// The resume's answers replace the first run's skill by skill.
	tools, confirmNode := workflow.SimScript{}, wc.Confirm
	for skill, answers := range wc.Tools {
		tools[skill] = answers
	}
	for skill, answers := range wc.Resume.Tools {
		tools[skill] = answers
	}
	if wc.Resume.Confirm != nil {
		confirmNode = wc.Resume.Confirm
	}
	if in.Confirmer, err = wc.confirmer(confirmNode, wc.field+".resume.confirm"); err != nil {
		return nil, nil, fmt.Errorf("case %s: %w", c.ID, err)
	}
	in.Model = nil
	e.Tools = workflow.NewSimTools(tools)
	if resume, err = e.Run(ctx, in); err != nil {
		return nil, nil, fmt.Errorf("case %s under %s (resume): %w", c.ID, v.ID(), err)
	}
	return first, resume, nil
}

// planFor is the workflow a decision runs, or nil when it runs nothing.
func planFor(d router.Decision, reg *registry.Registry, set *workflow.Set) *workflow.Workflow {
	if !d.Action.Acts() {
		return nil
	}
	if w := set.Workflow(d.Skill); w != nil {
		return w
	}
	if s := reg.Skill(d.Skill); s != nil {
		return workflow.SingleSkill(s, d.Params)
	}
	return nil
}

// notRouted is the outcome of a decision that runs nothing, with every
// list empty rather than null, as the engine writes them.
func notRouted(runID string, d router.Decision) *workflow.Outcome {
	msg := fmt.Sprintf("the router decided %s; nothing ran", d.Action)
	if d.Action.Acts() {
		msg = fmt.Sprintf("the router decided %s %s, which is neither a skill nor a workflow of this version; nothing ran", d.Action, d.Skill)
	}
	return &workflow.Outcome{
		Format: workflow.OutcomeFormat, RunID: runID, Outcome: workflow.Refused,
		Reason: ReasonNotRouted, ErrorMessage: msg,
		SideEffectOrder: []string{}, Calls: []workflow.Call{}, Retries: map[string]int{},
		Receipts: []workflow.Receipt{}, Confirmations: []workflow.Confirmation{},
		Checkpoints: workflow.CheckpointLog{Written: []workflow.Checkpoint{}, Skipped: []string{}},
		Nodes:       []workflow.NodeState{}, Claims: []workflow.Claim{},
		Report: workflow.Report{Succeeded: []string{}, Empty: []workflow.EmptyResult{}}, Events: []workflow.Event{},
	}
}
