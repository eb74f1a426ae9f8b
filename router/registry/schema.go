package registry

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"github.com/routebench/routebench/internal/yamlkind"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var schemaPrinter = message.NewPrinter(language.English)

// schemaURL is where a document is registered in its own compiler; every
// compile gets a fresh compiler, so one fixed URL is enough.
const schemaURL = "mem:///schema.json"

// newSchemaCompiler makes a 2020-12 compiler that asserts formats (a "date"
// param must be a date) and never fetches a $ref from disk or network.
func newSchemaCompiler() *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseLoader(jsonschema.SchemeURLLoader{})
	return c
}

// schemaProblem is a compile or validation error located by JSON pointer.
type schemaProblem struct {
	ptr []string
	msg string
}

var fragmentPtr = regexp.MustCompile(`#(/[^"' ]*)`)

// explainSchemaError turns a jsonschema error into located, readable problems.
func explainSchemaError(err error) []schemaProblem {
	var sve *jsonschema.SchemaValidationError
	if errors.As(err, &sve) {
		var ve *jsonschema.ValidationError
		if errors.As(sve.Err, &ve) {
			return leafProblems(ve)
		}
	}
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		return leafProblems(ve)
	}
	var re *jsonschema.InvalidRegexError
	if errors.As(err, &re) {
		return []schemaProblem{{ptr: pointerOf(re.URL), msg: fmt.Sprintf("pattern %q: %s", re.Regex, explainRegexp(re.Err))}}
	}
	msg := err.Error()
	var ptr []string
	if m := fragmentPtr.FindStringSubmatch(msg); m != nil {
		ptr = splitPointer(m[1])
	}
	msg = strings.ReplaceAll(msg, schemaURL, "")
	return []schemaProblem{{ptr: ptr, msg: msg}}
}

// leafProblems reports the innermost causes, which name the actual keyword
// at fault rather than "doesn't validate against the metaschema".
func leafProblems(ve *jsonschema.ValidationError) []schemaProblem {
	var out []schemaProblem
	seen := map[string]bool{}
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			key := strings.Join(e.InstanceLocation, "/")
			if seen[key] {
				return // one message per place keeps anyOf noise down
			}
			seen[key] = true
			out = append(out, schemaProblem{ptr: e.InstanceLocation, msg: e.ErrorKind.LocalizedString(schemaPrinter)})
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return out
}

func pointerOf(u string) []string {
	if i := strings.IndexByte(u, '#'); i >= 0 {
		frag, err := url.PathUnescape(u[i+1:])
		if err != nil {
			frag = u[i+1:]
		}
		return splitPointer(frag)
	}
	return nil
}

func splitPointer(p string) []string {
	p = strings.TrimPrefix(p, "/")
	if p == "" {
		return nil
	}
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
	}
	return parts
}

func escapePointerToken(s string) string {
	return url.PathEscape(strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1"))
}

func fieldOf(base string, ptr []string) string {
	for _, t := range ptr {
		base = join(base, t)
	}
	return base
}

// paramsSchema converts, checks and compiles a skill's params_schema. It
// returns nils after reporting when the schema is unusable.
func (f *yfile) paramsSchema(n *yaml.Node, field string) (map[string]any, *jsonschema.Schema, map[string]*jsonschema.Schema) {
	before := len(f.ps.list)
	v, _ := f.jsonValue(n, field)
	if len(f.ps.list) > before {
		return nil, nil, nil
	}
	raw, ok := v.(map[string]any)
	if !ok {
		f.problem(n, field, "must be a JSON Schema object (a mapping with type: object), got %s", yamlkind.Of(n))
		return nil, nil, nil
	}
	if t, ok := raw["type"].(string); !ok || t != "object" {
		f.problem(nodeAt(n, []string{"type"}), join(field, "type"),
			"must be object (params are always an object of named fields); write type: object")
	}
	f.checkExtensions(n, raw, field)
	if req, ok := raw["required"].([]any); ok {
		props, _ := raw["properties"].(map[string]any)
		for i, r := range req {
			if name, ok := r.(string); ok {
				if _, defined := props[name]; !defined {
					f.problem(nodeAt(n, []string{"required", fmt.Sprint(i)}), index(join(field, "required"), i),
						"%q is required but not in properties; define it under properties or fix the name", name)
				}
			}
		}
	}
	// Compile even after the checks above failed, so every problem shows at once.
	c := newSchemaCompiler()
	if err := c.AddResource(schemaURL, raw); err != nil {
		f.problem(n, field, "cannot be used as a schema: %v; write a JSON Schema object", err)
		return nil, nil, nil
	}
	sch, err := c.Compile(schemaURL)
	if err != nil {
		for _, p := range explainSchemaError(err) {
			hint := re2Hint(p.msg)
			if hint == "" {
				hint = "fix it to valid JSON Schema 2020-12"
			}
			f.problem(nodeAt(n, p.ptr), fieldOf(field, p.ptr), "does not compile: %s; %s", p.msg, hint)
		}
		return nil, nil, nil
	}
	if cyc := refCycle(sch); cyc != nil {
		ptr, chain := cycleProblem(cyc)
		f.problem(refNode(n, ptr), fieldOf(field, ptr), "is a $ref cycle (%s): validating any value would loop, so every request would end in a clarification; "+
			"break the chain so one schema checks the value itself (type, enum, properties)", chain)
		return nil, nil, nil
	}
	if p := validationCost(c, raw, sch); p != nil {
		f.problem(refNode(n, p.ptr), fieldOf(field, p.ptr), "%s", p.msg)
		return nil, nil, nil
	}
	// Each property compiled in place, so its $refs still resolve against the
	// whole schema.
	props := map[string]*jsonschema.Schema{}
	propRaw, _ := raw["properties"].(map[string]any)
	names := make([]string, 0, len(propRaw))
	for name := range propRaw {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		ps, err := c.Compile(schemaURL + "#/properties/" + escapePointerToken(name))
		if err != nil {
			f.problem(nodeAt(n, []string{"properties", name}), join(field, "properties."+name), "does not compile on its own: %v; make the property schema self-contained or $ref into #/$defs", err)
			continue
		}
		props[name] = ps
	}
	if len(f.ps.list) > before {
		return nil, nil, nil
	}
	return raw, sch, props
}

// checkExtensions validates the routebench keywords on top-level properties:
// x-synonyms maps enum values to words users say, x-permission maps values
// to the scopes acting with them needs.
func (f *yfile) checkExtensions(n *yaml.Node, raw map[string]any, field string) {
	props, _ := raw["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		prop, ok := props[name].(map[string]any)
		if !ok {
			continue
		}
		pfield := join(field, "properties."+name)
		var enum []string
		enumRaw, hasEnum := prop["enum"].([]any)
		for _, e := range enumRaw {
			enum = append(enum, fmt.Sprint(e))
		}
		for _, kw := range []string{"x-synonyms", "x-permission"} {
			ext, present := prop[kw]
			if !present {
				continue
			}
			node := nodeAt(n, []string{"properties", name, kw})
			kfield := join(pfield, kw)
			m, ok := ext.(map[string]any)
			if !ok {
				f.problem(node, kfield, "must be a mapping of enum value to a list of strings, e.g. {east: [华东]}")
				continue
			}
			if kw == "x-synonyms" && !hasEnum {
				f.problem(node, kfield, "needs an enum on the same property (synonyms map words to enum values); add enum")
				continue
			}
			keys := make([]string, 0, len(m))
			for k := range m {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				vnode := nodeAt(n, []string{"properties", name, kw, k})
				if hasEnum && !contains(enum, k) {
					hint := ""
					if s := suggest(k, enum); s != "" {
						hint = " (did you mean " + s + "?)"
					}
					f.problem(vnode, join(kfield, k), "%q is not one of the enum values [%s]%s; use an enum value as the key",
						k, strings.Join(enum, ", "), hint)
				}
				list, ok := m[k].([]any)
				good := ok
				for _, item := range list {
					if s, isStr := item.(string); !isStr || s == "" {
						good = false
					}
				}
				if !good {
					f.problem(vnode, join(kfield, k), "must be a list of non-empty strings; write [word, ...]")
				}
			}
		}
	}
}

// explainRegexp adds what to do when a Go regexp fails for a reason authors
// coming from PCRE or JavaScript hit most: RE2 has no lookaround or backreferences.
func explainRegexp(err error) string {
	msg := err.Error()
	if hint := re2Hint(msg); hint != "" {
		return msg + "; " + hint
	}
	return msg + "; fix the pattern (Go RE2 syntax)"
}

// re2Hint names the RE2 limitation behind a regexp error message, if any.
func re2Hint(msg string) string {
	for _, look := range []string{"(?=", "(?!", "(?<=", "(?<!"} {
		if strings.Contains(msg, look) {
			return "Go regexps (RE2) have no lookahead or lookbehind: match the text directly, or move the condition into a rule"
		}
	}
	if backref.MatchString(msg) {
		return "Go regexps (RE2) have no backreferences: spell the repeated part out"
	}
	return ""
}

var backref = regexp.MustCompile("invalid escape sequence: `\\\\[1-9]`")

// refNode is the line to show for the schema at ptr: its $ref when it has
// one, as that is what closes a cycle, else the schema itself.
func refNode(n *yaml.Node, ptr []string) *yaml.Node {
	at := nodeAt(n, ptr)
	if ref := nodeAt(at, []string{"$ref"}); ref != at {
		return ref
	}
	return at
}
