package reports

import (
	"sort"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/internal/jsonstr"
	"github.com/routebench/routebench/router"
)

// The case table as the in-memory code built it: a case's results
// gathered, a view of each built as values (resultJSON, trace steps as
// []any) and encoded from those. The report writes its rows straight from
// each result instead (viewEncoder, caseViews); specs hold those bytes to
// these (CaseDataForTest), so this reference lives beside the specs, not
// in the binary.

// caseData is the JSON the case table renders from. Repeated strings
// (versions, suites, tags, skills, actions, failures, trace lines) are
// stored once in Strings and referred to by index; index 0 is "".
type caseData struct {
	Versions []strID    `json:"v"`
	Strings  []string   `json:"s"`
	Cases    []caseJSON `json:"c"`
}

type caseJSON struct {
	ID     string     `json:"id"`
	Suite  strID      `json:"su,omitempty"`
	Input  string     `json:"in,omitempty"`
	Tags   []strID    `json:"t,omitempty"`
	Expect expectJSON `json:"x"`
	// Results align with caseData.Versions; null where a version did not
	// run the case.
	Results []*resultJSON `json:"r"`
	// Turns are a conversation's turns (its user text and expectation),
	// in order; each result then holds one decision per turn.
	Turns []turnJSON `json:"tu,omitempty"`
	// Differs is 1 when the versions that ran the case disagree: in
	// outcome, failure, action or skill (the side-by-side view's "only
	// differences").
	Differs int `json:"df,omitempty"`
}

type turnJSON struct {
	Input  string     `json:"in,omitempty"`
	Expect expectJSON `json:"x"`
}

type expectJSON struct {
	Action     strID          `json:"a,omitempty"`
	Skill      strID          `json:"k,omitempty"`
	Gate       strID          `json:"g,omitempty"`
	Params     map[string]any `json:"p,omitempty"`
	Candidates []strID        `json:"cd,omitempty"`
	Never      []strID        `json:"n,omitempty"`
}

// A trace step in the case data is compact because a run holds tens of
// thousands: a step with nothing case-specific is just the index of its
// interned line ("policy: kept 13; dropped ..."); a step with numbers is
// [stage, words, [skill, score, skill, score, ...], confidence, [errors]]
// (indexes into the string table where they are strings), with trailing
// empty parts left off.
type traceJSON = any

type resultJSON struct {
	Pass       int     `json:"p,omitempty"`
	Failure    strID   `json:"f,omitempty"`
	Action     strID   `json:"a,omitempty"`
	Skill      strID   `json:"k,omitempty"`
	Confidence float64 `json:"c,omitempty"`
	Stage      strID   `json:"st,omitempty"`
	Gate       strID   `json:"g,omitempty"`
	// Params is the decision's params as compact JSON, interned: versions
	// that agree on a case's params store them once.
	Params     strID       `json:"pa,omitempty"`
	Candidates [][2]any    `json:"cd,omitempty"`
	Errors     []string    `json:"e,omitempty"`
	Message    string      `json:"m,omitempty"`
	Trace      []traceJSON `json:"tr,omitempty"`
	Raw        string      `json:"raw,omitempty"`
	LatencyUS  int64       `json:"l,omitempty"`
	// Input is set only when this version saw different case text (a
	// changed case in a merged run).
	Input string `json:"in,omitempty"`
	// Turns are a conversation's decisions, one per turn, aligned with
	// caseJSON.Turns; FailedTurn (1-based) is the turn its failure is from.
	Turns      []*resultJSON `json:"tu,omitempty"`
	FailedTurn int           `json:"ft,omitempty"`
	// Severity is harness.SeverityOf for a failed case (0 for a pass):
	// the table opens on the worst.
	Severity int `json:"sv,omitempty"`
}

// caseDataOf is the case table's data before encoding, for results in
// memory (the report streams it: writeCaseData).
func caseDataOf(versions []string, results []harness.Result) *caseData {
	strs := newInterner()
	d := caseData{Versions: strs.ids(versions)}
	col := columns(versions)
	order, err := harness.CaseOrderOf(harness.SliceStream(results))
	if err != nil {
		panic(err) // a slice cannot fail
	}
	if len(order.IDs) > 0 {
		d.Cases = make([]caseJSON, 0, len(order.IDs)) // nil when empty: the JSON says null, as it always did
	}
	for i, id := range order.IDs {
		rs := make([]*harness.Result, len(order.Positions[i]))
		for k, p := range order.Positions[i] {
			rs[k] = &results[p]
		}
		d.Cases = append(d.Cases, caseOf(strs, col, id, rs))
	}
	d.Strings = strs.strings
	return &d
}

// caseOf is one case's row of the case table: rs are its results, in the
// order they came. Strings are interned in this order: the first
// result's case members (caseHeadOf), then each result's own
// (resultPartOf) in column order; caseViews keeps the two parts apart
// and interns them in the same order.
func caseOf(strs *interner, col map[string]int, id string, rs []*harness.Result) caseJSON {
	c := caseJSON{ID: id, Results: make([]*resultJSON, len(col))}
	sort.SliceStable(rs, func(i, j int) bool { return col[rs[i].Version] < col[rs[j].Version] })
	first := rs[0]
	caseHeadOf(strs, &c, first)
	for _, r := range rs {
		rj := resultPartOf(strs, r)
		rj.Input = changedInput(r, first, c.Input)
		c.Results[col[r.Version]] = rj
	}
	for _, r := range rs[1:] {
		if r.Pass != first.Pass || r.Failure != first.Failure ||
			r.Decision.Action != first.Decision.Action || r.Decision.Skill != first.Decision.Skill {
			c.Differs = 1
		}
	}
	return c
}

// caseHeadOf sets the case members the case table takes from the first
// result: suite, input, tags, expectation and a conversation's turns.
func caseHeadOf(strs *interner, c *caseJSON, first *harness.Result) {
	c.Suite = strs.id(first.Suite)
	c.Input = truncateRunes(first.Input, maxInputRunes)
	c.Tags = strs.ids(first.Tags)
	c.Expect = expectView(strs, first.Expect)
	if first.IsConversation() {
		c.Input = conversationText(first)
		for _, t := range first.Turns {
			c.Turns = append(c.Turns, turnJSON{Input: truncateRunes(t.Input, maxInputRunes), Expect: expectView(strs, t.Expect)})
		}
	}
}

// resultPartOf is a result's column of the case table but for its Input,
// which depends on the case's first result (changedInput).
func resultPartOf(strs *interner, r *harness.Result) *resultJSON {
	rj := resultView(strs, r)
	if r.IsConversation() {
		rj.FailedTurn = r.FailedTurn
		rj.Turns = make([]*resultJSON, len(r.Turns))
		for i := range r.Turns {
			turn := harness.TurnDecision(r, i)
			rj.Turns[i] = resultView(strs, &turn)
		}
	}
	if !r.Pass {
		rj.Severity = int(harness.SeverityOf(*r))
	}
	return rj
}

// changedInput is the input a result's column shows: only when it saw
// other text than the case's first result, whose shown input is caseInput.
func changedInput(r, first *harness.Result, caseInput string) string {
	if r.IsConversation() {
		if text := conversationText(r); text != caseInput {
			return text
		}
		return ""
	}
	if r.Input != first.Input {
		return truncateRunes(r.Input, maxInputRunes)
	}
	return ""
}

func expectView(strs *interner, e harness.Expect) expectJSON {
	x := expectJSON{Action: strs.id(string(e.Action)), Skill: strs.id(e.Skill), Gate: strs.id(string(e.Gate)),
		Candidates: strs.ids(e.Candidates), Never: strs.ids(e.Never)}
	if len(e.Params) > 0 {
		x.Params = make(map[string]any, len(e.Params))
		for k, m := range e.Params {
			x.Params[k] = matcherView(m)
		}
	}
	return x
}

func resultView(strs *interner, r *harness.Result) *resultJSON {
	d := r.Decision
	rj := &resultJSON{Failure: strs.id(r.Failure), Action: strs.id(string(d.Action)), Skill: strs.id(d.Skill),
		Confidence: round3(d.Confidence), Stage: strs.id(d.Stage), Gate: strs.id(string(d.Gate)),
		Message: truncateRunes(d.Message, maxMessageRunes), LatencyUS: r.LatencyUS}
	if len(d.Params) > 0 {
		rj.Params = strs.id(truncateRunes(compactJSON(d.Params), maxMessageRunes))
	}
	if r.Pass {
		rj.Pass = 1
	}
	// Each list is made at its size: grown by append, the lists of a large
	// run's results were a good part of what collecting them allocated.
	if len(d.Candidates) > 0 {
		rj.Candidates = make([][2]any, 0, min(len(d.Candidates), maxCandidates))
	}
	for i, c := range d.Candidates {
		if i == maxCandidates {
			break
		}
		rj.Candidates = append(rj.Candidates, [2]any{strs.id(c.Skill), round3(c.Score)})
	}
	if len(d.Errors) > 0 {
		rj.Errors = make([]string, 0, len(d.Errors))
	}
	for _, e := range d.Errors {
		rj.Errors = append(rj.Errors, errorLine(e))
	}
	if len(d.Trace) > 0 {
		rj.Trace = make([]traceJSON, 0, len(d.Trace))
	}
	for _, step := range d.Trace {
		rj.Trace = append(rj.Trace, traceStep(strs, step))
		// The raw model output explains a failure; for a passing case the
		// decision already says what the model answered.
		if step.Raw != "" && !r.Pass {
			rj.Raw = truncateRunes(step.Raw, maxRawRunes)
		}
	}
	return rj
}

// traceStep compacts one stage's record for the case table.
func traceStep(strs *interner, s router.TraceStep) traceJSON {
	// A step with nothing but words is one string: "stage: words".
	plain := len(s.Scores) == 0 && len(s.Top) == 0 && s.Confidence == nil && len(s.Errors) == 0
	var text [256]byte
	b := text[:0]
	if plain {
		b = append(append(b, s.Stage...), ": "...)
	}
	words := truncateRunes(string(appendTraceWords(b, s)), maxTraceRunes)
	if plain {
		return strs.id(words)
	}
	var scores []any
	if len(s.Scores) > 0 {
		scores = make([]any, 0, 2*len(s.Scores))
		for _, c := range s.Scores {
			scores = append(scores, strs.id(c.Skill), round3(c.Score))
		}
	} else if len(s.Top) > 0 {
		scores = make([]any, 0, 2*len(s.Top))
		for _, skill := range s.Top {
			scores = append(scores, strs.id(skill), nil)
		}
	}
	var errs []string
	if len(s.Errors) > 0 {
		errs = make([]string, 0, len(s.Errors))
	}
	for _, e := range s.Errors {
		errs = append(errs, errorLine(e))
	}
	var conf any
	if s.Confidence != nil {
		conf = round3(*s.Confidence)
	}
	step := []any{strs.id(s.Stage), strs.id(words), scores, conf, errs}
	switch {
	case errs != nil:
	case conf != nil:
		step = step[:4]
	default:
		step = step[:3]
	}
	if scores == nil {
		step[2] = 0
	}
	return step
}

// traceLine is one stage's record as one line of text, for JUnit.
func traceLine(s router.TraceStep) string {
	var text [256]byte
	return string(appendTraceLine(text[:0], s))
}

// encodeCaseData writes d as JSON.
func encodeCaseData(d *caseData) ([][]byte, error) {
	w := &caseDataWriter{b: make([]byte, 0, chunkSize+chunkSize/4)}
	w.b = append(w.b, `{"v":`...)
	w.ids(d.Versions)
	w.b = append(w.b, `,"s":`...)
	w.strings(d.Strings)
	w.b = append(w.b, `,"c":`...)
	if d.Cases == nil {
		w.b = append(w.b, "null"...)
	} else {
		w.b = append(w.b, '[')
		for i := range d.Cases {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.caseJSON(&d.Cases[i])
			w.flush()
		}
		w.b = append(w.b, ']')
	}
	w.b = append(w.b, '}')
	if w.err != nil {
		return nil, w.err
	}
	return append(w.chunks, w.b), nil
}

func (f *fields) idList(name string, xs []strID) {
	if len(xs) > 0 {
		f.key(name)
		f.w.ids(xs)
	}
}

func (w *caseDataWriter) caseJSON(c *caseJSON) {
	f := w.object()
	w.b = jsonstr.Append(f.key("id"), c.ID)
	w.caseHead(&f, c)
	f.key("r")
	if c.Results == nil {
		w.b = append(w.b, "null"...)
	} else {
		w.b = append(w.b, '[')
		for i, r := range c.Results {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.result(r)
		}
		w.b = append(w.b, ']')
	}
	w.caseTail(&f, c)
	f.int("df", int64(c.Differs))
	f.end()
}

// caseHead writes a case's members between its id and its results.
func (w *caseDataWriter) caseHead(f *fields, c *caseJSON) {
	f.id("su", c.Suite)
	f.str("in", c.Input)
	f.idList("t", c.Tags)
	f.key("x")
	w.expect(&c.Expect)
}

// caseTail writes a case's turns, which follow its results.
func (w *caseDataWriter) caseTail(f *fields, c *caseJSON) {
	if len(c.Turns) > 0 {
		f.key("tu")
		w.b = append(w.b, '[')
		for i := range c.Turns {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			tf := w.object()
			tf.str("in", c.Turns[i].Input)
			tf.key("x")
			w.expect(&c.Turns[i].Expect)
			tf.end()
		}
		w.b = append(w.b, ']')
	}
}

func (w *caseDataWriter) expect(x *expectJSON) {
	f := w.object()
	f.id("a", x.Action)
	f.id("k", x.Skill)
	f.id("g", x.Gate)
	if len(x.Params) > 0 {
		f.key("p")
		w.value(x.Params)
	}
	f.idList("cd", x.Candidates)
	f.idList("n", x.Never)
	f.end()
}

func (w *caseDataWriter) result(r *resultJSON) {
	if r == nil {
		w.b = append(w.b, "null"...)
		return
	}
	f := w.object()
	w.resultHead(&f, r)
	f.str("in", r.Input)
	w.resultTail(&f, r)
	f.end()
}

// resultHead writes a result's members before its input.
func (w *caseDataWriter) resultHead(f *fields, r *resultJSON) {
	f.int("p", int64(r.Pass))
	f.id("f", r.Failure)
	f.id("a", r.Action)
	f.id("k", r.Skill)
	if r.Confidence != 0 {
		f.key("c")
		w.float(r.Confidence)
	}
	f.id("st", r.Stage)
	f.id("g", r.Gate)
	f.id("pa", r.Params)
	if len(r.Candidates) > 0 {
		f.key("cd")
		w.b = append(w.b, '[')
		for i, c := range r.Candidates {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.b = append(w.b, '[')
			w.value(c[0])
			w.b = append(w.b, ',')
			w.value(c[1])
			w.b = append(w.b, ']')
		}
		w.b = append(w.b, ']')
	}
	if len(r.Errors) > 0 {
		f.key("e")
		w.value(r.Errors)
	}
	f.str("m", r.Message)
	if len(r.Trace) > 0 {
		f.key("tr")
		w.value(r.Trace)
	}
	f.str("raw", r.Raw)
	f.int("l", r.LatencyUS)
}

// resultTail writes a result's members after its input.
func (w *caseDataWriter) resultTail(f *fields, r *resultJSON) {
	if len(r.Turns) > 0 {
		f.key("tu")
		w.b = append(w.b, '[')
		for i, t := range r.Turns {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.result(t)
		}
		w.b = append(w.b, ']')
	}
	f.int("ft", int64(r.FailedTurn))
	f.int("sv", int64(r.Severity))
}

// reset empties the table for reuse (InternedForTest compares viewTable
// with it).
func (t *interner) reset() {
	clear(t.index)
	t.index[""] = 0
	clear(t.strings[1:])
	t.strings = t.strings[:1]
}
