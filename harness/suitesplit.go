package harness

import (
	"bytes"

	"go.yaml.in/yaml/v3"

	"github.com/routebench/routebench/internal/fastyaml"
)

// A suite file's YAML tree is about ten times the file, so a large suite
// parsed whole was the peak of a large run's memory. splitSuite lets the
// loader parse the usual layout a few cases at a time instead: the
// top-level mapping with the `cases:` items blanked out (their lines kept
// as empty lines, so every line number stays), and the items' text in
// batches (parseBatch), each item's on its own where a batch does not
// parse as its items.
// It only recognises the plain block layout (a column-0 `cases:` key with
// nothing after it, then `- ` items at one indentation); anything else,
// and any piece that does not parse on its own (an alias to an anchor in
// another item, a quoted string running across items), makes the loader
// parse the file whole, so the result is always what a whole parse gives.

// suiteSplit is a suite file cut into its frame and its case items.
type suiteSplit struct {
	// frame is the file with every case item's bytes but its line breaks
	// removed: `cases:` then parses as an empty value on casesLine.
	frame     []byte
	casesLine int
	items     []suiteItem
}

// suiteItem is one `- ` item of the cases list: its bytes and the line
// it starts on.
type suiteItem struct {
	start, end int // byte offsets in the file
	line       int
}

// splitSuite cuts data as described above, or returns false when the file
// is not in the layout it knows.
func splitSuite(data []byte) (suiteSplit, bool) {
	var s suiteSplit
	if hasOtherBreaks(data) {
		return s, false // lines YAML counts and the split would not
	}
	indent := -1     // the items' indentation, once the first is seen
	inCases := false // between `cases:` and the end of its items
	casesStart := -1 // byte offset where the items begin
	casesEnd := -1
	line := 0
	for off := 0; off < len(data); {
		end := bytes.IndexByte(data[off:], '\n')
		next := len(data)
		if end >= 0 {
			next = off + end + 1
		}
		text := bytes.TrimRight(data[off:next], "\r\n")
		line++
		lineOff := off
		off = next
		if bytes.HasPrefix(text, []byte("---")) || bytes.HasPrefix(text, []byte("...")) || bytes.HasPrefix(text, []byte("%")) || bytes.HasPrefix(text, []byte("\t")) {
			return s, false // documents, directives, tab indentation: parse whole
		}
		body := bytes.TrimLeft(text, " ")
		col := len(text) - len(body)
		if !inCases {
			if col == 0 && isCasesKey(text) {
				if s.casesLine != 0 || casesEnd >= 0 {
					return s, false // a repeated key is the whole parse's to report
				}
				s.casesLine, inCases, casesStart = line, true, next
			}
			continue
		}
		if len(body) == 0 || body[0] == '#' {
			continue // blank lines and comments stay with the item above
		}
		isItem := body[0] == '-' && (len(body) == 1 || body[1] == ' ')
		switch {
		case indent < 0:
			if !isItem {
				return s, false // `cases:` followed by something other than a list item
			}
			indent = col
			s.items = append(s.items, suiteItem{start: lineOff, line: line})
		case col == indent && isItem:
			s.items[len(s.items)-1].end = lineOff
			s.items = append(s.items, suiteItem{start: lineOff, line: line})
		case col > indent:
			// inside the current item
		case col == 0 && !isItem:
			inCases, casesEnd = false, lineOff // the next top-level key
			s.items[len(s.items)-1].end = lineOff
			if isCasesKey(text) {
				return s, false // a repeated key is the whole parse's to report
			}
		default:
			return s, false // indented less than the items, not top level
		}
	}
	if len(s.items) == 0 {
		return s, false
	}
	if inCases {
		casesEnd = len(data)
		s.items[len(s.items)-1].end = len(data)
	}
	s.frame = make([]byte, 0, casesStart+len(data)-casesEnd+bytes.Count(data[casesStart:casesEnd], []byte("\n")))
	s.frame = append(s.frame, data[:casesStart]...)
	for range bytes.Count(data[casesStart:casesEnd], []byte("\n")) {
		s.frame = append(s.frame, '\n')
	}
	s.frame = append(s.frame, data[casesEnd:]...)
	return s, true
}

// hasOtherBreaks reports whether data holds a line break other than LF
// and CRLF: a lone CR, NEL, LS or PS is one to YAML, so a piece holding
// one would parse with other lines, and other structure, than in the file.
func hasOtherBreaks(data []byte) bool {
	for rest := data; ; {
		i := bytes.IndexByte(rest, '\r')
		if i < 0 {
			break
		}
		if i+1 == len(rest) || rest[i+1] != '\n' {
			return true
		}
		rest = rest[i+2:]
	}
	return bytes.Contains(data, []byte("\u2028")) || bytes.Contains(data, []byte("\u2029")) || bytes.Contains(data, []byte("\u0085"))
}

// isCasesKey reports whether a column-0 line is `cases:` with nothing
// after it but spaces and a comment.
func isCasesKey(text []byte) bool {
	rest, ok := bytes.CutPrefix(text, []byte("cases:"))
	if !ok {
		return false
	}
	rest = bytes.TrimLeft(rest, " ")
	return len(rest) == 0 || rest[0] == '#'
}

// parseItem parses one case item's text on its own and returns its node
// with lines as in the file, or false when the text is not one complete
// list item (the file is then parsed whole). An item may use anchors that
// earlier items define: prefix holds those items (see splitItems), parsed
// before it in one document so its aliases resolve as in the whole file.
func parseItem(data []byte, it suiteItem, prefix []suiteItem) (n *yaml.Node, refs anchorRefs, ok bool) {
	text := data[it.start:it.end]
	if len(prefix) > 0 {
		var buf []byte
		for _, p := range prefix {
			buf = append(buf, data[p.start:p.end]...)
		}
		text = append(buf, text...)
	}
	doc, err := parsePiece(text)
	if err != nil {
		return nil, refs, false
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, refs, false
	}
	seq := doc.Content[0]
	if seq.Kind != yaml.SequenceNode || len(seq.Content) != len(prefix)+1 {
		return nil, refs, false
	}
	// Each piece's lines move from where it is in text to where it is in
	// the file.
	at := 1
	for i, p := range append(prefix, it) {
		var r anchorRefs
		shiftLines(seq.Content[i], p.line-at, &r)
		if i == len(prefix) {
			refs = r
		}
		at += bytes.Count(data[p.start:p.end], []byte("\n"))
	}
	return seq.Content[len(prefix)], refs, true
}

// parseBatch parses consecutive items as one list, after the prefix items
// as parseItem does, and appends each one's node, lines as in the file,
// to into; it appends none when they do not parse as that many items,
// and the caller parses them one by one. Parsed together, an alias may
// name an anchor of an earlier item in the batch, as it may in the whole
// file.
func parseBatch(data []byte, prefix, items []suiteItem, into []batchedItem) []batchedItem {
	if len(items) == 0 {
		return into
	}
	var text []byte
	for _, p := range prefix {
		text = append(text, data[p.start:p.end]...)
	}
	batch := data[items[0].start:items[len(items)-1].end]
	if text == nil {
		text = batch
	} else {
		text = append(text, batch...)
	}
	doc, err := parsePiece(text)
	if err != nil {
		return into
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return into
	}
	seq := doc.Content[0]
	if seq.Kind != yaml.SequenceNode || len(seq.Content) != len(prefix)+len(items) {
		return into
	}
	// Each prefix piece's lines move to the file's, as parseItem moves
	// them (an alias's target keeps its own), then the batch's.
	at := 1
	for i, p := range prefix {
		var r anchorRefs
		shiftLines(seq.Content[i], p.line-at, &r)
		at += bytes.Count(data[p.start:p.end], []byte("\n"))
	}
	delta := items[0].line - at
	for i, it := range items {
		// Each item starts where the file says, or the batch did not
		// split as the items did.
		if n := seq.Content[len(prefix)+i]; n.Kind == yaml.AliasNode || n.Line+delta != it.line {
			return into
		}
	}
	for _, n := range seq.Content[len(prefix):] {
		var r anchorRefs
		shiftLines(n, delta, &r)
		into = append(into, batchedItem{node: n, refs: r})
	}
	return into
}

// parsePiece parses items' text as yaml.Unmarshal into a yaml.Node does:
// by fastyaml when the text is in its subset (the usual suite, several
// times faster), else by yaml.v3, whose tree or error it then is.
func parsePiece(text []byte) (*yaml.Node, error) {
	if doc, ok := fastyaml.Parse(text); ok {
		return doc, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil {
		return nil, err
	}
	return &doc, nil
}

// anchorRefs are the anchors an item defines and whether it uses any
// alias.
type anchorRefs struct {
	anchors []string
	alias   bool
}

// shiftLines moves every node's line by delta (an alias's target is moved
// with the item that holds it) and notes the tree's anchors and aliases.
func shiftLines(n *yaml.Node, delta int, refs *anchorRefs) {
	if n.Kind == yaml.AliasNode {
		refs.alias = true
		return
	}
	n.Line += delta
	if n.Anchor != "" {
		refs.anchors = append(refs.anchors, n.Anchor)
	}
	for _, c := range n.Content {
		shiftLines(c, delta, refs)
	}
}
