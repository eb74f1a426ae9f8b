package harness

import (
	"encoding/json"
	"sync"

	"github.com/routebench/routebench/internal/jsonread"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

// DecodeResult decodes one results.jsonl line into r, exactly as
// json.Unmarshal into a zero Result does (same value, same error), but
// several times faster on lines as routebench writes them: those are read
// without reflection, and anything else (an unknown or differently cased
// name, a repeated name, an unexpected type, a surrogate escape, bad
// UTF-8, a syntax error) is handed to encoding/json whole. A workflow's
// outcome, rare and deep, is always decoded by encoding/json.
func DecodeResult(line []byte, r *Result) error {
	d := getDecoder()
	defer putDecoder(d)
	return d.decode(line, r, false)
}

// decoders keeps decoders between passes over results (the report reads
// a run back one case at a time): their buffers and name cache are
// reused, not allocated again for each read.
var decoders = sync.Pool{New: func() any { return new(resultDecoder) }}

func getDecoder() *resultDecoder  { return decoders.Get().(*resultDecoder) }
func putDecoder(d *resultDecoder) { decoders.Put(d) }

// resultDecoder decodes results lines; reuse one for many lines (not
// from several goroutines at once) to reuse its buffers.
type resultDecoder struct {
	in jsonread.Reader
	// One scratch per element type; see list.
	strs  scratch[string]
	anys  scratch[any]
	cands scratch[router.Candidate]
	errs  scratch[router.Error]
	steps scratch[router.TraceStep]
	turns scratch[TurnResult]
}

// decode is DecodeResult; caseOnly leaves out the decision, the caller
// and the workflow runs as caseLine does (they are checked to be JSON,
// then skipped).
func (d *resultDecoder) decode(line []byte, r *Result, caseOnly bool) error {
	*r = Result{}
	d.in.Reset(line)
	d.result(r, caseOnly)
	if d.in.End() {
		return nil
	}
	*r = Result{}
	if caseOnly {
		var c caseLine
		err := json.Unmarshal(line, &c)
		*r = c.Result
		return err
	}
	return json.Unmarshal(line, r)
}

// fieldSet notes which fields of one object have been read. encoding/json
// merges a repeated map, struct or pointer field into the first where a
// decoder that assigns would replace it, so a repeat is left to it.
type fieldSet uint64

func (s *fieldSet) first(in *jsonread.Reader, field uint) {
	if *s&(1<<field) != 0 {
		in.Fail()
	}
	*s |= 1 << field
}

func (d *resultDecoder) result(r *Result, caseOnly bool) {
	in := &d.in
	if in.Null() {
		return
	}
	var seen fieldSet
	for more := in.ObjectStart(); more; more = in.ObjectNext() {
		switch string(in.Key()) {
		case "format":
			seen.first(in, 0)
			r.Format = in.Int()
		case "version":
			seen.first(in, 1)
			r.Version = in.Name()
		case "case":
			seen.first(in, 2)
			r.Case = in.String()
		case "case_hash":
			seen.first(in, 3)
			r.CaseHash = in.String()
		case "suite":
			seen.first(in, 4)
			r.Suite = in.Name()
		case "tags":
			seen.first(in, 5)
			r.Tags = d.names()
		case "input":
			seen.first(in, 6)
			r.Input = in.String()
		case "caller":
			seen.first(in, 7)
			if caseOnly {
				in.Skip()
			} else {
				d.caller(&r.Caller)
			}
		case "expect":
			seen.first(in, 8)
			d.expect(&r.Expect)
		case "decision":
			seen.first(in, 9)
			if caseOnly {
				in.Skip()
			} else {
				d.decision(&r.Decision)
			}
		case "pass":
			seen.first(in, 10)
			r.Pass = in.Bool()
		case "failure":
			seen.first(in, 11)
			r.Failure = in.Name()
		case "latency_us":
			seen.first(in, 12)
			r.LatencyUS = in.Int64()
		case "workflow":
			seen.first(in, 13)
			if caseOnly {
				in.Skip()
			} else {
				viaJSON(in, &r.Workflow)
			}
		case "resume":
			seen.first(in, 14)
			if caseOnly {
				in.Skip()
			} else {
				viaJSON(in, &r.Resume)
			}
		case "request_id":
			seen.first(in, 15)
			r.RequestID = in.StringLike(r.Case) // usually the case id
		case "conversation_id":
			seen.first(in, 16)
			r.ConversationID = in.StringLike(r.Case)
		case "masked":
			seen.first(in, 17)
			r.Masked = d.nameMap()
		case "seq":
			seen.first(in, 18)
			r.Seq = in.Int()
		case "turns":
			seen.first(in, 19)
			r.Turns = list(in, &d.turns, d.turnResult)
		case "failed_turn":
			seen.first(in, 20)
			r.FailedTurn = in.Int()
		default:
			in.Fail()
		}
	}
}

// viaJSON decodes a value with encoding/json: for parts that are rare and
// deep (a workflow's outcome holds times, which decode themselves).
func viaJSON[T any](in *jsonread.Reader, v *T) {
	raw := in.Raw()
	if in.Failed() {
		return
	}
	if err := json.Unmarshal(raw, v); err != nil {
		in.Fail()
	}
}

// scratch collects one array's elements before they are copied to a
// slice of exactly their number: appending to the result itself would
// allocate three or four times for a trace of five steps.
type scratch[T any] struct {
	buf  []T
	busy bool
}

// list reads an array with elem reading each element into a zero value;
// null is nil, [] is empty and not nil.
func list[T any](in *jsonread.Reader, sc *scratch[T], elem func(*T)) []T {
	if in.Null() {
		return nil
	}
	buf := sc.buf[:0]
	if sc.busy { // an array inside an array of the same type
		buf = nil
	}
	busy := sc.busy
	sc.busy = true
	var zero T
	for more := in.ArrayStart(); more; more = in.ArrayNext() {
		// Decoded in place: a local passed to elem would escape.
		buf = append(buf, zero)
		elem(&buf[len(buf)-1])
	}
	out := make([]T, len(buf))
	copy(out, buf)
	sc.busy = busy
	if !busy {
		clear(buf) // keep nothing of this line alive
		sc.buf = buf[:0]
	}
	return out
}

func (d *resultDecoder) names() []string {
	return list(&d.in, &d.strs, func(s *string) { *s = d.in.Name() })
}

func (d *resultDecoder) namesPtr() *[]string {
	if d.in.Null() {
		return nil
	}
	l := d.names()
	return &l
}

func (d *resultDecoder) nameMap() map[string]string {
	in := &d.in
	if in.Null() {
		return nil
	}
	m := map[string]string{}
	for more := in.ObjectStart(); more; more = in.ObjectNext() {
		k := in.MapKey()
		m[k] = in.Name()
	}
	return m
}

func (d *resultDecoder) anyMap() map[string]any {
	in := &d.in
	if in.Null() {
		return nil
	}
	m := map[string]any{}
	for more := in.ObjectStart(); more; more = in.ObjectNext() {
		k := in.MapKey()
		m[k] = in.Any()
	}
	return m
}

func (d *resultDecoder) intMapPtr() *map[string]int {
	in := &d.in
	if in.Null() {
		return nil
	}
	m := map[string]int{}
	for more := in.ObjectStart(); more; more = in.ObjectNext() {
		k := in.MapKey()
		m[k] = in.Int()
	}
	return &m
}

func (d *resultDecoder) intPtr() *int {
	if d.in.Null() {
		return nil
	}
	v := d.in.Int()
	return &v
}

func (d *resultDecoder) floatPtr() *float64 {
	if d.in.Null() {
		return nil
	}
	v := d.in.Float()
	return &v
}

func (d *resultDecoder) caller(c *router.Caller) {
	in := &d.in
	if in.Null() {
		return
	}
	var seen fieldSet
	for more := in.ObjectStart(); more; more = in.ObjectNext() {
		switch string(in.Key()) {
		case "scopes":
			seen.first(in, 0)
			c.Scopes = d.names()
		case "disabled":
			seen.first(in, 1)
			c.Disabled = d.names()
		default:
			in.Fail()
		}
	}
}

func (d *resultDecoder) expect(e *Expect) {
	in := &d.in
	if in.Null() {
		return
	}
	var seen fieldSet
	for more := in.ObjectStart(); more; more = in.ObjectNext() {
		switch string(in.Key()) {
		case "action":
			seen.first(in, 0)
			e.Action = router.Action(in.Name())
		case "skill":
			seen.first(in, 1)
			e.Skill = in.Name()
		case "gate":
			seen.first(in, 2)
			e.Gate = registry.Gate(in.Name())
		case "params":
			seen.first(in, 3)
			e.Params = d.matchers()
		case "candidates":
			seen.first(in, 4)
			e.Candidates = d.names()
		case "never":
			seen.first(in, 5)
			e.Never = d.names()
		case "outcome":
			seen.first(in, 6)
			e.Outcome = in.Name()
		case "stopped_at":
			seen.first(in, 7)
			e.StoppedAt = in.Name()
		case "reason":
			seen.first(in, 8)
			e.Reason = in.Name()
		case "error_code":
			seen.first(in, 9)
			e.ErrorCode = in.Name()
		case "calls":
			seen.first(in, 10)
			e.Calls = d.namesPtr()
		case "retries":
			seen.first(in, 11)
			e.Retries = d.intMapPtr()
		case "side_effects":
			seen.first(in, 12)
			e.SideEffects = d.intPtr()
		case "skill_used":
			seen.first(in, 13)
			e.SkillUsed = in.Name()
		case "resume":
			seen.first(in, 14)
			e.Resume = d.resumeExpect()
		default:
			in.Fail()
		}
	}
}

func (d *resultDecoder) matchers() map[string]ParamMatcher {
	in := &d.in
	if in.Null() {
		return nil
	}
	m := map[string]ParamMatcher{}
	for more := in.ObjectStart(); more; more = in.ObjectNext() {
		k := in.MapKey()
		var pm ParamMatcher
		d.matcher(&pm)
		m[k] = pm
	}
	return m
}

func (d *resultDecoder) matcher(m *ParamMatcher) {
	in := &d.in
	if in.Null() {
		return
	}
	var seen fieldSet
	for more := in.ObjectStart(); more; more = in.ObjectNext() {
		switch string(in.Key()) {
		case "equals":
			seen.first(in, 0)
			m.Equals = in.Any()
		case "any_of":
			seen.first(in, 1)
			m.AnyOf = list(in, &d.anys, func(v *any) { *v = in.Any() })
		case "regex":
			seen.first(in, 2)
			m.Regex = in.String()
		case "absent":
			seen.first(in, 3)
			m.Absent = in.Bool()
		case "optional":
			seen.first(in, 4)
			m.Optional = in.Bool()
		default:
			in.Fail()
		}
	}
}

func (d *resultDecoder) resumeExpect() *ResumeExpect {
	in := &d.in
	if in.Null() {
		return nil
	}
	e := &ResumeExpect{}
	var seen fieldSet
	for more := in.ObjectStart(); more; more = in.ObjectNext() {
		switch string(in.Key()) {
		case "outcome":
			seen.first(in, 0)
			e.Outcome = in.Name()
		case "skipped":
			seen.first(in, 1)
			e.Skipped = d.namesPtr()
		case "calls":
			seen.first(in, 2)
			e.Calls = d.namesPtr()
		default:
			in.Fail()
		}
	}
	return e
}

func (dec *resultDecoder) decision(d *router.Decision) {
	in := &dec.in
	if in.Null() {
		return
	}
	var seen fieldSet
	for more := in.ObjectStart(); more; more = in.ObjectNext() {
		switch string(in.Key()) {
		case "action":
			seen.first(in, 0)
			d.Action = router.Action(in.Name())
		case "skill":
			seen.first(in, 1)
			d.Skill = in.Name()
		case "params":
			seen.first(in, 2)
			d.Params = dec.anyMap()
		case "confidence":
			seen.first(in, 3)
			d.Confidence = in.Float()
		case "stage":
			seen.first(in, 4)
			d.Stage = in.Name()
		case "gate":
			seen.first(in, 5)
			d.Gate = registry.Gate(in.Name())
		case "candidates":
			seen.first(in, 6)
			d.Candidates = list(in, &dec.cands, dec.candidate)
		case "errors":
			seen.first(in, 7)
			d.Errors = list(in, &dec.errs, dec.routerError)
		case "message":
			seen.first(in, 8)
			d.Message = in.String()
		case "trace":
			seen.first(in, 9)
			d.Trace = list(in, &dec.steps, dec.traceStep)
		case "version":
			seen.first(in, 10)
			d.Version = in.Name()
		case "model":
			seen.first(in, 11)
			d.Model = in.Name()
		case "latency_us":
			seen.first(in, 12)
			d.LatencyUS = in.Int64()
		case "usage":
			seen.first(in, 13)
			d.Usage = dec.usage()
		default:
			in.Fail()
		}
	}
}

func (d *resultDecoder) candidate(c *router.Candidate) {
	in := &d.in
	if in.Null() {
		return
	}
	var seen fieldSet
	for more := in.ObjectStart(); more; more = in.ObjectNext() {
		switch string(in.Key()) {
		case "skill":
			seen.first(in, 0)
			c.Skill = in.Name()
		case "score":
			seen.first(in, 1)
			c.Score = in.Float()
		default:
			in.Fail()
		}
	}
}

func (d *resultDecoder) routerError(e *router.Error) {
	in := &d.in
	if in.Null() {
		return
	}
	var seen fieldSet
	for more := in.ObjectStart(); more; more = in.ObjectNext() {
		switch string(in.Key()) {
		case "category":
			seen.first(in, 0)
			e.Category = in.Name()
		case "layer":
			seen.first(in, 1)
			e.Layer = in.Name()
		case "path":
			seen.first(in, 2)
			e.Path = in.Name()
		case "rule":
			seen.first(in, 3)
			e.Rule = in.Name()
		case "message":
			seen.first(in, 4)
			e.Message = in.String()
		default:
			in.Fail()
		}
	}
}

func (d *resultDecoder) traceStep(s *router.TraceStep) {
	in := &d.in
	if in.Null() {
		return
	}
	var seen fieldSet
	for more := in.ObjectStart(); more; more = in.ObjectNext() {
		switch string(in.Key()) {
		case "stage":
			seen.first(in, 0)
			s.Stage = in.Name()
		case "kept":
			seen.first(in, 1)
			s.Kept = d.intPtr()
		case "dropped":
			seen.first(in, 2)
			s.Dropped = d.names()
		case "matched":
			seen.first(in, 3)
			s.Matched = d.names()
		case "top":
			seen.first(in, 4)
			s.Top = d.names()
		case "scores":
			seen.first(in, 5)
			s.Scores = list(in, &d.cands, d.candidate)
		case "provider":
			seen.first(in, 6)
			s.Provider = in.Name()
		case "choice":
			seen.first(in, 7)
			s.Choice = in.Name()
		case "confidence":
			seen.first(in, 8)
			s.Confidence = d.floatPtr()
		case "attempt":
			seen.first(in, 9)
			s.Attempt = in.Int()
		case "prompt":
			seen.first(in, 10)
			s.Prompt = in.String()
		case "raw":
			seen.first(in, 11)
			s.Raw = in.String()
		case "usage":
			seen.first(in, 12)
			s.Usage = d.usage()
		case "errors":
			seen.first(in, 13)
			s.Errors = list(in, &d.errs, d.routerError)
		case "note":
			seen.first(in, 14)
			s.Note = in.Name()
		default:
			in.Fail()
		}
	}
}

func (d *resultDecoder) usage() *router.Usage {
	in := &d.in
	if in.Null() {
		return nil
	}
	u := &router.Usage{}
	var seen fieldSet
	for more := in.ObjectStart(); more; more = in.ObjectNext() {
		switch string(in.Key()) {
		case "input_tokens":
			seen.first(in, 0)
			u.InputTokens = in.Int()
		case "output_tokens":
			seen.first(in, 1)
			u.OutputTokens = in.Int()
		case "cost_usd":
			seen.first(in, 2)
			u.CostUSD = in.Float()
		default:
			in.Fail()
		}
	}
	return u
}

func (d *resultDecoder) turnResult(t *TurnResult) {
	in := &d.in
	if in.Null() {
		return
	}
	var seen fieldSet
	for more := in.ObjectStart(); more; more = in.ObjectNext() {
		switch string(in.Key()) {
		case "input":
			seen.first(in, 0)
			t.Input = in.String()
		case "expect":
			seen.first(in, 1)
			d.expect(&t.Expect)
		case "decision":
			seen.first(in, 2)
			d.decision(&t.Decision)
		case "pass":
			seen.first(in, 3)
			t.Pass = in.Bool()
		case "failure":
			seen.first(in, 4)
			t.Failure = in.Name()
		case "masked":
			seen.first(in, 5)
			t.Masked = d.nameMap()
		default:
			in.Fail()
		}
	}
}
