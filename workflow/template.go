package workflow

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Ref is one `{{...}}` reference: a root (params or a node id) and a path
// into it, e.g. alerts.items[0].service.
type Ref struct {
	Root string
	Path []Seg
	Text string // as written between the braces, for messages
}

// Seg is one step of a reference path: a field name or a list index.
type Seg struct {
	Key     string
	Index   int
	IsIndex bool
}

func (r Ref) String() string { return r.Text }

// template is a string value holding references: literal text and refs.
type template struct {
	parts []tpart
}

type tpart struct {
	lit string
	ref *Ref
}

// whole reports the single reference when the template is exactly one
// `{{ref}}`, whose value then keeps its JSON type (a number stays a number).
func (t *template) whole() (*Ref, bool) {
	if len(t.parts) == 1 && t.parts[0].ref != nil {
		return t.parts[0].ref, true
	}
	return nil, false
}

var (
	tmplRe = regexp.MustCompile(`\{\{([^{}]*)\}\}`)
	rootRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*`)
	keyRe  = regexp.MustCompile(`^\.([A-Za-z_][A-Za-z0-9_-]*)`)
	idxRe  = regexp.MustCompile(`^\[(\d+)\]`)
)

// hasTemplate is a cheap test before parsing.
func hasTemplate(s string) bool { return strings.Contains(s, "{{") }

// parseTemplate splits s into literal text and references. Unbalanced
// braces and unparsable references are errors naming what to write.
func parseTemplate(s string) (*template, error) {
	t := &template{}
	last := 0
	for _, m := range tmplRe.FindAllStringSubmatchIndex(s, -1) {
		if m[0] > last {
			t.parts = append(t.parts, tpart{lit: s[last:m[0]]})
		}
		ref, err := parseRef(strings.TrimSpace(s[m[2]:m[3]]))
		if err != nil {
			return nil, err
		}
		t.parts = append(t.parts, tpart{ref: ref})
		last = m[1]
	}
	if last < len(s) {
		t.parts = append(t.parts, tpart{lit: s[last:]})
	}
	for _, p := range t.parts {
		if p.ref == nil && (strings.Contains(p.lit, "{{") || strings.Contains(p.lit, "}}")) {
			return nil, fmt.Errorf("has unbalanced braces in %q; write references as {{node.field}} or {{params.name}}", s)
		}
	}
	return t, nil
}

// parseRef reads root(.key|[n])* with nothing else: no expressions, so a
// reference can be checked at load time and never runs code.
func parseRef(expr string) (*Ref, error) {
	root := rootRe.FindString(expr)
	if root == "" {
		return nil, fmt.Errorf("{{%s}} does not start with a node id or params; write {{node.field}} or {{params.name}}", expr)
	}
	r := &Ref{Root: root, Text: expr}
	rest := expr[len(root):]
	for rest != "" {
		if m := keyRe.FindStringSubmatch(rest); m != nil {
			r.Path = append(r.Path, Seg{Key: m[1]})
			rest = rest[len(m[0]):]
			continue
		}
		if m := idxRe.FindStringSubmatch(rest); m != nil {
			n, err := strconv.Atoi(m[1])
			if err != nil {
				return nil, fmt.Errorf("{{%s}} has index %s that is too large", expr, m[1])
			}
			r.Path = append(r.Path, Seg{Index: n, IsIndex: true})
			rest = rest[len(m[0]):]
			continue
		}
		return nil, fmt.Errorf("{{%s}} cannot be read at %q; a reference is a path of .field and [index] steps only", expr, rest)
	}
	return r, nil
}

// lookup follows a reference's path through JSON values.
func lookup(v any, ref *Ref) (any, error) {
	for i, s := range ref.Path {
		switch {
		case s.IsIndex:
			list, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("{{%s}}: %s is not a list", ref.Text, pathText(ref.Root, ref.Path[:i]))
			}
			if s.Index >= len(list) {
				return nil, fmt.Errorf("{{%s}}: %s has %d items, no [%d]", ref.Text, pathText(ref.Root, ref.Path[:i]), len(list), s.Index)
			}
			v = list[s.Index]
		default:
			m, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("{{%s}}: %s is not an object", ref.Text, pathText(ref.Root, ref.Path[:i]))
			}
			next, present := m[s.Key]
			if !present {
				return nil, fmt.Errorf("{{%s}}: %s has no field %s", ref.Text, pathText(ref.Root, ref.Path[:i]), s.Key)
			}
			v = next
		}
	}
	return v, nil
}

func pathText(root string, path []Seg) string {
	var b strings.Builder
	b.WriteString(root)
	for _, s := range path {
		if s.IsIndex {
			fmt.Fprintf(&b, "[%d]", s.Index)
		} else {
			b.WriteString("." + s.Key)
		}
	}
	return b.String()
}

// render evaluates a template against the values of its roots. A whole
// reference keeps its type; mixed text renders each value as text.
func (t *template) render(roots map[string]any) (any, error) {
	if ref, ok := t.whole(); ok {
		return resolveRef(roots, ref)
	}
	var b strings.Builder
	for _, p := range t.parts {
		if p.ref == nil {
			b.WriteString(p.lit)
			continue
		}
		v, err := resolveRef(roots, p.ref)
		if err != nil {
			return nil, err
		}
		b.WriteString(scalarText(v))
	}
	return b.String(), nil
}

func resolveRef(roots map[string]any, ref *Ref) (any, error) {
	root, ok := roots[ref.Root]
	if !ok {
		return nil, fmt.Errorf("{{%s}}: %s has no output (it was skipped or has not run)", ref.Text, ref.Root)
	}
	return lookup(root, ref)
}

// scalarText prints a JSON value the way a person writes it: 3 not 3.000000.
func scalarText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case nil:
		return ""
	}
	return string(mustCanonical(v))
}

// renderValue renders every template inside a params value.
func renderValue(v any, roots map[string]any) (any, error) {
	switch x := v.(type) {
	case string:
		if !hasTemplate(x) {
			return x, nil
		}
		t, err := parseTemplate(x)
		if err != nil {
			return nil, err
		}
		return t.render(roots)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			r, err := renderValue(val, roots)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, val := range x {
			r, err := renderValue(val, roots)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	}
	return v, nil
}

// refsIn lists every reference inside a params value, with the dotted
// field path where it sits, for load-time checks.
func refsIn(v any, field string, fn func(field string, ref *Ref, err error)) {
	switch x := v.(type) {
	case string:
		if !hasTemplate(x) {
			return
		}
		t, err := parseTemplate(x)
		if err != nil {
			fn(field, nil, err)
			return
		}
		for _, p := range t.parts {
			if p.ref != nil {
				fn(field, p.ref, nil)
			}
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			refsIn(x[k], field+"."+k, fn)
		}
	case []any:
		for i, val := range x {
			refsIn(val, fmt.Sprintf("%s[%d]", field, i), fn)
		}
	}
}
