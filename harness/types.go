// Package harness loads case suites, runs them through the router for each
// prompt version, and scores, compares and gates the results. It computes
// values; package reports renders them.
package harness

import (
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
	"github.com/routebench/routebench/workflow"
)

// FormatVersion is written in every results.jsonl line and summary.json.
const FormatVersion = 1

// Suite kinds and their target mix 5:3:2.
const (
	SuiteNormal      = "normal"
	SuiteBoundary    = "boundary"
	SuiteAdversarial = "adversarial"
)

// Case is one labelled request (DESIGN §5).
type Case struct {
	ID     string        `json:"id"`
	Suite  string        `json:"suite"`
	Input  string        `json:"input"`
	Tags   []string      `json:"tags,omitempty"`
	Caller router.Caller `json:"caller"`
	// Now is RFC 3339, from the case or the suite defaults.
	Now    string `json:"now,omitempty"`
	Expect Expect `json:"expect"`
	// Turns, when set, make the case a conversation (DESIGN §12): Input
	// and Expect stay empty, and each turn holds the user's text and what
	// the router should do after it.
	Turns []Turn `json:"turns,omitempty"`
	// Tools is the case's own skill set, when it carries one.
	Tools *registry.Registry `json:"-"`
	// Workflow is set on a workflow case (one with tools_sim): the
	// scripts the engine runs what the router chose against.
	Workflow *WorkflowCase `json:"-"`
	// Hash is sha256 over the case's canonical content (input, caller, now,
	// expect, turns, tools): a changed case is re-run on --resume.
	Hash string `json:"-"`
	// Pos is where the case starts, for error messages.
	Pos registry.Pos `json:"-"`
}

// Expect is what a careful human says the router should do.
type Expect struct {
	Action router.Action `json:"action"`
	Skill  string        `json:"skill,omitempty"`
	Gate   registry.Gate `json:"gate,omitempty"`
	// Params is a subset match; a value may be a literal or a matcher
	// ({any_of: [...]}, {regex: ...}, {absent: true}).
	Params map[string]ParamMatcher `json:"params,omitempty"`
	// Candidates are the skills a clarify must offer.
	Candidates []string `json:"candidates,omitempty"`
	// Never lists skills that must not act, whatever the action (and, on
	// a workflow case, that must never be called).
	Never []string `json:"never,omitempty"`

	// Workflow expectations (DESIGN §11), on workflow cases only; each
	// is checked only when given. Action is optional on a workflow case.
	Outcome   string `json:"outcome,omitempty"`
	StoppedAt string `json:"stopped_at,omitempty"`
	Reason    string `json:"reason,omitempty"`
	// ErrorCode is compared as text: 409 and "409" are the same.
	ErrorCode string `json:"error_code,omitempty"`
	// Calls are the skills called, in order, retries included.
	Calls *[]string `json:"calls,omitempty"`
	// Retries per node, exactly: a node left out retried 0 times.
	Retries *map[string]int `json:"retries,omitempty"`
	// SideEffects is the side-effect calls executed (success receipts,
	// one per idempotency key).
	SideEffects *int          `json:"side_effects,omitempty"`
	SkillUsed   string        `json:"skill_used,omitempty"`
	Resume      *ResumeExpect `json:"resume,omitempty"`
}

// ParamMatcher matches one expected param value. Exactly one field is set.
type ParamMatcher struct {
	Equals any    `json:"equals,omitempty"`
	AnyOf  []any  `json:"any_of,omitempty"`
	Regex  string `json:"regex,omitempty"`
	Absent bool   `json:"absent,omitempty"`
	// Optional, with AnyOf, lets the param be left out (BFCL's "" answer).
	Optional bool `json:"optional,omitempty"`
}

// Result is one line of results.jsonl: one (version, case).
type Result struct {
	Format    int             `json:"format"`
	Version   string          `json:"version"` // "v2@3f9a1c2e"
	Case      string          `json:"case"`
	CaseHash  string          `json:"case_hash"`
	Suite     string          `json:"suite"`
	Tags      []string        `json:"tags"`
	Input     string          `json:"input"`
	Caller    router.Caller   `json:"caller"`
	Expect    Expect          `json:"expect"`
	Decision  router.Decision `json:"decision"`
	Pass      bool            `json:"pass"`
	Failure   string          `json:"failure"` // primary failure category, "" when passed
	LatencyUS int64           `json:"latency_us"`
	// Workflow is what the engine did on a workflow case (set on every
	// workflow case, a router that did not act included); Resume is the
	// second run when the case has one.
	Workflow *workflow.Outcome `json:"workflow,omitempty"`
	Resume   *workflow.Outcome `json:"resume,omitempty"`
	// RequestID and ConversationID are the ids the router was given
	// (router.Request): the case id for a case on its own; a conversation
	// shares its case id as conversation id. Empty in results written
	// before they existed.
	RequestID      string `json:"request_id,omitempty"`
	ConversationID string `json:"conversation_id,omitempty"`
	// Masked names the decision params written as "***" because a skill
	// marks them x-sensitive, each with how its real value compared with
	// the case's expectation before masking: "ok", or a mismatch kind
	// (missing, unexpected, type, value). Scoring read back from
	// results.jsonl uses it, since the real values are not there.
	Masked map[string]string `json:"masked,omitempty"`
	// Seq is the case's position in the run's loaded case list (before
	// shard and label filters), so merged shards keep a full run's order.
	Seq int `json:"seq"`
	// Turns is every turn of a conversation case, in order. The line's
	// own Input, Expect and Decision are then those of its deciding turn
	// (the first that failed, else the last), so a reader that knows no
	// conversations still sees a coherent decision; Pass and Failure are
	// the conversation's, and FailedTurn (1-based) names the turn the
	// failure comes from.
	Turns      []TurnResult `json:"turns,omitempty"`
	FailedTurn int          `json:"failed_turn,omitempty"`
}

// Failure categories, in order of precedence (DESIGN §6): a failed case gets
// the first that applies.
var FailureCategories = []string{
	"policy_violation",
	"provider_error",
	"schema_error",
	"rule_false_positive",
	"recall_miss",
	"judge_wrong_skill",
	"false_refusal",
	"missed_refusal",
	"wrong_band",
	"param_error",
}

// Rate is a proportion with its 95% Wilson interval and n. Count metrics
// (policy_violations) and continuous ones (ece, latency) set Value and N only.
type Rate struct {
	Value float64  `json:"value"`
	Lo    *float64 `json:"lo,omitempty"`
	Hi    *float64 `json:"hi,omitempty"`
	N     int      `json:"n"`
	// K is the numerator of a rate.
	K int `json:"k,omitempty"`
}

// Group is every metric over one slice of cases ("all", "suite:boundary",
// "tag:zh").
type Group struct {
	N        int             `json:"n"`
	Mix      map[string]int  `json:"mix"`
	Metrics  map[string]Rate `json:"metrics"`
	Failures map[string]int  `json:"failures"`
}

// VersionSummary is one version's groups.
type VersionSummary struct {
	Name    string           `json:"name"`
	Version string           `json:"version"`
	Model   string           `json:"model"`
	Groups  map[string]Group `json:"groups"`
}

// Summary is summary.json.
type Summary struct {
	Format   int              `json:"format"`
	Versions []VersionSummary `json:"versions"`
	// Results identifies the results.jsonl the summary was scored from, so
	// a summary left beside other results is detected, not trusted. Score
	// leaves it nil: it knows results, not files.
	Results *ResultsDigest `json:"results,omitempty"`
}
