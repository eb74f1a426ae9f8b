package importer

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// FunctionDef is a function definition as OpenAI tools and BFCL write it.
type FunctionDef struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Parameters  map[string]any `json:"parameters"`
}

// typeNames maps the type names function definitions use to JSON Schema
// types: JSON Schema's own, BFCL's Python names (dict, float, tuple), and
// the Java and JavaScript names of BFCL's simple_java and simple_javascript
// (String, long, HashMap, Bigint, ...), as BFCL maps them for its own
// OpenAPI conversion. "any" maps to no type constraint at all.
var typeNames = map[string]string{
	"object": "object", "dict": "object", "HashMap": "object", "Hashtable": "object",
	"array": "array", "list": "array", "tuple": "array", "Array": "array", "ArrayList": "array",
	"Queue": "array", "Stack": "array", "Set": "array",
	"string": "string", "String": "string", "char": "string",
	"integer": "integer", "int": "integer", "long": "integer", "short": "integer", "byte": "integer", "Bigint": "integer",
	"number": "number", "float": "number", "double": "number",
	"boolean": "boolean", "bool": "boolean", "Boolean": "boolean",
	"null": "null",
	"any":  "",
	"Any":  "",
}

// jsonSchema2020 is the dialect the registry compiles params schemas in.
const jsonSchema2020 = "https://json-schema.org/draft/2020-12/schema"

// schemaConverter turns function parameters into the JSON Schema 2020-12
// the registry loads, collecting notes on what it changed.
type schemaConverter struct {
	notes []string
}

// ToJSONSchema converts a function's parameters into JSON Schema 2020-12;
// see convertParams.
func ToJSONSchema(params map[string]any) (map[string]any, error) {
	var c schemaConverter
	return c.convertParams(params, "parameters")
}

// convertParams converts a function's parameters object: type names are
// mapped (typeNames), BFCL's non-standard "optional" flag is dropped
// (optionality is what "required" already says), and a nullable property
// (type ["string", "null"], nullable: true, or anyOf [{...}, {type: null}])
// gets its one type back and leaves "required": the router drops a null
// param as not given, so "may be null" and "may be left out" are the same
// call, and a one-name type is what the builtin extractor reads.
func (c *schemaConverter) convertParams(params map[string]any, path string) (map[string]any, error) {
	if params == nil {
		return map[string]any{"type": "object"}, nil
	}
	if d, ok := params["$schema"].(string); ok && strings.TrimSuffix(d, "#") != jsonSchema2020 {
		c.notes = append(c.notes, fmt.Sprintf("%s.$schema %s dropped: params schemas are read as JSON Schema 2020-12", path, d))
	}
	out, _, err := c.convert(params, path)
	if err != nil {
		return nil, err
	}
	delete(out, "$schema")
	if t, ok := out["type"]; ok && t != "object" {
		return nil, fmt.Errorf("%s.type: is %v; function parameters must be an object of named params", path, t)
	}
	out["type"] = "object"
	return out, nil
}

// convert converts one schema; nullable reports that it admits null.
func (c *schemaConverter) convert(s map[string]any, path string) (out map[string]any, nullable bool, err error) {
	out = make(map[string]any, len(s))
	var optional []string // nullable properties
	for k, v := range s {
		switch k {
		case "optional", "required":
			continue // required is done after properties, below
		case "nullable":
			if b, ok := v.(bool); ok {
				nullable = nullable || b
				continue
			}
			out[k] = v
		case "type":
			t, null, err := convertType(v, path+".type")
			if err != nil {
				return nil, false, err
			}
			nullable = nullable || null
			if t != nil {
				out["type"] = t
			}
		case "anyOf", "oneOf":
			branch, ok := nullBranchOf(v)
			if !ok {
				out[k] = v
				continue
			}
			// anyOf [{type: string}, {type: null}]: the schema is its one
			// non-null branch, and nullable.
			conv, _, err := c.convert(branch, path+"."+k)
			if err != nil {
				return nil, false, err
			}
			for bk, bv := range conv {
				if _, taken := s[bk]; !taken {
					out[bk] = bv
				}
			}
			nullable = true
		case "properties":
			props, ok := v.(map[string]any)
			if !ok {
				return nil, false, fmt.Errorf("%s.properties: want an object of param schemas, got %s", path, describeJSON(v))
			}
			conv := make(map[string]any, len(props))
			for _, name := range sortedKeys(props) {
				pm, ok := props[name].(map[string]any)
				if !ok {
					return nil, false, fmt.Errorf("%s.properties.%s: want a schema object, got %s", path, name, describeJSON(props[name]))
				}
				p, null, err := c.convert(pm, path+".properties."+name)
				if err != nil {
					return nil, false, err
				}
				if null {
					p = singleType(p)
					optional = append(optional, name)
				}
				conv[name] = p
			}
			out[k] = conv
		case "items":
			im, ok := v.(map[string]any)
			if !ok {
				out[k] = v
				continue
			}
			conv, null, err := c.convert(im, path+".items")
			if err != nil {
				return nil, false, err
			}
			if null {
				conv = withNull(conv)
			}
			out[k] = conv
		default:
			out[k] = v
		}
	}
	if required, ok := s["required"]; ok {
		req, err := c.checkRequired(required, out, path)
		if err != nil {
			return nil, false, err
		}
		if req = c.dropRequired(req, optional, path); len(req) > 0 {
			out["required"] = req
		}
	}
	return out, nullable, nil
}

// convertType maps a type name, or a list of them (["array", "null"]), to
// JSON Schema; null reports that "null" was one of them. A nil type means
// no constraint ("any").
func convertType(v any, path string) (t any, null bool, err error) {
	switch tv := v.(type) {
	case string:
		name, known := typeNames[tv]
		if !known {
			return nil, false, fmt.Errorf("%s: unknown type %q; use a JSON Schema type (string, number, integer, boolean, array, object, null)", path, tv)
		}
		if name == "" {
			return nil, false, nil
		}
		return name, false, nil
	case []any:
		var names []any
		for i, item := range tv {
			s, ok := item.(string)
			if !ok {
				return nil, false, fmt.Errorf("%s[%d]: want a type name, got %s", path, i, describeJSON(item))
			}
			name, null, err := convertType(s, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, false, err
			}
			if name == nil {
				return nil, false, nil // "any" among them: no constraint
			}
			if name == "null" || null {
				null = true
				continue
			}
			if !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
		switch len(names) {
		case 0:
			return "null", false, nil
		case 1:
			return names[0], len(names) < len(tv), nil
		}
		return names, len(names) < len(tv), nil
	}
	return nil, false, fmt.Errorf("%s: want a type name or a list of them, got %s", path, describeJSON(v))
}

// nullBranchOf returns the one non-null branch of anyOf/oneOf when the
// other branch is {type: null}.
func nullBranchOf(v any) (map[string]any, bool) {
	list, ok := v.([]any)
	if !ok || len(list) != 2 {
		return nil, false
	}
	var branch map[string]any
	nulls := 0
	for _, b := range list {
		m, ok := b.(map[string]any)
		if !ok {
			return nil, false
		}
		if t, _ := m["type"].(string); t == "null" && len(m) == 1 {
			nulls++
			continue
		}
		branch = m
	}
	return branch, nulls == 1 && branch != nil
}

// singleType is a nullable property's schema without the null: its type
// as one name when it has one left, and no null among its enum values.
func singleType(p map[string]any) map[string]any {
	if list, ok := p["type"].([]any); ok && len(list) == 1 {
		p["type"] = list[0]
	}
	if enum, ok := p["enum"].([]any); ok && slices.Contains(enum, nil) {
		p["enum"] = slices.DeleteFunc(slices.Clone(enum), func(v any) bool { return v == nil })
	}
	return p
}

// withNull keeps null in a schema that cannot be left out (an array item).
func withNull(p map[string]any) map[string]any {
	switch t := p["type"].(type) {
	case string:
		if t != "null" {
			p["type"] = []any{t, "null"}
		}
	case []any:
		p["type"] = append(slices.Clone(t), "null")
	}
	return p
}

// dropRequired removes the nullable params from a required list.
func (c *schemaConverter) dropRequired(list []any, optional []string, path string) []any {
	var out []any
	var dropped []string
	for _, r := range list {
		if name, ok := r.(string); ok && slices.Contains(optional, name) {
			dropped = append(dropped, name)
			continue
		}
		out = append(out, r)
	}
	if len(dropped) > 0 {
		c.notes = append(c.notes, fmt.Sprintf("%s: %s nullable, written as optional (a null param is a param not given)", path, strings.Join(dropped, ", ")))
	}
	return out
}

// checkRequired checks a required list names defined params; a name the
// properties lack is dropped with a note (the registry rejects it, and the
// function could never be called with it validated).
func (c *schemaConverter) checkRequired(required any, converted map[string]any, path string) ([]any, error) {
	list, ok := required.([]any)
	if !ok {
		return nil, fmt.Errorf("%s.required: want a list of param names, got %s", path, describeJSON(required))
	}
	props, _ := converted["properties"].(map[string]any)
	var out []any
	for i, r := range list {
		name, ok := r.(string)
		if !ok {
			return nil, fmt.Errorf("%s.required[%d]: want a param name, got %s", path, i, describeJSON(r))
		}
		if _, defined := props[name]; !defined {
			c.notes = append(c.notes, fmt.Sprintf("%s.required: %q dropped: no such property", path, name))
			continue
		}
		out = append(out, name)
	}
	return out, nil
}

// describeJSON names a decoded JSON value's kind for an error message.
func describeJSON(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// requiredOf lists a converted schema's required params.
func requiredOf(schema map[string]any) []string {
	list, _ := schema["required"].([]any)
	out := make([]string, 0, len(list))
	for _, r := range list {
		if s, ok := r.(string); ok {
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}
