package harness

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Param mismatch kinds, BFCL's taxonomy.
const (
	MismatchMissing    = "missing"    // an expected param was not decided
	MismatchUnexpected = "unexpected" // a param expected {absent: true} was decided
	MismatchType       = "type"       // decided with another JSON type than expected
	MismatchValue      = "value"      // right type, wrong value
)

// ParamMismatch is one expected param the decision got wrong.
type ParamMismatch struct {
	Param string
	Kind  string
	Want  ParamMatcher
	Got   any // nil when missing
}

func (m ParamMismatch) String() string {
	switch m.Kind {
	case MismatchMissing:
		return fmt.Sprintf("%s: missing, want %s", m.Param, m.Want)
	case MismatchUnexpected:
		return fmt.Sprintf("%s: want absent, got %s", m.Param, jsonText(m.Got))
	default:
		return fmt.Sprintf("%s: want %s, got %s (%s)", m.Param, m.Want, jsonText(m.Got), m.Kind)
	}
}

// String shows the matcher as a suite file would write it.
func (p ParamMatcher) String() string {
	if p.Optional {
		q := p
		q.Optional = false
		return strings.TrimSuffix(q.String(), "}") + ", optional: true}"
	}
	switch {
	case p.Absent:
		return "{absent: true}"
	case p.Regex != "":
		return fmt.Sprintf("{regex: %q}", p.Regex)
	case p.AnyOf != nil:
		return "{any_of: " + jsonText(p.AnyOf) + "}"
	default:
		return jsonText(p.Equals)
	}
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// MatchParams compares decided params with the expected ones as a subset
// match: params the case does not mention may be anything. Mismatches come
// sorted by param name.
func MatchParams(want map[string]ParamMatcher, got map[string]any) []ParamMismatch {
	names := make([]string, 0, len(want))
	for name := range want {
		names = append(names, name)
	}
	sort.Strings(names)
	var out []ParamMismatch
	for _, name := range names {
		w := want[name]
		v, present := got[name]
		if present && v == nil {
			// A JSON null is how a model says "not given".
			present = false
		}
		switch {
		case w.Absent:
			if present {
				out = append(out, ParamMismatch{name, MismatchUnexpected, w, v})
			}
		case !present:
			if !w.Optional {
				out = append(out, ParamMismatch{name, MismatchMissing, w, nil})
			}
		default:
			if kind := w.mismatch(v); kind != "" {
				out = append(out, ParamMismatch{name, kind, w, v})
			}
		}
	}
	return out
}

// mismatch returns "" when v satisfies the matcher, else the mismatch kind.
func (p ParamMatcher) mismatch(v any) string {
	switch {
	case p.Regex != "":
		s, ok := v.(string)
		if !ok {
			return MismatchType
		}
		re, err := compileRegex(p.Regex)
		if err != nil || !re.MatchString(s) {
			return MismatchValue
		}
		return ""
	case p.AnyOf != nil:
		sameType := false
		for _, opt := range p.AnyOf {
			if valuesMatch(opt, v) {
				return ""
			}
			sameType = sameType || jsonType(opt) == jsonType(v)
		}
		if sameType {
			return MismatchValue
		}
		return MismatchType
	default:
		if valuesMatch(p.Equals, v) {
			return ""
		}
		if jsonType(p.Equals) != jsonType(v) {
			return MismatchType
		}
		return MismatchValue
	}
}

// valuesMatch compares an expected literal with a decided value: numbers
// numerically (YAML 3, JSON 3.0 and int64(3) are the same param), objects as
// a subset match, lists element by element.
func valuesMatch(want, got any) bool {
	if wf, ok := toFloat(want); ok {
		gf, ok := toFloat(got)
		return ok && wf == gf
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return false
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok || !valuesMatch(wv, gv) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !valuesMatch(w[i], g[i]) {
				return false
			}
		}
		return true
	default:
		return reflect.DeepEqual(want, got)
	}
}

func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case int32:
		return float64(n), true
	case uint64:
		return float64(n), true
	case uint:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil && !math.IsNaN(f)
	}
	return 0, false
}

// jsonType names a value's JSON type, for the type/value split.
func jsonType(v any) string {
	if _, ok := toFloat(v); ok {
		return "number"
	}
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	return fmt.Sprintf("%T", v)
}

// Matchers are checked once per (version, case), so compiled regexes are
// shared across the run.
var regexCache sync.Map

func compileRegex(expr string) (*regexp.Regexp, error) {
	if re, ok := regexCache.Load(expr); ok {
		return re.(*regexp.Regexp), nil
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	regexCache.Store(expr, re)
	return re, nil
}
