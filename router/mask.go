package router

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/routebench/routebench/router/registry"
)

// Masked is what a sensitive param value is written as.
const Masked = "***"

// MinMaskedTextRunes is the shortest value also masked inside free text
// (messages, error messages, the judge's raw output and prompt): a shorter
// value ("1", "ab") would blank unrelated words and numbers, so it is
// masked only where it is a param value.
const MinMaskedTextRunes = 3

// MaskSensitive masks, in d, the values of params that a skill of reg
// marks `x-sensitive: true` (DESIGN §2), for writing d where people and
// files can read it. It is the one place decisions are masked; call it
// after scoring, since a masked decision no longer holds the real values.
//
// Masked: d.Params[name] for every sensitive name of the skills d names
// (its skill, the judge's choices and the candidates); any such param in
// the JSON of a trace step's raw judge output; and every occurrence of
// those values (at least MinMaskedTextRunes long) in d.Message, error
// messages, and each trace step's raw output, prompt and note. Not
// masked: values shorter than MinMaskedTextRunes inside free text, and a
// value the judge rewrote (an enum value for a word the user said, a
// normalised date) where the user's own wording appears.
//
// It returns the names of d.Params it masked, sorted, and the values it
// masked in free text, for masking the same values in what travels with
// d (the request's text, in results and reports). d.Params is replaced by
// a copy, never changed in place.
func MaskSensitive(reg *registry.Registry, d *Decision) (names []string, values []string) {
	sensitive := sensitiveNames(reg, d)
	if len(sensitive) == 0 {
		return nil, nil
	}
	if len(d.Params) > 0 {
		params := make(map[string]any, len(d.Params))
		for k, v := range d.Params {
			if sensitive[k] && v != nil && v != Masked {
				values = appendValues(values, v)
				names = append(names, k)
				v = Masked
			}
			params[k] = v
		}
		d.Params = params
	}
	for _, st := range d.Trace {
		values = appendRawValues(values, st.Raw, sensitive)
	}
	values = textValues(values)
	maskDecisionText(d, values)
	sort.Strings(names)
	return names, values
}

// MaskDecisionText masks values, as MaskText does, wherever d holds free
// text: its message, error messages, each trace step's raw output,
// prompt and note, and the strings among its params. It is for values
// d's own params do not show: a secret the case expects but the router
// never extracted is still in the prompt a model was sent. d's params and
// trace are replaced by copies when something changes, never changed in
// place.
func MaskDecisionText(d *Decision, values []string) {
	if len(values) > 0 {
		maskDecisionText(d, textValues(values))
	}
}

func maskDecisionText(d *Decision, values []string) {
	if len(values) == 0 {
		return
	}
	mask := func(s string) string { return maskText(s, values) }
	d.Message = mask(d.Message)
	d.Errors = maskErrors(d.Errors, mask)
	if p, changed := maskStrings(d.Params, mask); changed {
		d.Params = p.(map[string]any)
	}
	trace := make([]TraceStep, len(d.Trace))
	for i, st := range d.Trace {
		st.Raw, st.Prompt, st.Note = mask(st.Raw), mask(st.Prompt), mask(st.Note)
		st.Errors = maskErrors(st.Errors, mask)
		trace[i] = st
	}
	d.Trace = trace
}

// MaskStrings masks values, as MaskText does, in every string inside v
// (a decoded JSON document, a param value). It reports whether anything
// changed; v itself is left untouched, and what changed is a copy.
func MaskStrings(v any, values []string) (any, bool) {
	if len(values) == 0 {
		return v, false
	}
	tv := textValues(values)
	if len(tv) == 0 {
		return v, false
	}
	return maskStrings(v, func(s string) string { return maskText(s, tv) })
}

// maskStrings masks the strings inside a param value, copying each list
// and object on the way down to a change and leaving v itself untouched.
func maskStrings(v any, mask func(string) string) (any, bool) {
	switch t := v.(type) {
	case string:
		m := mask(t)
		return m, m != t
	case map[string]any:
		var out map[string]any
		for k, x := range t {
			if y, changed := maskStrings(x, mask); changed {
				if out == nil {
					out = maps.Clone(t)
				}
				out[k] = y
			}
		}
		if out == nil {
			return v, false
		}
		return out, true
	case []any:
		var out []any
		for i, x := range t {
			if y, changed := maskStrings(x, mask); changed {
				if out == nil {
					out = slices.Clone(t)
				}
				out[i] = y
			}
		}
		if out == nil {
			return v, false
		}
		return out, true
	}
	return v, false
}

// SensitiveParamNames is the union of the sensitive params of skills, for
// callers that know the candidates but not yet the answer (a cassette
// holding a judge's answer).
func SensitiveParamNames(skills []*registry.Skill) map[string]bool {
	out := map[string]bool{}
	for _, s := range skills {
		for _, n := range s.Sensitive() {
			out[n] = true
		}
	}
	return out
}

// sensitiveNames are the sensitive params of every skill of reg that d
// names: a judge's raw answer may name a skill the final decision does
// not act on, and its params are as sensitive.
func sensitiveNames(reg *registry.Registry, d *Decision) map[string]bool {
	if reg == nil || !reg.HasSensitive() {
		return nil
	}
	// A skill is named several times over (decision, candidates, each
	// trace step): its params are read once.
	var skills []*registry.Skill
	add := func(name string) {
		if s := reg.Skill(name); s != nil && !slices.Contains(skills, s) {
			skills = append(skills, s)
		}
	}
	add(d.Skill)
	for _, c := range d.Candidates {
		add(c.Skill)
	}
	for _, st := range d.Trace {
		add(st.Choice)
		for _, c := range st.Scores {
			add(c.Skill)
		}
		for _, t := range st.Top {
			add(t)
		}
	}
	names := SensitiveParamNames(skills)
	if len(names) == 0 {
		return nil
	}
	return names
}

// MaskJSONValues masks, in a JSON document, the scalar values of object
// keys in names, descending into strings that themselves hold JSON (a
// model's answer inside a provider's envelope). Outside such embedded
// JSON only string values are masked, so a provider's own fields keep
// their types. It returns the masked document and the values it
// removed; a document that is not JSON is returned unchanged.
func MaskJSONValues(doc []byte, names map[string]bool) ([]byte, []string) {
	var values []string
	out, _ := RewriteJSONValues(doc, names, func(_ string, v any) any {
		if v == Masked {
			return v
		}
		values = appendValues(values, v)
		return Masked
	})
	return out, values
}

// RewriteJSONValues calls f, in a fixed order (keys sorted, depth
// first), for each scalar value of an object key in names, and puts what
// f returns in its place; like MaskJSONValues it descends into strings
// holding JSON and, outside them, visits string values only. It reports
// whether anything changed; a document that is not JSON is returned
// unchanged.
func RewriteJSONValues(doc []byte, names map[string]bool, f func(key string, v any) any) ([]byte, bool) {
	var v any
	if len(names) == 0 || json.Unmarshal(doc, &v) != nil {
		return doc, false
	}
	changed := false
	v = rewriteJSON(v, names, false, f, &changed)
	if !changed {
		return doc, false
	}
	out, err := marshalPlain(v)
	if err != nil {
		return doc, false
	}
	return out, true
}

func rewriteJSON(v any, names map[string]bool, embedded bool, f func(string, any) any, changed *bool) any {
	switch t := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			val := t[k]
			if names[k] && val != nil {
				if _, isStr := val.(string); isStr || (embedded && isScalar(val)) {
					if nv := f(k, val); nv != val {
						t[k] = nv
						*changed = true
					}
					continue
				}
			}
			t[k] = rewriteJSON(val, names, embedded, f, changed)
		}
		return t
	case []any:
		for i := range t {
			t[i] = rewriteJSON(t[i], names, embedded, f, changed)
		}
		return t
	case string:
		s := strings.TrimSpace(t)
		if !strings.HasPrefix(s, "{") && !strings.HasPrefix(s, "[") {
			return t
		}
		var inner any
		if json.Unmarshal([]byte(s), &inner) != nil {
			return t
		}
		innerChanged := false
		inner = rewriteJSON(inner, names, true, f, &innerChanged)
		if !innerChanged {
			return t
		}
		out, err := marshalPlain(inner)
		if err != nil {
			return t
		}
		*changed = true
		return string(out)
	}
	return v
}

func isScalar(v any) bool {
	switch v.(type) {
	case string, float64, bool, json.Number:
		return true
	}
	return false
}

// marshalPlain encodes without HTML escaping, as the cassettes store JSON.
func marshalPlain(v any) ([]byte, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return []byte(strings.TrimSuffix(b.String(), "\n")), nil
}

// MaskText replaces every occurrence of values (at least
// MinMaskedTextRunes long, as MaskSensitive returns them or raw) in s
// with Masked.
func MaskText(s string, values []string) string { return maskText(s, textValues(values)) }

func maskText(s string, values []string) string {
	for _, v := range values {
		s = strings.ReplaceAll(s, v, Masked)
	}
	return s
}

// textValues keeps the values long enough to mask in free text, with
// their JSON-escaped forms (a value with quotes appears escaped in raw
// JSON), longest first so a value inside another is not masked first.
func textValues(values []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range values {
		if utf8.RuneCountInString(v) < MinMaskedTextRunes {
			continue
		}
		forms := []string{v}
		if q, err := marshalPlain(v); err == nil {
			forms = append(forms, strings.Trim(string(q), `"`))
		}
		for _, f := range forms {
			if !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if len(out[i]) != len(out[j]) {
			return len(out[i]) > len(out[j])
		}
		return out[i] < out[j]
	})
	return out
}

// AppendValues adds the text forms of a param value to values, for
// MaskText and MaskDecisionText: a string as is, a number as JSON writes
// it, and the scalars inside a list or object.
func AppendValues(values []string, v any) []string { return appendValues(values, v) }

func appendValues(values []string, v any) []string {
	switch t := v.(type) {
	case string:
		return append(values, t)
	case float64:
		return append(values, strconv.FormatFloat(t, 'f', -1, 64))
	case json.Number:
		return append(values, t.String())
	case int:
		return append(values, strconv.Itoa(t))
	case int64:
		return append(values, strconv.FormatInt(t, 10))
	case []any:
		for _, x := range t {
			values = appendValues(values, x)
		}
	case map[string]any:
		for _, x := range t {
			values = appendValues(values, x)
		}
	case []string:
		values = append(values, t...)
	}
	return values
}

// appendRawValues adds the values of sensitive params in a judge's raw
// output when it is JSON (the model's own answer, so any scalar counts);
// otherwise the decision's own values cover it.
func appendRawValues(values []string, raw string, names map[string]bool) []string {
	var v any
	if strings.TrimSpace(raw) == "" || json.Unmarshal([]byte(raw), &v) != nil {
		return values
	}
	changed := false
	rewriteJSON(v, names, true, func(_ string, x any) any {
		if x != Masked {
			values = appendValues(values, x)
		}
		return x
	}, &changed)
	return values
}

func maskErrors(errs []Error, mask func(string) string) []Error {
	if len(errs) == 0 {
		return errs
	}
	out := make([]Error, len(errs))
	for i, e := range errs {
		e.Message = mask(e.Message)
		out[i] = e
	}
	return out
}

type maskValuesKey struct{}

// WithMaskValues returns ctx carrying values that whatever records the
// routing it is passed to (a cassette) must mask, beyond those the model's
// answer shows: the harness puts a case's expected x-sensitive values
// here, since a model that did not extract a secret still received it in
// the user's text. The router's stages never read it: a value travels in
// the context, never in the request a router (or a --target) sees.
func WithMaskValues(ctx context.Context, values []string) context.Context {
	if len(values) == 0 {
		return ctx
	}
	return context.WithValue(ctx, maskValuesKey{}, values)
}

// MaskValuesFrom returns the values WithMaskValues put in ctx.
func MaskValuesFrom(ctx context.Context) []string {
	v, _ := ctx.Value(maskValuesKey{}).([]string)
	return v
}
