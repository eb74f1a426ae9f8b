package reports

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/routebench/routebench/internal/jsonstr"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/internal/spool"
	"github.com/routebench/routebench/router"
)

// CaseDataForTest encodes the case table's data both ways: with the
// report's own writer and with json.Marshal, which it must equal. The
// report writes it a third way, from each result's view kept as it was
// collected (caseViews), and that must be the writer's bytes too: when
// it is not, err says so.
func CaseDataForTest(versions []string, results []harness.Result) (own, reference []byte, err error) {
	d := caseDataOf(versions, results)
	chunks, err := encodeCaseData(d)
	if err != nil {
		return nil, nil, err
	}
	reference, err = json.Marshal(d)
	own = bytes.Join(chunks, nil)
	if err != nil {
		return own, reference, err
	}
	ids, views := newCaseIDs(), newCaseViews()
	for i := range results {
		ids.add(i, results[i].Case, views.add(&results[i]))
	}
	var streamed bytes.Buffer
	if err := writeCaseData(&streamed, versions, views, ids); err != nil {
		return own, reference, fmt.Errorf("case data from views: %w", err)
	}
	if !bytes.Equal(streamed.Bytes(), own) {
		return own, reference, fmt.Errorf("case data from views differs from the writer's:\n%s\n%s", streamed.Bytes(), own)
	}
	// Once more with the ids sorted in runs on disk, as a large run's
	// are: the same bytes.
	ids = newCaseIDsIn(256, 256)
	for i := range results {
		ids.add(i, results[i].Case, views.add(&results[i]))
	}
	streamed.Reset()
	if err := writeCaseData(&streamed, versions, views, ids); err != nil {
		return own, reference, fmt.Errorf("case data from views, ids on disk: %w", err)
	}
	if !bytes.Equal(streamed.Bytes(), own) {
		return own, reference, fmt.Errorf("case data from views with ids on disk differs from the writer's:\n%s\n%s", streamed.Bytes(), own)
	}
	return own, reference, nil
}

// WriteJUnitSortedOnDiskForTest is WriteJUnit with its cases sorted in
// memory of inMemory bytes, so in runs on disk when they outgrow it.
func WriteJUnitSortedOnDiskForTest(w io.Writer, results []harness.Result, inMemory int) error {
	x := newJUnitIndex()
	x.cases = spool.NewSorter("junit-cases", inMemory)
	for i := range results {
		x.add(i, &results[i])
	}
	return writeJUnit(w, x)
}

// JSONStringForTest is the writer's string encoding.
func JSONStringForTest(s string) []byte { return jsonstr.Append(nil, s) }

// JSONFloatForTest is the writer's float encoding.
func JSONFloatForTest(x float64) ([]byte, error) {
	w := &caseDataWriter{}
	w.float(x)
	return w.b, w.err
}

// CaseOrderForTest adds ids at the given stream positions to a case id
// table that sorts and keeps inMemory bytes in memory and returns its
// walk: the ids sorted, each with its positions.
func CaseOrderForTest(ids []string, positions []int, inMemory int) (sorted []string, grouped [][]int) {
	t := newCaseIDsIn(inMemory, inMemory)
	for k, id := range ids {
		t.add(positions[k], id, spool.Span{})
	}
	w, err := t.walk()
	if err != nil {
		panic(err)
	}
	var results []caseResult
	for {
		id, rs, ok, err := w.next(results[:0])
		if err != nil {
			panic(err)
		} else if !ok {
			return sorted, grouped
		}
		results = rs
		sorted = append(sorted, string(id))
		var ps []int
		for _, x := range rs {
			ps = append(ps, x.pos)
		}
		grouped = append(grouped, ps)
	}
}

// CasePositionsForTest adds ids at the given stream positions to a case
// id table (as CaseOrderForTest's) and looks each query up once the table is grouped (as the
// report's flip quotes do): its positions, nil when it is not there.
func CasePositionsForTest(ids []string, positions []int, queries []string, inMemory int) [][]int {
	t := newCaseIDsIn(inMemory, inMemory)
	for k, id := range ids {
		t.add(positions[k], id, spool.Span{})
	}
	t.count() // grouped, as when the case table has been written
	var out [][]int
	for _, q := range queries {
		rs, ok, err := t.lookup(q, nil)
		if err != nil {
			panic(err)
		}
		if !ok {
			out = append(out, nil)
			continue
		}
		var ps []int
		for _, x := range rs {
			ps = append(ps, x.pos)
		}
		out = append(out, ps)
	}
	return out
}

// CompactJSONForTest is compactJSON's text of v and encoding/json's, which
// it must equal.
func CompactJSONForTest(v any) (own, reference string) { return compactJSON(v), encodedJSON(v) }

// XMLAttrForTest is s escaped as junit.xml's attribute values are.
func XMLAttrForTest(s string) string { return string(appendXMLAttr(nil, s)) }

// XMLSafeForTest is s as a failure's body keeps it, and what strings.Map
// with XML's characters makes of it, which it must equal.
func XMLSafeForTest(s string) (own, reference string) {
	reference = strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r',
			r >= 0x20 && r <= 0xD7FF,
			r >= 0xE000 && r <= 0xFFFD,
			r >= 0x10000 && r <= 0x10FFFF:
			return r
		}
		return '\uFFFD'
	}, s)
	return string(appendXMLSafe(nil, []byte(s))), reference
}

// PlainJSONForTest is v as the case data writes an expectation's params,
// and json.Marshal's bytes, which it must equal.
func PlainJSONForTest(v map[string]any) (own, reference string, err error) {
	w := &caseDataWriter{}
	w.value(v)
	js, err := json.Marshal(v)
	return string(w.b), string(js), errors.Join(err, w.err)
}

// InternedForTest interns words with a view's string table and an
// ordinary interner, each reset before every resetEvery-th word, and
// gives both ids.
func InternedForTest(words []string, resetEvery int) (view, ordinary []int) {
	var t viewTable
	o := newInterner()
	for i, w := range words {
		if i%resetEvery == 0 {
			t.reset()
			o.reset()
		}
		view = append(view, int(t.id(w)))
		ordinary = append(ordinary, int(o.id(w)))
	}
	return view, ordinary
}

// TraceTextForTest is a stage's record as junit.xml's trace line and the
// case table's step give it, next to the same built from separate
// strings joined, as they were before being appended into one buffer.
func TraceTextForTest(s router.TraceStep) (line, refLine string, step, refStep any) {
	words := func() []string {
		var parts []string
		if s.Kept != nil {
			parts = append(parts, "kept "+itoa(*s.Kept))
		}
		if len(s.Dropped) > 0 {
			parts = append(parts, "dropped "+strings.Join(s.Dropped, ", "))
		}
		if s.Stage == "rules" && len(s.Matched) == 0 {
			parts = append(parts, "no trigger matched")
		} else if len(s.Matched) > 0 {
			parts = append(parts, "matched "+strings.Join(s.Matched, ", "))
		}
		if s.Provider != "" {
			parts = append(parts, "provider "+s.Provider)
		}
		if s.Attempt > 0 {
			parts = append(parts, "attempt "+itoa(s.Attempt))
		}
		if s.Choice != "" {
			parts = append(parts, "choice "+s.Choice)
		}
		if s.Usage != nil {
			parts = append(parts, "tokens "+itoa(s.Usage.InputTokens)+" in / "+itoa(s.Usage.OutputTokens)+" out")
		}
		if s.Prompt != "" {
			parts = append(parts, "prompt "+itoa(len(s.Prompt))+" bytes (not shown)")
		}
		if s.Note != "" {
			parts = append(parts, truncateRunes(s.Note, maxMessageRunes))
		}
		return parts
	}
	parts := words()
	if len(s.Scores) > 0 {
		var sc []string
		for _, c := range s.Scores {
			sc = append(sc, c.Skill+" "+fixed(c.Score, 3))
		}
		parts = append(parts, "scores "+strings.Join(sc, ", "))
	} else if len(s.Top) > 0 {
		parts = append(parts, "top "+strings.Join(s.Top, ", "))
	}
	if s.Confidence != nil {
		parts = append(parts, "confidence "+fixed(*s.Confidence, 3))
	}
	for _, e := range s.Errors {
		parts = append(parts, "error "+errorLine(e))
	}
	refLine = truncateRunes(s.Stage+": "+strings.Join(parts, "; "), maxTraceRunes)

	// The step as a string or a list, its strings read back from their
	// interners.
	resolve := func(strs *interner, v any) any {
		if id, ok := v.(strID); ok {
			return strs.strings[id]
		}
		l, ok := v.([]any)
		if !ok {
			return v
		}
		out := []any{strs.strings[l[0].(strID)], strs.strings[l[1].(strID)]}
		return append(out, l[2:]...)
	}
	own := newInterner()
	step = resolve(own, traceStep(own, s))
	w := strings.Join(words(), "; ")
	if len(s.Scores) == 0 && len(s.Top) == 0 && s.Confidence == nil && len(s.Errors) == 0 {
		refStep = truncateRunes(s.Stage+": "+w, maxTraceRunes)
	} else {
		ref := newInterner()
		l := traceStep(ref, s).([]any)
		refStep = append([]any{s.Stage, truncateRunes(w, maxTraceRunes)}, l[2:]...)
	}
	return traceLine(s), refLine, step, refStep
}

// ExpectLineForTest is a case report's "expected" line as the report
// writes it, next to the same built from strings as it was before being
// appended into one buffer (with its key and newline when not empty).
func ExpectLineForTest(e harness.Expect) (own, reference string) {
	s := actionSkill(e.Action, e.Skill)
	if e.Gate != "" {
		s += " (gate " + string(e.Gate) + ")"
	}
	if e.Outcome != "" {
		s += " outcome " + e.Outcome
		if e.StoppedAt != "" {
			s += " at " + e.StoppedAt
		}
	}
	if e.Calls != nil {
		s += " calls [" + strings.Join(*e.Calls, ", ") + "]"
	}
	if len(e.Params) > 0 {
		m := make(map[string]any, len(e.Params))
		for k, v := range e.Params {
			m[k] = matcherView(v)
		}
		s += " params " + compactJSON(m)
	}
	if len(e.Candidates) > 0 {
		s += " offering " + strings.Join(e.Candidates, ", ")
	}
	if len(e.Never) > 0 {
		s += " never " + strings.Join(e.Never, ", ")
	}
	if s = strings.TrimSpace(s); s != "" {
		reference = "expected: " + s + "\n"
	}
	return string(appendExpectLine([]byte("before\n"), &e))[len("before\n"):], reference
}

// FixedForTest is fixed's text, next to the same from FormatFloat with
// a negative zero's sign taken off, as it was.
func FixedForTest(v float64, prec int) (own, reference string) {
	reference = "n/a"
	if !math.IsNaN(v) {
		reference = strconv.FormatFloat(v, 'f', prec, 64)
		if strings.Trim(reference, "-0.") == "" {
			reference = strings.TrimPrefix(reference, "-")
		}
	}
	return fixed(v, prec), reference
}

// metricTablesTemplate is the page's template for the metric tables as
// it was before metricTablesHTML wrote them.
const metricTablesTemplate = `<div class="scroll">
{{range $ti, $t := .Tables}}<table class="metrics" data-group="{{$t.Key}}"{{if $ti}} hidden{{end}}>
<thead>
<tr><th>metric</th>{{range $t.Columns}}<th{{if .Delta}} class="delta"{{end}}>{{.Label}}</th>{{end}}</tr>
</thead>
<tbody>
{{range $t.Rows}}<tr data-metric="{{.Metric}}"{{if .Sub}} class="sub"{{end}}>
<th title="{{.Hint}}">{{.Label}}<span class="metric-id">{{.Metric}}</span></th>
{{range .Cells}}<td class="{{if .Delta}}delta {{end}}{{.Class}}"{{if .Warn}} title="{{.Warn}}"{{end}}>{{if .Warn}}<span class="warn">⚠</span> {{end}}<span class="value">{{.Text}}</span>{{if .Sym}}<span class="sym">{{.Sym}}</span>{{end}}{{if or .CI .Note}}<span class="extra">{{if .CI}}<span class="ci">{{.CI}}</span>{{end}}{{if and .CI .Note}} {{end}}{{if .Note}}<span class="n">{{.Note}}</span>{{end}}</span>{{end}}</td>
{{end}}</tr>
{{end}}</tbody>
<tfoot><tr><th>cases</th>{{range $i, $s := $t.Sizes}}<td>{{$s}}</td>{{if $i}}<td class="delta"></td>{{end}}{{end}}</tr></tfoot>
</table>
{{end}}</div>`

// MetricTablesForTest renders made-up metric tables with
// metricTablesHTML and with the template it replaces, which must agree.
// Each table is (key, label, sizes, columns as [label, "delta" or ""],
// rows as [metric, label, hint, "sub" or ""] with cells as [delta,
// text, ci, note, sym, class, warn]).
func MetricTablesForTest(tables []MetricTableForTest) (own, reference string, err error) {
	var ts []metricTable
	for _, t := range tables {
		mt := metricTable{Key: t.Key, Label: t.Label, Sizes: t.Sizes}
		for _, c := range t.Columns {
			mt.Columns = append(mt.Columns, metricColumn{Label: c[0], Delta: c[1] != ""})
		}
		for _, r := range t.Rows {
			row := metricRow{Metric: r.Head[0], Label: r.Head[1], Hint: r.Head[2], Sub: r.Head[3] != ""}
			for _, c := range r.Cells {
				row.Cells = append(row.Cells, metricCell{Delta: c[0] != "", Text: c[1], CI: c[2], Note: c[3], Sym: c[4], Class: c[5], Warn: c[6]})
			}
			mt.Rows = append(mt.Rows, row)
		}
		ts = append(ts, mt)
	}
	tmpl := template.Must(template.New("tables").Parse(metricTablesTemplate))
	var b strings.Builder
	err = tmpl.Execute(&b, struct{ Tables []metricTable }{ts})
	own = `<div class="scroll">
` + string(metricTablesHTML(ts)) + `</div>`
	return own, b.String(), err
}

// MetricTableForTest is a made-up metric table (MetricTablesForTest).
type MetricTableForTest struct {
	Key, Label string
	Sizes      []string
	Columns    [][2]string
	Rows       []struct {
		Head  [4]string
		Cells [][7]string
	}
}
