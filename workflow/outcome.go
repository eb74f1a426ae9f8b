package workflow

import "time"

// OutcomeFormat is the version of the Outcome JSON.
const OutcomeFormat = 1

// Status is how a run ended.
type Status string

const (
	Completed            Status = "completed"             // every node done or skipped by a branch
	Stopped              Status = "stopped"               // a guard stopped it (doom loop, step limit)
	Failed               Status = "failed"                // a node failed: the outcome names it and the error verbatim
	Refused              Status = "refused"               // a gate, a confirmation or a permission said no
	AwaitingConfirmation Status = "awaiting_confirmation" // suspended at a gate with nobody to answer
)

// Reasons a run stops short of completed.
const (
	ReasonToolError        = "tool_error"
	ReasonMalformed        = "malformed"
	ReasonUnavailable      = "unavailable"
	ReasonParamsInvalid    = "params_invalid"
	ReasonMissingInput     = "missing_input"
	ReasonNoMatchingCase   = "no_matching_case"
	ReasonPermissionDenied = "permission_denied"
	ReasonSkillDisabled    = "skill_disabled"
	ReasonPermRevoked      = "permission_revoked"
	ReasonDeclined         = "confirmation_declined"
	ReasonConfirmTimeout   = "confirmation_timeout"
	ReasonIrreversibleBulk = "irreversible_bulk"
	ReasonDoomLoop         = "doom_loop"
	ReasonStepLimit        = "model_step_limit"
	ReasonAwaiting         = "awaiting_confirmation"
)

// NodeStatus is a node's state for drawing the run.
type NodeStatus string

const (
	NodePending NodeStatus = "pending"
	NodeDone    NodeStatus = "done"
	NodeFailed  NodeStatus = "failed"
	NodeSkipped NodeStatus = "skipped" // a branch not taken, or done in an earlier run (checkpoint)
	NodeRetried NodeStatus = "retried" // done after its one retry
)

// Outcome is everything a run did, as raw facts: the harness scores from
// it, Guards recounts its guards, and it serialises to the same JSON for
// the same run (maps are sorted by encoding/json, lists are in run order).
type Outcome struct {
	Format   int    `json:"format"`
	RunID    string `json:"run_id"`
	Workflow string `json:"workflow"`
	Outcome  Status `json:"outcome"`
	// StoppedAt is the node (or "model:<skill>" for a model's own call)
	// where the run failed, stopped or was refused.
	StoppedAt string `json:"stopped_at,omitempty"`
	Reason    string `json:"reason,omitempty"`
	// ErrorCode and ErrorMessage are the tool's, verbatim, when a tool failed;
	// otherwise the engine's own code (the Reason) and explanation.
	ErrorCode    string `json:"error_code,omitempty"`
	ErrorMessage string `json:"error_message,omitempty"`
	// SkillUsed is the skill of the node the run ended at, if any.
	SkillUsed string `json:"skill_used,omitempty"`
	// SideEffectOrder is the plan's fixed order of side-effect nodes.
	SideEffectOrder []string       `json:"side_effect_order"`
	Calls           []Call         `json:"calls"`
	Retries         map[string]int `json:"retries"`
	Receipts        []Receipt      `json:"receipts"`
	Confirmations   []Confirmation `json:"confirmations"`
	Checkpoints     CheckpointLog  `json:"checkpoints"`
	Nodes           []NodeState    `json:"nodes"`
	Claims          []Claim        `json:"claims"`
	Report          Report         `json:"report"`
	// Pending is the question a run awaiting confirmation waits on.
	Pending *ConfirmRequest `json:"pending,omitempty"`
	Events  []Event         `json:"events"`
}

// StoppedAtParams is where a run stops whose params fail the workflow's
// schema, before any node runs.
const StoppedAtParams = "params"

// ModelStepPrefix starts where a run stopped (and a retry was counted) at
// a step a model took rather than a plan node: "model:<skill>".
const ModelStepPrefix = "model:"

// Call is one call sent to a tool. Start and End are the engine's sequence
// numbers: two calls overlapped when each started before the other ended.
type Call struct {
	Node       string         `json:"node"`
	Skill      string         `json:"skill"`
	SideEffect string         `json:"side_effect"`
	Params     map[string]any `json:"params"`
	Attempt    int            `json:"attempt"`
	Key        string         `json:"idempotency_key,omitempty"`
	Origin     string         `json:"origin"` // plan | model
	Start      int            `json:"start"`
	End        int            `json:"end"`
	Status     string         `json:"status"` // ok | empty | error | malformed
	Code       string         `json:"code,omitempty"`
	Message    string         `json:"message,omitempty"`
}

// Receipt is the proof of a side-effect call: only a success receipt lets a
// report say the action happened.
type Receipt struct {
	Node       string   `json:"node"`
	Skill      string   `json:"skill"`
	Operation  string   `json:"operation"` // write | delete | send
	Status     string   `json:"status"`    // success | failed | malformed
	ExternalID string   `json:"external_id,omitempty"`
	Key        string   `json:"idempotency_key"`
	Attempt    int      `json:"attempt"`
	Preview    *Preview `json:"preview,omitempty"`
	OutputRef  string   `json:"output_ref,omitempty"`
}

// Confirmation is one question put to a person, or a gate covered by a
// confirm node the node runs directly after (Via).
type Confirmation struct {
	Node   string `json:"node"`
	Gate   string `json:"gate"`
	Count  int    `json:"count,omitempty"`
	Sample []any  `json:"sample,omitempty"`
	Answer Answer `json:"answer"`
	Via    string `json:"via,omitempty"`
	Seq    int    `json:"seq"`
}

// CheckpointLog lists the nodes checkpointed by this run and the nodes it
// skipped because an earlier run had checkpointed the same input.
type CheckpointLog struct {
	Written []Checkpoint `json:"written"`
	Skipped []string     `json:"skipped"`
}

// Checkpoint is saved after each node.
type Checkpoint struct {
	Node      string    `json:"node"`
	InputHash string    `json:"input_hash"`
	OutputRef string    `json:"output_ref"`
	Time      time.Time `json:"time"`
}

// NodeState is one node as the run left it.
type NodeState struct {
	ID        string     `json:"id"`
	Kind      Kind       `json:"kind"`
	Skill     string     `json:"skill,omitempty"`
	Status    NodeStatus `json:"status"`
	Attempts  int        `json:"attempts,omitempty"`
	Why       string     `json:"why,omitempty"` // for skipped and failed nodes
	Summary   *Summary   `json:"summary,omitempty"`
	InputHash string     `json:"input_hash,omitempty"`
}

// Claim is what the model said about the run's success; Verified is the
// engine's check against receipts and node states.
type Claim struct {
	Claim    string `json:"claim"` // success | failure
	Node     string `json:"node,omitempty"`
	Verified bool   `json:"verified"`
	Why      string `json:"why,omitempty"`
	Seq      int    `json:"seq"`
}

// Report is what the run may tell the user: success only for side effects
// with a success receipt, and each empty result with the skill behind it.
type Report struct {
	Succeeded []string      `json:"succeeded"`
	Empty     []EmptyResult `json:"empty"`
}

// EmptyResult tells "no data" from "wrong tool".
type EmptyResult struct {
	Node      string `json:"node"`
	SkillUsed string `json:"skill_used"`
}

// Event is one raw fact, numbered in the order the engine observed it.
type Event struct {
	Seq     int    `json:"seq"`
	Kind    string `json:"kind"`
	Node    string `json:"node,omitempty"`
	Skill   string `json:"skill,omitempty"`
	Key     string `json:"key,omitempty"`
	Attempt int    `json:"attempt,omitempty"`
	Code    string `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
}

// Event kinds.
const (
	EvDiscovery        = "discovery"
	EvCallStart        = "call_start"
	EvCallEnd          = "call_end"
	EvRetry            = "retry"
	EvRetryRefused     = "retry_refused"
	EvDuplicateBlocked = "duplicate_blocked"
	EvCallBlocked      = "call_blocked"
	EvDoomLoop         = "doom_loop"
	EvPreview          = "preview"
	EvConfirmAsked     = "confirm_asked"
	EvConfirmAnswer    = "confirm_answer"
	EvPermRevoked      = "permission_revoked"
	EvGateRefused      = "gate_refused"
	EvCheckpoint       = "checkpoint"
	EvCheckpointSkip   = "checkpoint_skip"
	EvNodeDone         = "node_done"
	EvNodeFailed       = "node_failed"
	EvNodeSkipped      = "node_skipped"
	EvEmpty            = "empty_result"
	EvClaim            = "claim"
	EvEnd              = "run_end"
)

// CallSkills is the skills called, in call order, retries included, as the
// expectations of a workflow case list them.
func (o *Outcome) CallSkills() []string {
	out := make([]string, len(o.Calls))
	for i, c := range o.Calls {
		out[i] = c.Skill
	}
	return out
}

// SideEffectsExecuted counts distinct idempotency keys with a success receipt.
func (o *Outcome) SideEffectsExecuted() int {
	seen := map[string]bool{}
	for _, r := range o.Receipts {
		if r.Status == "success" {
			seen[r.Key] = true
		}
	}
	return len(seen)
}
