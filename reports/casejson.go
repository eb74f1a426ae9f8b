package reports

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/routebench/routebench/internal/jsonstr"
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

func (f *fields) end() { f.w.b = append(f.w.b, '}') }

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
