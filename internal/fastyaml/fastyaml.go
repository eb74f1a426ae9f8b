// Package fastyaml parses the plain YAML that suite files mostly hold
// into the *yaml.Node tree yaml.v3 builds for it, several times faster and
// with a few allocations instead of several per node: loading a large
// suite was mostly yaml.v3's scanner.
//
// It knows a strict subset and declines everything else, so the caller
// can hand the same bytes to yaml.v3, which then gives its own tree or
// its own error: bad input is always yaml.v3's to report. The subset:
//   - block mappings and sequences (indentless and compact `- key: v`
//     ones too), indented with spaces;
//   - on one line: plain scalars, single- and double-quoted scalars
//     (every escape yaml.v3 knows), flow sequences and mappings of those;
//   - empty values (null), anchors on values and aliases to complete
//     nodes, comments.
//
// Lines end with LF or CRLF. Declined: tags, block scalars (| >),
// multi-line scalars and flow collections, explicit keys (?), document
// markers and directives, tabs, the other line breaks YAML knows (a lone
// CR, NEL, LS, PS), a byte order mark, characters yaml.v3 refuses, keys
// of 1,000 bytes or more, and anything else not listed above. yaml.v3's
// own tag resolution types plain scalars (see plainTag).
//
// The tree equals yaml.v3's (yaml.Unmarshal into a yaml.Node) in every
// field but the comments (HeadComment, LineComment, FootComment), which
// are left empty: the loaders read none. Values are substrings of one copy
// of the input, so they keep that copy alive.
package fastyaml

import (
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Parse returns the document node yaml.Unmarshal(data, &node) gives for
// data (comments aside), or ok false when data is not all in the subset
// or holds no node.
func Parse(data []byte) (doc *yaml.Node, ok bool) {
	p := parser{src: string(data), colLine: -1}
	defer func() {
		if r := recover(); r != nil {
			if _, is := r.(declined); !is {
				panic(r)
			}
			doc, ok = nil, false
		}
	}()
	if !p.scanLines() || len(p.lines) == 0 {
		return nil, false
	}
	root := p.block(p.lines[0].indent, "", mark{})
	if p.li != len(p.lines) {
		decline() // a line indented less than the root's
	}
	doc = p.newNode(yaml.DocumentNode, 0, "", "", mark{root.Line, root.Column})
	doc.Content = []*yaml.Node{root}
	return doc, true
}

// declined is the panic that unwinds a parse that met something outside
// the subset.
type declined struct{}

func decline() { panic(declined{}) }

// maxDepth bounds nesting (yaml.v3 has its own limit, far above).
const maxDepth = 100

// maxKey is the longest key taken, in bytes: yaml.v3 takes a key only
// within 1,024 characters of its start.
const maxKey = 1000

type parser struct {
	src   string
	lines []line // the lines with content: not blank, not only a comment
	li    int    // the line being parsed
	depth int

	// Nodes and their Content come from slabs (slabSize).
	nodes []yaml.Node
	kids  []*yaml.Node
	// stack holds the children of the collections being parsed.
	stack []*yaml.Node

	// colLine, colAt and colCol are the last non-ASCII position mark
	// counted: line index, byte offset, characters before it.
	colLine, colAt, colCol int

	// anchors are the anchored nodes so far, by name; open are the
	// anchored collections not yet complete (an alias to one would make
	// a cycle, which is yaml.v3's to handle).
	anchors map[string]*yaml.Node
	open    []*yaml.Node
}

type line struct {
	start, end int // offsets of the line's first byte and of its end (before LF or CRLF)
	indent     int // leading spaces
	num        int // 1-based line number
	ascii      bool
}

// mark is a node's position as yaml.v3 gives it: 1-based line and column,
// the column counted in characters.
type mark struct{ line, col int }

// scanLines checks every character and notes the lines with content. It
// returns false for what the subset does not take anywhere.
func (p *parser) scanLines() bool {
	src := p.src
	p.lines = make([]line, 0, strings.Count(src, "\n")+1)
	num := 0
	for off := 0; off < len(src); {
		num++
		end := strings.IndexByte(src[off:], '\n')
		next := len(src)
		if end < 0 {
			end = len(src)
		} else {
			end += off
			next = end + 1
		}
		if end > off && src[end-1] == '\r' {
			end-- // a CRLF line end is one line break, as LF is
		}
		ascii := true
		for i := off; i < end; {
			c := src[i]
			if c < utf8.RuneSelf {
				if c < 0x20 || c == 0x7f {
					return false // tabs, lone carriage returns, control characters
				}
				i++
				continue
			}
			ascii = false
			r, size := utf8.DecodeRuneInString(src[i:end])
			if !allowedRune(r, size) {
				return false
			}
			i += size
		}
		text := src[off:end]
		if strings.HasPrefix(text, "---") || strings.HasPrefix(text, "...") || strings.HasPrefix(text, "%") {
			return false // document markers and directives
		}
		indent := 0
		for indent < len(text) && text[indent] == ' ' {
			indent++
		}
		if indent < len(text) && text[indent] != '#' {
			p.lines = append(p.lines, line{start: off, end: end, indent: indent, num: num, ascii: ascii})
		}
		off = next
	}
	return true
}

// allowedRune is whether a non-ASCII character is one yaml.v3 reads as
// text: not invalid UTF-8, not a C1 control or NEL (a line break to
// YAML), not LS or PS (line breaks too), not a byte order mark, not a
// non-character.
func allowedRune(r rune, size int) bool {
	switch {
	case r == utf8.RuneError && size == 1:
		return false
	case r < 0xA0, r == 0x2028, r == 0x2029, r == 0xFEFF, r == 0xFFFE, r == 0xFFFF:
		return false
	}
	return true
}

func (p *parser) newNode(kind yaml.Kind, style yaml.Style, tag, value string, m mark) *yaml.Node {
	if len(p.nodes) == cap(p.nodes) {
		p.nodes = make([]yaml.Node, 0, p.slabSize())
	}
	p.nodes = p.nodes[:len(p.nodes)+1]
	n := &p.nodes[len(p.nodes)-1]
	n.Kind, n.Style, n.Tag, n.Value, n.Line, n.Column = kind, style, tag, value, m.line, m.col
	return n
}

// slab is how many nodes a slab holds: a few allocations for a suite's
// batch of cases, and little left unused after the last node.
const slab = 128

// slabSize is the size of the next slab: slab, or fewer near the end of
// the input (a node takes 10 to 20 bytes of a suite).
func (p *parser) slabSize() int {
	at := len(p.src)
	if p.li < len(p.lines) {
		at = p.lines[p.li].start
	}
	return min(slab, (len(p.src)-at)/10+8)
}

// children moves the children stacked since base into n's Content, nil
// when there are none (as yaml.v3 leaves an empty collection's). The
// slice is full, so appending to it copies rather than writing over a
// neighbour's.
func (p *parser) children(n *yaml.Node, base int) {
	k := len(p.stack) - base
	if k == 0 {
		return
	}
	if cap(p.kids)-len(p.kids) < k {
		p.kids = make([]*yaml.Node, 0, max(p.slabSize(), k))
	}
	at := len(p.kids)
	p.kids = append(p.kids, p.stack[base:]...)
	n.Content = p.kids[at : at+k : at+k]
	clear(p.stack[base:])
	p.stack = p.stack[:base]
}

// mark is the position of byte at on the current line. On a line that is
// not all ASCII, characters are counted on from the last position asked
// for when it is further on the same line: a long line of many values
// is counted once, not once a value.
func (p *parser) mark(at int) mark {
	l := &p.lines[p.li]
	if l.ascii {
		return mark{l.num, at - l.start + 1}
	}
	from, col := l.start, 0
	if p.colLine == p.li && p.colAt <= at {
		from, col = p.colAt, p.colCol
	}
	col += utf8.RuneCountInString(p.src[from:at])
	p.colLine, p.colAt, p.colCol = p.li, at, col
	return mark{l.num, col + 1}
}

func (p *parser) enter() {
	p.depth++
	if p.depth > maxDepth {
		decline()
	}
}

// anchor names n, as yaml.v3 does when the node starts (a later anchor of
// the same name replaces it).
func (p *parser) anchor(n *yaml.Node, name string) {
	if name == "" {
		return
	}
	if p.anchors == nil {
		p.anchors = map[string]*yaml.Node{}
	}
	n.Anchor = name
	p.anchors[name] = n
}

// isEntry is whether a block sequence entry ("- " or a lone "-") starts
// at byte at of line l.
func (p *parser) isEntry(l *line, at int) bool {
	return p.src[at] == '-' && (at+1 == l.end || p.src[at+1] == ' ')
}

func (p *parser) skipSpaces(at, end int) int {
	for at < end && p.src[at] == ' ' {
		at++
	}
	return at
}

// block parses the block mapping or sequence whose first line is the
// current one, at indent; anchor, when set, is its anchor at am.
func (p *parser) block(indent int, anchor string, am mark) *yaml.Node {
	l := &p.lines[p.li]
	at := l.start + indent
	if p.isEntry(l, at) {
		return p.sequence(indent, false, anchor, am)
	}
	key, after := p.key(at)
	m := am
	if anchor == "" {
		m = mark{key.Line, key.Column}
	}
	return p.mapping(indent, m, anchor, key, after)
}

// sequence parses a block sequence whose entries are at indent, from the
// current line. An indentless one (a mapping value at the mapping's
// indent) ends at the first line there that is not an entry.
func (p *parser) sequence(indent int, indentless bool, anchor string, am mark) *yaml.Node {
	p.enter()
	l := &p.lines[p.li]
	m := am
	if anchor == "" {
		m = p.mark(l.start + indent)
	}
	n := p.newNode(yaml.SequenceNode, 0, "!!seq", "", m)
	p.anchor(n, anchor)
	if anchor != "" {
		p.open = append(p.open, n)
	}
	base := len(p.stack)
	for p.li < len(p.lines) {
		l := &p.lines[p.li]
		dash := l.start + indent
		if l.indent != indent || !p.isEntry(l, dash) {
			break
		}
		at := p.skipSpaces(dash+1, l.end)
		p.stack = append(p.stack, p.value(at, indent, true, dash+1))
	}
	if p.li < len(p.lines) {
		if l := &p.lines[p.li]; l.indent > indent || (l.indent == indent && !indentless) {
			decline()
		}
	}
	p.children(n, base)
	p.close(anchor)
	p.depth--
	return n
}

// close ends an anchored collection.
func (p *parser) close(anchor string) {
	if anchor != "" {
		p.open = p.open[:len(p.open)-1]
	}
}

// mapping parses a block mapping at indent whose first key, already
// parsed, is key, its ':' ending before after.
func (p *parser) mapping(indent int, m mark, anchor string, key *yaml.Node, after int) *yaml.Node {
	p.enter()
	n := p.newNode(yaml.MappingNode, 0, "!!map", "", m)
	p.anchor(n, anchor)
	if anchor != "" {
		p.open = append(p.open, n)
	}
	base := len(p.stack)
	for {
		p.stack = append(p.stack, key)
		l := &p.lines[p.li]
		at := p.skipSpaces(after, l.end)
		p.stack = append(p.stack, p.value(at, indent, false, after))
		if p.li == len(p.lines) {
			break
		}
		l = &p.lines[p.li]
		if l.indent < indent {
			break
		}
		if l.indent > indent || p.isEntry(l, l.start+indent) {
			decline() // a scalar's next line, or an entry that belongs to nothing
		}
		key, after = p.key(l.start + indent)
	}
	p.children(n, base)
	p.close(anchor)
	p.depth--
	return n
}

// key parses the mapping key at byte at of the current line, returning
// it and the offset past its ':'.
func (p *parser) key(at int) (*yaml.Node, int) {
	l := &p.lines[p.li]
	k, next := p.scalar(at, l.end, false)
	if next-at >= maxKey || !p.isIndicator(l, next) {
		decline()
	}
	return k, next + 1
}

// isIndicator is whether a ':' value indicator (followed by a space or
// the end of the line) is at byte at of line l.
func (p *parser) isIndicator(l *line, at int) bool {
	return at < l.end && p.src[at] == ':' && (at+1 == l.end || p.src[at+1] == ' ')
}

// value parses a block collection's child that starts at byte at of the
// current line (spaces skipped) after its indicator (a mapping's ':' or a
// sequence's '-') ending before empty, where an empty value's null is.
// parent is the collection's indent; entry says it is a sequence, whose
// entry may be a compact mapping (`- key: v`). It leaves the current line
// past the child's last line.
func (p *parser) value(at int, parent int, entry bool, empty int) *yaml.Node {
	l := &p.lines[p.li]
	var anchor string
	var am mark
	if at < l.end && p.src[at] == '&' {
		var next int
		anchor, next = p.name(at+1, l.end)
		am = p.mark(at)
		at = p.skipSpaces(next, l.end)
	}
	if at == l.end || p.src[at] == '#' {
		// Nothing more on this line: the child is on the next lines, or
		// is empty.
		em := p.mark(empty)
		p.li++
		if p.li < len(p.lines) {
			next := &p.lines[p.li]
			if next.indent > parent {
				return p.block(next.indent, anchor, am)
			}
			if !entry && next.indent == parent && p.isEntry(next, next.start+parent) {
				return p.sequence(parent, true, anchor, am)
			}
		}
		if anchor != "" {
			decline()
		}
		return p.newNode(yaml.ScalarNode, 0, "!!null", "", em)
	}
	var n *yaml.Node
	var next int
	switch p.src[at] {
	case '*':
		if anchor != "" {
			decline()
		}
		n, next = p.alias(at, l.end)
	case '[', '{':
		n, next = p.flow(at, l.end)
	default:
		n, next = p.scalar(at, l.end, false)
		if p.isIndicator(l, next) {
			// A key: the entry is a compact mapping at its column.
			if !entry || anchor != "" || next-at >= maxKey {
				decline()
			}
			return p.mapping(at-l.start, mark{n.Line, n.Column}, "", n, next+1)
		}
	}
	if anchor != "" {
		p.anchor(n, anchor)
		n.Line, n.Column = am.line, am.col
	}
	p.endLine(next)
	return n
}

// endLine checks that only spaces and a comment follow byte at on the
// current line, and moves to the next line.
func (p *parser) endLine(at int) {
	l := &p.lines[p.li]
	if at < l.end {
		if p.src[at] != ' ' {
			decline()
		}
		if at = p.skipSpaces(at, l.end); at < l.end && p.src[at] != '#' {
			decline()
		}
	}
	p.li++
}

// name reads an anchor or alias name from byte at: the characters yaml.v3
// takes, then a space or the end of the line.
func (p *parser) name(at, end int) (string, int) {
	i := at
	for i < end && isNameChar(p.src[i]) {
		i++
	}
	if i == at || (i < end && p.src[i] != ' ') {
		decline()
	}
	return p.src[at:i], i
}

func isNameChar(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '_' || c == '-'
}

// alias parses `*name` at byte at: a node that points at the anchored
// node, which must be complete.
func (p *parser) alias(at, end int) (*yaml.Node, int) {
	name, next := p.name(at+1, end)
	target := p.anchors[name]
	if target == nil {
		decline()
	}
	for _, o := range p.open {
		if o == target {
			decline()
		}
	}
	n := p.newNode(yaml.AliasNode, 0, "", name, p.mark(at))
	n.Alias = target
	return n, next
}

// scalar parses a plain or quoted scalar at byte at, in a flow collection
// when flow is set, returning it and the offset where it ends (for a
// plain scalar, before the spaces after it).
func (p *parser) scalar(at, end int, flow bool) (*yaml.Node, int) {
	switch p.src[at] {
	case '"':
		v, next := p.doubleQuoted(at, end)
		return p.newNode(yaml.ScalarNode, yaml.DoubleQuotedStyle, "!!str", v, p.mark(at)), next
	case '\'':
		v, next := p.singleQuoted(at, end)
		return p.newNode(yaml.ScalarNode, yaml.SingleQuotedStyle, "!!str", v, p.mark(at)), next
	}
	if !p.plainStart(at, end) {
		decline()
	}
	var v string
	var next int
	if flow {
		v, next = p.plainFlow(at, end)
	} else {
		v, next = p.plainBlock(at, end)
	}
	n := p.newNode(yaml.ScalarNode, 0, "", v, p.mark(at))
	n.Tag = plainTag(n)
	return n, next
}

// plainStart is whether a plain scalar may start at byte at: not with an
// indicator, and with '-' only before a character that is not a space.
func (p *parser) plainStart(at, end int) bool {
	switch p.src[at] {
	case ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`', '?', ':', ' ':
		return false
	case '-':
		return at+1 < end && p.src[at+1] != ' '
	}
	return true
}

// plainBlock scans a plain scalar outside flow collections: to the end of
// the line, a comment (" #") or a value indicator (": ", or ':' at the end).
func (p *parser) plainBlock(at, end int) (string, int) {
	src := p.src
	last := at // past the last character that is not a space
	for i := at; i < end; {
		switch c := src[i]; {
		case c == ' ':
			j := p.skipSpaces(i, end)
			if j == end || src[j] == '#' {
				return src[at:last], last
			}
			i = j
		case c == ':' && (i+1 == end || src[i+1] == ' '):
			return src[at:last], i
		default:
			i++
			last = i
		}
	}
	return src[at:last], last
}

// plainFlow scans a plain scalar in a flow collection: to a flow
// indicator (, [ ] { }) or a value indicator (": "). A comment or the end
// of the line inside a flow collection, and a '?' or ':' yaml.v3 may read
// otherwise, are declined.
func (p *parser) plainFlow(at, end int) (string, int) {
	src := p.src
	last := at
	for i := at; i < end; {
		switch c := src[i]; c {
		case ' ':
			j := p.skipSpaces(i, end)
			if j == end || src[j] == '#' {
				decline()
			}
			i = j
		case ',', '[', ']', '{', '}':
			return src[at:last], last
		case '?':
			decline()
		case ':':
			if i+1 == end {
				decline()
			}
			switch src[i+1] {
			case ' ':
				return src[at:last], i
			case ',', '[', ']', '{', '}', '?', ':', '#':
				decline()
			}
			i++
			last = i
		default:
			i++
			last = i
		}
	}
	decline() // the collection goes on past the line
	return "", 0
}

// doubleQuoted scans a double-quoted scalar that ends on its line,
// decoding its escapes as yaml.v3 does.
func (p *parser) doubleQuoted(at, end int) (string, int) {
	src := p.src
	i := at + 1
	for i < end && src[i] != '"' && src[i] != '\\' {
		i++
	}
	if i == end {
		decline()
	}
	if src[i] == '"' {
		return src[at+1 : i], i + 1
	}
	b := make([]byte, 0, end-at)
	b = append(b, src[at+1:i]...)
	for {
		if i == end {
			decline() // runs on past the line
		}
		c := src[i]
		if c == '"' {
			return string(b), i + 1
		}
		if c != '\\' {
			b = append(b, c)
			i++
			continue
		}
		if i+1 == end {
			decline() // an escaped line break
		}
		size := 0
		switch src[i+1] {
		case '0':
			b = append(b, 0)
		case 'a':
			b = append(b, '\a')
		case 'b':
			b = append(b, '\b')
		case 't':
			b = append(b, '\t')
		case 'n':
			b = append(b, '\n')
		case 'v':
			b = append(b, '\v')
		case 'f':
			b = append(b, '\f')
		case 'r':
			b = append(b, '\r')
		case 'e':
			b = append(b, 0x1b)
		case ' ':
			b = append(b, ' ')
		case '"':
			b = append(b, '"')
		case '\'':
			b = append(b, '\'')
		case '\\':
			b = append(b, '\\')
		case 'N':
			b = utf8.AppendRune(b, 0x85)
		case '_':
			b = utf8.AppendRune(b, 0xA0)
		case 'L':
			b = utf8.AppendRune(b, 0x2028)
		case 'P':
			b = utf8.AppendRune(b, 0x2029)
		case 'x':
			size = 2
		case 'u':
			size = 4
		case 'U':
			size = 8
		default:
			decline() // yaml.v3 refuses the escape
		}
		i += 2
		if size == 0 {
			continue
		}
		if i+size > end {
			decline()
		}
		r := rune(0)
		for _, h := range []byte(src[i : i+size]) {
			d, ok := hexDigit(h)
			if !ok {
				decline()
			}
			r = r<<4 | d
		}
		if (r >= 0xD800 && r <= 0xDFFF) || r > 0x10FFFF || r < 0 {
			decline()
		}
		b = utf8.AppendRune(b, r)
		i += size
	}
}

func hexDigit(c byte) (rune, bool) {
	switch {
	case c >= '0' && c <= '9':
		return rune(c - '0'), true
	case c >= 'a' && c <= 'f':
		return rune(c-'a') + 10, true
	case c >= 'A' && c <= 'F':
		return rune(c-'A') + 10, true
	}
	return 0, false
}

// singleQuoted scans a single-quoted scalar that ends on its line (two
// quotes in it are one).
func (p *parser) singleQuoted(at, end int) (string, int) {
	src := p.src
	i := at + 1
	for {
		for i < end && src[i] != '\'' {
			i++
		}
		if i == end {
			decline()
		}
		if i+1 < end && src[i+1] == '\'' {
			break // an escaped quote: build the value
		}
		return src[at+1 : i], i + 1
	}
	b := make([]byte, 0, end-at)
	for j := at + 1; ; {
		if j == end {
			decline()
		}
		if src[j] == '\'' {
			if j+1 < end && src[j+1] == '\'' {
				b = append(b, '\'')
				j += 2
				continue
			}
			return string(b), j + 1
		}
		b = append(b, src[j])
		j++
	}
}

// flow parses a flow sequence or mapping that closes on its line.
func (p *parser) flow(at, end int) (*yaml.Node, int) {
	p.enter()
	defer func() { p.depth-- }()
	seq := p.src[at] == '['
	closing := byte('}')
	n := p.newNode(yaml.MappingNode, yaml.FlowStyle, "!!map", "", p.mark(at))
	if seq {
		closing = ']'
		n.Kind, n.Tag = yaml.SequenceNode, "!!seq"
	}
	base := len(p.stack)
	i := p.skipSpaces(at+1, end)
	if i < end && p.src[i] == closing {
		return n, i + 1
	}
	for {
		if i == end {
			decline()
		}
		var item *yaml.Node
		if seq {
			item, i = p.flowNode(i, end)
			p.stack = append(p.stack, item)
		} else {
			start := i
			item, i = p.scalar(i, end, true)
			if i-start >= maxKey || i+1 >= end || p.src[i] != ':' || p.src[i+1] != ' ' {
				decline() // a key without a value, or a long one
			}
			p.stack = append(p.stack, item)
			if i = p.skipSpaces(i+1, end); i == end {
				decline()
			}
			item, i = p.flowNode(i, end)
			p.stack = append(p.stack, item)
		}
		i = p.skipSpaces(i, end)
		if i == end {
			decline()
		}
		if c := p.src[i]; c == ',' {
			if i = p.skipSpaces(i+1, end); i < end && p.src[i] == closing {
				decline() // a trailing comma
			}
			continue
		} else if c == closing {
			break
		}
		decline()
	}
	p.children(n, base)
	return n, i + 1
}

// flowNode parses a flow collection's item or value.
func (p *parser) flowNode(at, end int) (*yaml.Node, int) {
	switch p.src[at] {
	case '[', '{':
		return p.flow(at, end)
	}
	return p.scalar(at, end, true)
}

// plainTag is the tag yaml.v3 gives a plain scalar. yaml.v3 reads its
// first character for a hint: most give none, and the scalar is a string;
// a hint that the value may be in its table of words (true, null, ~, <<)
// is answered by that table alone, copied here (TestPlainTagTable holds
// it to yaml.v3); numbers, dates and the rest go to yaml.v3's own resolver
// through ShortTag.
func plainTag(n *yaml.Node) string {
	v := n.Value
	switch v[0] {
	case '+', '-', '.', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return n.ShortTag() // Tag is still "": yaml.v3 resolves Value
	case 'y', 'Y', 'n', 'N', 't', 'T', 'f', 'F', 'o', 'O', '~', '<':
		switch v {
		case "true", "True", "TRUE", "false", "False", "FALSE":
			return "!!bool"
		case "~", "null", "Null", "NULL":
			return "!!null"
		case "<<":
			return "!!merge"
		}
	}
	return "!!str"
}
