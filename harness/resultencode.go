package harness

import (
	"encoding/json"
	"slices"
	"strconv"
	"sync"

	"github.com/routebench/routebench/internal/jsonstr"
	"github.com/routebench/routebench/router"
)

// appendResult appends json.Marshal(r) to b, byte for byte, without
// reflection on what routebench puts in a result: fields in declaration
// order, omitempty as encoding/json reads it, strings escaped HTML-safe,
// floats formatted as encoding/json formats them, map keys sorted. A
// workflow's outcome and a param value of a type other than JSON's own
// are encoded by encoding/json; a value encoding/json refuses (NaN,
// infinity, a cycle) makes the whole result go through json.Marshal, for
// its error. exact says the bytes decode (DecodeResult) to r itself, as
// reflect.DeepEqual compares (see resultEncoder.altered).
func appendResult(b []byte, r *Result) (_ []byte, exact bool, err error) {
	var e resultEncoder
	start := len(b)
	b = e.result(b, r)
	if !e.failed {
		return b, !e.altered, nil
	}
	enc, err := json.Marshal(r)
	if err != nil {
		return b[:start], false, err
	}
	return append(b[:start], enc...), false, nil
}

// encodedLine is one results.jsonl line in a buffer of a pool: whoever
// writes it releases it after, and the next line is encoded into the same
// memory. A line used to be copied out of the pooled buffer (75 MB of
// copies on a run of 30,000 results, all garbage the moment they were
// written). exact says the line decodes to the encoded result itself, so
// a reader may be handed that result instead of the line read back.
type encodedLine struct {
	b     []byte
	exact bool
}

var lineBuffers = sync.Pool{New: func() any { return new(encodedLine) }}

// maxPooledLine is the largest buffer kept for the next line: a rare huge
// line (a long prompt in every trace step) is not held on to.
const maxPooledLine = 1 << 16

// release gives the line's buffer back; its bytes must not be used after.
func (l *encodedLine) release() {
	if cap(l.b) <= maxPooledLine {
		l.b = l.b[:0]
		lineBuffers.Put(l)
	}
}

// marshalLine is json.Marshal(r) (see appendResult) and a newline, in a
// pooled buffer to release once written.
func marshalLine(r *Result) (*encodedLine, error) {
	l := lineBuffers.Get().(*encodedLine)
	b, exact, err := appendResult(l.b[:0], r)
	l.b, l.exact = append(b, '\n'), exact
	if err != nil {
		l.release()
		return nil, err
	}
	return l, nil
}

// resultEncoder appends a result's JSON to a buffer each of its methods
// takes and returns (a buffer kept in the struct would cost a write
// barrier on every append); failed says a value must be left to
// json.Marshal.
//
// altered says the JSON may decode to something other than the result
// encoded (reflect.DeepEqual), so a reader of the result must read the
// line instead: a string that is not UTF-8 (written with U+FFFD), a value
// that is not one JSON decodes to (an int param reads back float64, a
// []string []any, a typed nil null), an empty list or map of an
// omitempty field (read back nil), a pointer to a nil list or map
// (written null, read back a nil pointer), and a workflow's outcome (its
// times and params go through encoding/json). Everything else reads back
// equal: ints, bools, floats (the shortest form that reads back the
// same float64), nil and empty lists and maps where they are always
// written (null and []), and strings. A trace step's omitempty lists
// are the exception: see readBackTrace.
type resultEncoder struct {
	failed  bool
	altered bool
	depth   int
}

// emptied marks an omitempty list or map that is empty but not nil:
// it is left out and reads back nil.
func (e *resultEncoder) emptied(n int, isNil bool) {
	if n == 0 && !isNil {
		e.altered = true
	}
}

// fieldKey writes the key of an omitempty field that may be its object's
// first.
func fieldKey(b []byte, first *bool, k string) []byte {
	if *first {
		*first = false
		b = append(b, '"')
	} else {
		b = append(b, ',', '"')
	}
	b = append(b, k...)
	return append(b, '"', ':')
}

// maxAnyDepth bounds nesting in param values; deeper (or cyclic) values
// go to json.Marshal, which reports a cycle.
const maxAnyDepth = 100

func (e *resultEncoder) key(b []byte, k string) []byte {
	b = append(b, ',', '"')
	b = append(b, k...)
	b = append(b, '"', ':')
	return b
}

// firstKey is key for an object's first member.
func (e *resultEncoder) firstKey(b []byte, k string) []byte {
	b = append(b, '"')
	b = append(b, k...)
	return append(b, '"', ':')
}

func (e *resultEncoder) str(b []byte, s string) []byte {
	b, valid := jsonstr.AppendValid(b, s)
	// Invalid UTF-8 is written as U+FFFD: the line reads back another
	// string.
	if !valid {
		e.altered = true
	}
	return b
}

func (e *resultEncoder) int(b []byte, v int64) []byte { return strconv.AppendInt(b, v, 10) }

func (e *resultEncoder) bool(b []byte, v bool) []byte { return strconv.AppendBool(b, v) }

// float is encoding/json's float64 format; a NaN or infinity fails the
// line, as json.Marshal does.
func (e *resultEncoder) float(b []byte, f float64) []byte {
	b, ok := jsonstr.AppendFloat(b, f)
	if !ok {
		e.failed = true
	}
	return b
}

func (e *resultEncoder) strs(b []byte, l []string) []byte {
	if l == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range l {
		if i > 0 {
			b = append(b, ',')
		}
		b = e.str(b, s)
	}
	return append(b, ']')
}

func (e *resultEncoder) strMap(b []byte, m map[string]string) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	b = append(b, '{')
	for i, k := range sortedKeys(m) {
		if i > 0 {
			b = append(b, ',')
		}
		b = e.str(b, k)
		b = append(b, ':')
		b = e.str(b, m[k])
	}
	return append(b, '}')
}

func (e *resultEncoder) intMap(b []byte, m map[string]int) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	b = append(b, '{')
	for i, k := range sortedKeys(m) {
		if i > 0 {
			b = append(b, ',')
		}
		b = e.str(b, k)
		b = append(b, ':')
		b = e.int(b, int64(m[k]))
	}
	return append(b, '}')
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func (e *resultEncoder) anyMap(b []byte, m map[string]any) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	e.depth++
	if e.depth > maxAnyDepth {
		e.failed = true
		return b
	}
	b = append(b, '{')
	for i, k := range sortedKeys(m) {
		if i > 0 {
			b = append(b, ',')
		}
		b = e.str(b, k)
		b = append(b, ':')
		b = e.any(b, m[k])
	}
	b = append(b, '}')
	e.depth--
	return b
}

func (e *resultEncoder) anys(b []byte, l []any) []byte {
	if l == nil {
		return append(b, "null"...)
	}
	e.depth++
	if e.depth > maxAnyDepth {
		e.failed = true
		return b
	}
	b = append(b, '[')
	for i, v := range l {
		if i > 0 {
			b = append(b, ',')
		}
		b = e.any(b, v)
	}
	b = append(b, ']')
	e.depth--
	return b
}

// any encodes what JSON decodes to itself and hands anything else
// (ints, typed slices, a Marshaler) to encoding/json.
func (e *resultEncoder) any(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		b = append(b, "null"...)
	case string:
		b = e.str(b, v)
	case float64:
		b = e.float(b, v)
	case bool:
		b = e.bool(b, v)
	case map[string]any:
		if v == nil {
			e.altered = true // null reads back as a nil any
		}
		b = e.anyMap(b, v)
	case []any:
		if v == nil {
			e.altered = true
		}
		b = e.anys(b, v)
	default:
		e.altered = true
		b = e.viaJSON(b, v)
	}
	return b
}

func (e *resultEncoder) viaJSON(b []byte, v any) []byte {
	enc, err := json.Marshal(v)
	if err != nil {
		e.failed = true
		return b
	}
	return append(b, enc...)
}

func (e *resultEncoder) result(b []byte, r *Result) []byte {
	b = append(b, '{')
	b = e.firstKey(b, "format")
	b = e.int(b, int64(r.Format))
	b = e.key(b, "version")
	b = e.str(b, r.Version)
	b = e.key(b, "case")
	b = e.str(b, r.Case)
	b = e.key(b, "case_hash")
	b = e.str(b, r.CaseHash)
	b = e.key(b, "suite")
	b = e.str(b, r.Suite)
	b = e.key(b, "tags")
	b = e.strs(b, r.Tags)
	b = e.key(b, "input")
	b = e.str(b, r.Input)
	b = e.key(b, "caller")
	b = e.caller(b, &r.Caller)
	b = e.key(b, "expect")
	b = e.expect(b, &r.Expect)
	b = e.key(b, "decision")
	b = e.decision(b, &r.Decision)
	b = e.key(b, "pass")
	b = e.bool(b, r.Pass)
	b = e.key(b, "failure")
	b = e.str(b, r.Failure)
	b = e.key(b, "latency_us")
	b = e.int(b, r.LatencyUS)
	if r.Workflow != nil || r.Resume != nil {
		e.altered = true
	}
	if r.Workflow != nil {
		b = e.key(b, "workflow")
		b = e.viaJSON(b, r.Workflow)
	}
	if r.Resume != nil {
		b = e.key(b, "resume")
		b = e.viaJSON(b, r.Resume)
	}
	if r.RequestID != "" {
		b = e.key(b, "request_id")
		b = e.str(b, r.RequestID)
	}
	if r.ConversationID != "" {
		b = e.key(b, "conversation_id")
		b = e.str(b, r.ConversationID)
	}
	e.emptied(len(r.Masked), r.Masked == nil)
	if len(r.Masked) > 0 {
		b = e.key(b, "masked")
		b = e.strMap(b, r.Masked)
	}
	b = e.key(b, "seq")
	b = e.int(b, int64(r.Seq))
	e.emptied(len(r.Turns), r.Turns == nil)
	if len(r.Turns) > 0 {
		b = e.key(b, "turns")
		b = append(b, '[')
		for i := range r.Turns {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.turn(b, &r.Turns[i])
		}
		b = append(b, ']')
	}
	if r.FailedTurn != 0 {
		b = e.key(b, "failed_turn")
		b = e.int(b, int64(r.FailedTurn))
	}
	return append(b, '}')
}

func (e *resultEncoder) caller(b []byte, c *router.Caller) []byte {
	b = append(b, '{')
	first := true
	e.emptied(len(c.Scopes), c.Scopes == nil)
	e.emptied(len(c.Disabled), c.Disabled == nil)
	if len(c.Scopes) > 0 {
		b = fieldKey(b, &first, "scopes")
		b = e.strs(b, c.Scopes)
	}
	if len(c.Disabled) > 0 {
		b = fieldKey(b, &first, "disabled")
		b = e.strs(b, c.Disabled)
	}
	return append(b, '}')
}

func (e *resultEncoder) expect(b []byte, x *Expect) []byte {
	b = append(b, '{')
	b = e.firstKey(b, "action")
	b = e.str(b, string(x.Action))
	if x.Skill != "" {
		b = e.key(b, "skill")
		b = e.str(b, x.Skill)
	}
	if x.Gate != "" {
		b = e.key(b, "gate")
		b = e.str(b, string(x.Gate))
	}
	e.emptied(len(x.Params), x.Params == nil)
	e.emptied(len(x.Candidates), x.Candidates == nil)
	e.emptied(len(x.Never), x.Never == nil)
	if len(x.Params) > 0 {
		b = e.key(b, "params")
		b = append(b, '{')
		for i, k := range sortedKeys(x.Params) {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.str(b, k)
			b = append(b, ':')
			m := x.Params[k]
			b = e.matcher(b, &m)
		}
		b = append(b, '}')
	}
	if len(x.Candidates) > 0 {
		b = e.key(b, "candidates")
		b = e.strs(b, x.Candidates)
	}
	if len(x.Never) > 0 {
		b = e.key(b, "never")
		b = e.strs(b, x.Never)
	}
	b = e.optStr(b, "outcome", x.Outcome)
	b = e.optStr(b, "stopped_at", x.StoppedAt)
	b = e.optStr(b, "reason", x.Reason)
	b = e.optStr(b, "error_code", x.ErrorCode)
	if x.Calls != nil {
		e.nilBehind(*x.Calls == nil)
		b = e.key(b, "calls")
		b = e.strs(b, *x.Calls)
	}
	if x.Retries != nil {
		e.nilBehind(*x.Retries == nil)
		b = e.key(b, "retries")
		b = e.intMap(b, *x.Retries)
	}
	if x.SideEffects != nil {
		b = e.key(b, "side_effects")
		b = e.int(b, int64(*x.SideEffects))
	}
	b = e.optStr(b, "skill_used", x.SkillUsed)
	if x.Resume != nil {
		b = e.key(b, "resume")
		b = e.resumeExpect(b, x.Resume)
	}
	return append(b, '}')
}

// nilBehind marks a pointer to a nil list or map: written null, it
// reads back a nil pointer.
func (e *resultEncoder) nilBehind(isNil bool) {
	if isNil {
		e.altered = true
	}
}

// optStr writes an omitempty string field that is not an object's first.
func (e *resultEncoder) optStr(b []byte, k, v string) []byte {
	if v != "" {
		b = e.key(b, k)
		b = e.str(b, v)
	}
	return b
}

func (e *resultEncoder) resumeExpect(b []byte, x *ResumeExpect) []byte {
	b = append(b, '{')
	first := true
	if x.Outcome != "" {
		b = fieldKey(b, &first, "outcome")
		b = e.str(b, x.Outcome)
	}
	if x.Skipped != nil {
		e.nilBehind(*x.Skipped == nil)
		b = fieldKey(b, &first, "skipped")
		b = e.strs(b, *x.Skipped)
	}
	if x.Calls != nil {
		e.nilBehind(*x.Calls == nil)
		b = fieldKey(b, &first, "calls")
		b = e.strs(b, *x.Calls)
	}
	return append(b, '}')
}

func (e *resultEncoder) matcher(b []byte, m *ParamMatcher) []byte {
	b = append(b, '{')
	first := true
	e.emptied(len(m.AnyOf), m.AnyOf == nil)
	if m.Equals != nil {
		b = fieldKey(b, &first, "equals")
		b = e.any(b, m.Equals)
	}
	if len(m.AnyOf) > 0 {
		b = fieldKey(b, &first, "any_of")
		b = e.anys(b, m.AnyOf)
	}
	if m.Regex != "" {
		b = fieldKey(b, &first, "regex")
		b = e.str(b, m.Regex)
	}
	if m.Absent {
		b = fieldKey(b, &first, "absent")
		b = e.bool(b, true)
	}
	if m.Optional {
		b = fieldKey(b, &first, "optional")
		b = e.bool(b, true)
	}
	return append(b, '}')
}

func (e *resultEncoder) decision(b []byte, d *router.Decision) []byte {
	b = append(b, '{')
	b = e.firstKey(b, "action")
	b = e.str(b, string(d.Action))
	b = e.key(b, "skill")
	b = e.str(b, d.Skill)
	b = e.key(b, "params")
	b = e.anyMap(b, d.Params)
	b = e.key(b, "confidence")
	b = e.float(b, d.Confidence)
	b = e.key(b, "stage")
	b = e.str(b, d.Stage)
	b = e.key(b, "gate")
	b = e.str(b, string(d.Gate))
	b = e.key(b, "candidates")
	b = e.candidates(b, d.Candidates)
	b = e.key(b, "errors")
	b = e.errors(b, d.Errors)
	b = e.key(b, "message")
	b = e.str(b, d.Message)
	b = e.key(b, "trace")
	if d.Trace == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range d.Trace {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.traceStep(b, &d.Trace[i])
		}
		b = append(b, ']')
	}
	b = e.key(b, "version")
	b = e.str(b, d.Version)
	b = e.key(b, "model")
	b = e.str(b, d.Model)
	b = e.key(b, "latency_us")
	b = e.int(b, d.LatencyUS)
	if d.Usage != nil {
		b = e.key(b, "usage")
		b = e.usage(b, d.Usage)
	}
	return append(b, '}')
}

func (e *resultEncoder) candidates(b []byte, l []router.Candidate) []byte {
	if l == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, c := range l {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		b = e.firstKey(b, "skill")
		b = e.str(b, c.Skill)
		b = e.key(b, "score")
		b = e.float(b, c.Score)
		b = append(b, '}')
	}
	return append(b, ']')
}

func (e *resultEncoder) errors(b []byte, l []router.Error) []byte {
	if l == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, x := range l {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		b = e.firstKey(b, "category")
		b = e.str(b, x.Category)
		b = e.optStr(b, "layer", x.Layer)
		b = e.optStr(b, "path", x.Path)
		b = e.optStr(b, "rule", x.Rule)
		b = e.key(b, "message")
		b = e.str(b, x.Message)
		b = append(b, '}')
	}
	return append(b, ']')
}

func (e *resultEncoder) usage(b []byte, u *router.Usage) []byte {
	b = append(b, '{')
	b = e.firstKey(b, "input_tokens")
	b = e.int(b, int64(u.InputTokens))
	b = e.key(b, "output_tokens")
	b = e.int(b, int64(u.OutputTokens))
	b = e.key(b, "cost_usd")
	b = e.float(b, u.CostUSD)
	return append(b, '}')
}

func (e *resultEncoder) traceStep(b []byte, s *router.TraceStep) []byte {
	b = append(b, '{')
	b = e.firstKey(b, "stage")
	b = e.str(b, s.Stage)
	if s.Kept != nil {
		b = e.key(b, "kept")
		b = e.int(b, int64(*s.Kept))
	}
	// A step's empty lists read back nil too, but are not marked: any
	// router may give them (a target's answer with "matched": []), and
	// readBackTrace makes the routed result's trace what the line gives
	// back without decoding it. The builtin router gives none, so its
	// traces are not copied.
	if len(s.Dropped) > 0 {
		b = e.key(b, "dropped")
		b = e.strs(b, s.Dropped)
	}
	if len(s.Matched) > 0 {
		b = e.key(b, "matched")
		b = e.strs(b, s.Matched)
	}
	if len(s.Top) > 0 {
		b = e.key(b, "top")
		b = e.strs(b, s.Top)
	}
	if len(s.Scores) > 0 {
		b = e.key(b, "scores")
		b = e.candidates(b, s.Scores)
	}
	b = e.optStr(b, "provider", s.Provider)
	b = e.optStr(b, "choice", s.Choice)
	if s.Confidence != nil {
		b = e.key(b, "confidence")
		b = e.float(b, *s.Confidence)
	}
	if s.Attempt != 0 {
		b = e.key(b, "attempt")
		b = e.int(b, int64(s.Attempt))
	}
	b = e.optStr(b, "prompt", s.Prompt)
	b = e.optStr(b, "raw", s.Raw)
	if s.Usage != nil {
		b = e.key(b, "usage")
		b = e.usage(b, s.Usage)
	}
	if len(s.Errors) > 0 {
		b = e.key(b, "errors")
		b = e.errors(b, s.Errors)
	}
	b = e.optStr(b, "note", s.Note)
	return append(b, '}')
}

func (e *resultEncoder) turn(b []byte, t *TurnResult) []byte {
	b = append(b, '{')
	b = e.firstKey(b, "input")
	b = e.str(b, t.Input)
	b = e.key(b, "expect")
	b = e.expect(b, &t.Expect)
	b = e.key(b, "decision")
	b = e.decision(b, &t.Decision)
	b = e.key(b, "pass")
	b = e.bool(b, t.Pass)
	b = e.key(b, "failure")
	b = e.str(b, t.Failure)
	e.emptied(len(t.Masked), t.Masked == nil)
	if len(t.Masked) > 0 {
		b = e.key(b, "masked")
		b = e.strMap(b, t.Masked)
	}
	return append(b, '}')
}

// readBackTrace is trace as its results.jsonl line gives it back: a
// step's omitempty lists (dropped, matched, top, scores, errors) that are
// empty but not nil are left out of the line and read back nil. It is
// trace itself when no step has one, else a copy: a router may hand the
// same trace to several decisions, so it is never changed.
func readBackTrace(trace []router.TraceStep) []router.TraceStep {
	i := slices.IndexFunc(trace, func(s router.TraceStep) bool {
		return emptyList(s.Dropped) || emptyList(s.Matched) || emptyList(s.Top) || emptyList(s.Scores) || emptyList(s.Errors)
	})
	if i < 0 {
		return trace
	}
	out := slices.Clone(trace)
	for k := i; k < len(out); k++ {
		s := &out[k]
		s.Dropped, s.Matched, s.Top = nilIfEmpty(s.Dropped), nilIfEmpty(s.Matched), nilIfEmpty(s.Top)
		s.Scores, s.Errors = nilIfEmpty(s.Scores), nilIfEmpty(s.Errors)
	}
	return out
}

// emptyList says l is empty but not nil.
func emptyList[T any](l []T) bool { return l != nil && len(l) == 0 }

func nilIfEmpty[T any](l []T) []T {
	if len(l) == 0 {
		return nil
	}
	return l
}
