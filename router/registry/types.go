// Package registry holds a prompt version: its four instruction layers
// (persona, constraints, skills, contract), its router settings and its
// fingerprint. Loading validates everything and reports every problem with
// file, line and field; a version with any problem is never returned.
package registry

import (
	"fmt"
	"regexp"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// SideEffect says what calling a skill does to the world.
type SideEffect string

const (
	Read   SideEffect = "read"
	Write  SideEffect = "write"
	Delete SideEffect = "delete"
	Send   SideEffect = "send"
)

// Acts reports whether the side effect changes something outside the agent,
// which means the skill is never executed without a confirmation gate.
func (s SideEffect) Acts() bool { return s == Write || s == Delete || s == Send }

// Gate is the confirmation a side-effect skill asks for before acting.
type Gate string

const (
	GateNormal       Gate = "normal"
	GateBatch        Gate = "batch"
	GateIrreversible Gate = "irreversible"
)

// Pos is a place in an input file, used in every load error.
type Pos struct {
	File string
	Line int
}

func (p Pos) String() string {
	if p.Line == 0 {
		return p.File
	}
	return fmt.Sprintf("%s:%d", p.File, p.Line)
}

// Skill is one entry of skills.yaml (DESIGN §2), compiled.
type Skill struct {
	Name            string
	Description     string
	WhenToUse       []string
	WhenNotToUse    []string
	SideEffect      SideEffect
	PermissionScope []string
	// ParamsSchema is the params schema as decoded JSON values (map[string]any,
	// []any, string, float64, bool, nil), shown to judges verbatim.
	ParamsSchema map[string]any
	// Schema is ParamsSchema compiled (JSON Schema 2020-12).
	Schema *jsonschema.Schema
	// PropSchemas holds each top-level property's schema compiled on its own,
	// so partial params (examples, extracted values) can be checked per field.
	PropSchemas map[string]*jsonschema.Schema
	// ResultSchemaRaw is the optional result_schema as decoded JSON values and
	// ResultSchema it compiled; a tool result that fails it is malformed (§11).
	ResultSchemaRaw map[string]any
	ResultSchema    *jsonschema.Schema
	Rules           []*Rule
	Triggers        []*Trigger
	Examples        []Example
	CounterExamples []string
	Glossary        map[string]string
	Confirm         Gate
	// Affects is the optional x-affects count of items a call touches;
	// nil means the router counts the largest list param.
	Affects *Affects
	Cost    Cost
	// Steps is, for a workflow's skill view, the skills its nodes call, in
	// plan order and each once; empty for a plain skill. Stage 1 reads it so
	// a trigger on one of those skills brings the workflow along instead of
	// shutting it out.
	Steps []string
	// NodeIDs is, for a workflow's skill view, the ids of its nodes, so a
	// case's expectations naming nodes (retries, stopped_at, skipped) can
	// be checked when the case is loaded; empty for a plain skill.
	NodeIDs []string
	Pos     Pos
}

// Required lists the params the schema requires, in schema order.
func (s *Skill) Required() []string {
	req, _ := s.ParamsSchema["required"].([]any)
	out := make([]string, 0, len(req))
	for _, r := range req {
		if name, ok := r.(string); ok {
			out = append(out, name)
		}
	}
	return out
}

// Properties returns the raw schema of each top-level property.
func (s *Skill) Properties() map[string]map[string]any {
	props, _ := s.ParamsSchema["properties"].(map[string]any)
	out := make(map[string]map[string]any, len(props))
	for name, p := range props {
		if m, ok := p.(map[string]any); ok {
			out[name] = m
		}
	}
	return out
}

// Rule is a business rule: a boolean CEL expression over `params` and `now`.
type Rule struct {
	Expr    string
	Message string
	// Reads lists the top-level params the expression refers to; a rule is
	// evaluated only when all of them are present.
	Reads []string
	Pos   Pos
	eval  func(params map[string]any, now time.Time) (bool, error)
	// readsNow is set when the expression uses `now`; such rules are not
	// checked on examples at load time, since an example has no fixed now.
	readsNow bool
}

// Eval runs the rule. It returns an error when the expression fails at run
// time (a param of the wrong type, a date that does not parse).
// It is safe for concurrent use.
func (r *Rule) Eval(params map[string]any, now time.Time) (bool, error) {
	if r.eval == nil {
		return false, fmt.Errorf("rule %q was not compiled; build rules with NewRule or the loader", r.Expr)
	}
	return r.eval(params, now)
}

// Trigger is a stage-1 regex: a strong signal for one skill.
type Trigger struct {
	Pattern string
	Re      *regexp.Regexp
	Pos     Pos
}

// Example is a positive example: an input and the params its text determines.
type Example struct {
	Input  string
	Params map[string]any
	Pos    Pos
}

// Cost is the declared cost of calling a skill.
type Cost struct {
	LatencyMS int
	Quota     float64
}

// Registry is an ordered set of skills with unique names.
type Registry struct {
	Skills []*Skill
	byName map[string]*Skill
	// sensitive says some skill marks a param x-sensitive: most
	// registries mark none, and masking asks about every decision.
	sensitive bool
}

// HasSensitive reports whether any skill marks a param x-sensitive.
func (r *Registry) HasSensitive() bool { return r.sensitive }

// Skill returns the skill with the exact name, or nil.
func (r *Registry) Skill(name string) *Skill { return r.byName[name] }

// Band is an acting threshold pair. A zero Clarify inherits the default.
type Band struct {
	Execute float64
	Clarify float64
}

// Bands turn a judge's confidence into an action (DESIGN §3).
type Bands struct {
	Execute     float64
	Clarify     float64
	SideEffects map[SideEffect]Band
}

// For returns the execute and clarify thresholds for a side effect:
// the side-effect band where one is set, the defaults otherwise.
func (b Bands) For(se SideEffect) (execute, clarify float64) {
	execute, clarify = b.Execute, b.Clarify
	if sb, ok := b.SideEffects[se]; ok {
		if sb.Execute > 0 {
			execute = sb.Execute
		}
		if sb.Clarify > 0 {
			clarify = sb.Clarify
		}
	}
	return execute, clarify
}

// RouterSettings is the `router:` block of version.yaml.
type RouterSettings struct {
	TopK     int
	Embedder string // builtin | openai:<model> | ollama:<model>
	Judge    string // builtin | openai:<model> | anthropic:<model>
	Bands    Bands
}

// Version is one prompt version: four layers, settings and identity.
type Version struct {
	// Name is version.yaml's name, else the directory's base name, e.g. "v2".
	Name string
	// Dir is where it was loaded from (a path, or "git:REV:path").
	Dir         string
	Description string
	Router      RouterSettings
	Persona     string
	Constraints string
	// ContractRaw is contract.schema.json as written; Contract is it compiled.
	ContractRaw []byte
	Contract    *jsonschema.Schema
	Registry    *Registry
	// WorkflowsRaw is workflows.yaml as written, nil when the version has
	// none; package workflow loads it against Registry.
	WorkflowsRaw []byte
	// Fingerprint is the hex sha256 over the version's files.
	Fingerprint string
	// Files are the version's files as read (name → bytes), what the
	// fingerprint covers; the gate diffs them to show what changed.
	Files map[string][]byte
}

// ID is the name plus a short fingerprint, e.g. "v2@3f9a1c2e".
func (v *Version) ID() string {
	fp := v.Fingerprint
	if len(fp) > 8 {
		fp = fp[:8]
	}
	return v.Name + "@" + fp
}
