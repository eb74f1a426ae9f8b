package reports

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"
	"strconv"
	"sync"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/internal/jsonstr"
	"github.com/routebench/routebench/internal/spool"
)

// caseViews keeps, for every result as it is collected, what the case
// table shows of it, so that the table is written without reading a
// result back: the result's part of its case's row already encoded as
// the case data's JSON, in a spool (memory up to viewsInMemory, then an
// unlinked temporary file), with nothing a result in memory: where each
// view lies goes with its case ID (caseIDs).
//
// The string table's indexes depend on the order the table walks the
// cases (sorted by ID, each case's results by column), which is not
// known while collecting. So each view interns its strings in a table of
// its own and its JSON has holes where their indexes go (caseDataWriter
// with holes); writing the case table interns each view's own table in
// the walk's order, which gives every string the index caseOf would, and
// fills the holes.
//
// A view has two parts: the case members a row takes from its first
// result (caseHeadOf) and the result's own column (resultPartOf), each
// with its table, plus what decides the rest (the column's input, the
// row's "differs"): its version, outcome, failure, action, skill and
// inputs.
type caseViews struct {
	// recs are the views, back to back.
	recs *spool.Spool
	// enc and buf are reused for every view.
	enc *viewEncoder
	buf []byte
	err error
	mu  sync.Mutex // guards reading (the spool's final flush)
}

// viewsInMemory is how many bytes of views stay in memory before the spool
// moves to a temporary file.
const viewsInMemory = 256 << 10

func newCaseViews() *caseViews {
	return &caseViews{recs: spool.New("case-views", viewsInMemory), enc: newViewEncoder()}
}

// add keeps the view of r and returns where it lies.
func (v *caseViews) add(r *harness.Result) spool.Span {
	b := v.buf[:0]
	b = appendViewString(b, r.Version)
	b = appendViewBool(b, r.Pass)
	b = appendViewString(b, r.Failure)
	b = appendViewString(b, string(r.Decision.Action))
	b = appendViewString(b, r.Decision.Skill)
	conv := r.IsConversation()
	convText := conversationTextOf(r)
	b = appendViewBool(b, conv)
	b = appendViewString(b, r.Input)
	b = appendViewString(b, convText)

	// The case part, as if this were the row's first result.
	e := v.enc
	shown := truncateRunes(r.Input, maxInputRunes)
	if conv {
		shown = convText
	}
	b = appendViewString(b, shown)
	e.t.reset()
	w := &e.w
	w.b = w.b[:0]
	e.caseHead(r, shown)
	head := len(w.b)
	e.caseTail(r)
	b = e.t.appendTo(b)
	b = appendViewBytes(b, w.b[:head])
	b = appendViewBytes(b, w.b[head:])

	// The result's column, but for its input: its members before the
	// input (the object opened), then those after it (each with its
	// comma, which goes when nothing comes before it).
	e.t.reset()
	w.b = w.b[:0]
	f := w.object()
	e.resultHead(&f, r)
	head = len(w.b)
	e.resultTail(r)
	b = e.t.appendTo(b)
	b = appendViewBool(b, f.first)
	b = appendViewBytes(b, w.b[:head])
	b = appendViewBytes(b, w.b[head:])
	if w.err != nil && v.err == nil {
		v.err = w.err
	}
	w.err = nil
	v.buf = b
	return v.recs.Append(b)
}

func appendViewBool(b []byte, x bool) []byte {
	if x {
		return append(b, 1)
	}
	return append(b, 0)
}

func appendViewString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendViewBytes(b, s []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// view is one result's view read back; its slices point into its buffer.
type view struct {
	version, failure, action, skill []byte
	pass, conv                      bool
	input, convText, shownInput     []byte
	caseStrs                        [][]byte
	caseHead, caseTail              []byte
	resultStrs                      [][]byte
	headEmpty                       bool
	resultHead, resultTail          []byte
	// caseIDs and resultIDs are the global indexes of caseStrs and
	// resultStrs, "" (0) first.
	caseIDs, resultIDs []strID
}

// viewReader writes case rows from the views.
type viewReader struct {
	r     *spool.SpanReader
	views []*view
	// columns is reused for every case.
	columns []*view
}

var errDamagedView = errors.New("keep case-views: a damaged record")

func (v *caseViews) reader() (*viewReader, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.err != nil {
		return nil, v.err
	}
	r, err := v.recs.SpanReader()
	if err != nil {
		return nil, err
	}
	return &viewReader{r: r}, nil
}

// versionInput is the version and the whole input of the result whose
// view lies at at.
func (rd *viewReader) versionInput(at spool.Span) (version, input string, err error) {
	buf, err := rd.r.Read(at, nil)
	if err != nil {
		return "", "", err
	}
	d := viewDecoder{b: buf}
	version = string(d.bytes())
	d.bool()
	d.bytes()
	d.bytes()
	d.bytes()
	d.bool()
	input = string(d.bytes())
	if d.bad {
		return "", "", errDamagedView
	}
	return version, input, nil
}

// writeCase writes the case table's row of case id, whose results'
// views are records (in stream order), to w: the bytes caseOf's row
// encodes to, with strs interning in caseOf's order.
func (rd *viewReader) writeCase(w *caseDataWriter, strs *interner, col map[string]int, id string, records [][]byte) error {
	for len(rd.views) < len(records) {
		rd.views = append(rd.views, &view{})
	}
	vs := rd.views[:len(records)]
	for k, rec := range records {
		if err := vs[k].decode(rec); err != nil {
			return err
		}
	}
	slices.SortStableFunc(vs, func(a, b *view) int { return col[string(a.version)] - col[string(b.version)] })
	first := vs[0]
	first.caseIDs = internView(strs, first.caseIDs[:0], first.caseStrs)
	for _, x := range vs {
		x.resultIDs = internView(strs, x.resultIDs[:0], x.resultStrs)
	}
	// Column by column, the last of a version's results, as caseOf keeps.
	columns := rd.columns[:0]
	for range col {
		columns = append(columns, nil)
	}
	rd.columns = columns
	for _, x := range vs {
		columns[col[string(x.version)]] = x
	}

	b := append(w.b, '{')
	b = append(b, `"id":`...)
	b = jsonstr.Append(b, id)
	var err error
	if b, err = fillHoles(b, first.caseHead, first.caseIDs); err != nil {
		return err
	}
	b = append(b, `,"r":[`...)
	for c, x := range columns {
		if c > 0 {
			b = append(b, ',')
		}
		if x == nil {
			b = append(b, "null"...)
			continue
		}
		if b, err = fillHoles(b, x.resultHead, x.resultIDs); err != nil {
			return err
		}
		empty := x.headEmpty
		if in := x.inputChange(first); in != "" {
			if !empty {
				b = append(b, ',')
			}
			b = append(b, `"in":`...)
			b = jsonstr.Append(b, in)
			empty = false
		}
		tail := x.resultTail
		if empty && len(tail) > 0 && tail[0] == ',' {
			tail = tail[1:]
		}
		if b, err = fillHoles(b, tail, x.resultIDs); err != nil {
			return err
		}
		b = append(b, '}')
	}
	b = append(b, ']')
	if b, err = fillHoles(b, first.caseTail, first.caseIDs); err != nil {
		return err
	}
	for _, x := range vs[1:] {
		if x.pass != first.pass || !bytes.Equal(x.failure, first.failure) ||
			!bytes.Equal(x.action, first.action) || !bytes.Equal(x.skill, first.skill) {
			b = append(b, `,"df":1`...)
			break
		}
	}
	w.b = append(b, '}')
	return nil
}

// inputChange is changedInput of the view's result, the case's first
// being first's: the bytes are compared, and only a changed input (a
// merged run whose case text changed) becomes a string.
func (x *view) inputChange(first *view) string {
	if x.conv {
		if bytes.Equal(x.convText, first.shownInput) {
			return ""
		}
		return string(x.convText)
	}
	if bytes.Equal(x.input, first.input) {
		return ""
	}
	return truncateRunes(string(x.input), maxInputRunes)
}

// internView interns a view's strings in their order: the indexes its
// holes stand for.
func internView(strs *interner, ids []strID, table [][]byte) []strID {
	ids = append(ids, 0)
	for _, s := range table {
		id, ok := strs.index[string(s)]
		if !ok {
			id = strs.id(string(s))
		}
		ids = append(ids, id)
	}
	return ids
}

// fillHoles appends seg to b with each hole replaced by the index it
// stands for.
func fillHoles(b, seg []byte, ids []strID) ([]byte, error) {
	for {
		k := bytes.IndexByte(seg, 0)
		if k < 0 {
			return append(b, seg...), nil
		}
		b = append(b, seg[:k]...)
		x, n := binary.Uvarint(seg[k+1:])
		if n <= 0 || x >= uint64(len(ids)) {
			return b, errDamagedView
		}
		b = strconv.AppendInt(b, int64(ids[x]), 10)
		seg = seg[k+1+n:]
	}
}

// decode reads a view written by caseViews.add.
func (x *view) decode(b []byte) error {
	d := viewDecoder{b: b}
	x.version = d.bytes()
	x.pass = d.bool()
	x.failure, x.action, x.skill = d.bytes(), d.bytes(), d.bytes()
	x.conv = d.bool()
	x.input, x.convText, x.shownInput = d.bytes(), d.bytes(), d.bytes()
	x.caseStrs = d.table(x.caseStrs[:0])
	x.caseHead, x.caseTail = d.bytes(), d.bytes()
	x.resultStrs = d.table(x.resultStrs[:0])
	x.headEmpty = d.bool()
	x.resultHead, x.resultTail = d.bytes(), d.bytes()
	if d.bad || len(d.b) != 0 {
		return errDamagedView
	}
	return nil
}

type viewDecoder struct {
	b   []byte
	bad bool
}

func (d *viewDecoder) uvarint() uint64 {
	x, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.bad, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return x
}

func (d *viewDecoder) bool() bool {
	if len(d.b) == 0 {
		d.bad = true
		return false
	}
	x := d.b[0] == 1
	d.b = d.b[1:]
	return x
}

func (d *viewDecoder) bytes() []byte {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.bad, d.b = true, nil
		return nil
	}
	s := d.b[:n:n]
	d.b = d.b[n:]
	return s
}

func (d *viewDecoder) table(into [][]byte) [][]byte {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.bad, d.b = true, nil
		return into
	}
	for range n {
		into = append(into, d.bytes())
	}
	return into
}
