package reports

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/internal/jsonstr"
	"github.com/routebench/routebench/router"
)

// viewEncoder writes a result's view (caseViews.add) straight from the
// result: the bytes caseHeadOf's and resultPartOf's values encode to
// with holes, and their strings interned in the same order, without
// building those values. Building them (trace steps as []any, boxed
// scores, a string per trace line) was most of what collecting a large
// run's views cost; CaseDataForTest holds the two to the same bytes.
type viewEncoder struct {
	w caseDataWriter
	t viewTable
	// ids holds a trace step's score skills, interned before the step's
	// stage and words as traceStep interns them but written after.
	ids []strID
}

func newViewEncoder() *viewEncoder { return &viewEncoder{w: caseDataWriter{holes: true}} }

// viewTable is a view's own string table: its strings' bytes in one
// buffer, so interning them allocates nothing once the buffer has grown.
// Index 0 is "".
type viewTable struct {
	text []byte
	// ends[k] is where string k+1 ends in text.
	ends []int
	// index finds a string once the table outgrows viewTableScan
	// strings (a long conversation); below that, looking through them is
	// quicker than hashing, and allocates nothing.
	index map[string]strID
}

// viewTableScan is how many strings a view's table looks through.
const viewTableScan = 32

// reset empties the table; the next view looks through its strings
// again until it too has many.
func (t *viewTable) reset() {
	t.text, t.ends, t.index = t.text[:0], t.ends[:0], nil
}

func (t *viewTable) len() int { return len(t.ends) + 1 }

func (t *viewTable) at(k int) []byte {
	start := 0
	if k > 1 {
		start = t.ends[k-2]
	}
	return t.text[start:t.ends[k-1]]
}

// id is s's index, s added when new.
func (t *viewTable) id(s string) strID {
	if s == "" {
		return 0
	}
	start := len(t.text)
	t.text = append(t.text, s...)
	return t.commit(start)
}

// commit interns the string just appended to text from start: its
// index, and when another string has those bytes, that string's (the
// bytes appended are taken back).
func (t *viewTable) commit(start int) strID {
	s := t.text[start:]
	if len(s) == 0 {
		return 0
	}
	if t.index == nil && len(t.ends) >= viewTableScan {
		t.index = make(map[string]strID, 2*viewTableScan)
		for k := 1; k < t.len(); k++ {
			t.index[string(t.at(k))] = strID(k)
		}
	}
	if t.index != nil {
		if k, ok := t.index[string(s)]; ok {
			t.text = t.text[:start]
			return k
		}
		t.index[string(s)] = strID(t.len())
	} else {
		from := 0
		for k, end := range t.ends {
			if bytes.Equal(t.text[from:end], s) {
				t.text = t.text[:start]
				return strID(k + 1)
			}
			from = end
		}
	}
	t.ends = append(t.ends, len(t.text))
	return strID(len(t.ends))
}

// appendTo writes the table but its first string (""): how many, then
// each one's length and bytes.
func (t *viewTable) appendTo(b []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(t.ends)))
	for k := 1; k < t.len(); k++ {
		s := t.at(k)
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return b
}

// caseHead writes what caseHeadOf and caseHead write of a row whose
// first result is r: its members after the row's id (each with its
// comma); shown is the row's input.
func (e *viewEncoder) caseHead(r *harness.Result, shown string) {
	w, t := &e.w, &e.t
	f := fields{w: w}
	f.id("su", t.id(r.Suite))
	f.str("in", shown)
	if len(r.Tags) > 0 {
		f.key("t")
		e.idList(r.Tags)
	}
	f.key("x")
	e.expect(&r.Expect)
}

// caseTail writes caseTail's members: a conversation's turns.
func (e *viewEncoder) caseTail(r *harness.Result) {
	w := &e.w
	if !r.IsConversation() || len(r.Turns) == 0 {
		return
	}
	f := fields{w: w}
	f.key("tu")
	w.b = append(w.b, '[')
	for i := range r.Turns {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		tf := w.object()
		tf.str("in", truncateRunes(r.Turns[i].Input, maxInputRunes))
		tf.key("x")
		e.expect(&r.Turns[i].Expect)
		tf.end()
	}
	w.b = append(w.b, ']')
}

// idList writes ss's indexes as a list.
func (e *viewEncoder) idList(ss []string) {
	w := &e.w
	w.b = append(w.b, '[')
	for i, s := range ss {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.id(e.t.id(s))
	}
	w.b = append(w.b, ']')
}

// expect writes expectView's value of x.
func (e *viewEncoder) expect(x *harness.Expect) {
	w, t := &e.w, &e.t
	f := w.object()
	f.id("a", t.id(string(x.Action)))
	f.id("k", t.id(x.Skill))
	f.id("g", t.id(string(x.Gate)))
	if len(x.Params) > 0 {
		f.key("p")
		e.expectParams(x.Params)
	}
	if len(x.Candidates) > 0 {
		f.key("cd")
		e.idList(x.Candidates)
	}
	if len(x.Never) > 0 {
		f.key("n")
		e.idList(x.Never)
	}
	f.end()
}

// expectParams writes an expectation's params as expectView's map of
// matcherView encodes (appendMatchersJSON), or through
// caseDataWriter.value as before where that does not write them.
func (e *viewEncoder) expectParams(ps map[string]harness.ParamMatcher) {
	w := &e.w
	start := len(w.b)
	var ok bool
	if w.b, ok = appendMatchersJSON(w.b, ps); !ok {
		w.b = w.b[:start]
		w.value(matchersView(ps))
	}
}

// appendMatchersJSON appends json.Marshal's bytes for matchersView(ps)
// without building it: keys sorted, each matcher as the case file writes
// it. When ok is false (a value only encoding/json writes), what it
// appended is to be taken back.
func appendMatchersJSON(b []byte, ps map[string]harness.ParamMatcher) ([]byte, bool) {
	var room [16]string
	keys := room[:0]
	for k := range ps {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	ok := true
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(jsonstr.Append(b, k), ':')
		switch m := ps[k]; {
		case m.Absent:
			b = append(b, `{"absent":true}`...)
		case m.Regex != "":
			b = append(jsonstr.Append(append(b, `{"regex":`...), m.Regex), '}')
		case len(m.AnyOf) > 0:
			b, ok = jsonstr.AppendValue(append(b, `{"any_of":`...), m.AnyOf)
			b = append(b, '}')
		default:
			b, ok = jsonstr.AppendValue(b, m.Equals)
		}
		if !ok {
			return b, false
		}
	}
	return append(b, '}'), true
}

// matchersView is each param's matcherView.
func matchersView(ps map[string]harness.ParamMatcher) map[string]any {
	m := make(map[string]any, len(ps))
	for k, p := range ps {
		m[k] = matcherView(p)
	}
	return m
}

// resultHead writes resultView's members of r before its input, as
// resultHead does, into f.
func (e *viewEncoder) resultHead(f *fields, r *harness.Result) {
	w, t := &e.w, &e.t
	d := &r.Decision
	if r.Pass {
		f.int("p", 1)
	}
	f.id("f", t.id(r.Failure))
	f.id("a", t.id(string(d.Action)))
	f.id("k", t.id(d.Skill))
	if c := round3(d.Confidence); c != 0 {
		f.key("c")
		w.float(c)
	}
	f.id("st", t.id(d.Stage))
	f.id("g", t.id(string(d.Gate)))
	if len(d.Params) > 0 {
		// compactJSON's text, written into the table.
		start := len(t.text)
		var ok bool
		if t.text, ok = appendFlatParamsJSON(t.text, d.Params); !ok {
			t.text = append(t.text[:start], compactJSON(d.Params)...)
		}
		t.text = truncateRunesTail(t.text, start, maxMessageRunes)
		f.id("pa", t.commit(start))
	}
	if len(d.Candidates) > 0 {
		f.key("cd")
		w.b = append(w.b, '[')
		for i, c := range d.Candidates[:min(len(d.Candidates), maxCandidates)] {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.b = append(w.b, '[')
			w.id(t.id(c.Skill))
			w.b = append(w.b, ',')
			w.float(round3(c.Score))
			w.b = append(w.b, ']')
		}
		w.b = append(w.b, ']')
	}
	if len(d.Errors) > 0 {
		f.key("e")
		e.errorList(d.Errors)
	}
	f.str("m", truncateRunes(d.Message, maxMessageRunes))
	raw := ""
	if len(d.Trace) > 0 {
		f.key("tr")
		w.b = append(w.b, '[')
		for i := range d.Trace {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			s := &d.Trace[i]
			e.traceStep(s)
			// As resultView: the last raw output, for a failed case.
			if s.Raw != "" && !r.Pass {
				raw = s.Raw
			}
		}
		w.b = append(w.b, ']')
	}
	f.str("raw", truncateRunes(raw, maxRawRunes))
	f.int("l", r.LatencyUS)
}

// resultTail writes resultPartOf's members of r after its input (each
// with its comma): a conversation's decisions, its failed turn, and a
// failure's severity.
func (e *viewEncoder) resultTail(r *harness.Result) {
	w := &e.w
	f := fields{w: w}
	conv := r.IsConversation()
	if conv && len(r.Turns) > 0 {
		f.key("tu")
		w.b = append(w.b, '[')
		for i := range r.Turns {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			turn := harness.TurnDecision(r, i)
			tf := w.object()
			e.resultHead(&tf, &turn)
			tf.end()
		}
		w.b = append(w.b, ']')
	}
	if conv {
		f.int("ft", int64(r.FailedTurn))
	}
	if !r.Pass {
		f.int("sv", int64(harness.SeverityOf(*r)))
	}
}

// errorList writes a list of errorLine strings.
func (e *viewEncoder) errorList(errs []router.Error) {
	w := &e.w
	w.b = append(w.b, '[')
	for i, x := range errs {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = jsonstr.Append(w.b, errorLine(x))
	}
	w.b = append(w.b, ']')
}

// traceStep writes traceStep's value of s: the index of "stage: words"
// for a step of words alone, else [stage, words, scores, confidence,
// errors] with trailing empty parts left off.
func (e *viewEncoder) traceStep(s *router.TraceStep) {
	w, t := &e.w, &e.t
	plain := len(s.Scores) == 0 && len(s.Top) == 0 && s.Confidence == nil && len(s.Errors) == 0
	if plain {
		start := len(t.text)
		t.text = append(append(t.text, s.Stage...), ": "...)
		t.text = appendTraceWords(t.text, *s)
		t.text = truncateRunesTail(t.text, start, maxTraceRunes)
		w.id(t.commit(start))
		return
	}
	e.ids = e.ids[:0]
	for _, c := range s.Scores {
		e.ids = append(e.ids, t.id(c.Skill))
	}
	if len(s.Scores) == 0 {
		for _, skill := range s.Top {
			e.ids = append(e.ids, t.id(skill))
		}
	}
	stage := t.id(s.Stage)
	start := len(t.text)
	t.text = appendTraceWords(t.text, *s)
	t.text = truncateRunesTail(t.text, start, maxTraceRunes)
	words := t.commit(start)

	w.b = append(w.b, '[')
	w.id(stage)
	w.b = append(w.b, ',')
	w.id(words)
	w.b = append(w.b, ',')
	if len(e.ids) == 0 {
		w.b = append(w.b, '0')
	} else {
		w.b = append(w.b, '[')
		for i, id := range e.ids {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.id(id)
			w.b = append(w.b, ',')
			if len(s.Scores) > 0 {
				w.float(round3(s.Scores[i].Score))
			} else {
				w.b = append(w.b, "null"...)
			}
		}
		w.b = append(w.b, ']')
	}
	if s.Confidence != nil || len(s.Errors) > 0 {
		w.b = append(w.b, ',')
		if s.Confidence != nil {
			w.float(round3(*s.Confidence))
		} else {
			w.b = append(w.b, "null"...)
		}
	}
	if len(s.Errors) > 0 {
		w.b = append(w.b, ',')
		e.errorList(s.Errors)
	}
	w.b = append(w.b, ']')
}

// truncateRunesTail is truncateRunes of b[start:], in place.
func truncateRunesTail(b []byte, start, max int) []byte {
	s := b[start:]
	if len(s) <= max {
		return b
	}
	n := 0
	for i := 0; i < len(s); {
		if n == max {
			all := utf8.RuneCount(s)
			b = append(b[:start+i], "… [truncated, "...)
			b = strconv.AppendInt(b, int64(all), 10)
			return append(b, " characters in all]"...)
		}
		_, size := utf8.DecodeRune(s[i:])
		i += size
		n++
	}
	return b
}
