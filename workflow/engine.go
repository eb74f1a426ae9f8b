package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/routebench/routebench/router/registry"
)

// BatchThreshold is the item count above which a side-effect call gets the
// batch gate: the confirmation shows the count and up to SampleSize items.
const BatchThreshold = 10

// Engine runs workflows against tools. One Engine may run many workflows
// concurrently; each Run has its own state.
type Engine struct {
	Tools Tools
	// Registry resolves skills a model names outside the plan; nil limits
	// the model to the workflow's own skills.
	Registry *registry.Registry
	// Store keeps checkpoints, outputs and the executed-keys ledger; nil
	// gives each run a fresh MemoryStore (no resume).
	Store CheckpointStore
	// Clock times checkpoints and Retry-After waits; nil is the real clock.
	Clock Clock
	// MaxParallel bounds concurrent read calls (default 4).
	MaxParallel int
}

// Caller is who runs the workflow: the scopes held and skills disabled.
type Caller struct {
	Scopes   []string `json:"scopes,omitempty"`
	Disabled []string `json:"disabled,omitempty"`
}

// RunInput is one run of one workflow.
type RunInput struct {
	// ID names the run: idempotency keys and checkpoints derive from it, so
	// re-running the same task resumes only with the same ID.
	ID       string
	Workflow *Workflow
	Params   map[string]any
	Caller   Caller
	// Model is consulted before each step; nil is PlanModel.
	Model Model
	// Confirmer answers gates; nil suspends the run at the first one
	// (outcome awaiting_confirmation).
	Confirmer Confirmer
}

// Run executes the workflow as a state machine over its DAG and returns
// what happened. Tool failures, refusals and guard stops are outcomes, not
// errors: the error is for a bad RunInput, a cancelled ctx or a store that
// cannot save (a run that cannot checkpoint must not go on).
func (e *Engine) Run(ctx context.Context, in RunInput) (*Outcome, error) {
	switch {
	case in.Workflow == nil || in.Workflow.byID == nil:
		return nil, errors.New("workflow: run needs a workflow loaded by Parse")
	case in.ID == "":
		return nil, errors.New("workflow: run needs an id (it derives idempotency keys and checkpoints)")
	case e.Tools == nil:
		return nil, errors.New("workflow: engine has no tools")
	}
	r := newRun(ctx, e, in)
	r.start()
	limit := 4*len(r.w.Nodes) + 64
	for steps := 0; !r.ended && r.err == nil; steps++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("workflow run %s: %w", in.ID, err)
		}
		if steps > limit {
			r.end(Stopped, "", ReasonStepLimit, ReasonStepLimit, fmt.Sprintf("the model took %d steps without finishing a %d-node plan; stopped", steps, len(r.w.Nodes)), "")
			break
		}
		r.step(r.model.Next(ctx, r.view()))
	}
	// After the end the model may still speak (claim, insist on a retry):
	// every such step is recorded and judged, none acts.
	for i := 0; i < limit && r.err == nil; i++ {
		st := r.model.Next(ctx, r.view())
		if st.Kind == StepFollow || st.Kind == "" {
			break
		}
		r.step(st)
	}
	if r.err != nil {
		return nil, fmt.Errorf("workflow run %s: %w", in.ID, r.err)
	}
	r.finish()
	return r.o, nil
}

// run is the state of one Run.
type run struct {
	ctx      context.Context
	e        *Engine
	in       RunInput
	w        *Workflow
	clock    Clock
	store    CheckpointStore
	model    Model
	o        *Outcome
	seq      int
	scopes   map[string]bool
	disabled map[string]bool
	avail    map[string]bool
	roots    map[string]any // "params" and node id -> the view templates read
	raw      map[string]any // node id -> raw output, for aggregates
	state    map[string]*NodeState
	branch   map[string]bool   // nodes skipped because a branch was not taken
	chosen   map[string]string // decision id -> target
	yes      map[string]bool   // confirm nodes answered yes
	nodeErr  map[string]*ToolError
	window   []string
	lastErr  *ToolError
	ended    bool
	err      error
}

func newRun(ctx context.Context, e *Engine, in RunInput) *run {
	r := &run{
		ctx: ctx, e: e, in: in, w: in.Workflow, clock: e.Clock, store: e.Store, model: in.Model,
		scopes: map[string]bool{}, disabled: map[string]bool{}, avail: map[string]bool{},
		roots: map[string]any{}, raw: map[string]any{}, state: map[string]*NodeState{},
		branch: map[string]bool{}, chosen: map[string]string{}, yes: map[string]bool{}, nodeErr: map[string]*ToolError{},
	}
	if r.clock == nil {
		r.clock = realClock{}
	}
	if r.store == nil {
		r.store = NewMemoryStore()
	}
	if r.model == nil {
		r.model = PlanModel{}
	}
	r.o = &Outcome{
		Format: OutcomeFormat, RunID: in.ID, Workflow: r.w.Name,
		SideEffectOrder: []string{}, Calls: []Call{}, Retries: map[string]int{}, Receipts: []Receipt{},
		Confirmations: []Confirmation{}, Checkpoints: CheckpointLog{Written: []Checkpoint{}, Skipped: []string{}},
		Claims: []Claim{}, Report: Report{Succeeded: []string{}, Empty: []EmptyResult{}}, Events: []Event{},
	}
	for _, s := range in.Caller.Scopes {
		r.scopes[s] = true
	}
	for _, s := range in.Caller.Disabled {
		r.disabled[s] = true
	}
	for _, n := range r.w.Nodes {
		st := &NodeState{ID: n.ID, Kind: n.Kind, Skill: n.Tool, Status: NodePending}
		r.state[n.ID] = st
	}
	for _, n := range r.w.order {
		if n.SideEffect().Acts() {
			r.o.SideEffectOrder = append(r.o.SideEffectOrder, n.ID)
		}
	}
	return r
}

func (r *run) next() int { r.seq++; return r.seq }

func (r *run) event(ev Event) int {
	ev.Seq = r.next()
	r.o.Events = append(r.o.Events, ev)
	return ev.Seq
}

// end gives the run its outcome; the first outcome stands.
func (r *run) end(status Status, at, reason, code, msg, skill string) {
	if r.ended {
		return
	}
	r.ended = true
	r.o.Outcome, r.o.StoppedAt, r.o.Reason = status, at, reason
	r.o.ErrorCode, r.o.ErrorMessage, r.o.SkillUsed = code, msg, skill
	if st := r.state[at]; st != nil && status != AwaitingConfirmation && (st.Status == NodePending || st.Status == NodeFailed) {
		st.Status, st.Why = NodeFailed, reason
		r.event(Event{Kind: EvNodeFailed, Node: at, Skill: skill, Code: code, Message: msg})
	}
}

// failTool ends the run on a tool's error, which is reported verbatim.
func (r *run) failTool(at, skill string, terr *ToolError) {
	reason := ReasonToolError
	switch terr.Code {
	case ReasonMalformed:
		reason = ReasonMalformed
	case ReasonUnavailable:
		reason = ReasonUnavailable
	}
	r.lastErr = terr
	r.end(Failed, at, reason, terr.Code, terr.Message, skill)
}

func (r *run) fail(err error) {
	if r.err == nil && err != nil {
		r.err = err
	}
}

// start checks params, permissions and discovery before anything runs.
func (r *run) start() {
	params := map[string]any{}
	if r.in.Params != nil {
		v, err := normalize(r.in.Params)
		m, ok := v.(map[string]any)
		if err != nil || !ok {
			r.end(Failed, StoppedAtParams, ReasonParamsInvalid, ReasonParamsInvalid, fmt.Sprintf("params are not a JSON object: %v", err), "")
			return
		}
		params = m
	}
	r.roots["params"] = params
	if r.w.Schema != nil {
		if err := r.w.Schema.Validate(params); err != nil {
			r.end(Failed, StoppedAtParams, ReasonParamsInvalid, ReasonParamsInvalid, "workflow params fail params_schema: "+schemaMessage(err), "")
			return
		}
	}
	if r.disabled[r.w.Name] {
		r.end(Refused, "", ReasonSkillDisabled, ReasonSkillDisabled, fmt.Sprintf("workflow %s is disabled for this caller", r.w.Name), "")
		return
	}
	for _, s := range r.w.Scopes() {
		if !r.scopes[s] {
			r.end(Refused, "", ReasonPermissionDenied, ReasonPermissionDenied,
				fmt.Sprintf("the caller lacks scope %s, which workflow %s needs; nothing ran", s, r.w.Name), "")
			return
		}
	}
	// A node whose params come from the workflow's params alone can be
	// checked for permission now (x-permission on a value, such as env:
	// prod): refusing before anything runs beats reading data and asking an
	// approver for a call that will be refused anyway. Nodes that read
	// earlier outputs are checked when they run.
	for _, n := range r.w.order {
		if n.Kind != KindTool {
			continue
		}
		v, err := renderValue(n.Params, map[string]any{"params": params})
		if err != nil {
			continue
		}
		p, _ := v.(map[string]any)
		if reason, msg := r.permitted(n.Skill, p); reason != "" {
			r.end(Refused, n.ID, reason, reason, msg+"; nothing ran", n.Tool)
			return
		}
	}
	var names []string
	for _, n := range r.w.order {
		if n.Kind != KindTool {
			continue
		}
		if r.disabled[n.Tool] {
			r.end(Refused, n.ID, ReasonSkillDisabled, ReasonSkillDisabled, fmt.Sprintf("skill %s (node %s) is disabled for this caller; nothing ran", n.Tool, n.ID), n.Tool)
			return
		}
		if !slices.Contains(names, n.Tool) {
			names = append(names, n.Tool)
		}
	}
	avail := FailClosed(r.ctx, r.e.Tools, names)
	for _, a := range avail {
		r.avail[a] = true
	}
	var missing []string
	for _, n := range names {
		if !r.avail[n] {
			missing = append(missing, n)
		}
	}
	r.event(Event{Kind: EvDiscovery, Message: fmt.Sprintf("available: [%s]; unavailable: [%s]", strings.Join(avail, ", "), strings.Join(missing, ", "))})
	for _, n := range r.w.order {
		if n.Kind == KindTool && !r.avail[n.Tool] {
			r.failTool(n.ID, n.Tool, &ToolError{Code: ReasonUnavailable,
				Message: fmt.Sprintf("%s's source is unavailable at discovery; the run fails closed before any step", n.Tool)})
			return
		}
	}
}

// step acts on one answer of the model, within the guards.
func (r *run) step(st Step) {
	switch st.Kind {
	case StepCall:
		r.modelCall(st)
	case StepRetry:
		r.modelRetry(st)
	case StepClaim:
		r.claim(st)
	default:
		if !r.ended {
			r.advance()
		}
	}
}

func (r *run) view() View {
	v := View{Workflow: r.w.Name, Ended: r.ended, Outcome: r.o.Outcome, Error: r.lastErr}
	v.Nodes = make([]NodeState, 0, len(r.w.Nodes))
	for _, n := range r.w.Nodes {
		v.Nodes = append(v.Nodes, *r.state[n.ID])
	}
	return v
}

func (r *run) finish() {
	if !r.ended {
		r.end(Completed, "", "", "", "", "")
	}
	r.o.Nodes = make([]NodeState, 0, len(r.w.Nodes))
	for _, n := range r.w.Nodes {
		r.o.Nodes = append(r.o.Nodes, *r.state[n.ID])
	}
	r.event(Event{Kind: EvEnd, Node: r.o.StoppedAt, Code: string(r.o.Outcome), Message: r.o.Reason})
}

// restore reads a stored output back by ref.
func (r *run) restore(ref string) (any, bool) {
	raw, ok, err := r.store.Output(ref)
	if err != nil {
		r.fail(err)
		return nil, false
	}
	if !ok {
		return nil, false
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, false
	}
	return v, true
}
