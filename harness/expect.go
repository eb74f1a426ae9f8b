package harness

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/routebench/routebench/internal/yamlkind"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

var (
	expectFields  = []string{"action", "skill", "gate", "params", "candidates", "never"}
	expectActions = []string{string(router.Execute), string(router.Confirm), string(router.Clarify), string(router.Refuse)}
	gates         = []string{string(registry.GateNormal), string(registry.GateBatch), string(registry.GateIrreversible)}
	matcherKeys   = []string{"any_of", "regex", "absent"}
	// allExpectFields are the keys an expectation may hold, workflow
	// expectations' included.
	allExpectFields = append(slices.Clone(expectFields), workflowExpectFields...)
)

// expect parses a case's expectation. Which fields an action allows:
//
//	execute: skill (required), params, never
//	confirm: skill (required), gate, params, never
//	clarify: candidates and/or skill (either makes it stricter), never
//	refuse:  never
//
// On a workflow case (wf set) action is optional, and the workflow
// expectations of workflowExpectFields are allowed (see workflowExpect).
func (y *ynode) expect(n *yaml.Node, field string, skills skillIndex, wf *WorkflowCase) Expect {
	var e Expect
	if n.Kind != yaml.MappingNode {
		y.problem(n, field, "must be a mapping such as {action: execute, skill: ...}, got %s", yamlkind.Of(n))
		return e
	}
	nodes := map[string]*yaml.Node{}
	// A key's field name is made only where a problem may need it.
	y.fields(n, field, allExpectFields, func(key string, v *yaml.Node) {
		nodes[key] = v
		switch key {
		case "action":
			a := y.text(v, field, key)
			if a != "" && !slices.Contains(expectActions, a) {
				y.problem(v, field+"."+key, "must be one of %s, got %q (an error decision is never expected)", strings.Join(expectActions, ", "), a)
				return
			}
			e.Action = router.Action(a)
		case "skill":
			if isText(v) && (skills.empty() || skills.has(v.Value)) {
				e.Skill = v.Value // what skillName gives, without a problem
			} else {
				e.Skill = y.skillName(v, field+"."+key, skills)
			}
		case "gate":
			g := y.text(v, field, key)
			if g != "" && !slices.Contains(gates, g) {
				y.problem(v, field+"."+key, "must be one of %s, got %q", strings.Join(gates, ", "), g)
				return
			}
			e.Gate = registry.Gate(g)
		case "params":
			e.Params = y.params(v, field+"."+key)
		case "candidates":
			e.Candidates = y.skillList(v, field+"."+key, skills)
		case "never":
			e.Never = y.skillList(v, field+"."+key, skills)
		}
	})
	y.workflowExpect(nodes, field, skills, wf, &e)
	if _, ok := nodes["action"]; !ok {
		if wf != nil {
			for _, key := range []string{"gate", "params", "candidates"} {
				if v := nodes[key]; v != nil {
					y.problem(v, field+"."+key, "needs action: say which routing decision it belongs to, or remove it")
				}
			}
			return e
		}
		y.problem(n, field+".action", "is missing; one of %s", strings.Join(expectActions, ", "))
		return e
	}
	only := func(key, why string) {
		if v, ok := nodes[key]; ok {
			y.problem(v, field+"."+key, "is not allowed with action %s; %s", e.Action, why)
		}
	}
	switch e.Action {
	case router.Execute, router.Confirm:
		if _, ok := nodes["skill"]; !ok {
			y.problem(n, field+".skill", "is missing; action %s needs the skill that should act", e.Action)
		}
		only("candidates", "candidates are what a clarify offers")
		if e.Action == router.Execute {
			only("gate", "only confirm carries a gate")
		}
	case router.Clarify:
		// Alone, clarify accepts any clarification (DESIGN §5): a vague
		// request has no right skill to offer, only a wrong one to act on.
		only("gate", "only confirm carries a gate")
		only("params", "params are checked only when the router acts")
	case router.Refuse:
		only("skill", "a refusal acts on no skill; list skills that must not act under never")
		only("gate", "only confirm carries a gate")
		only("params", "params are checked only when the router acts")
		only("candidates", "candidates are what a clarify offers")
	}
	if e.Skill != "" && slices.Contains(e.Never, e.Skill) {
		y.problem(nodes["never"], field+".never", "lists %s, the expected skill; the expectation contradicts itself", e.Skill)
	}
	if e.Skill != "" && skills.has(e.Skill) {
		names := make([]string, 0, len(e.Params))
		for name := range e.Params {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			if !skills.defines(e.Skill, name) {
				y.problem(keyOf(nodes["params"], name), field+".params."+name, "%s's params_schema defines no param %q; check the spelling", e.Skill, name)
			}
		}
	}
	return e
}

func (y *ynode) skillName(n *yaml.Node, field string, skills skillIndex) string {
	name := y.str(n, field)
	if name != "" && !skills.empty() && !skills.has(name) {
		y.problem(n, field, "unknown skill %q%s", name, skills.hint(name))
	}
	return name
}

func (y *ynode) skillList(n *yaml.Node, field string, skills skillIndex) []string {
	if n.Kind != yaml.SequenceNode {
		y.problem(n, field, "must be a list of skill names, got %s", yamlkind.Of(n))
		return nil
	}
	out := make([]string, 0, len(n.Content))
	for i, item := range n.Content {
		item = resolve(item)
		name := item.Value
		if !isText(item) || (name != "" && !skills.empty() && !skills.has(name)) {
			// The item's field is named only for skillName's problem.
			name = y.skillName(item, fmt.Sprintf("%s[%d]", field, i), skills)
		}
		if name != "" {
			out = append(out, name)
		}
	}
	return out
}

func (y *ynode) params(n *yaml.Node, field string) map[string]ParamMatcher {
	if n.Kind != yaml.MappingNode {
		y.problem(n, field, "must be a mapping of param name to value or matcher, got %s", yamlkind.Of(n))
		return nil
	}
	out := make(map[string]ParamMatcher, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolve(n.Content[i+1])
		if _, dup := out[k.Value]; dup {
			y.problem(k, field+"."+k.Value, "appears twice; keep one")
			continue
		}
		if m, ok := y.matcher(v, field, k.Value); ok {
			out[k.Value] = m
		}
	}
	return out
}

// matcher parses one expected param value: a literal, or a mapping with
// exactly one of any_of, regex, absent (any_of and regex may add
// `optional: true`: the param may also be left out, as BFCL's "" answer
// says). A mapping with none of those keys is a literal object (matched as
// a subset).
// The param's field, parent.name, is named only for a problem.
func (y *ynode) matcher(n *yaml.Node, parent, name string) (ParamMatcher, bool) {
	if n.Kind != yaml.MappingNode || len(n.Content) == 0 {
		// The usual literal, read as literal reads it when it has no
		// problem.
		if !(n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null") {
			if v, err := nodeValue(n); err == nil {
				return ParamMatcher{Equals: v}, true
			}
		}
	}
	field := parent + "." + name
	if n.Kind == yaml.MappingNode && len(n.Content) > 0 {
		var keys []string
		var optional *yaml.Node
		var body *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			if k == "optional" {
				optional = resolve(n.Content[i+1])
				continue
			}
			keys = append(keys, k)
			body = resolve(n.Content[i+1])
		}
		isMatcher := optional != nil || slices.ContainsFunc(keys, func(k string) bool { return slices.Contains(matcherKeys, k) })
		if isMatcher {
			if len(keys) != 1 || !slices.Contains(matcherKeys, keys[0]) {
				y.problem(n, field, "a matcher has exactly one of any_of, regex, absent (plus optional: true with any_of or regex); got %s", strings.Join(keys, ", "))
				return ParamMatcher{}, false
			}
			if optional != nil {
				if optional.Kind != yaml.ScalarNode || optional.ShortTag() != "!!bool" || optional.Value != "true" || keys[0] == "absent" {
					y.problem(optional, field+".optional", "must be true, beside any_of or regex (the param may also be left out)")
					return ParamMatcher{}, false
				}
			}
			m, ok := y.matcherBody(keys[0], body, field+"."+keys[0], optional != nil)
			m.Optional = optional != nil
			return m, ok
		}
	}
	v, ok := y.literal(n, field)
	return ParamMatcher{Equals: v}, ok
}

func (y *ynode) matcherBody(key string, v *yaml.Node, field string, optional bool) (ParamMatcher, bool) {
	switch key {
	case "any_of":
		// An empty list is allowed only with optional: then the param must
		// be left out.
		if v.Kind != yaml.SequenceNode || (len(v.Content) == 0 && !optional) {
			y.problem(v, field, "must be a non-empty list of accepted values, got %s", yamlkind.Of(v))
			return ParamMatcher{}, false
		}
		opts := make([]any, 0, len(v.Content))
		for i, item := range v.Content {
			lit, ok := y.literal(resolve(item), fmt.Sprintf("%s[%d]", field, i))
			if !ok {
				return ParamMatcher{}, false
			}
			opts = append(opts, lit)
		}
		return ParamMatcher{AnyOf: opts}, true
	case "regex":
		if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!str" || v.Value == "" {
			y.problem(v, field, "must be a regular expression string, got %s", yamlkind.Of(v))
			return ParamMatcher{}, false
		}
		if _, err := regexp.Compile(v.Value); err != nil {
			y.problem(v, field, "does not compile: %v", err)
			return ParamMatcher{}, false
		}
		return ParamMatcher{Regex: v.Value}, true
	default: // absent
		if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!bool" || v.Value != "true" {
			y.problem(v, field, "must be true (the param must not be set); to allow anything, leave the param out")
			return ParamMatcher{}, false
		}
		return ParamMatcher{Absent: true}, true
	}
}

// literal decodes a plain value. Null is refused: it would read as "no
// constraint" and hide a typo; {absent: true} says "must not be set".
func (y *ynode) literal(n *yaml.Node, field string) (any, bool) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		y.problem(n, field, "is null; write a value, or {absent: true} for a param that must not be set")
		return nil, false
	}
	v, err := nodeValue(n)
	if err != nil {
		y.problem(n, field, "cannot be read: %v", err)
		return nil, false
	}
	return v, true
}

// nodeValue decodes a node into JSON-shaped values (float64 numbers,
// map[string]any, []any), so expectations compare the same way whether read
// from a suite or from results.jsonl. Dates stay text ("2026-11-23"), as
// params carry them, never YAML timestamps.
func nodeValue(n *yaml.Node) (any, error) {
	n = resolve(n)
	switch n.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			v, err := nodeValue(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			m[n.Content[i].Value] = v
		}
		return m, nil
	case yaml.SequenceNode:
		l := make([]any, 0, len(n.Content))
		for _, item := range n.Content {
			v, err := nodeValue(item)
			if err != nil {
				return nil, err
			}
			l = append(l, v)
		}
		return l, nil
	}
	if v, ok := scalarValue(n); ok {
		return v, nil
	}
	if n.ShortTag() == "!!timestamp" {
		return n.Value, nil
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, err
	}
	return normalizeYAML(v), nil
}

// scalarValue is what nodeValue decodes the usual scalars to (a string,
// a boolean, null), read off the node as yaml.v3's decoder reads it: a
// decoder made for each value was most of reading expected params. ok is
// false for any other node.
func scalarValue(n *yaml.Node) (v any, ok bool) {
	if n.Kind != yaml.ScalarNode {
		return nil, false
	}
	switch n.Tag {
	case "!!str":
		// yaml.v3 decodes a node tagged !!str to its Value, whatever its
		// style.
		return n.Value, true
	case "!!bool":
		switch n.Value {
		case "true", "True", "TRUE":
			return true, true
		case "false", "False", "FALSE":
			return false, true
		}
	case "!!null":
		switch n.Value {
		case "", "~", "null", "Null", "NULL":
			return nil, true
		}
	}
	return nil, false
}

// normalizeYAML turns decoded YAML into JSON-shaped values, so expectations
// compare the same way whether read from a suite or from results.jsonl.
func normalizeYAML(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			t[k] = normalizeYAML(x)
		}
		return t
	case []any:
		for i, x := range t {
			t[i] = normalizeYAML(x)
		}
		return t
	case int:
		return float64(t)
	case int64:
		return float64(t)
	case uint64:
		return float64(t)
	}
	return v
}
