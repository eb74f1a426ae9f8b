package fastyaml

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// docGen writes random YAML documents in and around the subset: block
// mappings and sequences (compact, indentless, nested at odd indents),
// flow collections, scalars that yaml.v3 types in every way, quoting and
// escapes, anchors and aliases (some to nodes not yet complete), empty
// values, comments and blank lines, LF or CRLF line ends.
type docGen struct {
	r       *rand.Rand
	b       strings.Builder
	anchors []string
	depth   int
}

var (
	genWords = []string{"a", "id", "input", "tags", "expect", "k", "name", "x_y", "查一下", "订单", "é", "😀",
		"true", "False", "NULL", "~", "null", "yes", "no", "on", "<<", "<", ".", "-", "+", "0", "1", "-1", "+2", "3.5", ".5", "-.5",
		"1e3", "1E-2", "0x1F", "0o17", "0b101", "-0b11", "0777", "09", "1_000", "1__0", ".inf", "-.Inf", "+.INF", ".nan", ".NaN",
		"2026-11-30", "2026-1-2", "2026-11-30T10:00:00Z", "2026-11-30t10:00:00+08:00", "2026-11-30 10:00:00", "12:30", "1:2:3",
		"9223372036854775807", "9223372036854775808", "18446744073709551616", "-9223372036854775809",
		"a:b", "http://x.io/a?b#c", "a#b", "-x", "x-", "a b", "a  b", "orders:read", "t", "f", "o", "Y", "n", "~x", "<<x", "@", "%", "`", "!x", "&x", "*x", "?x", ":x", "|", ">"}
	genQuotedBits = []string{"a", " ", "  ", "#", ":", ": ", "'", "''", "\"", "\\\\", "\\\"", "\\n", "\\t", "\\x41", "\\xe9", "\\u00e9", "\\u4e2d",
		"\\U0001F600", "\\0", "\\a", "\\e", "\\ ", "\\N", "\\_", "\\L", "\\P", "\\'", "\\/", "\\q", "\\ud800", "\\x4", "中", "😀", ",", "[", "]", "{", "}", "&", "*"}
)

func (g *docGen) word() string { return genWords[g.r.IntN(len(genWords))] }

// scalar writes a plain, single- or double-quoted scalar.
func (g *docGen) scalar(flow bool) {
	switch g.r.IntN(5) {
	case 0, 1, 2:
		w := g.word()
		if g.r.IntN(4) == 0 {
			w += " " + g.word()
		}
		if flow && strings.ContainsAny(w, ",[]{}") {
			w = "w"
		}
		g.b.WriteString(w)
	case 3:
		g.b.WriteByte('"')
		for range g.r.IntN(4) {
			bit := genQuotedBits[g.r.IntN(len(genQuotedBits))]
			if bit == "\"" || bit == "'" {
				bit = "\\\""
			}
			g.b.WriteString(bit)
		}
		g.b.WriteByte('"')
	default:
		g.b.WriteByte('\'')
		for range g.r.IntN(4) {
			bit := genQuotedBits[g.r.IntN(len(genQuotedBits))]
			if bit == "'" || bit == "\"" {
				bit = "''"
			}
			g.b.WriteString(strings.ReplaceAll(bit, "\\", "/"))
		}
		g.b.WriteByte('\'')
	}
}

func (g *docGen) flowNode() {
	g.depth++
	defer func() { g.depth-- }()
	if g.depth > 3 || g.r.IntN(3) > 0 {
		g.scalar(true)
		return
	}
	n := g.r.IntN(4)
	if g.r.IntN(2) == 0 {
		g.b.WriteString("[")
		for i := range n {
			if i > 0 {
				g.b.WriteString(g.sep(", "))
			}
			g.flowNode()
		}
		g.b.WriteString("]")
		return
	}
	g.b.WriteString("{")
	for i := range n {
		if i > 0 {
			g.b.WriteString(g.sep(", "))
		}
		g.scalar(true)
		g.b.WriteString(g.sep(": "))
		g.flowNode()
	}
	g.b.WriteString("}")
}

// sep is usually s, sometimes with more or fewer spaces.
func (g *docGen) sep(s string) string {
	switch g.r.IntN(10) {
	case 0:
		return strings.TrimSpace(s)
	case 1:
		return s + " "
	case 2:
		return " " + s
	}
	return s
}

// tail ends a line, sometimes with a comment.
func (g *docGen) tail() {
	if g.r.IntN(8) == 0 {
		g.b.WriteString(" # note: x")
	}
	if g.r.IntN(10) == 0 {
		g.b.WriteString(" ")
	}
	g.b.WriteByte('\n')
	switch g.r.IntN(12) {
	case 0:
		g.b.WriteByte('\n')
	case 1:
		g.b.WriteString(strings.Repeat(" ", g.r.IntN(6)) + "# own line\n")
	}
}

// inline writes a value after "key:" or "- " on the same line, then ends
// the line.
func (g *docGen) inline() {
	g.b.WriteByte(' ')
	switch g.r.IntN(10) {
	case 0:
		if len(g.anchors) > 0 {
			g.b.WriteString("*" + g.anchors[g.r.IntN(len(g.anchors))])
			break
		}
		fallthrough
	case 1, 2:
		g.flowNode()
	case 3:
		g.anchor()
		g.scalar(false)
	default:
		g.scalar(false)
	}
	g.tail()
}

// anchor writes an anchor and a space (the end of the line, sometimes).
func (g *docGen) anchor() {
	name := fmt.Sprintf("a%d", g.r.IntN(4))
	g.anchors = append(g.anchors, name)
	g.b.WriteString("&" + name + " ")
}

// block writes a block mapping or sequence at indent.
func (g *docGen) block(indent int, first bool) {
	g.depth++
	defer func() { g.depth-- }()
	pad := strings.Repeat(" ", indent)
	n := 1 + g.r.IntN(3)
	if g.r.IntN(2) == 0 {
		for i := range n {
			if !first || i > 0 {
				g.b.WriteString(pad)
			}
			g.b.WriteString("-")
			g.value(indent, true)
		}
		return
	}
	for i := range n {
		if !first || i > 0 {
			g.b.WriteString(pad)
		}
		g.scalar(false)
		g.b.WriteString(g.sep(":"))
		g.value(indent, false)
	}
}

// value writes a collection's child after its indicator.
func (g *docGen) value(indent int, entry bool) {
	choice := g.r.IntN(10)
	if g.depth > 4 {
		choice = 9
	}
	switch choice {
	case 0: // empty
		g.tail()
	case 1, 2, 3: // a nested block on the next lines
		if g.r.IntN(4) == 0 {
			g.b.WriteByte(' ')
			g.anchor()
		}
		g.tail()
		if !entry && g.r.IntN(3) == 0 { // indentless
			g.sequenceAt(indent)
			return
		}
		g.block(indent+1+g.r.IntN(3), false)
	case 4: // compact
		if entry {
			g.b.WriteByte(' ')
			g.block(indent+2, true)
			return
		}
		g.inline()
	default:
		g.inline()
	}
}

func (g *docGen) sequenceAt(indent int) {
	pad := strings.Repeat(" ", indent)
	for range 1 + g.r.IntN(2) {
		g.b.WriteString(pad + "-")
		g.value(indent, true)
	}
}

func (g *docGen) doc() []byte {
	g.b.Reset()
	g.anchors = g.anchors[:0]
	g.depth = 0
	if g.r.IntN(5) == 0 {
		g.b.WriteString("# head\n")
	}
	indent := 0
	if g.r.IntN(4) == 0 {
		indent = 2
	}
	g.b.WriteString(strings.Repeat(" ", indent))
	g.block(indent, true)
	if g.r.IntN(8) == 0 {
		return []byte(strings.ReplaceAll(g.b.String(), "\n", "\r\n"))
	}
	return []byte(g.b.String())
}

// mutate changes a byte or two of doc into something YAML reads
// differently.
func mutate(r *rand.Rand, doc []byte) []byte {
	const alphabet = " \n-:#'\"[]{},&*!|>?\\\t\rax0."
	out := append([]byte(nil), doc...)
	for range 1 + r.IntN(2) {
		if len(out) == 0 {
			break
		}
		i := r.IntN(len(out))
		c := alphabet[r.IntN(len(alphabet))]
		switch r.IntN(3) {
		case 0:
			out[i] = c
		case 1:
			out = append(out[:i], append([]byte{c}, out[i:]...)...)
		default:
			out = append(out[:i], out[i+1:]...)
		}
	}
	return out
}

// TestRandomDocuments holds Parse to yaml.v3 on random documents and on
// mutations of them, and checks it takes most of those it should.
func TestRandomDocuments(t *testing.T) {
	g := &docGen{r: rand.New(rand.NewPCG(15, 9))}
	n := 20000
	if testing.Short() {
		n = 2000
	}
	took, mutatedTook, failures := 0, 0, 0
	for i := range n {
		doc := g.doc()
		problem, ok := check(doc)
		if ok {
			took++
		}
		if problem != "" && failures < 10 {
			failures++
			t.Errorf("document %d %q: %s", i, doc, problem)
		}
		m := mutate(g.r, doc)
		problem, ok = check(m)
		if ok {
			mutatedTook++
		}
		if problem != "" && failures < 10 {
			failures++
			t.Errorf("mutated document %d %q: %s", i, m, problem)
		}
	}
	t.Logf("Parse took %d of %d documents, %d of their mutations", took, n, mutatedTook)
	if took < n/3 {
		t.Errorf("Parse took only %d of %d generated documents", took, n)
	}
}
