// Package yamldoc parses a YAML file that must hold exactly one document,
// so a second document after `---` is reported instead of silently ignored,
// and every problem carries the line it is on.
package yamldoc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Error is a problem with the file as YAML: its line (0 when unknown) and a
// message that says what to change.
type Error struct {
	Line    int
	Message string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.Message)
	}
	return e.Message
}

var (
	errLine   = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)
	parserErr = regexp.MustCompile(`^did not find expected (<document start>|node content|key|'-' indicator|',' or '\]'|',' or '\}')`)
)

// ErrEmpty is the Message of the error Parse returns for a file with no document.
const ErrEmpty = "is empty"

// Parse returns the root node of the only document in data, aliases
// resolved. An empty file, a syntax error or a second document is an *Error.
func Parse(data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &Error{Message: ErrEmpty}
		}
		return nil, syntaxError(err, data)
	}
	// A document marker with nothing after it (`---` alone) parses as an
	// implicit null placed past the last line; it holds no data, so it is
	// the empty file it looks like.
	if doc.Kind == 0 || len(doc.Content) == 0 || (isNull(doc.Content[0]) && doc.Content[0].Value == "") {
		return nil, &Error{Message: ErrEmpty}
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return nil, syntaxError(err, data)
	default:
		line := next.Line
		if len(next.Content) > 0 {
			line = next.Content[0].Line
		}
		// A bare `---` with nothing after it is a document of its own in
		// yaml.v3 but holds no data; only a document with content is lost.
		if next.Kind != 0 && len(next.Content) > 0 && !isNull(next.Content[0]) {
			return nil, &Error{Line: line, Message: "holds a second YAML document (after '---'); routebench reads one document per file: merge it into the first or move it to a file of its own"}
		}
	}
	return Resolve(doc.Content[0]), nil
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null" && (n.Value == "" || n.Value == "~" || n.Value == "null")
}

func syntaxError(err error, data []byte) *Error {
	msg, line := err.Error(), 0
	if m := errLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
	}
	// yaml.v3 numbers parser errors (unlike scanner errors) from 0.
	if parserErr.MatchString(msg) {
		line++
	}
	hint := "fix the syntax (indentation, quoting, a missing colon)"
	if last := lastLine(data); line == 0 || line > last {
		// yaml.v3 names no line, or one past the end, when the input runs
		// out inside a quote or a flow collection: the end of the file is
		// where it noticed, and a line to start looking beats none.
		line = last
		hint = "look above for an unclosed quote or bracket"
	}
	return &Error{Line: line, Message: "is not valid YAML: " + msg + "; " + hint}
}

// lastLine is the number of the last line of data that holds anything.
func lastLine(data []byte) int {
	n := 1 + bytes.Count(bytes.TrimRight(data, "\r\n"), []byte("\n"))
	return max(n, 1)
}

// Resolve follows aliases so anchors work anywhere.
func Resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}
