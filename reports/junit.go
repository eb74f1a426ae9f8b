package reports

import (
	"bytes"
	"encoding/binary"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/internal/spool"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
	"github.com/routebench/routebench/workflow"
)

// WriteJUnit writes junit.xml: one testsuite per (version, suite), one
// testcase per (version, case) named by the case ID with classname
// "version.suite". A failed case's failure has its primary failure
// category as type, expected-versus-decided as message, and the stage
// trace as body. Suites follow the results' version order and the design's
// suite order; cases are sorted by ID, so equal results give equal bytes.
func WriteJUnit(w io.Writer, results []harness.Result) error {
	return WriteJUnitStream(w, harness.SliceStream(results))
}

// WriteJUnitStream is WriteJUnit reading a stream: one pass counts each
// (version, suite), sorts its cases (ID, time, failure) on disk and keeps
// each failed case's failure (type, message, report) in a spool, so
// memory holds the counts, not the results nor a few words a result, and
// no result is read back.
func WriteJUnitStream(w io.Writer, rs harness.ResultStream) error {
	idx := newJUnitIndex()
	if err := rs.Each(func(i int, r *harness.Result) error { idx.add(i, r); return nil }); err != nil {
		return fmt.Errorf("write junit: %w", err)
	}
	return writeJUnit(w, idx)
}

// WriteJUnitCollected is WriteJUnitStream with the pass made by the
// caller's Collector over the same stream; rs is not read again.
func WriteJUnitCollected(w io.Writer, rs harness.ResultStream, c *Collector) error {
	return writeJUnit(w, c.junit)
}

// junitIndex is junit.xml's view of the results: per (version, suite),
// its counts and its results sorted by case ID (cases, one part a
// group), each with its time and, failed, where its failure lies.
type junitIndex struct {
	cases    *spool.Sorter
	groups   map[junitKey]*junitGroup
	versions []string
	seen     map[string]bool
	tests    int
	failures int
	// failureText holds each failed result's failure element as written
	// to the file (appendFailureXML).
	failureText *spool.Spool
	// val, failureBuf, body and safeBody are reused for every result.
	val        []byte
	failureBuf []byte
	body       []byte
	safeBody   []byte
}

// failuresInMemory is how much of the failures' text stays in memory
// before the spool moves to a temporary file; junitCasesInMemory how
// many bytes of cases are sorted in memory.
const (
	failuresInMemory   = 256 << 10
	junitCasesInMemory = 512 << 10
)

type junitKey struct{ version, suite string }

type junitGroup struct {
	part      int // its part of cases
	tests     int
	failures  int
	latencyUS int64
}

func newJUnitIndex() *junitIndex {
	return &junitIndex{cases: spool.NewSorter("junit-cases", junitCasesInMemory), groups: map[junitKey]*junitGroup{}, seen: map[string]bool{},
		failureText: spool.New("junit-failures", failuresInMemory)}
}

// add counts the result at position i.
func (x *junitIndex) add(i int, r *harness.Result) {
	if !x.seen[r.Version] {
		x.seen[r.Version] = true
		x.versions = append(x.versions, r.Version)
	}
	key := junitKey{r.Version, r.Suite}
	g := x.groups[key]
	if g == nil {
		g = &junitGroup{part: len(x.groups)}
		x.groups[key] = g
	}
	g.tests++
	g.latencyUS += r.LatencyUS
	x.tests++
	v := binary.AppendVarint(x.val[:0], r.LatencyUS)
	if r.Pass {
		v = append(v, 0)
	} else {
		g.failures++
		x.failures++
		// The failure is written now, while the result is at hand: the
		// writer then reads no result back (a spool write that fails
		// fails every later use of the spool, which writeJUnit reports).
		x.body = appendCaseReport(x.body[:0], r)
		x.safeBody = appendXMLSafe(x.safeBody[:0], x.body)
		x.failureBuf = appendFailureXML(x.failureBuf[:0], failureType(r), expectedVersusDecided(r), x.safeBody)
		at := x.failureText.Append(x.failureBuf)
		v = binary.AppendUvarint(v, uint64(at.Size))
		v = binary.AppendUvarint(v, uint64(at.Off))
	}
	x.val = v
	x.cases.Add(g.part, []byte(r.Case), v)
}

// junitBatch is how many results of a testsuite writeJUnitSuite reads
// the failures of at a time.
const junitBatch = 256

// junitEntry is one result of a testsuite: its case ID (at idEnd in its
// batch's ids), time and failure (none when passed).
type junitEntry struct {
	idEnd     int
	latencyUS int64
	failure   spool.Span
	pass      bool
}

var errDamagedJUnitCase = errors.New("keep junit-cases: a damaged record")

func decodeJUnitEntry(value []byte) (junitEntry, error) {
	var e junitEntry
	var n int
	if e.latencyUS, n = binary.Varint(value); n <= 0 {
		return e, errDamagedJUnitCase
	}
	value = value[n:]
	size, n := binary.Uvarint(value)
	if n <= 0 {
		return e, errDamagedJUnitCase
	}
	if e.pass = size == 0; e.pass {
		return e, nil
	}
	off, m := binary.Uvarint(value[n:])
	if m <= 0 {
		return e, errDamagedJUnitCase
	}
	e.failure = spool.Span{Off: int64(off), Size: int(size)}
	return e, nil
}

// writeJUnit writes the document by hand, byte for byte what
// encoding/xml writes for it indented by two spaces (as this writer
// once did, at several times the cost): attribute values escaped as
// xml.EscapeString does, the failures as add wrote them.
func writeJUnit(w io.Writer, x *junitIndex) error {
	failures, err := x.failureText.SpanReader()
	if err != nil {
		return fmt.Errorf("write junit: %w", err)
	}
	jw := &junitWriter{w: w, b: make([]byte, 0, junitChunk+junitChunk/4)}
	jw.b = append(jw.b, xml.Header...)
	jw.b = append(jw.b, `<testsuites name="routebench" tests="`...)
	jw.b = strconv.AppendInt(jw.b, int64(x.tests), 10)
	jw.b = append(jw.b, `" failures="`...)
	jw.b = strconv.AppendInt(jw.b, int64(x.failures), 10)
	jw.b = append(jw.b, `">`...)
	empty := true
	for _, v := range x.versions {
		var suites []string
		for k := range x.groups {
			if k.version == v {
				suites = append(suites, k.suite)
			}
		}
		for _, s := range sortSuites(suites) {
			empty = false
			if err := writeJUnitSuite(jw, failures, x, v, s, x.groups[junitKey{v, s}]); err != nil {
				return fmt.Errorf("write junit: %w", err)
			}
		}
	}
	if !empty {
		jw.b = append(jw.b, '\n')
	}
	jw.b = append(jw.b, "</testsuites>\n"...)
	if err := jw.flush(0); err != nil {
		return fmt.Errorf("write junit: %w", err)
	}
	return nil
}

// junitChunk is how much junit.xml is gathered before it is written.
const junitChunk = 32 << 10

// junitWriter gathers junit.xml's bytes in b and writes them to w in
// chunks.
type junitWriter struct {
	w io.Writer
	b []byte
}

// flush writes what is gathered once it is more than limit bytes.
func (jw *junitWriter) flush(limit int) error {
	if len(jw.b) <= limit {
		return nil
	}
	_, err := jw.w.Write(jw.b)
	jw.b = jw.b[:0]
	return err
}

// attr appends ` name="value"` with value escaped.
func (jw *junitWriter) attr(name, value string) {
	jw.b = append(jw.b, ' ')
	jw.b = append(jw.b, name...)
	jw.b = append(jw.b, '=', '"')
	jw.b = appendXMLAttr(jw.b, value)
	jw.b = append(jw.b, '"')
}

// writeJUnitSuite writes one testsuite, cases sorted by ID, from the index
// and the failures it keeps.
func writeJUnitSuite(jw *junitWriter, failures *spool.SpanReader, x *junitIndex, version, suite string, g *junitGroup) error {
	jw.b = append(jw.b, "\n  <testsuite"...)
	jw.attr("name", version+"/"+suite)
	jw.attr("tests", itoa(g.tests))
	jw.attr("failures", itoa(g.failures))
	jw.b = append(jw.b, ` errors="0" skipped="0"`...)
	jw.attr("time", seconds(g.latencyUS))
	jw.b = append(jw.b, ">\n    <properties>\n      <property"...)
	jw.attr("name", "version")
	jw.attr("value", version)
	jw.b = append(jw.b, "></property>\n      <property"...)
	jw.attr("name", "suite")
	jw.attr("value", suite)
	jw.b = append(jw.b, "></property>\n    </properties>"...)
	classname := appendXMLAttr(nil, version+"."+suite)
	// A batch at a time: the batch's failures are read together
	// (spool.ReadBatch), so failures that came close together in the
	// stream cost one read.
	var batch []junitEntry
	var ids []byte
	var spans []spool.Span
	var buf []byte
	var recs [][]byte
	write := func() error {
		spans = spans[:0]
		for _, e := range batch {
			if !e.pass {
				spans = append(spans, e.failure)
			}
		}
		var err error
		if buf, recs, err = failures.ReadBatch(spans, buf, recs); err != nil {
			return err
		}
		from, f := 0, 0
		for _, e := range batch {
			jw.b = append(jw.b, "\n    <testcase name=\""...)
			jw.b = appendXMLAttr(jw.b, string(ids[from:e.idEnd]))
			from = e.idEnd
			jw.b = append(jw.b, `" classname="`...)
			jw.b = append(jw.b, classname...)
			jw.b = append(jw.b, '"')
			jw.attr("time", seconds(e.latencyUS))
			jw.b = append(jw.b, '>')
			if !e.pass {
				jw.b = append(jw.b, "\n      "...)
				jw.b = append(jw.b, recs[f]...)
				f++
				jw.b = append(jw.b, "\n    "...)
			}
			jw.b = append(jw.b, "</testcase>"...)
			if err := jw.flush(junitChunk); err != nil {
				return err
			}
		}
		batch, ids = batch[:0], ids[:0]
		return nil
	}
	err := x.cases.Each(g.part, func(key, value []byte) error {
		e, err := decodeJUnitEntry(value)
		if err != nil {
			return err
		}
		ids = append(ids, key...)
		e.idEnd = len(ids)
		batch = append(batch, e)
		if len(batch) == junitBatch {
			return write()
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := write(); err != nil {
		return err
	}
	jw.b = append(jw.b, "\n  </testsuite>"...)
	return nil
}

// appendFailureXML appends a failure element: type and message as
// attributes, the body (already xmlSafe) as CDATA (none when empty), a
// "]]>" in it split across two sections, as encoding/xml writes them.
func appendFailureXML(b []byte, typ, message string, body []byte) []byte {
	b = append(b, `<failure type="`...)
	b = appendXMLAttr(b, typ)
	b = append(b, `" message="`...)
	b = appendXMLAttr(b, message)
	b = append(b, `">`...)
	if len(body) > 0 {
		b = append(b, "<![CDATA["...)
		for {
			before, after, ok := bytes.Cut(body, []byte("]]>"))
			if !ok {
				break
			}
			b = append(b, before...)
			b = append(b, "]]]]><![CDATA[>"...)
			body = after
		}
		b = append(b, body...)
		b = append(b, "]]>"...)
	}
	return append(b, "</failure>"...)
}

// appendXMLAttr appends s escaped as xml.EscapeString escapes it: the
// five markup characters and tab, newline and carriage return as
// references, and what XML cannot hold (control characters, bad UTF-8)
// as U+FFFD.
func appendXMLAttr(b []byte, s string) []byte {
	last := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < utf8.RuneSelf && c != '"' && c != '\'' && c != '&' && c != '<' && c != '>' {
			i++
			continue
		}
		r, width := rune(c), 1
		if c >= utf8.RuneSelf {
			r, width = utf8.DecodeRuneInString(s[i:])
		}
		i += width
		var esc string
		switch r {
		case '"':
			esc = "&#34;"
		case '\'':
			esc = "&#39;"
		case '&':
			esc = "&amp;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '\t':
			esc = "&#x9;"
		case '\n':
			esc = "&#xA;"
		case '\r':
			esc = "&#xD;"
		default:
			if !xmlChar(r) || (r == utf8.RuneError && width == 1) {
				esc = "\uFFFD"
				break
			}
			continue
		}
		b = append(b, s[last:i-width]...)
		b = append(b, esc...)
		last = i
	}
	return append(b, s[last:]...)
}

// xmlChar says whether XML can hold r.
func xmlChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D ||
		r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD ||
		r >= 0x10000 && r <= 0x10FFFF
}

// failureType is a failed case's failure type: its primary failure
// category. With expected-versus-decided as message and the case report
// (appendXMLSafe) as body, it makes the case's failure element.
func failureType(r *harness.Result) string {
	if r.Failure == "" {
		return "uncategorised"
	}
	return r.Failure
}

// seconds prints microseconds as JUnit's decimal seconds.
func seconds(us int64) string { return fixed(float64(us)/1e6, 6) }

// sortSuites puts suites in the design's order, then others by name.
func sortSuites(suites []string) []string {
	rank := map[string]int{harness.SuiteNormal: 0, harness.SuiteBoundary: 1, harness.SuiteAdversarial: 2}
	r := func(s string) int {
		if v, ok := rank[s]; ok {
			return v
		}
		return 3
	}
	sort.Slice(suites, func(i, j int) bool {
		if r(suites[i]) != r(suites[j]) {
			return r(suites[i]) < r(suites[j])
		}
		return suites[i] < suites[j]
	})
	return suites
}

// expectedVersusDecided is the one-line failure message:
// "expected execute query_alerts_by_zone, decided execute query_orders_by_region (confidence 0.910)".
//
// A workflow case adds what differed in its run: "...; outcome: expected
// failed, got completed; calls: expected [a, b], got [a]".
//
// A conversation names its first failing turn: "turn 2 of 3: expected
// execute query_orders_by_region, decided clarify (confidence 0.700)".
func expectedVersusDecided(r *harness.Result) string {
	if r.IsConversation() {
		if r.FailedTurn < 1 || r.FailedTurn > len(r.Turns) {
			return "conversation failed"
		}
		t := r.Turns[r.FailedTurn-1]
		return "turn " + itoa(r.FailedTurn) + " of " + itoa(len(r.Turns)) + ": " +
			expectedVersusDecided(&harness.Result{Expect: t.Expect, Decision: t.Decision})
	}
	s := "expected " + actionSkill(r.Expect.Action, r.Expect.Skill) + ", decided " +
		actionSkill(r.Decision.Action, r.Decision.Skill) + " (confidence " + fixed(r.Decision.Confidence, 3) + ")"
	if r.Workflow != nil {
		if r.Expect.Action == "" && r.Expect.Skill == "" {
			s = "decided " + actionSkill(r.Decision.Action, r.Decision.Skill)
		}
		for _, m := range harness.WorkflowMismatches(r.Expect, r.Workflow, r.Resume) {
			s += "; " + m.String()
		}
	}
	return s
}

func actionSkill(a router.Action, skill string) string {
	if skill == "" {
		return string(a)
	}
	return string(a) + " " + skill
}

// appendCaseReport appends a failed case as a person debugging it wants
// it: the input, what was expected, what was decided, and the stage
// trace. It is written straight into b: junit.xml holds one for every
// failed result.
func appendCaseReport(b []byte, r *harness.Result) []byte {
	if r.IsConversation() {
		return appendConversationReport(b, r)
	}
	b = appendReportLine(b, "input", truncateRunes(r.Input, maxInputRunes))
	b = appendReportLine(b, "failure", r.Failure)
	b = appendExpectLine(b, &r.Expect)
	d := &r.Decision
	b = append(b, "decided: "...)
	b = appendActionSkill(b, d.Action, d.Skill)
	b = appendGateSuffix(b, d.Gate)
	b = append(append(b, " by stage "...), d.Stage...)
	b = appendFixed(append(b, ", confidence "...), d.Confidence, 3)
	b = append(b, '\n')
	if len(d.Params) > 0 {
		b = append(b, "params: "...)
		start := len(b)
		var ok bool
		if b, ok = appendFlatParamsJSON(b, d.Params); !ok {
			b = append(b[:start], compactJSON(d.Params)...)
		}
		b = append(b, '\n')
	}
	if len(d.Candidates) > 0 {
		b = append(b, "candidates: "...)
		for i, c := range d.Candidates {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = appendFixed(append(append(b, c.Skill...), ' '), c.Score, 3)
		}
		b = append(b, '\n')
	}
	for _, e := range d.Errors {
		b = appendReportLine(b, "error", errorLine(e))
	}
	b = appendReportLine(b, "message", truncateRunes(d.Message, maxMessageRunes))
	if len(d.Trace) > 0 {
		b = append(b, "trace:\n"...)
		for i := range d.Trace {
			s := &d.Trace[i]
			b = append(appendTraceLine(append(b, "  "...), *s), '\n')
			if s.Raw != "" {
				b = append(b, "    raw: "...)
				b = append(b, truncateRunes(s.Raw, maxRawRunes)...)
				b = append(b, '\n')
			}
		}
	}
	if r.Workflow != nil {
		var w bytes.Buffer
		writeWorkflowRun(&w, "workflow", r.Workflow)
		if r.Resume != nil {
			writeWorkflowRun(&w, "resume", r.Resume)
		}
		b = append(b, w.Bytes()...)
		for _, m := range harness.WorkflowMismatches(r.Expect, r.Workflow, r.Resume) {
			b = appendReportLine(b, "differs", m.String())
		}
	}
	b = appendReportLine(b, "version", d.Version)
	return appendReportLine(b, "model", d.Model)
}

// appendReportLine appends "key: value" and a newline, nothing when value
// is empty.
func appendReportLine(b []byte, key, value string) []byte {
	if value == "" {
		return b
	}
	b = append(append(b, key...), ": "...)
	return append(append(b, value...), '\n')
}

// appendConversationReport appends every turn of a conversation, each
// as appendCaseReport shows a single case, under a line naming the turn
// and its verdict.
func appendConversationReport(b []byte, r *harness.Result) []byte {
	for i := range r.Turns {
		turn := harness.TurnDecision(r, i)
		b = strconv.AppendInt(append(b, "--- turn "...), int64(i+1), 10)
		b = strconv.AppendInt(append(b, " of "...), int64(len(r.Turns)), 10)
		if turn.Pass {
			b = append(b, " (pass)\n"...)
		} else {
			b = append(append(b, " (failed: "...), orDash(turn.Failure)...)
			b = append(b, ")\n"...)
		}
		if turn.Input == "" {
			b = append(b, "input: (the user said nothing)\n"...)
		}
		b = appendCaseReport(b, &turn)
	}
	return b
}

// writeWorkflowRun is a run's outcome and its nodes, one line each.
func writeWorkflowRun(b *bytes.Buffer, title string, o *workflow.Outcome) {
	head := title + ": " + orDash(o.Workflow) + " " + string(o.Outcome)
	if o.StoppedAt != "" {
		head += " at " + o.StoppedAt
	}
	if o.Reason != "" {
		head += " (" + o.Reason + ")"
	}
	if o.ErrorCode != "" || o.ErrorMessage != "" {
		head += ": " + o.ErrorCode + " " + truncateRunes(o.ErrorMessage, maxMessageRunes)
	}
	b.WriteString(head + "\n")
	b.WriteString("  calls: [" + strings.Join(o.CallSkills(), ", ") + "]\n")
	for _, n := range o.Nodes {
		b.WriteString("  node " + n.ID + " " + string(n.Status))
		if retries := o.Retries[n.ID]; retries > 0 {
			b.WriteString(" retries " + itoa(retries))
		}
		if n.Why != "" {
			b.WriteString(": " + truncateRunes(n.Why, maxMessageRunes))
		}
		b.WriteByte('\n')
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// appendGateSuffix appends " (gate g)", nothing for no gate.
func appendGateSuffix(b []byte, g registry.Gate) []byte {
	if g == "" {
		return b
	}
	return append(append(append(b, " (gate "...), g...), ')')
}

// appendActionSkill appends actionSkill(a, skill).
func appendActionSkill(b []byte, a router.Action, skill string) []byte {
	b = append(b, a...)
	if skill != "" {
		b = append(append(b, ' '), skill...)
	}
	return b
}

// appendExpectLine appends the "expected: ..." line of a case report:
// the expected action, skill and gate, a workflow's outcome and calls,
// params, candidates and skills never to run, trimmed of white space at
// either end; nothing when that leaves nothing.
func appendExpectLine(b []byte, e *harness.Expect) []byte {
	start := len(b)
	b = append(b, "expected: "...)
	from := len(b)
	b = appendActionSkill(b, e.Action, e.Skill)
	b = appendGateSuffix(b, e.Gate)
	if e.Outcome != "" {
		b = append(append(b, " outcome "...), e.Outcome...)
		if e.StoppedAt != "" {
			b = append(append(b, " at "...), e.StoppedAt...)
		}
	}
	if e.Calls != nil {
		b = append(appendJoined(append(b, " calls ["...), *e.Calls), ']')
	}
	if len(e.Params) > 0 {
		b = append(b, " params "...)
		at := len(b)
		var ok bool
		// compactJSON of the matchers does not escape <, > and &: where
		// the escaped bytes would have one, it writes them.
		if b, ok = appendMatchersJSON(b, e.Params); !ok || hasHTMLEscape(b[at:]) {
			b = append(b[:at], compactJSON(matchersView(e.Params))...)
		}
	}
	if len(e.Candidates) > 0 {
		b = appendJoined(append(b, " offering "...), e.Candidates)
	}
	if len(e.Never) > 0 {
		b = appendJoined(append(b, " never "...), e.Never)
	}
	line := bytes.TrimSpace(b[from:])
	if len(line) == 0 {
		return b[:start]
	}
	n := copy(b[from:], line)
	return append(b[:from+n], '\n')
}

// hasHTMLEscape says whether JSON text may hold an escaped <, > or &.
func hasHTMLEscape(js []byte) bool {
	return bytes.Contains(js, []byte(`\u003c`)) || bytes.Contains(js, []byte(`\u003e`)) || bytes.Contains(js, []byte(`\u0026`))
}

// appendXMLSafe appends s with every byte of bad UTF-8 and every
// character XML 1.0 cannot carry at all (most control characters) as
// U+FFFD: CDATA, unlike escaped text, would pass them through.
func appendXMLSafe(b, s []byte) []byte {
	last := 0
	for i := 0; i < len(s); {
		if c := s[i]; c >= 0x20 && c < utf8.RuneSelf || c == '\t' || c == '\n' || c == '\r' {
			i++
			continue
		}
		r, width := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && width == 1 || !xmlChar(r) {
			b = append(b, s[last:i]...)
			b = append(b, "\uFFFD"...)
			last = i + width
		}
		i += width
	}
	return append(b, s[last:]...)
}
