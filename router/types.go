// Package router is the three-stage skill router: policy, rules, embedding
// recall, model judgment, confidence bands and gates, params validation.
// Prompt is advice, code is law: permissions, disabled skills and
// confirmation gates are enforced here, whatever a judge answers.
package router

import (
	"context"
	"time"

	"github.com/routebench/routebench/router/registry"
)

// Caller is who asks: the permission scopes they hold and the skills
// switched off for them.
type Caller struct {
	Scopes   []string `json:"scopes,omitempty" yaml:"scopes"`
	Disabled []string `json:"disabled,omitempty" yaml:"disabled"`
}

// Request is one user turn to route.
type Request struct {
	Text   string
	Caller Caller
	// Now anchors relative dates ("yesterday", "最近7天"). Zero means time.Now().
	Now time.Time
	// Tools, when set, replaces the version's registry for this request
	// (per-case tools, as BFCL cases carry).
	Tools *registry.Registry
	// Turns are the conversation so far, oldest first: what the user said
	// and what the router decided each time (DESIGN §12). Empty for a
	// request on its own.
	Turns []Turn
	// ID and ConversationID identify the request in results and traces.
	ID, ConversationID string
}

// Turn is one earlier exchange of a conversation.
type Turn struct {
	Text     string   `json:"text"`
	Decision Decision `json:"decision"`
}

// Action is what the router decides to do.
type Action string

const (
	Execute Action = "execute" // act now (read skills only)
	Confirm Action = "confirm" // act after the user passes the gate (side effects)
	Clarify Action = "clarify" // ask, offering the top 2 candidates
	Refuse  Action = "refuse"  // say plainly what the system cannot do
	Fail    Action = "error"   // the judge failed; never counted as a refusal
)

// Acts reports whether the action calls a skill (now or after confirmation).
func (a Action) Acts() bool { return a == Execute || a == Confirm }

// Candidate is a skill with a stage score.
type Candidate struct {
	Skill string  `json:"skill"`
	Score float64 `json:"score"`
}

// Error categories in Decision.Errors.
const (
	CatParams        = "params"         // a params validation failure (see Layer)
	CatSchemaError   = "schema_error"   // judge output did not parse or match the contract
	CatProviderError = "provider_error" // the model provider failed beyond its retry
	// CatInvalidSkill was the category of a judge answer naming a skill
	// that is not a candidate, in results written before it became a
	// schema_error with Rule RuleInvalidSkill; readers still accept it.
	CatInvalidSkill = "invalid_skill"
)

// RuleInvalidSkill is the Rule of the schema_error for a judge answer that
// names a skill outside the candidates (after the one case-insensitive
// repair): a judge failure, never a refusal (DESIGN §6).
const RuleInvalidSkill = "invalid_skill"

// IsInvalidSkill reports whether e records a judge answer that named a
// skill outside the candidates, in today's form or the older category.
func IsInvalidSkill(e Error) bool {
	return e.Category == CatInvalidSkill || e.Category == CatSchemaError && e.Rule == RuleInvalidSkill
}

// Validation layers of params errors.
const (
	LayerSchema     = "schema"
	LayerRule       = "rule"
	LayerPermission = "permission"
)

// Error is a structured problem attached to a decision.
type Error struct {
	Category string `json:"category"`
	Layer    string `json:"layer,omitempty"`
	Path     string `json:"path,omitempty"`
	Rule     string `json:"rule,omitempty"`
	Message  string `json:"message"`
}

// TraceStep records what one stage saw and did. Fields a stage does not
// use stay empty and are omitted from JSON.
type TraceStep struct {
	Stage      string      `json:"stage"`
	Kept       *int        `json:"kept,omitempty"`
	Dropped    []string    `json:"dropped,omitempty"`
	Matched    []string    `json:"matched,omitempty"`
	Top        []string    `json:"top,omitempty"`
	Scores     []Candidate `json:"scores,omitempty"`
	Provider   string      `json:"provider,omitempty"`
	Choice     string      `json:"choice,omitempty"`
	Confidence *float64    `json:"confidence,omitempty"`
	Attempt    int         `json:"attempt,omitempty"`
	Prompt     string      `json:"prompt,omitempty"`
	Raw        string      `json:"raw,omitempty"`
	Usage      *Usage      `json:"usage,omitempty"`
	Errors     []Error     `json:"errors,omitempty"`
	Note       string      `json:"note,omitempty"`
}

// Usage is what a model call consumed.
type Usage struct {
	InputTokens  int     `json:"input_tokens"`
	OutputTokens int     `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd"`
}

// Decision is the router's answer to one request (DESIGN §4).
type Decision struct {
	Action     Action         `json:"action"`
	Skill      string         `json:"skill"`
	Params     map[string]any `json:"params"`
	Confidence float64        `json:"confidence"`
	Stage      string         `json:"stage"`
	Gate       registry.Gate  `json:"gate"`
	Candidates []Candidate    `json:"candidates"`
	Errors     []Error        `json:"errors"`
	Message    string         `json:"message"`
	Trace      []TraceStep    `json:"trace"`
	Version    string         `json:"version"`
	Model      string         `json:"model"`
	LatencyUS  int64          `json:"latency_us"`
	Usage      *Usage         `json:"usage,omitempty"`
}

// NoneChoice is the judge's answer when no candidate fits.
const NoneChoice = "none"

// JudgeRequest is what a judge sees: the request and the recalled
// candidates with their full definitions, and the composed system prompt.
type JudgeRequest struct {
	Text string
	Now  time.Time
	// SystemPrompt is composed in DESIGN §3's fixed order: persona,
	// constraints, candidate skills, contract, limits.
	SystemPrompt string
	Candidates   []*registry.Skill
	// Recall holds the recall stage's scores, aligned with Candidates.
	Recall  []Candidate
	Version *registry.Version
	// Repair is set on the single repair attempt: the previous raw output and
	// the structured errors it produced.
	Repair *Repair
	// Turns are the conversation so far (Request.Turns), oldest first. A
	// model judge sends each as the user's text and a summary of the
	// router's decision (Decision.Summary) before the current request.
	Turns []Turn
}

// Repair carries a failed attempt back to a model judge.
type Repair struct {
	Raw    string
	Errors []Error
}

// JudgeResponse is a judge's raw answer. The router, not the judge, parses
// Raw and validates it against the version's contract schema, so every judge
// is held to the same honest-parsing rules.
type JudgeResponse struct {
	// Raw is the output as the model produced it, normally JSON of the
	// contract's shape: {"skill": "...", "confidence": 0.9, "params": {...}}.
	Raw string
	// Scores optionally ranks every candidate (the builtin judge does);
	// used to offer the top 2 when clarifying.
	Scores []Candidate
	// Prompt is what was sent, secrets redacted, for the trace.
	Prompt string
	Usage  *Usage
	// Value optionally hands over Raw already decoded, so a judge that
	// builds its answer in memory (the builtin) spares the router a JSON
	// parse on every request. When set it must be exactly what Raw decodes
	// to with encoding/json into an any: map[string]any, []any, string,
	// float64, bool and nil only; or a *Verdict whose VerdictDoc is that.
	// The router uses it only when it has that form (otherwise Raw is
	// parsed as usual), and validates it against the contract just as it
	// would the parsed Raw; Raw is still what the trace shows.
	Value any
}

// Verdict is a judge's answer in the contract's usual shape, as a value:
// what {"skill": …, "confidence": …, "params": …, "reason": …} decodes to,
// reason left out when empty and params null when nil. Handed over as
// JudgeResponse.Value it spares the judge building the document as a map
// and the router reading it back.
type Verdict struct {
	Skill      string
	Confidence float64
	Params     map[string]any
	Reason     string
}

// VerdictDoc is the decoded JSON document v stands for.
func (v *Verdict) VerdictDoc() map[string]any {
	doc := make(map[string]any, 4)
	doc["skill"] = v.Skill
	doc["confidence"] = v.Confidence
	if v.Params == nil {
		doc["params"] = nil
	} else {
		doc["params"] = v.Params
	}
	if v.Reason != "" {
		doc["reason"] = v.Reason
	}
	return doc
}

// Judge picks a skill or "none" with a confidence.
// A returned error is a provider failure (after any retry), recorded as
// provider_error; it is never turned into a refusal.
type Judge interface {
	Name() string
	Judge(ctx context.Context, req JudgeRequest) (JudgeResponse, error)
}

// EmbeddingFunc turns text into a normalized vector. It has chromem-go's
// signature so chromem's own providers plug in unchanged.
type EmbeddingFunc func(ctx context.Context, text string) ([]float32, error)

// Models are the judge and embedder a router uses for one skill set.
type Models struct {
	Judge    Judge
	Embedder EmbeddingFunc
	// EmbedInto, when set, is Embedder writing the embedding into dst's
	// memory when it has room (an empty slice; the result may be dst
	// itself): the router lends it one buffer per request instead of a new
	// vector each time. It gives exactly what Embedder gives.
	EmbedInto func(ctx context.Context, text string, dst []float32) ([]float32, error)
	// EmbedderName is shown in traces and reports ("builtin", "openai:...").
	EmbedderName string
}

// ModelFactory builds models fitted to a skill set. Builtin models learn
// from the registry's text, so per-case tools need their own.
type ModelFactory func(v *registry.Version, reg *registry.Registry) (Models, error)
