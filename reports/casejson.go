package reports

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"github.com/routebench/routebench/internal/jsonstr"
	"io"
	"math"
	"strconv"
)

// The case data of a large run is 13 MB of JSON (10,000 cases × 3
// versions). encoding/json would encode it by reflection into one buffer
// that doubles its way there; the writer below knows the few shapes
// involved and fills 64 KB chunks instead. Its bytes are exactly what
// json.Marshal produces for the same caseData (a spec holds it to that):
// field order, omitempty, HTML-safe string escapes (<, >, & and U+2028/9
// as \u escapes, which is what lets the data sit in a <script> element)
// and float formatting. Values of unknown shape (expected params from
// case files) go through json.Marshal.

// chunkSize is the size at which the writer starts a new chunk.
const chunkSize = 64 << 10

// caseDataWriter accumulates JSON in chunks.
type caseDataWriter struct {
	chunks [][]byte
	b      []byte
	err    error
	// out, when set, receives each full chunk instead of chunks.
	out io.Writer
	// holes says string indexes are written as holes (see id).
	holes bool
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

// strings writes the string table: null when nil.
func (w *caseDataWriter) strings(ss []string) {
	if ss == nil {
		w.b = append(w.b, "null"...)
		return
	}
	w.b = append(w.b, '[')
	for i, s := range ss {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = jsonstr.Append(w.b, s)
		w.flush()
	}
	w.b = append(w.b, ']')
}

// flush starts a new chunk once the current one is full.
func (w *caseDataWriter) flush() {
	if len(w.b) < chunkSize {
		return
	}
	if w.out != nil {
		if _, err := w.out.Write(w.b); err != nil && w.err == nil {
			w.err = err
		}
		w.b = w.b[:0]
		return
	}
	w.chunks = append(w.chunks, w.b)
	w.b = make([]byte, 0, chunkSize+chunkSize/4)
}

// ids writes a []strID without omitempty: null when nil.
func (w *caseDataWriter) ids(xs []strID) {
	if xs == nil {
		w.b = append(w.b, "null"...)
		return
	}
	w.b = append(w.b, '[')
	for i, x := range xs {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.id(x)
	}
	w.b = append(w.b, ']')
}

// id writes a string's index: the number, or with holes set a hole (a
// zero byte, which JSON text never holds, and the index as a uvarint)
// for caseViews to fill in.
func (w *caseDataWriter) id(x strID) {
	if w.holes {
		w.b = append(w.b, 0)
		w.b = binary.AppendUvarint(w.b, uint64(x))
		return
	}
	w.b = strconv.AppendInt(w.b, int64(x), 10)
}

// fields writes an object's members; sep is ',' after the first.
type fields struct {
	w     *caseDataWriter
	first bool
}

func (w *caseDataWriter) object() fields {
	w.b = append(w.b, '{')
	return fields{w: w, first: true}
}

func (f *fields) key(name string) []byte {
	if !f.first {
		f.w.b = append(f.w.b, ',')
	}
	f.first = false
	f.w.b = append(f.w.b, '"')
	f.w.b = append(f.w.b, name...)
	f.w.b = append(f.w.b, '"', ':')
	return f.w.b
}

func (f *fields) int(name string, x int64) {
	if x != 0 {
		f.w.b = strconv.AppendInt(f.key(name), x, 10)
	}
}

func (f *fields) str(name, s string) {
	if s != "" {
		f.w.b = jsonstr.Append(f.key(name), s)
	}
}

// id writes a string index field, left out when 0 (the empty string).
func (f *fields) id(name string, x strID) {
	if x != 0 {
		f.key(name)
		f.w.id(x)
	}
}

func (f *fields) idList(name string, xs []strID) {
	if len(xs) > 0 {
		f.key(name)
		f.w.ids(xs)
	}
}

func (f *fields) end() { f.w.b = append(f.w.b, '}') }

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

// value writes the dynamic parts of the case data: trace steps, candidate
// pairs, error lists and, through json.Marshal, anything else.
func (w *caseDataWriter) value(v any) {
	switch v := v.(type) {
	case nil:
		w.b = append(w.b, "null"...)
	case int:
		w.b = strconv.AppendInt(w.b, int64(v), 10)
	case strID:
		w.id(v)
	case float64:
		w.float(v)
	case string:
		w.b = jsonstr.Append(w.b, v)
	case []string:
		if v == nil {
			w.b = append(w.b, "null"...)
			return
		}
		w.b = append(w.b, '[')
		for i, s := range v {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.b = jsonstr.Append(w.b, s)
		}
		w.b = append(w.b, ']')
	case []any:
		if v == nil {
			w.b = append(w.b, "null"...)
			return
		}
		w.b = append(w.b, '[')
		for i, x := range v {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.value(x)
		}
		w.b = append(w.b, ']')
	default:
		// An expectation's params are maps of plain values: written
		// here, byte for byte json.Marshal's; anything else by it.
		if m, ok := v.(map[string]any); ok && m != nil {
			if b, ok := jsonstr.AppendValue(w.b, m); ok {
				w.b = b
				return
			}
		}
		js, err := json.Marshal(v)
		if err != nil && w.err == nil {
			w.err = err
		}
		w.b = append(w.b, js...)
	}
}

// float writes a float64 as encoding/json does: shortest representation,
// exponent form only below 1e-6 or from 1e21 on, with a one-digit
// negative exponent not zero-padded. JSON has no NaN or infinity.
func (w *caseDataWriter) float(x float64) {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		if w.err == nil {
			w.err = fmt.Errorf("json: unsupported value: %s", strconv.FormatFloat(x, 'g', -1, 64))
		}
		return
	}
	w.b, _ = jsonstr.AppendFloat(w.b, x)
}
