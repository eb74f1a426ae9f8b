package workflow

import (
	"context"
	"sync"

	"github.com/routebench/routebench/router/registry"
)

// StepKind is what a model asks the engine to do next.
type StepKind string

const (
	StepFollow StepKind = "follow" // run the next step of the plan
	StepCall   StepKind = "call"   // call a skill with params of the model's choosing
	StepRetry  StepKind = "retry"  // retry a node
	StepClaim  StepKind = "claim"  // say the run (or a node) succeeded or failed
)

// Step is one answer of a model. Only the engine acts on it, and only
// within the guards: a step is advice, never an order.
type Step struct {
	Kind   StepKind       `json:"kind"`
	Skill  string         `json:"skill,omitempty"`
	Params map[string]any `json:"params,omitempty"`
	Node   string         `json:"node,omitempty"`
	Claim  string         `json:"claim,omitempty"` // success | failure
	Pos    registry.Pos   `json:"-"`
}

// View is what the model is shown when consulted.
type View struct {
	Workflow string
	// Ended is set once the run has an outcome; the model may still claim.
	Ended   bool
	Outcome Status
	Nodes   []NodeState
	Error   *ToolError
}

// Model is consulted before every step of a run and once the run has
// ended, until it answers StepFollow.
type Model interface {
	Next(ctx context.Context, v View) Step
}

// PlanModel is the builtin model: it always follows the plan and claims
// nothing, leaving the report to the receipts.
type PlanModel struct{}

func (PlanModel) Next(context.Context, View) Step { return Step{Kind: StepFollow} }

// ScriptModel answers scripted steps in order, then follows the plan. It is
// how a case proves the guards hold against a model that misbehaves. A
// claim waits until the run has ended and a retry until its node has run,
// so a script reads as what the model says after the fact ("retry it",
// "it worked") without counting plan steps.
type ScriptModel struct {
	mu    sync.Mutex
	steps []Step
	next  int
}

// NewScriptModel answers steps in order.
func NewScriptModel(steps ...Step) *ScriptModel { return &ScriptModel{steps: steps} }

func (m *ScriptModel) Next(_ context.Context, v View) Step {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.next >= len(m.steps) {
		return Step{Kind: StepFollow}
	}
	s := m.steps[m.next]
	if !v.Ended && (s.Kind == StepClaim || (s.Kind == StepRetry && !hasRun(v, s.Node))) {
		return Step{Kind: StepFollow}
	}
	m.next++
	return s
}

func hasRun(v View, node string) bool {
	for _, n := range v.Nodes {
		if n.ID == node {
			return n.Status != NodePending
		}
	}
	return true // an unknown node is refused by the engine at once
}
