package registry

import (
	"fmt"
	"strings"

	"github.com/routebench/routebench/internal/yamlkind"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

// resultSchema converts and compiles a skill's result_schema (JSON Schema
// 2020-12 of what the tool answers). Unlike params_schema it may have any
// type, since a tool may answer a list or a scalar. It returns nils after
// reporting when the schema is unusable.
func (f *yfile) resultSchema(n *yaml.Node, field string) (map[string]any, *jsonschema.Schema) {
	before := len(f.ps.list)
	v, _ := f.jsonValue(n, field)
	if len(f.ps.list) > before {
		return nil, nil
	}
	raw, ok := v.(map[string]any)
	if !ok {
		f.problem(n, field, "must be a JSON Schema object (a mapping such as {type: object, properties: ...}), got %s", yamlkind.Of(n))
		return nil, nil
	}
	c := newSchemaCompiler()
	if err := c.AddResource(schemaURL, raw); err != nil {
		f.problem(n, field, "cannot be used as a schema: %v; write a JSON Schema object", err)
		return nil, nil
	}
	sch, err := c.Compile(schemaURL)
	if err != nil {
		for _, p := range explainSchemaError(err) {
			f.problem(nodeAt(n, p.ptr), fieldOf(field, p.ptr), "does not compile: %s; fix it to valid JSON Schema 2020-12", p.msg)
		}
		return nil, nil
	}
	if cyc := refCycle(sch); cyc != nil {
		ptr, chain := cycleProblem(cyc)
		f.problem(refNode(n, ptr), fieldOf(field, ptr), "is a $ref cycle (%s): validating any result would loop; "+
			"break the chain so one schema checks the value itself (type, enum, properties)", chain)
		return nil, nil
	}
	if p := validationCost(c, raw, sch); p != nil {
		f.problem(refNode(n, p.ptr), fieldOf(field, p.ptr), "%s", p.msg)
		return nil, nil
	}
	return raw, sch
}

// The exported helpers below let other loaders of prompt-version files
// (workflows.yaml) read values and schemas exactly as skills.yaml is read,
// with the same messages, so authors see one style of problem everywhere.

// CompileParamsSchema converts, checks and compiles a params_schema written
// at node n, as a skill's params_schema is; field is the path shown in
// problems. The error, when not nil, is a *LoadError.
func CompileParamsSchema(file, field string, n *yaml.Node) (raw map[string]any, compiled *jsonschema.Schema, props map[string]*jsonschema.Schema, err error) {
	ps := &problems{}
	f := &yfile{name: file, ps: ps}
	raw, compiled, props = f.paramsSchema(resolve(n), field)
	if err := ps.err(); err != nil {
		return nil, nil, nil, err
	}
	return raw, compiled, props, nil
}

// CompileResultSchema compiles a result_schema written at node n, as a
// skill's result_schema is. The error, when not nil, is a *LoadError.
func CompileResultSchema(file, field string, n *yaml.Node) (map[string]any, *jsonschema.Schema, error) {
	ps := &problems{}
	f := &yfile{name: file, ps: ps}
	raw, sch := f.resultSchema(resolve(n), field)
	if err := ps.err(); err != nil {
		return nil, nil, err
	}
	return raw, sch, nil
}

// JSONValue converts a YAML node to the values encoding/json decodes
// (map[string]any, []any, string, float64, bool, nil), at most
// yamldoc.MaxValues of them. The error, when not nil, is a *LoadError
// naming each value JSON cannot hold.
func JSONValue(file, field string, n *yaml.Node) (any, error) {
	ps := &problems{}
	f := &yfile{name: file, ps: ps, valuesOf: "this value"}
	v, _ := f.jsonValue(n, field)
	if err := ps.err(); err != nil {
		return nil, err
	}
	return v, nil
}

// Suggest returns the known word closest to got when it is a plausible
// typo, or "", for "did you mean" hints.
func Suggest(got string, known []string) string { return suggest(got, known) }

// Fields walks mapping n's pairs in order, calling fn for each known key (with
// its value, aliases resolved) and report for each unknown or duplicate key,
// in the words skills.yaml's problems use. It reports and returns false when n
// is not a mapping; field is the path shown in problems.
func Fields(n *yaml.Node, field string, known []string, report func(at *yaml.Node, field, msg string), fn func(key string, v *yaml.Node)) bool {
	if n.Kind != yaml.MappingNode {
		report(n, field, fmt.Sprintf("must be a mapping (key: value), got %s; write it as fields %s", yamlkind.Of(n), strings.Join(known, ", ")))
		return false
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolve(n.Content[i+1])
		key := k.Value
		if first, dup := seen[key]; dup {
			report(k, join(field, key), fmt.Sprintf("duplicate key (first at line %d); keep one", first))
			continue
		}
		seen[key] = k.Line
		if !contains(known, key) {
			hint := "remove it"
			if s := suggest(key, known); s != "" {
				hint = "did you mean " + s + "?"
			}
			report(k, join(field, key), fmt.Sprintf("unknown field; %s (known fields: %s)", hint, strings.Join(known, ", ")))
			continue
		}
		fn(key, v)
	}
	return true
}

// SortProblems returns the problems as a *LoadError sorted by file and line,
// or nil when there are none.
func SortProblems(list []Problem) error {
	return (&problems{list: list}).err()
}
