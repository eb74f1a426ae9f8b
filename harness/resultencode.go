package harness

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"

	"github.com/routebench/routebench/internal/jsonstr"
	"github.com/routebench/routebench/router"
)

// marshalResult is json.Marshal(r), byte for byte, without reflection on
// what routebench puts in a result: fields in declaration order,
// omitempty as encoding/json reads it, strings escaped HTML-safe, floats
// formatted as encoding/json formats them, map keys sorted. A workflow's
// outcome and a param value of a type other than JSON's own are encoded
// by encoding/json; a value encoding/json refuses (NaN, infinity, a cycle)
// makes the whole result go through json.Marshal, for its error.
func marshalResult(r *Result) ([]byte, error) {
	e := resultEncoder{b: make([]byte, 0, 4096)}
	e.result(r)
	if e.failed {
		return json.Marshal(r)
	}
	return e.b, nil
}

// resultEncoder appends a result's JSON to b; failed says a value must
// be left to json.Marshal.
type resultEncoder struct {
	b      []byte
	failed bool
	depth  int
}

// maxAnyDepth bounds nesting in param values; deeper (or cyclic) values
// go to json.Marshal, which reports a cycle.
const maxAnyDepth = 100

func (e *resultEncoder) key(k string) {
	e.b = append(e.b, ',', '"')
	e.b = append(e.b, k...)
	e.b = append(e.b, '"', ':')
}

// firstKey is key for an object's first member.
func (e *resultEncoder) firstKey(k string) {
	e.b = append(e.b, '"')
	e.b = append(e.b, k...)
	e.b = append(e.b, '"', ':')
}

func (e *resultEncoder) str(s string) { e.b = jsonstr.Append(e.b, s) }

func (e *resultEncoder) int(v int64) { e.b = strconv.AppendInt(e.b, v, 10) }

func (e *resultEncoder) bool(v bool) { e.b = strconv.AppendBool(e.b, v) }

// float is encoding/json's float64 format: shortest repr, exponent form
// below 1e-6 and from 1e21, exponent without a leading zero.
func (e *resultEncoder) float(f float64) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		e.failed = true
		return
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	e.b = strconv.AppendFloat(e.b, f, format, -1, 64)
	if format == 'e' {
		// e-09 to e-9
		if n := len(e.b); n >= 4 && e.b[n-4] == 'e' && e.b[n-3] == '-' && e.b[n-2] == '0' {
			e.b[n-2] = e.b[n-1]
			e.b = e.b[:n-1]
		}
	}
}

func (e *resultEncoder) strs(l []string) {
	if l == nil {
		e.b = append(e.b, "null"...)
		return
	}
	e.b = append(e.b, '[')
	for i, s := range l {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.str(s)
	}
	e.b = append(e.b, ']')
}

func (e *resultEncoder) strMap(m map[string]string) {
	if m == nil {
		e.b = append(e.b, "null"...)
		return
	}
	e.b = append(e.b, '{')
	for i, k := range sortedKeys(m) {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.str(k)
		e.b = append(e.b, ':')
		e.str(m[k])
	}
	e.b = append(e.b, '}')
}

func (e *resultEncoder) intMap(m map[string]int) {
	if m == nil {
		e.b = append(e.b, "null"...)
		return
	}
	e.b = append(e.b, '{')
	for i, k := range sortedKeys(m) {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.str(k)
		e.b = append(e.b, ':')
		e.int(int64(m[k]))
	}
	e.b = append(e.b, '}')
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func (e *resultEncoder) anyMap(m map[string]any) {
	if m == nil {
		e.b = append(e.b, "null"...)
		return
	}
	e.depth++
	if e.depth > maxAnyDepth {
		e.failed = true
		return
	}
	e.b = append(e.b, '{')
	for i, k := range sortedKeys(m) {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.str(k)
		e.b = append(e.b, ':')
		e.any(m[k])
	}
	e.b = append(e.b, '}')
	e.depth--
}

func (e *resultEncoder) anys(l []any) {
	if l == nil {
		e.b = append(e.b, "null"...)
		return
	}
	e.depth++
	if e.depth > maxAnyDepth {
		e.failed = true
		return
	}
	e.b = append(e.b, '[')
	for i, v := range l {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.any(v)
	}
	e.b = append(e.b, ']')
	e.depth--
}

// any encodes what JSON decodes to itself and hands anything else
// (ints, typed slices, a Marshaler) to encoding/json.
func (e *resultEncoder) any(v any) {
	switch v := v.(type) {
	case nil:
		e.b = append(e.b, "null"...)
	case string:
		e.str(v)
	case float64:
		e.float(v)
	case bool:
		e.bool(v)
	case map[string]any:
		e.anyMap(v)
	case []any:
		e.anys(v)
	default:
		e.viaJSON(v)
	}
}

func (e *resultEncoder) viaJSON(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		e.failed = true
		return
	}
	e.b = append(e.b, b...)
}

func (e *resultEncoder) result(r *Result) {
	e.b = append(e.b, '{')
	e.firstKey("format")
	e.int(int64(r.Format))
	e.key("version")
	e.str(r.Version)
	e.key("case")
	e.str(r.Case)
	e.key("case_hash")
	e.str(r.CaseHash)
	e.key("suite")
	e.str(r.Suite)
	e.key("tags")
	e.strs(r.Tags)
	e.key("input")
	e.str(r.Input)
	e.key("caller")
	e.caller(&r.Caller)
	e.key("expect")
	e.expect(&r.Expect)
	e.key("decision")
	e.decision(&r.Decision)
	e.key("pass")
	e.bool(r.Pass)
	e.key("failure")
	e.str(r.Failure)
	e.key("latency_us")
	e.int(r.LatencyUS)
	if r.Workflow != nil {
		e.key("workflow")
		e.viaJSON(r.Workflow)
	}
	if r.Resume != nil {
		e.key("resume")
		e.viaJSON(r.Resume)
	}
	if r.RequestID != "" {
		e.key("request_id")
		e.str(r.RequestID)
	}
	if r.ConversationID != "" {
		e.key("conversation_id")
		e.str(r.ConversationID)
	}
	if len(r.Masked) > 0 {
		e.key("masked")
		e.strMap(r.Masked)
	}
	e.key("seq")
	e.int(int64(r.Seq))
	if len(r.Turns) > 0 {
		e.key("turns")
		e.b = append(e.b, '[')
		for i := range r.Turns {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			e.turn(&r.Turns[i])
		}
		e.b = append(e.b, ']')
	}
	if r.FailedTurn != 0 {
		e.key("failed_turn")
		e.int(int64(r.FailedTurn))
	}
	e.b = append(e.b, '}')
}

func (e *resultEncoder) caller(c *router.Caller) {
	e.b = append(e.b, '{')
	first := true
	field := func(k string) {
		if first {
			e.firstKey(k)
			first = false
		} else {
			e.key(k)
		}
	}
	if len(c.Scopes) > 0 {
		field("scopes")
		e.strs(c.Scopes)
	}
	if len(c.Disabled) > 0 {
		field("disabled")
		e.strs(c.Disabled)
	}
	e.b = append(e.b, '}')
}

func (e *resultEncoder) expect(x *Expect) {
	e.b = append(e.b, '{')
	e.firstKey("action")
	e.str(string(x.Action))
	if x.Skill != "" {
		e.key("skill")
		e.str(x.Skill)
	}
	if x.Gate != "" {
		e.key("gate")
		e.str(string(x.Gate))
	}
	if len(x.Params) > 0 {
		e.key("params")
		e.b = append(e.b, '{')
		for i, k := range sortedKeys(x.Params) {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			e.str(k)
			e.b = append(e.b, ':')
			m := x.Params[k]
			e.matcher(&m)
		}
		e.b = append(e.b, '}')
	}
	if len(x.Candidates) > 0 {
		e.key("candidates")
		e.strs(x.Candidates)
	}
	if len(x.Never) > 0 {
		e.key("never")
		e.strs(x.Never)
	}
	e.optStr("outcome", x.Outcome)
	e.optStr("stopped_at", x.StoppedAt)
	e.optStr("reason", x.Reason)
	e.optStr("error_code", x.ErrorCode)
	if x.Calls != nil {
		e.key("calls")
		e.strs(*x.Calls)
	}
	if x.Retries != nil {
		e.key("retries")
		e.intMap(*x.Retries)
	}
	if x.SideEffects != nil {
		e.key("side_effects")
		e.int(int64(*x.SideEffects))
	}
	e.optStr("skill_used", x.SkillUsed)
	if x.Resume != nil {
		e.key("resume")
		e.resumeExpect(x.Resume)
	}
	e.b = append(e.b, '}')
}

// optStr writes an omitempty string field that is not an object's first.
func (e *resultEncoder) optStr(k, v string) {
	if v != "" {
		e.key(k)
		e.str(v)
	}
}

func (e *resultEncoder) resumeExpect(x *ResumeExpect) {
	e.b = append(e.b, '{')
	first := true
	field := func(k string) {
		if first {
			e.firstKey(k)
			first = false
		} else {
			e.key(k)
		}
	}
	if x.Outcome != "" {
		field("outcome")
		e.str(x.Outcome)
	}
	if x.Skipped != nil {
		field("skipped")
		e.strs(*x.Skipped)
	}
	if x.Calls != nil {
		field("calls")
		e.strs(*x.Calls)
	}
	e.b = append(e.b, '}')
}

func (e *resultEncoder) matcher(m *ParamMatcher) {
	e.b = append(e.b, '{')
	first := true
	field := func(k string) {
		if first {
			e.firstKey(k)
			first = false
		} else {
			e.key(k)
		}
	}
	if m.Equals != nil {
		field("equals")
		e.any(m.Equals)
	}
	if len(m.AnyOf) > 0 {
		field("any_of")
		e.anys(m.AnyOf)
	}
	if m.Regex != "" {
		field("regex")
		e.str(m.Regex)
	}
	if m.Absent {
		field("absent")
		e.bool(true)
	}
	if m.Optional {
		field("optional")
		e.bool(true)
	}
	e.b = append(e.b, '}')
}

func (e *resultEncoder) decision(d *router.Decision) {
	e.b = append(e.b, '{')
	e.firstKey("action")
	e.str(string(d.Action))
	e.key("skill")
	e.str(d.Skill)
	e.key("params")
	e.anyMap(d.Params)
	e.key("confidence")
	e.float(d.Confidence)
	e.key("stage")
	e.str(d.Stage)
	e.key("gate")
	e.str(string(d.Gate))
	e.key("candidates")
	e.candidates(d.Candidates)
	e.key("errors")
	e.errors(d.Errors)
	e.key("message")
	e.str(d.Message)
	e.key("trace")
	if d.Trace == nil {
		e.b = append(e.b, "null"...)
	} else {
		e.b = append(e.b, '[')
		for i := range d.Trace {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			e.traceStep(&d.Trace[i])
		}
		e.b = append(e.b, ']')
	}
	e.key("version")
	e.str(d.Version)
	e.key("model")
	e.str(d.Model)
	e.key("latency_us")
	e.int(d.LatencyUS)
	if d.Usage != nil {
		e.key("usage")
		e.usage(d.Usage)
	}
	e.b = append(e.b, '}')
}

func (e *resultEncoder) candidates(l []router.Candidate) {
	if l == nil {
		e.b = append(e.b, "null"...)
		return
	}
	e.b = append(e.b, '[')
	for i, c := range l {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.b = append(e.b, '{')
		e.firstKey("skill")
		e.str(c.Skill)
		e.key("score")
		e.float(c.Score)
		e.b = append(e.b, '}')
	}
	e.b = append(e.b, ']')
}

func (e *resultEncoder) errors(l []router.Error) {
	if l == nil {
		e.b = append(e.b, "null"...)
		return
	}
	e.b = append(e.b, '[')
	for i, x := range l {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.b = append(e.b, '{')
		e.firstKey("category")
		e.str(x.Category)
		e.optStr("layer", x.Layer)
		e.optStr("path", x.Path)
		e.optStr("rule", x.Rule)
		e.key("message")
		e.str(x.Message)
		e.b = append(e.b, '}')
	}
	e.b = append(e.b, ']')
}

func (e *resultEncoder) usage(u *router.Usage) {
	e.b = append(e.b, '{')
	e.firstKey("input_tokens")
	e.int(int64(u.InputTokens))
	e.key("output_tokens")
	e.int(int64(u.OutputTokens))
	e.key("cost_usd")
	e.float(u.CostUSD)
	e.b = append(e.b, '}')
}

func (e *resultEncoder) traceStep(s *router.TraceStep) {
	e.b = append(e.b, '{')
	e.firstKey("stage")
	e.str(s.Stage)
	if s.Kept != nil {
		e.key("kept")
		e.int(int64(*s.Kept))
	}
	if len(s.Dropped) > 0 {
		e.key("dropped")
		e.strs(s.Dropped)
	}
	if len(s.Matched) > 0 {
		e.key("matched")
		e.strs(s.Matched)
	}
	if len(s.Top) > 0 {
		e.key("top")
		e.strs(s.Top)
	}
	if len(s.Scores) > 0 {
		e.key("scores")
		e.candidates(s.Scores)
	}
	e.optStr("provider", s.Provider)
	e.optStr("choice", s.Choice)
	if s.Confidence != nil {
		e.key("confidence")
		e.float(*s.Confidence)
	}
	if s.Attempt != 0 {
		e.key("attempt")
		e.int(int64(s.Attempt))
	}
	e.optStr("prompt", s.Prompt)
	e.optStr("raw", s.Raw)
	if s.Usage != nil {
		e.key("usage")
		e.usage(s.Usage)
	}
	if len(s.Errors) > 0 {
		e.key("errors")
		e.errors(s.Errors)
	}
	e.optStr("note", s.Note)
	e.b = append(e.b, '}')
}

func (e *resultEncoder) turn(t *TurnResult) {
	e.b = append(e.b, '{')
	e.firstKey("input")
	e.str(t.Input)
	e.key("expect")
	e.expect(&t.Expect)
	e.key("decision")
	e.decision(&t.Decision)
	e.key("pass")
	e.bool(t.Pass)
	e.key("failure")
	e.str(t.Failure)
	if len(t.Masked) > 0 {
		e.key("masked")
		e.strMap(t.Masked)
	}
	e.b = append(e.b, '}')
}
