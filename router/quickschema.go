package router

import (
	"fmt"
	"math"
	"math/big"
	"reflect"
	"slices"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// quickSchema answers "is this value valid?" for a compiled schema that
// uses only the plain keywords routing schemas use (type, properties,
// required, additionalProperties, enum of strings, items, length and
// range bounds, format and pattern through the schema's own checkers),
// without the allocations of a full jsonschema validation
// on every request. It is one-sided on purpose: valid means the full
// validator would accept the value too; anything else (an invalid value, a
// value of a type it does not know) is handed to the full validator, which
// also words the errors. So errors and results stay exactly jsonschema's.
type quickSchema struct {
	always, never bool // a boolean schema (true / false)
	types         []string
	enum          []string // string members; a non-string value is never judged here
	hasEnum       bool
	required      []string
	props         map[string]*quickSchema
	extraOK       bool         // additionalProperties absent or true
	extra         *quickSchema // additionalProperties as a schema
	items         *quickSchema
	minItems      int
	maxItems      int // -1: none
	minLen        int
	maxLen        int // -1: none
	bounds        []quickBound
	format        *jsonschema.Format // called exactly as the full validator calls it
	pattern       jsonschema.Regexp
}

// quickBound is one of minimum, maximum, exclusiveMinimum or
// exclusiveMaximum as a float64, kept only when comparing a float64 with it
// gives exactly what jsonschema's comparison in rationals gives.
type quickBound struct {
	at  float64
	cmp func(v, at float64) bool
}

// quickKeywords are the Schema fields quickSchema handles or that do not
// constrain values (annotations, identifiers). Any other field set makes a
// schema not quick. Unexported fields are the library's bookkeeping.
var quickKeywords = map[string]bool{
	"DraftVersion": true, "Location": true, "ID": true, "Anchor": true, "Bool": true,
	"Types": true, "Enum": true, "Required": true, "Properties": true, "AdditionalProperties": true,
	"Format": true, "Pattern": true, "Items2020": true, "MinItems": true, "MaxItems": true, "MinLength": true, "MaxLength": true,
	"Maximum": true, "Minimum": true, "ExclusiveMaximum": true, "ExclusiveMinimum": true,
	"Title": true, "Description": true, "Default": true, "Comment": true, "ReadOnly": true,
	"WriteOnly": true, "Examples": true, "Deprecated": true,
}

// newQuickSchema is nil when s (or any schema under it) uses a keyword
// quickSchema does not handle; such a schema is always validated in full.
func newQuickSchema(s *jsonschema.Schema) *quickSchema {
	if s == nil {
		return nil
	}
	rv := reflect.ValueOf(s).Elem()
	for i := range rv.NumField() {
		f := rv.Type().Field(i)
		if f.IsExported() && !quickKeywords[f.Name] && !rv.Field(i).IsZero() {
			return nil
		}
	}
	q := &quickSchema{maxItems: -1, maxLen: -1, extraOK: true}
	if s.Bool != nil {
		q.always, q.never = *s.Bool, !*s.Bool
		return q
	}
	if s.Types != nil {
		q.types = s.Types.ToStrings()
	}
	if s.Format != nil {
		if s.Format.Name == "regex" || s.Format.Validate == nil {
			return nil // the full validator may use its own regexp engine
		}
		q.format = s.Format
	}
	q.pattern = s.Pattern
	if s.Enum != nil {
		q.hasEnum = true
		for _, v := range s.Enum.Values {
			if str, ok := v.(string); ok {
				q.enum = append(q.enum, str)
			}
		}
	}
	q.required = s.Required
	if len(s.Properties) > 0 {
		q.props = make(map[string]*quickSchema, len(s.Properties))
		for name, sub := range s.Properties {
			if q.props[name] = newQuickSchema(sub); q.props[name] == nil {
				return nil
			}
		}
	}
	switch ap := s.AdditionalProperties.(type) {
	case nil:
	case bool:
		q.extraOK = ap
	case *jsonschema.Schema:
		if q.extra = newQuickSchema(ap); q.extra == nil {
			return nil
		}
		q.extraOK = false
	default:
		return nil
	}
	if s.Items2020 != nil {
		if q.items = newQuickSchema(s.Items2020); q.items == nil {
			return nil
		}
	}
	if s.MinItems != nil {
		q.minItems = *s.MinItems
	}
	if s.MaxItems != nil {
		q.maxItems = *s.MaxItems
	}
	if s.MinLength != nil {
		q.minLen = *s.MinLength
	}
	if s.MaxLength != nil {
		q.maxLen = *s.MaxLength
	}
	for _, b := range []struct {
		r   *big.Rat
		cmp func(v, at float64) bool
	}{
		{s.Minimum, func(v, at float64) bool { return v >= at }},
		{s.Maximum, func(v, at float64) bool { return v <= at }},
		{s.ExclusiveMinimum, func(v, at float64) bool { return v > at }},
		{s.ExclusiveMaximum, func(v, at float64) bool { return v < at }},
	} {
		if b.r == nil {
			continue
		}
		at, ok := exactBound(b.r)
		if !ok {
			return nil
		}
		q.bounds = append(q.bounds, quickBound{at: at, cmp: b.cmp})
	}
	return q
}

// exactBound is r as a float64 when a float64 comparison with it is exact
// for jsonschema, which reads a float64 value as the rational of its
// shortest decimal form (fmt's %v). That holds when r is a float64 whose
// own shortest form is r: a value v on either side of it is a different
// float64, whose shortest form rounds to v and so stays on v's side, and
// v equal to it has r as its shortest form.
func exactBound(r *big.Rat) (float64, bool) {
	f, exact := r.Float64()
	if !exact || math.IsInf(f, 0) {
		return 0, false
	}
	back, ok := new(big.Rat).SetString(fmt.Sprintf("%v", f))
	return f, ok && back.Cmp(r) == 0
}

// memberOK is valid for a verdict member's string or number (p nil: any
// value), boxing it into an interface only when a format must read it.
func memberOK[T string | float64](p *quickSchema, x T, typed func(*quickSchema, T) bool) bool {
	switch {
	case p == nil || p.always:
		return true
	case p.never:
		return false
	case p.format != nil:
		return p.valid(x)
	}
	return typed(p, x)
}

// valid reports whether v surely meets the schema; false means "ask the
// full validator", not "invalid".
func (q *quickSchema) valid(v any) bool {
	if q.always {
		return true
	}
	if q.never || q.format != nil && q.format.Validate(v) != nil {
		return false
	}
	switch x := v.(type) {
	case nil:
		return q.typed("null") && !q.hasEnum
	case bool:
		return q.typed("boolean") && !q.hasEnum
	case float64:
		return q.numberOK(x)
	case string:
		return q.stringOK(x)
	case []any:
		if !q.typed("array") || q.hasEnum || len(x) < q.minItems || q.maxItems >= 0 && len(x) > q.maxItems {
			return false
		}
		if q.items != nil {
			for _, e := range x {
				if !q.items.valid(e) {
					return false
				}
			}
		}
		return true
	case map[string]any:
		if !q.typed("object") || q.hasEnum {
			return false
		}
		for _, name := range q.required {
			if _, ok := x[name]; !ok {
				return false
			}
		}
		for k, e := range x {
			if p, ok := q.props[k]; ok {
				if !p.valid(e) {
					return false
				}
				continue
			}
			if q.extra != nil {
				if !q.extra.valid(e) {
					return false
				}
			} else if !q.extraOK {
				return false
			}
		}
		return true
	}
	return false
}

// numberOK is valid for a float64, format aside.
func (q *quickSchema) numberOK(x float64) bool {
	if math.IsNaN(x) || math.IsInf(x, 0) || q.hasEnum {
		return false
	}
	if !q.typed("number") && !(q.typed("integer") && x == math.Trunc(x)) {
		return false
	}
	for _, b := range q.bounds {
		if !b.cmp(x, b.at) {
			return false
		}
	}
	return true
}

// stringOK is valid for a string, format aside.
func (q *quickSchema) stringOK(x string) bool {
	if !q.typed("string") || q.hasEnum && !slices.Contains(q.enum, x) || q.pattern != nil && !q.pattern.MatchString(x) {
		return false
	}
	if q.minLen > 0 || q.maxLen >= 0 {
		n := utf8.RuneCountInString(x)
		if n < q.minLen || q.maxLen >= 0 && n > q.maxLen {
			return false
		}
	}
	return true
}

// validVerdict is valid(v.VerdictDoc()) without building the map: a
// string or number is checked as itself, not boxed into an any, unless a
// format checker must see it.
func (q *quickSchema) validVerdict(v *Verdict) bool {
	if q.always {
		return true
	}
	if q.never || q.format != nil || !q.typed("object") || q.hasEnum {
		return false
	}
	for _, name := range q.required {
		switch name {
		case "skill", "confidence", "params":
		case "reason":
			if v.Reason == "" {
				return false
			}
		default:
			return false
		}
	}
	// member is the schema a member is checked against; ok is false when
	// the member is not allowed at all.
	member := func(name string) (*quickSchema, bool) {
		if p, found := q.props[name]; found {
			return p, true
		}
		if q.extra != nil {
			return q.extra, true
		}
		return nil, q.extraOK
	}
	str := func(name, x string) bool {
		p, ok := member(name)
		return ok && memberOK(p, x, (*quickSchema).stringOK)
	}
	num := func(name string, x float64) bool {
		p, ok := member(name)
		return ok && memberOK(p, x, (*quickSchema).numberOK)
	}
	if !str("skill", v.Skill) || !num("confidence", v.Confidence) || v.Reason != "" && !str("reason", v.Reason) {
		return false
	}
	p, ok := member("params")
	if !ok {
		return false
	}
	if p == nil {
		return true
	}
	if v.Params == nil {
		return p.valid(nil)
	}
	return p.valid(v.Params)
}

// missingOnly reports whether params (a top-level object) fails the
// schema only by missing required properties, and which, in the schema's
// order: the full validator's one error would then be kind.Required with
// exactly these (every property present is valid by the quick check, so
// it passes the full validator too). false means "ask the full validator".
func (q *quickSchema) missingOnly(params map[string]any) ([]string, bool) {
	if q == nil || q.always || q.never || q.format != nil || !q.typed("object") || q.hasEnum || params == nil {
		return nil, false
	}
	var missing []string
	for _, name := range q.required {
		if _, ok := params[name]; !ok {
			missing = append(missing, name)
		}
	}
	if len(missing) == 0 {
		return nil, false
	}
	for k, e := range params {
		if p, ok := q.props[k]; ok {
			if !p.valid(e) {
				return nil, false
			}
			continue
		}
		if q.extra != nil {
			if !q.extra.valid(e) {
				return nil, false
			}
		} else if !q.extraOK {
			return nil, false
		}
	}
	return missing, true
}

// typed reports whether the schema's type keyword allows the JSON type t
// (no type keyword allows every type).
func (q *quickSchema) typed(t string) bool {
	return len(q.types) == 0 || slices.Contains(q.types, t)
}

// validate is s.Validate(v), answered without the full validator when q
// (newQuickSchema(s), possibly nil) finds v valid.
func (q *quickSchema) validate(s *jsonschema.Schema, v any) error {
	if q != nil && q.valid(v) {
		return nil
	}
	return s.Validate(v)
}
