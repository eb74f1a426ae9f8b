package workflow

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/routebench/routebench/router/registry"
)

// schemaOfRef follows ref through the schema of what it reads: the
// workflow's params_schema for {{params...}}, else the source node's
// result_schema as summarize passes it on (the result's own fields, with
// items the result's items list, or the result itself when it is a list).
// It returns the JSON Schema (decoded JSON values) at the end of the path,
// or nil when the path leaves what any schema describes (a tool without a
// result_schema, an aggregate, a schema built with $ref or anyOf). A path
// step no declared property allows is reported as a problem (nil too).
func (r *reader) schemaOfRef(w *Workflow, ref *Ref, at *yaml.Node, field string) map[string]any {
	var root map[string]any
	path := ref.Path
	if ref.Root == "params" {
		root = w.ParamsSchema
	} else if src := w.byID[ref.Root]; src != nil && src.Kind == KindTool && src.Skill != nil {
		root = src.Skill.ResultSchemaRaw
		if len(path) > 0 && !path[0].IsIndex && slices.Contains(summaryFields, path[0].Key) {
			if path[0].Key != "items" {
				return nil // ref, count, empty, skill_used: the engine's own
			}
			if _, own := properties(root)["items"]; !own {
				// A list result passes its elements on as items.
				if typeOf(root) != "array" {
					return nil
				}
				path = path[1:]
				if len(path) == 0 || !path[0].IsIndex {
					return nil
				}
			}
		}
	}
	s := root
	for i, seg := range path {
		if s == nil {
			return nil
		}
		if seg.IsIndex {
			next, ok := s["items"].(map[string]any)
			if !ok {
				return nil
			}
			s = next
			continue
		}
		props := properties(s)
		if props == nil {
			return nil
		}
		next, ok := props[seg.Key].(map[string]any)
		if !ok {
			if i == 0 || openObject(s) {
				// The first step is checked by checkRef; an object that
				// admits other properties may hold this one.
				return nil
			}
			known := slices.Sorted(maps.Keys(props))
			hint := ""
			if sug := registry.Suggest(seg.Key, known); sug != "" {
				hint = "did you mean " + sug + "? "
			}
			r.problem(at, field, "{{%s}}: %q is not a property at %s; %sits schema declares %s",
				ref, seg.Key, refPrefix(ref, path, i), hint, strings.Join(known, ", "))
			return nil
		}
		s = next
	}
	return s
}

// refPrefix writes the part of ref before path[i], for messages.
func refPrefix(ref *Ref, path []Seg, i int) string {
	var b strings.Builder
	b.WriteString(ref.Root)
	for _, seg := range ref.Path[:len(ref.Path)-len(path)+i] {
		if seg.IsIndex {
			b.WriteString("[" + strconv.Itoa(seg.Index) + "]")
		} else {
			b.WriteString("." + seg.Key)
		}
	}
	return b.String()
}

func properties(s map[string]any) map[string]any {
	p, _ := s["properties"].(map[string]any)
	return p
}

func typeOf(s map[string]any) string {
	t, _ := s["type"].(string)
	return t
}

// openObject reports whether an object schema admits properties beyond
// those it declares by pattern or by a non-false additionalProperties.
func openObject(s map[string]any) bool {
	if _, ok := s["patternProperties"]; ok {
		return true
	}
	switch a := s["additionalProperties"].(type) {
	case nil:
		return false
	case bool:
		return a
	}
	return true
}

// branchValues are the values a decision's reference can take, as the
// engine compares them (scalarText), when its schema limits them: enum,
// const or boolean. ok is false for a schema that does not.
func branchValues(s map[string]any) (values []string, ok bool) {
	if c, has := s["const"]; has {
		return []string{scalarText(c)}, true
	}
	if e, has := s["enum"].([]any); has {
		for _, v := range e {
			values = append(values, scalarText(v))
		}
		return values, true
	}
	if typeOf(s) == "boolean" {
		return []string{"false", "true"}, true
	}
	return nil, false
}

// checkBranches holds a decision to DESIGN §11's finite enum where the
// schema of what it branches on is known: that value must be limited to
// an enum (or const, or a boolean), and every case must be one of them.
func (r *reader) checkBranches(n *Node, nl *nodeLines, schema map[string]any) {
	field := join(nl.field, "decision.on")
	if schema == nil {
		return
	}
	values, ok := branchValues(schema)
	if !ok {
		r.problem(nl.on, field, "{{%s}} is not limited to an enum by its schema, so the cases cannot cover it; branch on a field whose schema has enum (or const, or type boolean), or add enum to this one", n.On)
		return
	}
	for _, v := range n.CaseOrder {
		if !slices.Contains(values, v) {
			hint := ""
			if sug := registry.Suggest(v, values); sug != "" {
				hint = "did you mean " + sug + "? "
			}
			r.problem(nl.cases[v], join(nl.field, "decision.cases."+v), "%q is not a value {{%s}} can take; %sits enum is [%s]", v, n.On, hint, strings.Join(values, ", "))
		}
	}
}
