package providers

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

// confidenceKey is the argument every tool requires for the judge's
// confidence; fallbackConfidenceKey is used for a skill that already has a
// param of that name, so the skill's own param is never swallowed.
const (
	confidenceKey         = "confidence"
	fallbackConfidenceKey = "routing_confidence"
)

// tool is one function offered to a model: a candidate skill or `none`.
type tool struct {
	Name        string
	Skill       string // the skill it stands for (router.NoneChoice for none)
	Description string
	// Schema is the JSON Schema of the arguments: the skill's params schema
	// (extension keywords removed) plus the required confidence.
	Schema  map[string]any
	ConfKey string
}

// toolSet is the candidates as tools, in candidate order, then `none`.
type toolSet struct {
	tools  []tool
	byName map[string]*tool
}

var toolNameUnsafe = regexp.MustCompile(`[^A-Za-z0-9_-]`)

// buildTools offers each candidate as a function. Providers accept only
// [A-Za-z0-9_-]{1,64} as function names, so other characters become "_"
// and the answer is mapped back to the real skill name.
func buildTools(cands []*registry.Skill) toolSet {
	ts := toolSet{byName: map[string]*tool{}}
	used := map[string]bool{router.NoneChoice: true}
	for _, s := range cands {
		name := toolNameUnsafe.ReplaceAllString(s.Name, "_")
		if len(name) > 60 {
			name = name[:60]
		}
		for i := 2; used[name]; i++ {
			name = fmt.Sprintf("%s_%d", strings.TrimRight(name, "_0123456789"), i)
		}
		used[name] = true
		ts.tools = append(ts.tools, skillTool(name, s))
	}
	ts.tools = append(ts.tools, noneTool())
	for i := range ts.tools {
		ts.byName[ts.tools[i].Name] = &ts.tools[i]
	}
	return ts
}

func skillTool(name string, s *registry.Skill) tool {
	schema, _ := stripExtensions(s.ParamsSchema, false).(map[string]any)
	if schema == nil {
		schema = map[string]any{}
	}
	schema["type"] = "object"
	props, _ := schema["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
	}
	key := confidenceKey
	if _, taken := props[key]; taken {
		key = fallbackConfidenceKey
	}
	props[key] = map[string]any{
		"type": "number", "minimum": 0, "maximum": 1,
		"description": "How sure you are that this skill is what the user wants, from 0 to 1.",
	}
	schema["properties"] = props
	var required []any
	if req, ok := schema["required"].([]any); ok {
		required = append(required, req...)
	}
	schema["required"] = append(required, key)

	desc := s.Description
	if len(s.WhenToUse) > 0 {
		desc += "\nWhen to use: " + strings.Join(s.WhenToUse, "; ")
	}
	if len(s.WhenNotToUse) > 0 {
		desc += "\nWhen not to use: " + strings.Join(s.WhenNotToUse, "; ")
	}
	return tool{Name: name, Skill: s.Name, Description: desc, Schema: schema, ConfKey: key}
}

func noneTool() tool {
	return tool{
		Name:        router.NoneChoice,
		Skill:       router.NoneChoice,
		Description: "No candidate skill fits the request. Call this instead of guessing, and say why in reason.",
		Schema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				confidenceKey: map[string]any{"type": "number", "minimum": 0, "maximum": 1,
					"description": "How sure you are that no candidate fits, from 0 to 1."},
				"reason": map[string]any{"type": "string", "description": "Why no candidate fits."},
			},
			"required": []any{confidenceKey, "reason"},
		},
		ConfKey: confidenceKey,
	}
}

// stripExtensions deep-copies a schema without its x-* keywords
// (x-synonyms, x-permission): they are routebench's, providers' schema
// checkers may reject them, and the system prompt already shows them. Keys
// under properties-like maps are param names, not keywords, and are kept.
func stripExtensions(v any, names bool) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, val := range t {
			if !names && strings.HasPrefix(k, "x-") {
				continue
			}
			childNames := !names && (k == "properties" || k == "patternProperties" || k == "$defs" || k == "definitions" || k == "dependentSchemas")
			out[k] = stripExtensions(val, childNames)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, val := range t {
			out[i] = stripExtensions(val, false)
		}
		return out
	}
	return v
}

// contractAnswer is the contract's shape with fields in contract order.
type contractAnswer struct {
	Skill      string                     `json:"skill"`
	Confidence json.RawMessage            `json:"confidence,omitempty"`
	Params     map[string]json.RawMessage `json:"params"`
	Reason     json.RawMessage            `json:"reason,omitempty"`
}

// answer turns a tool call into contract JSON without inventing anything:
// a tool that was never offered keeps its name (the router repairs or
// rejects it), a missing confidence stays missing (the contract check
// fails), and arguments that are not a JSON object come back verbatim so
// the router counts a schema_error.
func (ts toolSet) answer(toolName string, args []byte) string {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(args, &obj); err != nil || obj == nil {
		return string(args)
	}
	a := contractAnswer{Skill: toolName, Params: map[string]json.RawMessage{}}
	key := confidenceKey
	if t, ok := ts.byName[toolName]; ok {
		a.Skill, key = t.Skill, t.ConfKey
	}
	a.Confidence = obj[key]
	delete(obj, key)
	if a.Skill == router.NoneChoice {
		a.Reason = obj["reason"]
		delete(obj, "reason")
	}
	for k, v := range obj {
		a.Params[k] = v
	}
	out, err := json.Marshal(a)
	if err != nil { // a raw value that does not re-encode; let the router see the original
		return string(args)
	}
	return string(out)
}

// defaultContract is the judge output contract, used when a request comes
// without a version (the router always sends one).
var defaultContract = map[string]any{
	"type":     "object",
	"required": []any{"skill", "confidence", "params"},
	"properties": map[string]any{
		"skill":      map[string]any{"type": "string"},
		"confidence": map[string]any{"type": "number", "minimum": 0, "maximum": 1},
		"params":     map[string]any{"type": "object"},
		"reason":     map[string]any{"type": "string"},
	},
}

// contractSchema is the version's contract.schema.json for a JSON answer,
// without the $schema/$id header some servers refuse.
func contractSchema(v *registry.Version) map[string]any {
	if v == nil || len(v.ContractRaw) == 0 {
		return defaultContract
	}
	var m map[string]any
	if err := json.Unmarshal(v.ContractRaw, &m); err != nil || m == nil {
		return defaultContract
	}
	delete(m, "$schema")
	delete(m, "$id")
	return m
}

// userTurn is the request as the model sees it: the time that anchors
// relative dates (omitted when unset, so recordings do not depend on the
// clock), the text, and how to answer.
func userTurn(req router.JudgeRequest, toolsOff bool) string {
	var b strings.Builder
	if !req.Now.IsZero() {
		fmt.Fprintf(&b, "Current time: %s (%s)\n", req.Now.Format("2006-01-02T15:04:05Z07:00"), req.Now.Weekday())
	}
	fmt.Fprintf(&b, "User request:\n%s\n\n%s", req.Text, answerInstruction(toolsOff))
	return b.String()
}

func answerInstruction(toolsOff bool) string {
	if toolsOff {
		return `Answer with one JSON object following the contract schema: {"skill": "<candidate name or none>", "confidence": <0..1>, "params": {...}}. Use "none" when no candidate fits.`
	}
	return "Call exactly one tool: the candidate skill that fits the request, with its params, or `none` when no candidate fits. Always give your confidence from 0 to 1."
}

// repairTurn sends the structured errors of the rejected answer back.
func repairTurn(r *router.Repair, toolsOff bool) string {
	data, _ := json.MarshalIndent(r.Errors, "", "  ")
	return "Your previous answer was rejected with these errors:\n" + string(data) +
		"\n\nFix them and answer again. " + answerInstruction(toolsOff)
}
