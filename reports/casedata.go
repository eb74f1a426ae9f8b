package reports

import (
	"errors"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/internal/spool"
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
func writeCaseData(out io.Writer, versions []string, views *caseViews, ids *caseIDs) (err error) {
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
	walk, err := ids.walk()
	if err != nil {
		return err
	}
	// The views are read caseBatch cases at a time (spool.ReadBatch), so
	// those that came close together in the stream are read together.
	var results []caseResult
	var spans []spool.Span
	var starts []int
	var caseIDs []byte // the batch's ids, back to back, ending at idEnds
	var idEnds []int
	var buf []byte
	var records [][]byte
	cases := 0
	for more := true; more; {
		results, starts, caseIDs, idEnds = results[:0], starts[:0], caseIDs[:0], idEnds[:0]
		for len(idEnds) < caseBatch {
			starts = append(starts, len(results))
			var id []byte
			var ok bool
			if id, results, ok, err = walk.next(results); err != nil {
				return err
			} else if !ok {
				more = false
				break
			}
			caseIDs = append(caseIDs, id...)
			idEnds = append(idEnds, len(caseIDs))
		}
		starts = append(starts[:len(idEnds)], len(results))
		spans = spans[:0]
		for _, x := range results {
			spans = append(spans, x.view)
		}
		if buf, records, err = rd.r.ReadBatch(spans, buf, records); err != nil {
			return err
		}
		from := 0
		for k, to := range idEnds {
			if cases > 0 {
				cw.b = append(cw.b, ',')
			}
			cases++
			if err := rd.writeCase(cw, strs, col, string(caseIDs[from:to]), records[starts[k]:starts[k+1]]); err != nil {
				return err
			}
			from = to
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
	if cases == 0 {
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
	if cases > 0 {
		end = "]}"
	}
	_, err = io.WriteString(out, end)
	return err
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

// round3 keeps three decimals, which is all a reader compares, and keeps
// the JSON short. JSON has no NaN or infinity, so those become 0.
func round3(v float64) float64 {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return 0
	case math.Abs(v) >= 1<<52:
		// Past 2^52 a float64 holds no fraction to round, and v*1000 could
		// overflow to +Inf, which JSON cannot hold.
		return v
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
