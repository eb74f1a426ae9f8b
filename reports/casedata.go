package reports

import (
	"errors"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/router"
)

// Size limits of the per-case data. A 10,000-case × 3-version run must stay
// a file a browser opens quickly, so long text is cut with a marker.
const (
	maxInputRunes   = 2000
	maxMessageRunes = 500
	maxRawRunes     = 1000
	maxTraceRunes   = 600
	maxCandidates   = 5
)

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

// strID is a string's index in the case data's string table (Strings).
// It encodes as the number; the case table's spool (caseViews) tells it
// from other numbers by its type.
type strID int

// interner hands out stable indexes for repeated strings.
type interner struct {
	index   map[string]strID
	strings []string
}

func newInterner() *interner {
	return &interner{index: map[string]strID{"": 0}, strings: []string{""}}
}

// reset empties the table for reuse.
func (t *interner) reset() {
	clear(t.index)
	t.index[""] = 0
	clear(t.strings[1:])
	t.strings = t.strings[:1]
}

func (t *interner) id(s string) strID {
	if i, ok := t.index[s]; ok {
		return i
	}
	i := strID(len(t.strings))
	t.index[s] = i
	t.strings = append(t.strings, s)
	return i
}

func (t *interner) ids(ss []string) []strID {
	if len(ss) == 0 {
		return nil
	}
	out := make([]strID, len(ss))
	for i, s := range ss {
		out[i] = t.id(s)
	}
	return out
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

func columns(versions []string) map[string]int {
	col := map[string]int{}
	for i, v := range versions {
		col[v] = i
	}
	return col
}

// caseBatch is how many cases' views writeCaseData reads at a time: a
// few hundred kilobytes of views.
const caseBatch = 256

// writeCaseData writes the case table's JSON to w, cases sorted by ID,
// reading each case's results from the stream as it goes: the bytes are
// caseDataOf's, and memory holds one case at a time plus the string
// table. The string table comes first in the JSON but is filled in case
// order, so the cases are encoded to a temporary file first and copied
// after it. It is compact JSON whose <, > and & are \u escaped, so it can
// sit inside a <script> element without ending it.
func writeCaseData(out io.Writer, versions []string, views *caseViews, order caseOrder) (err error) {
	strs := newInterner()
	vids := strs.ids(versions)
	col := columns(versions)
	tmp, err := os.CreateTemp("", "routebench-cases-*.json")
	if err != nil {
		return err
	}
	defer func() {
		tmp.Close()
		if rerr := os.Remove(tmp.Name()); rerr != nil && err == nil {
			err = rerr
		}
	}()
	cw := &caseDataWriter{b: make([]byte, 0, chunkSize+chunkSize/4), out: tmp}
	rd, err := views.reader()
	if err != nil {
		return err
	}
	// The views are read caseBatch cases at a time (spool.ReadBatch), so
	// those that came close together in the stream are read together.
	var positions, starts []int
	var buf []byte
	var records [][]byte
	for from := 0; from < order.Len(); from += caseBatch {
		to := min(from+caseBatch, order.Len())
		positions, starts = positions[:0], starts[:0]
		for i := from; i < to; i++ {
			starts = append(starts, len(positions))
			positions = order.Positions(i, positions)
		}
		starts = append(starts, len(positions))
		if buf, records, err = rd.r.ReadBatch(positions, buf, records); err != nil {
			return err
		}
		for i := from; i < to; i++ {
			if i > 0 {
				cw.b = append(cw.b, ',')
			}
			k := i - from
			if err := rd.writeCase(cw, strs, col, order.ID(i), records[starts[k]:starts[k+1]]); err != nil {
				return err
			}
			cw.flush()
		}
	}
	if _, err := tmp.Write(cw.b); err != nil || cw.err != nil {
		return errors.Join(err, cw.err)
	}

	w := &caseDataWriter{b: make([]byte, 0, chunkSize+chunkSize/4), out: out}
	w.b = append(w.b, `{"v":`...)
	w.ids(vids)
	w.b = append(w.b, `,"s":`...)
	w.strings(strs.strings)
	w.b = append(w.b, `,"c":`...)
	if order.Len() == 0 {
		w.b = append(w.b, "null"...)
	} else {
		w.b = append(w.b, '[')
	}
	if _, err := out.Write(w.b); err != nil || w.err != nil {
		return errors.Join(err, w.err)
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if _, err := io.Copy(out, tmp); err != nil {
		return err
	}
	end := "}"
	if order.Len() > 0 {
		end = "]}"
	}
	_, err = io.WriteString(out, end)
	return err
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

// conversationTextOf is conversationText for a conversation, "" otherwise.
func conversationTextOf(r *harness.Result) string {
	if !r.IsConversation() {
		return ""
	}
	return conversationText(r)
}

// conversationText is a conversation's user turns on one line, for the
// case table's input column and search: "show me failed payments → from
// the 1st to the 15th"; a turn in which the user said nothing shows as "…".
func conversationText(r *harness.Result) string {
	parts := make([]string, len(r.Turns))
	for i, t := range r.Turns {
		parts[i] = t.Input
		if t.Input == "" {
			parts[i] = "…"
		}
	}
	return truncateRunes(strings.Join(parts, " → "), maxInputRunes)
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

// matcherView shows a param matcher the way the case file writes it.
func matcherView(m harness.ParamMatcher) any {
	switch {
	case m.Absent:
		return map[string]any{"absent": true}
	case m.Regex != "":
		return map[string]any{"regex": m.Regex}
	case len(m.AnyOf) > 0:
		return map[string]any{"any_of": m.AnyOf}
	}
	return m.Equals
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

// round3 keeps three decimals, which is all a reader compares, and keeps
// the JSON short. JSON has no NaN or infinity, so those become 0.
func round3(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return math.Round(v*1000) / 1000
}

func errorLine(e router.Error) string {
	var b strings.Builder
	b.WriteString(e.Category)
	if e.Layer != "" {
		b.WriteString("/" + e.Layer)
	}
	if e.Path != "" {
		b.WriteString(" " + e.Path)
	}
	if e.Rule != "" {
		b.WriteString(" [" + e.Rule + "]")
	}
	b.WriteString(": " + e.Message)
	return truncateRunes(b.String(), maxMessageRunes)
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

// appendTraceLine appends traceLine's text to b.
func appendTraceLine(b []byte, s router.TraceStep) []byte {
	start := len(b)
	b = append(append(b, s.Stage...), ": "...)
	words := len(b)
	b = appendTraceWords(b, s)
	if len(s.Scores) > 0 {
		b = append(wordSep(b, words), "scores "...)
		for i, c := range s.Scores {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = appendFixed(append(append(b, c.Skill...), ' '), c.Score, 3)
		}
	} else if len(s.Top) > 0 {
		b = appendJoined(append(wordSep(b, words), "top "...), s.Top)
	}
	if s.Confidence != nil {
		b = appendFixed(append(wordSep(b, words), "confidence "...), *s.Confidence, 3)
	}
	for _, e := range s.Errors {
		b = append(append(wordSep(b, words), "error "...), errorLine(e)...)
	}
	return truncateRunesTail(b, start, maxTraceRunes)
}

// appendTraceWords appends the parts of a stage's record that repeat
// across cases, "; " apart. The judge's prompt is left out: it is the
// same composed text for every case of a version and would dominate the
// file.
func appendTraceWords(b []byte, s router.TraceStep) []byte {
	start := len(b)
	if s.Kept != nil {
		b = strconv.AppendInt(append(b, "kept "...), int64(*s.Kept), 10)
	}
	if len(s.Dropped) > 0 {
		b = appendJoined(append(wordSep(b, start), "dropped "...), s.Dropped)
	}
	if s.Stage == "rules" && len(s.Matched) == 0 {
		b = append(wordSep(b, start), "no trigger matched"...)
	} else if len(s.Matched) > 0 {
		b = appendJoined(append(wordSep(b, start), "matched "...), s.Matched)
	}
	if s.Provider != "" {
		b = append(append(wordSep(b, start), "provider "...), s.Provider...)
	}
	if s.Attempt > 0 {
		b = strconv.AppendInt(append(wordSep(b, start), "attempt "...), int64(s.Attempt), 10)
	}
	if s.Choice != "" {
		b = append(append(wordSep(b, start), "choice "...), s.Choice...)
	}
	if s.Usage != nil {
		b = strconv.AppendInt(append(wordSep(b, start), "tokens "...), int64(s.Usage.InputTokens), 10)
		b = strconv.AppendInt(append(b, " in / "...), int64(s.Usage.OutputTokens), 10)
		b = append(b, " out"...)
	}
	if s.Prompt != "" {
		b = strconv.AppendInt(append(wordSep(b, start), "prompt "...), int64(len(s.Prompt)), 10)
		b = append(b, " bytes (not shown)"...)
	}
	if s.Note != "" {
		b = append(wordSep(b, start), truncateRunes(s.Note, maxMessageRunes)...)
	}
	return b
}

// wordSep appends "; " when words have been written since start: every
// field's words are something, so none is left out of the count.
func wordSep(b []byte, start int) []byte {
	if len(b) > start {
		return append(b, "; "...)
	}
	return b
}

// appendJoined appends items ", " apart.
func appendJoined(b []byte, items []string) []byte {
	for i, x := range items {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, x...)
	}
	return b
}
