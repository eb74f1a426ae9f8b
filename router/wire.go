package router

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/routebench/routebench/router/registry"
)

// The wire formats of DESIGN §13: the request JSON a router behind
// `--target` is sent (and `routebench serve` reads), and the Decision JSON
// it answers. One codec serves both sides, so the router that was tested
// over the wire reads exactly what the harness sends.

// StageTarget is the stage of the trace step a router behind `--target`
// leaves on each decision it answered (and of the decision itself when the
// target gave no usable answer): the target's answer is the output held
// to a contract, the Decision format, as a judge's output is held to the
// version's contract.
const StageTarget = "target"

// WireError is a problem with a request or a Decision read off the wire:
// the JSON field it concerns ("" for the whole value) and what is wrong,
// said so the sender knows what to change.
type WireError struct {
	Field   string
	Problem string
}

func (e *WireError) Error() string {
	if e.Field == "" {
		return e.Problem
	}
	return e.Field + ": " + e.Problem
}

func wireErrorf(field, format string, args ...any) *WireError {
	return &WireError{Field: field, Problem: fmt.Sprintf(format, args...)}
}

// wireRequest is the request JSON. Caller lists are always written (an
// empty list, not an absent one), so a reader never guesses what a missing
// caller means.
type wireRequest struct {
	ID     string          `json:"id"`
	Text   *string         `json:"text"`
	Caller *wireCaller     `json:"caller"`
	Now    string          `json:"now,omitempty"`
	Tools  json.RawMessage `json:"tools,omitempty"`
	Turns  []Turn          `json:"turns,omitempty"`
}

type wireCaller struct {
	Scopes   []string `json:"scopes"`
	Disabled []string `json:"disabled"`
}

// wireSkill is a skill in skills.yaml's own shape, so a request's tools
// read back with registry.ParseSkillsNode into the same skills.
type wireSkill struct {
	Name            string            `json:"name"`
	Description     string            `json:"description"`
	WhenToUse       []string          `json:"when_to_use,omitempty"`
	WhenNotToUse    []string          `json:"when_not_to_use,omitempty"`
	SideEffect      string            `json:"side_effect"`
	PermissionScope []string          `json:"permission_scope,omitempty"`
	ParamsSchema    map[string]any    `json:"params_schema,omitempty"`
	ResultSchema    map[string]any    `json:"result_schema,omitempty"`
	Rules           []wireRule        `json:"rules,omitempty"`
	Triggers        []string          `json:"triggers,omitempty"`
	Examples        []wireExample     `json:"examples,omitempty"`
	CounterExamples []string          `json:"counter_examples,omitempty"`
	Glossary        map[string]string `json:"glossary,omitempty"`
	Confirm         string            `json:"confirm,omitempty"`
	Affects         string            `json:"x-affects,omitempty"`
	Cost            *wireCost         `json:"cost,omitempty"`
}

type wireRule struct {
	Expr    string `json:"expr"`
	Message string `json:"message,omitempty"`
}

type wireExample struct {
	Input  string         `json:"input"`
	Params map[string]any `json:"params,omitempty"`
}

type wireCost struct {
	LatencyMS int     `json:"latency_ms,omitempty"`
	Quota     float64 `json:"quota,omitempty"`
}

// requestFields are named when a request holds a field it should not.
const requestFields = "id, text, caller, now, tools, turns"

// EncodeRequest writes req as the request JSON of DESIGN §13, on one line
// (no newline), deterministically: equal requests give equal bytes, which
// is what cassette keys hash. Earlier turns' decisions go without their
// latency, which differs from run to run and says nothing about the
// conversation.
func EncodeRequest(req Request) ([]byte, error) {
	text := req.Text
	w := wireRequest{
		ID:     req.ID,
		Text:   &text,
		Caller: &wireCaller{Scopes: nonNil(req.Caller.Scopes), Disabled: nonNil(req.Caller.Disabled)},
	}
	if !req.Now.IsZero() {
		w.Now = req.Now.Format(time.RFC3339Nano)
	}
	if req.Tools != nil {
		tools, err := marshalLine(wireSkills(req.Tools))
		if err != nil {
			return nil, fmt.Errorf("encode request %s: tools: %w", req.ID, err)
		}
		w.Tools = tools
	}
	for _, t := range req.Turns {
		t.Decision.LatencyUS = 0
		w.Turns = append(w.Turns, t)
	}
	data, err := marshalLine(w)
	if err != nil {
		return nil, fmt.Errorf("encode request %s: %w", req.ID, err)
	}
	return data, nil
}

// EncodeDecision writes d as the Decision JSON of DESIGN §4, on one line
// (no newline), with < > & and non-ASCII text as they are.
func EncodeDecision(d Decision) ([]byte, error) {
	data, err := marshalLine(d)
	if err != nil {
		return nil, fmt.Errorf("encode decision: %w", err)
	}
	return data, nil
}

func marshalLine(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

func wireSkills(reg *registry.Registry) []wireSkill {
	out := make([]wireSkill, len(reg.Skills))
	for i, s := range reg.Skills {
		w := wireSkill{
			Name: s.Name, Description: s.Description, WhenToUse: s.WhenToUse, WhenNotToUse: s.WhenNotToUse,
			SideEffect: string(s.SideEffect), PermissionScope: s.PermissionScope,
			ParamsSchema: s.ParamsSchema, ResultSchema: s.ResultSchemaRaw,
			CounterExamples: s.CounterExamples, Glossary: s.Glossary, Confirm: string(s.Confirm),
		}
		for _, r := range s.Rules {
			w.Rules = append(w.Rules, wireRule{Expr: r.Expr, Message: r.Message})
		}
		for _, t := range s.Triggers {
			w.Triggers = append(w.Triggers, t.Pattern)
		}
		for _, ex := range s.Examples {
			w.Examples = append(w.Examples, wireExample{Input: ex.Input, Params: ex.Params})
		}
		if s.Affects != nil {
			w.Affects = s.Affects.Expr
		}
		if s.Cost != (registry.Cost{}) {
			w.Cost = &wireCost{LatencyMS: s.Cost.LatencyMS, Quota: s.Cost.Quota}
		}
		out[i] = w
	}
	return out
}

// DecodeRequest reads a request JSON (DESIGN §13). Its tools, when given,
// are a skills.yaml skill list and are loaded with every check
// skills.yaml gets; the returned request holds them as its own registry,
// the same one for the same tools when cache (may be nil) has seen them,
// so a router fits its models to them once. The error, for input the
// sender must fix, is a *WireError naming the field.
func DecodeRequest(data []byte, cache *ToolsCache) (Request, error) {
	var w wireRequest
	if err := decodeStrict(data, &w, requestFields, "request"); err != nil {
		return Request{}, err
	}
	if w.Text == nil {
		return Request{}, wireErrorf("text", `is missing; give the user's words ("" for a turn that said nothing)`)
	}
	if w.Caller == nil {
		return Request{}, wireErrorf("caller", `is missing; give the caller's permission scopes and disabled skills, e.g. {"scopes": ["orders:read"], "disabled": []}`)
	}
	req := Request{
		ID:             w.ID,
		ConversationID: w.ID,
		Text:           *w.Text,
		Caller:         Caller{Scopes: w.Caller.Scopes, Disabled: w.Caller.Disabled},
		Turns:          w.Turns,
	}
	if w.Now != "" {
		now, err := time.Parse(time.RFC3339Nano, w.Now)
		if err != nil {
			return Request{}, wireErrorf("now", "%q is not an RFC 3339 time; write it like 2026-11-30T10:00:00+08:00", w.Now)
		}
		req.Now = now
	}
	for i, t := range w.Turns {
		if err := checkDecision(t.Decision, fmt.Sprintf("turns[%d].decision", i), true); err != nil {
			return Request{}, err
		}
	}
	if len(w.Tools) > 0 && string(w.Tools) != "null" {
		reg, err := cache.load(w.Tools)
		if err != nil {
			return Request{}, err
		}
		req.Tools = reg
	}
	return req, nil
}

// ToolsCache keeps the registries of recent request tools by the hash of
// their JSON, so equal tools give the same *registry.Registry (the router
// caches what it builds for tools by that pointer). It holds at most Size
// (default 128) and forgets the oldest first. Safe for concurrent use.
type ToolsCache struct {
	Size int

	mu    sync.Mutex
	regs  map[[32]byte]*registry.Registry
	order [][32]byte
}

func (c *ToolsCache) load(raw json.RawMessage) (*registry.Registry, error) {
	if c == nil {
		return decodeTools(raw)
	}
	key := sha256.Sum256(raw)
	c.mu.Lock()
	reg, ok := c.regs[key]
	c.mu.Unlock()
	if ok {
		return reg, nil
	}
	reg, err := decodeTools(raw)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if prev, ok := c.regs[key]; ok {
		return prev, nil // loaded by another request meanwhile
	}
	if c.regs == nil {
		c.regs = map[[32]byte]*registry.Registry{}
	}
	size := c.Size
	if size <= 0 {
		size = 128
	}
	c.regs[key] = reg
	c.order = append(c.order, key)
	for len(c.order) > size {
		delete(c.regs, c.order[0])
		c.order = c.order[1:]
	}
	return reg, nil
}

// decodeTools loads a request's tools through the skills.yaml loader (JSON
// is YAML), so they get every check a registry gets.
func decodeTools(raw json.RawMessage) (*registry.Registry, error) {
	// Indented first, so the loader's line numbers point into a readable
	// rendering of the list rather than all at line 1.
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] != '[' {
		return nil, wireErrorf("tools", "is not a JSON list; send the skills as a list of skills.yaml entries, [{\"name\": …, \"description\": …}]")
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, raw, "", "  "); err != nil {
		return nil, wireErrorf("tools", "is not JSON: %v", err)
	}
	var node yaml.Node
	if err := yaml.Unmarshal(pretty.Bytes(), &node); err != nil {
		return nil, wireErrorf("tools", "cannot be read: %v", err)
	}
	skills, err := registry.ParseSkillsNode("tools", &node)
	if err == nil {
		var reg *registry.Registry
		if reg, err = registry.New(skills); err == nil {
			return reg, nil
		}
	}
	return nil, &WireError{Field: "tools", Problem: "is not a valid skill list (skills.yaml format): " + oneLine(err.Error())}
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", "; ")), " ")
}

// decisionFields are named when a Decision holds a field it should not.
const decisionFields = "action, skill, params, confidence, stage, gate, candidates, errors, message, trace, version, model, latency_us, usage"

// decisionAnswer reads a Decision and tells absent required fields from
// zero values: its action and confidence shadow the Decision's.
type decisionAnswer struct {
	Decision
	Action     *Action  `json:"action"`
	Confidence *float64 `json:"confidence"`
}

// DecodeDecision reads a Decision (DESIGN §4) answered by a router behind
// `--target`, holding it to the format: one JSON object with no unknown
// fields; an action of execute, confirm, clarify, refuse or error; a
// confidence in [0, 1]; a skill when it acts; a known gate; candidates
// naming skills; errors with a category, at least one when the action is
// error. Whether its skills exist is the caller's to check against the
// skills the request offered. The error is a *WireError naming the field.
func DecodeDecision(data []byte) (Decision, error) {
	var a decisionAnswer
	if err := decodeStrict(data, &a, decisionFields, "Decision"); err != nil {
		return Decision{}, err
	}
	if a.Action == nil {
		return Decision{}, wireErrorf("action", "is missing; a Decision says execute, confirm, clarify, refuse or error")
	}
	if a.Confidence == nil {
		return Decision{}, wireErrorf("confidence", "is missing; give a number in [0, 1] (0 when the router has none)")
	}
	d := a.Decision
	d.Action, d.Confidence = *a.Action, *a.Confidence
	if err := checkDecision(d, "", false); err != nil {
		return Decision{}, err
	}
	if d.Params == nil {
		d.Params = map[string]any{}
	}
	if d.Candidates == nil {
		d.Candidates = []Candidate{}
	}
	if d.Errors == nil {
		d.Errors = []Error{}
	}
	if d.Trace == nil {
		d.Trace = []TraceStep{}
	}
	return d, nil
}

// CheckRecordedDecision holds a decision read back from a results file to
// the shape routebench writes: a known action and gate, a confidence in
// [0, 1], candidates naming skills. at names the field for the error
// ("decision", "turns[1].decision"). A decision left out (no action) is
// read as none, and only its other values are checked.
func CheckRecordedDecision(d Decision, at string) error {
	if d.Action != "" {
		if err := checkAction(d.Action, fieldAt(at, "action")); err != nil {
			return err
		}
	}
	return checkValues(d, at)
}

// checkDecision holds a decoded decision to the format; at prefixes the
// field names (an earlier turn's decision inside a request). An earlier
// turn may hold a decision of any action the harness recorded, so only
// the shape of its values is checked there (lenient).
func checkDecision(d Decision, at string, lenient bool) error {
	field := func(name string) string { return fieldAt(at, name) }
	if err := checkAction(d.Action, field("action")); err != nil {
		return err
	}
	if err := checkValues(d, at); err != nil || lenient {
		return err
	}
	if d.Action.Acts() && strings.TrimSpace(d.Skill) == "" {
		return wireErrorf(field("skill"), "is missing; an %s decision names the skill it acts on", d.Action)
	}
	for i, e := range d.Errors {
		if strings.TrimSpace(e.Category) == "" {
			return wireErrorf(field(fmt.Sprintf("errors[%d].category", i)), "is missing; an error has a category (%s, %s, %s)", CatParams, CatSchemaError, CatProviderError)
		}
	}
	if d.Action == Fail && len(d.Errors) == 0 {
		return wireErrorf(field("errors"), "is empty; an error decision says what failed, e.g. [{\"category\": %q, \"message\": \"...\"}]", CatProviderError)
	}
	return nil
}

// fieldAt prefixes a field's name with at, where the decision sits.
func fieldAt(at, name string) string {
	if at == "" {
		return name
	}
	return at + "." + name
}

func checkAction(a Action, field string) error {
	switch a {
	case Execute, Confirm, Clarify, Refuse, Fail:
		return nil
	}
	return wireErrorf(field, "%q is not an action; use execute, confirm, clarify, refuse or error", a)
}

// checkValues holds the shape of a decision's values to the format: a
// confidence in [0, 1], a known gate, candidates naming skills.
func checkValues(d Decision, at string) error {
	if math.IsNaN(d.Confidence) || d.Confidence < 0 || d.Confidence > 1 {
		return wireErrorf(fieldAt(at, "confidence"), "%v is outside [0, 1]", d.Confidence)
	}
	switch d.Gate {
	case "", registry.GateNormal, registry.GateBatch, registry.GateIrreversible:
	default:
		return wireErrorf(fieldAt(at, "gate"), "%q is not a gate; use normal, batch, irreversible or \"\"", d.Gate)
	}
	for i, c := range d.Candidates {
		if strings.TrimSpace(c.Skill) == "" {
			return wireErrorf(fieldAt(at, fmt.Sprintf("candidates[%d].skill", i)), "is empty; a candidate names a skill")
		}
	}
	return nil
}

// decodeStrict decodes exactly one JSON object into v, naming an unknown
// field (known lists the ones allowed), a value of the wrong type, or
// anything after the object.
func decodeStrict(data []byte, v any, known, what string) error {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return wireErrorf("", "is empty; send one JSON object (a %s)", what)
	}
	if trimmed[0] != '{' {
		return wireErrorf("", "is not a JSON object (it starts with %q); send one %s object", preview(trimmed, 20), what)
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		we := jsonProblem(err, known, what)
		var top map[string]json.RawMessage
		if strings.HasPrefix(err.Error(), "json: unknown field ") && json.Unmarshal(trimmed, &top) == nil {
			if _, ok := top[we.Field]; !ok {
				// encoding/json names the field, not the object it is in.
				return wireErrorf(we.Field, "is not a field of the objects inside the %s (its entries of candidates, errors, trace or turns); leave it out or check its spelling", what)
			}
		}
		return we
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return wireErrorf("", "holds more after its JSON object; send exactly one %s", what)
	}
	return nil
}

func jsonProblem(err error, known, what string) *WireError {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return wireErrorf("", "is not valid JSON at byte %d: %v", syntax.Offset, err)
	case errors.As(err, &typ):
		// decisionAnswer embeds Decision; its fields are the answer's own.
		field := strings.TrimPrefix(typ.Field, "Decision.")
		return wireErrorf(field, "is a JSON %s, where a %s holds %s", typ.Value, what, jsonKind(typ.Type.String()))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return wireErrorf("", "ends before its JSON object does (cut off?)")
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return wireErrorf(strings.Trim(name, `"`), "is not a %s field; a %s has %s", what, what, known)
	}
	return wireErrorf("", "cannot be read: %v", err)
}

// jsonKind says a Go type the way a JSON writer thinks of it.
func jsonKind(goType string) string {
	switch {
	case goType == "string" || strings.HasSuffix(goType, "Action") || strings.HasSuffix(goType, "Gate"):
		return "a string"
	case strings.HasPrefix(goType, "float") || strings.HasPrefix(goType, "int") || strings.HasPrefix(goType, "*float") || strings.HasPrefix(goType, "*int"):
		return "a number"
	case strings.HasPrefix(goType, "[]"):
		return "a list"
	case strings.HasPrefix(goType, "map[") || strings.HasPrefix(goType, "router.") || strings.HasPrefix(goType, "*router."):
		return "an object"
	}
	return "a " + goType
}

func preview(b []byte, n int) string {
	s := string(b)
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
