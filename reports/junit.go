package reports

import (
	"encoding/binary"
	"encoding/xml"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"sort"
	"strings"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/internal/compactint"
	"github.com/routebench/routebench/internal/spool"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/workflow"
)

// JUnit XML shapes, as CI systems (GitHub, GitLab, Jenkins) read them.
type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
}

type junitFailure struct {
	Type    string `xml:"type,attr"`
	Message string `xml:"message,attr"`
	// Body is CDATA so the trace keeps its line breaks in the file.
	Body string `xml:",cdata"`
}

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
// (version, suite), notes its cases (ID, time, position) and keeps each
// failed case's failure (type, message, report) in a spool, so memory
// holds a few words per result, not the results, and no result is read
// back.
func WriteJUnitStream(w io.Writer, rs harness.ResultStream) error {
	idx := newJUnitIndex(nil)
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
// its results in stream order; per result, its time and outcome; per
// failed result, its failure as written. A result's case ID and position
// are in ids (12 bytes a result here).
type junitIndex struct {
	ids *caseIDs
	// own says add numbers the ids itself; a Collector's digest does it
	// for both.
	own      bool
	groups   map[junitKey]*junitGroup
	versions []string
	seen     map[string]bool
	tests    int
	failures int
	// latencyUS and failed are per result, in add order.
	latencyUS compactint.List
	failed    []uint64
	// failureText holds each failed result's junitFailure, encoded by
	// appendFailure, numbered in add order (4 bytes a failure).
	failureText *spool.Records
	failureBuf  []byte
}

// failuresInMemory is how much of the failures' text stays in memory
// before the spool moves to a temporary file.
const failuresInMemory = 256 << 10

type junitKey struct{ version, suite string }

type junitGroup struct {
	members   []uint32 // results, in add order
	failures  int
	latencyUS int64
}

// newJUnitIndex starts an index over ids, or over ids of its own when nil.
func newJUnitIndex(ids *caseIDs) *junitIndex {
	x := &junitIndex{ids: ids, groups: map[junitKey]*junitGroup{}, seen: map[string]bool{},
		failureText: spool.NewRecords("junit-failures", failuresInMemory)}
	if ids == nil {
		x.ids, x.own = newCaseIDs(), true
	}
	return x
}

// add counts the result at position i; unless the index numbers ids
// itself, ids has just been given it.
func (x *junitIndex) add(i int, r *harness.Result) {
	if x.own {
		x.ids.add(i, r.Case)
	}
	k := uint32(x.latencyUS.Len())
	if !x.seen[r.Version] {
		x.seen[r.Version] = true
		x.versions = append(x.versions, r.Version)
	}
	key := junitKey{r.Version, r.Suite}
	g := x.groups[key]
	if g == nil {
		g = &junitGroup{}
		x.groups[key] = g
	}
	g.members = append(g.members, k)
	x.latencyUS.Append(r.LatencyUS)
	if k%64 == 0 {
		x.failed = append(x.failed, 0)
	}
	g.latencyUS += r.LatencyUS
	x.tests++
	if !r.Pass {
		x.failed[k/64] |= 1 << (k % 64)
		g.failures++
		x.failures++
		// The failure is written now, while the result is at hand: the
		// writer then reads no result back (a spool write that fails
		// fails every later use of the spool, which writeJUnit reports).
		x.failureBuf = appendFailure(x.failureBuf[:0], junitFailureOf(r))
		x.failureText.Put(x.failures-1, x.failureBuf)
	}
}

// appendFailure encodes f as three length-prefixed strings.
func appendFailure(b []byte, f *junitFailure) []byte {
	for _, s := range []string{f.Type, f.Message, f.Body} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return b
}

// decodeFailure is appendFailure's inverse.
func decodeFailure(b []byte) (*junitFailure, error) {
	var parts [3]string
	for i := range parts {
		n, w := binary.Uvarint(b)
		if w <= 0 || n > uint64(len(b)-w) {
			return nil, fmt.Errorf("keep junit-failures: a damaged record")
		}
		parts[i] = string(b[w : w+int(n)])
		b = b[w+int(n):]
	}
	return &junitFailure{Type: parts[0], Message: parts[1], Body: parts[2]}, nil
}

// failureReader reads failed results' failures back by their positions
// in add order (k), whatever the order they are asked for in.
type failureReader struct {
	x *junitIndex
	r *spool.RecordReader
	// before[w] is the number of failed results before word w of failed.
	before []int
	buf    []byte
}

func (x *junitIndex) failureReader() (*failureReader, error) {
	r, err := x.failureText.Reader()
	if err != nil {
		return nil, err
	}
	fr := &failureReader{x: x, r: r, before: make([]int, len(x.failed))}
	n := 0
	for w, word := range x.failed {
		fr.before[w] = n
		n += bits.OnesCount64(word)
	}
	return fr, nil
}

// failure is the failure of result k, which failed.
func (fr *failureReader) failure(k uint32) (*junitFailure, error) {
	x := fr.x
	j := fr.before[k/64] + bits.OnesCount64(x.failed[k/64]&(1<<(k%64)-1))
	buf, err := fr.r.Read(j, fr.buf)
	if err != nil {
		return nil, err
	}
	fr.buf = buf
	return decodeFailure(buf)
}

// junitEntry is one result of a testsuite.
type junitEntry struct {
	id        string
	pos       int
	latencyUS int64
	pass      bool
}

func (x *junitIndex) entry(k uint32) junitEntry {
	return junitEntry{id: x.ids.id(x.ids.at[k]), pos: x.ids.position(k), latencyUS: x.latencyUS.At(int(k)), pass: x.passed(k)}
}

func (x *junitIndex) passed(k uint32) bool { return x.failed[k/64]&(1<<(k%64)) == 0 }

func writeJUnit(w io.Writer, x *junitIndex) error {
	failures, err := x.failureReader()
	if err != nil {
		return fmt.Errorf("write junit: %w", err)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return fmt.Errorf("write junit: %w", err)
	}
	// The encoder flushes its buffer after every element. Given a
	// *bufio.Writer it would use that as its buffer, and every test case
	// would be a write to the file; behind a plain writer it keeps a
	// buffer of its own, which w's buffer gathers into large writes.
	enc := xml.NewEncoder(plainWriter{w})
	enc.Indent("", "  ")
	attr := func(name, value string) xml.Attr { return xml.Attr{Name: xml.Name{Local: name}, Value: value} }
	start := func(name string, attrs ...xml.Attr) xml.StartElement {
		return xml.StartElement{Name: xml.Name{Local: name}, Attr: attrs}
	}
	// The same bytes as encoding the whole document as one value, which is
	// what this writer did when it held every result.
	root := start("testsuites", attr("name", "routebench"), attr("tests", itoa(x.tests)), attr("failures", itoa(x.failures)))
	if err := enc.EncodeToken(root); err != nil {
		return fmt.Errorf("write junit: %w", err)
	}
	for _, v := range x.versions {
		var suites []string
		for k := range x.groups {
			if k.version == v {
				suites = append(suites, k.suite)
			}
		}
		for _, s := range sortSuites(suites) {
			if err := writeJUnitSuite(enc, failures, x, v, s, x.groups[junitKey{v, s}]); err != nil {
				return fmt.Errorf("write junit: %w", err)
			}
		}
	}
	if err := enc.EncodeToken(root.End()); err != nil {
		return fmt.Errorf("write junit: %w", err)
	}
	if err := enc.Flush(); err != nil {
		return fmt.Errorf("write junit: %w", err)
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return fmt.Errorf("write junit: %w", err)
	}
	return nil
}

// writeJUnitSuite writes one testsuite, cases sorted by ID, from the index
// and the failures it keeps.
func writeJUnitSuite(enc *xml.Encoder, failures *failureReader, x *junitIndex, version, suite string, g *junitGroup) error {
	// In a copy: the index is read only, so it can be written again.
	members := slices.Clone(g.members)
	slices.SortStableFunc(members, func(a, b uint32) int { return x.ids.compare(x.ids.at[a], x.ids.at[b]) })
	attr := func(name, value string) xml.Attr { return xml.Attr{Name: xml.Name{Local: name}, Value: value} }
	el := xml.StartElement{Name: xml.Name{Local: "testsuite"}, Attr: []xml.Attr{attr("name", version+"/"+suite),
		attr("tests", itoa(len(members))), attr("failures", itoa(g.failures)), attr("errors", "0"),
		attr("skipped", "0"), attr("time", seconds(g.latencyUS))}}
	if err := enc.EncodeToken(el); err != nil {
		return err
	}
	props := struct {
		XMLName xml.Name        `xml:"properties"`
		P       []junitProperty `xml:"property"`
	}{P: []junitProperty{{"version", version}, {"suite", suite}}}
	if err := enc.Encode(props); err != nil {
		return err
	}
	testcase := xml.StartElement{Name: xml.Name{Local: "testcase"}}
	classname := version + "." + suite
	for _, k := range members {
		e := x.entry(k)
		jc := junitCase{Name: e.id, Classname: classname, Time: seconds(e.latencyUS)}
		if !e.pass {
			f, err := failures.failure(k)
			if err != nil {
				return err
			}
			jc.Failure = f
		}
		if err := enc.EncodeElement(jc, testcase); err != nil {
			return err
		}
	}
	return enc.EncodeToken(el.End())
}

// plainWriter hides every method of its writer but Write.
type plainWriter struct{ w io.Writer }

func (p plainWriter) Write(b []byte) (int, error) { return p.w.Write(b) }

// junitFailureOf is a failed case's failure: its primary failure category
// as type, expected-versus-decided as message, and the stage trace as body.
func junitFailureOf(r *harness.Result) *junitFailure {
	category := r.Failure
	if category == "" {
		category = "uncategorised"
	}
	return &junitFailure{Type: category, Message: expectedVersusDecided(r), Body: xmlSafe(caseReport(r))}
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

// caseReport is a failed case as a person debugging it wants it: the
// input, what was expected, what was decided, and the stage trace.
func caseReport(r *harness.Result) string {
	if r.IsConversation() {
		return conversationReport(r)
	}
	var b strings.Builder
	b.Grow(1024)
	line := func(k, v string) {
		if v != "" {
			b.WriteString(k)
			b.WriteString(": ")
			b.WriteString(v)
			b.WriteByte('\n')
		}
	}
	line("input", truncateRunes(r.Input, maxInputRunes))
	line("failure", r.Failure)
	line("expected", expectLine(r.Expect))
	d := r.Decision
	line("decided", actionSkill(d.Action, d.Skill)+gateSuffix(d.Gate)+" by stage "+d.Stage+
		", confidence "+fixed(d.Confidence, 3))
	if len(d.Params) > 0 {
		line("params", compactJSON(d.Params))
	}
	var cands []string
	for _, c := range d.Candidates {
		cands = append(cands, c.Skill+" "+fixed(c.Score, 3))
	}
	line("candidates", strings.Join(cands, ", "))
	for _, e := range d.Errors {
		line("error", errorLine(e))
	}
	line("message", truncateRunes(d.Message, maxMessageRunes))
	if len(d.Trace) > 0 {
		b.WriteString("trace:\n")
		for _, s := range d.Trace {
			b.WriteString("  ")
			b.WriteString(traceLine(s))
			b.WriteByte('\n')
			if s.Raw != "" {
				b.WriteString("    raw: ")
				b.WriteString(truncateRunes(s.Raw, maxRawRunes))
				b.WriteByte('\n')
			}
		}
	}
	if r.Workflow != nil {
		writeWorkflowRun(&b, "workflow", r.Workflow)
		if r.Resume != nil {
			writeWorkflowRun(&b, "resume", r.Resume)
		}
		for _, m := range harness.WorkflowMismatches(r.Expect, r.Workflow, r.Resume) {
			line("differs", m.String())
		}
	}
	line("version", d.Version)
	line("model", d.Model)
	return b.String()
}

// conversationReport is every turn of a conversation, each as caseReport
// shows a single case, under a line naming the turn and its verdict.
func conversationReport(r *harness.Result) string {
	var b strings.Builder
	turns := harness.DecisionResults(*r)
	for i := range turns {
		verdict := "pass"
		if !turns[i].Pass {
			verdict = "failed: " + orDash(turns[i].Failure)
		}
		b.WriteString("--- turn " + itoa(i+1) + " of " + itoa(len(turns)) + " (" + verdict + ")\n")
		if turns[i].Input == "" {
			b.WriteString("input: (the user said nothing)\n")
		}
		b.WriteString(caseReport(&turns[i]))
	}
	return b.String()
}

// writeWorkflowRun is a run's outcome and its nodes, one line each.
func writeWorkflowRun(b *strings.Builder, title string, o *workflow.Outcome) {
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

func gateSuffix(g any) string {
	s := fmt.Sprint(g)
	if s == "" {
		return ""
	}
	return " (gate " + s + ")"
}

func expectLine(e harness.Expect) string {
	s := actionSkill(e.Action, e.Skill) + gateSuffix(e.Gate)
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
	return strings.TrimSpace(s)
}

// xmlSafe replaces characters XML 1.0 cannot carry at all (most control
// characters), which CDATA, unlike escaped text, would pass through.
func xmlSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r',
			r >= 0x20 && r <= 0xD7FF,
			r >= 0xE000 && r <= 0xFFFD,
			r >= 0x10000 && r <= 0x10FFFF:
			return r
		}
		return '\uFFFD'
	}, s)
}
