package harness

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/routebench/routebench/internal/inputfile"
	"github.com/routebench/routebench/internal/textdist"
	"github.com/routebench/routebench/internal/yamldoc"
	"github.com/routebench/routebench/internal/yamlkind"
	"github.com/routebench/routebench/router/registry"
)

// ynode reads one YAML file at the node level so every problem carries a
// line.
type ynode struct {
	file string
	l    *suiteLoader
}

func (y *ynode) pos(n *yaml.Node) registry.Pos { return registry.Pos{File: y.file, Line: n.Line} }

func (y *ynode) problem(n *yaml.Node, field, format string, args ...any) {
	y.l.add(y.pos(n), field, format, args...)
}

// parseYAML returns the root node of a file's only document, or the problem
// that stops it: encoding damage (with line and column; yaml.v3 would name
// neither), a syntax error, a second document (which would otherwise be
// dropped), aliases that stand for too many values (aliasProblem), or no
// document at all. empty says what the file should hold; "" allows an
// empty file, which gives neither root nor problem.
func parseYAML(file string, data []byte, empty string) (*yaml.Node, *registry.Problem) {
	return parseYAMLCounting(file, data, empty, &yamldoc.Aliases{})
}

// parseYAMLCounting is parseYAML counting the document's aliases into
// aliases, which may hold the file's count so far.
func parseYAMLCounting(file string, data []byte, empty string, aliases *yamldoc.Aliases) (*yaml.Node, *registry.Problem) {
	at := func(line int, msg string) *registry.Problem {
		p := oneLine(registry.Problem{Pos: registry.Pos{File: file, Line: line}, Message: msg})
		return &p
	}
	if err := inputfile.CheckText(data); err != nil {
		var te *inputfile.TextError
		if errors.As(err, &te) {
			return nil, at(te.Line, fmt.Sprintf("column %d: %s; save the file as UTF-8 text without control characters", te.Column, te.What))
		}
		return nil, at(0, err.Error())
	}
	root, err := yamldoc.Parse(data)
	var de *yamldoc.Error
	switch {
	case err == nil:
		if e := aliases.CheckDoc(data, root); e != nil {
			p := aliasProblem(file, e)
			return nil, &p
		}
		return root, nil
	case !errors.As(err, &de):
		return nil, at(0, err.Error())
	case de.Message == yamldoc.ErrEmpty:
		if empty == "" {
			return nil, nil
		}
		return nil, at(0, "is empty; "+empty)
	}
	return nil, at(de.Line, de.Message)
}

// aliasProblem is the problem of the alias use that takes a file's aliases
// past yamldoc.MaxValues. The loaders follow aliases themselves (resolve),
// so yaml.v3's own check of excessive aliasing, which only decoding into Go
// values makes, never runs: every file is counted as it is parsed, before
// any loader reads it, and is not read when it is past. A suite, the
// config (its gate rules too) and a baseline are each one file's count.
func aliasProblem(file string, e *yamldoc.AliasExcess) registry.Problem {
	return oneLine(registry.Problem{
		Pos:     registry.Pos{File: file, Line: e.Alias.Line},
		Field:   e.Field,
		Message: e.Message(),
	})
}

// readProblem is the problem of a file that cannot be read: missing, not a
// regular file (a FIFO would block, /dev/zero would never end), too large.
func readProblem(file string, err error) registry.Problem {
	return registry.Problem{Pos: registry.Pos{File: file}, Message: "cannot be read: " + readCause(err).Error()}
}

// readCause drops the *fs.PathError wrapper: the file name already leads
// the message. errors.Is still finds fs.ErrNotExist in what remains.
func readCause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// fields walks a mapping, reporting unknown and repeated keys, and calls fn
// for each known key with its (alias-resolved) value.
func (y *ynode) fields(n *yaml.Node, field string, known []string, fn func(key string, v *yaml.Node)) {
	// Which known keys were seen, by their index in known; the key's
	// field name is made only for a problem. Loading a large suite walks
	// several mappings a case, and a map and a name a key were a good
	// part of it.
	var seenSmall [16]bool
	seen := seenSmall[:]
	if len(known) > len(seenSmall) {
		seen = make([]bool, len(known))
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolve(n.Content[i+1])
		at := slices.Index(known, k.Value)
		if at < 0 {
			hint := ""
			if s := suggest(k.Value, known); s != "" {
				hint = fmt.Sprintf("did you mean %q? ", s)
			}
			y.problem(k, joinField(field, k.Value), "unknown field; %sknown fields here: %s", hint, strings.Join(known, ", "))
			continue
		}
		if seen[at] {
			y.problem(k, joinField(field, k.Value), "appears twice; keep one")
			continue
		}
		seen[at] = true
		fn(k.Value, v)
	}
}

// missing reports a required key that is absent and returns cond.
func (y *ynode) missing(n *yaml.Node, field, key string, cond bool) bool {
	if cond {
		y.problem(n, joinField(field, key), "is missing")
	}
	return cond
}

// str reads a scalar as text; numbers are accepted as their text.
func (y *ynode) str(n *yaml.Node, field string) string {
	if !isText(n) {
		y.problem(n, field, "must be a string, got %s", yamlkind.Of(n))
		return ""
	}
	return n.Value
}

// text is str for the field parent.key, named only for a problem: most
// values are text, and formatting every field's name was a good part of
// loading a large suite.
func (y *ynode) text(n *yaml.Node, parent, key string) string {
	if isText(n) {
		return n.Value
	}
	return y.str(n, joinField(parent, key))
}

// isText says whether str reads n without a problem.
func isText(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() != "!!null" && n.ShortTag() != "!!bool"
}

func (y *ynode) strList(n *yaml.Node, field string) []string {
	if n.Kind != yaml.SequenceNode {
		y.problem(n, field, "must be a list of strings, got %s", yamlkind.Of(n))
		return nil
	}
	out := make([]string, 0, len(n.Content))
	for i, item := range n.Content {
		item = resolve(item)
		if !isText(item) {
			// The item's field is named only for its problem: formatting
			// it for every item was a good part of loading a large suite.
			y.str(item, fmt.Sprintf("%s[%d]", field, i))
			continue
		}
		if item.Value != "" {
			out = append(out, item.Value)
		}
	}
	return out
}

// oneLine escapes what would break a problem's line: a LoadError is one
// problem per line, and a key or value quoted from the file may hold a line
// break or a control character.
func oneLine(p registry.Problem) registry.Problem {
	p.Field, p.Message = printable(p.Field), printable(p.Message)
	return p
}

// printable returns s with every non-printing rune escaped as in a Go
// string literal (so "a\nb" reads a\nb), and s itself when it has none.
func printable(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unicode.IsPrint(r) {
			b.WriteRune(r)
			continue
		}
		q := strconv.QuoteRune(r)
		b.WriteString(q[1 : len(q)-1])
	}
	return b.String()
}

func joinField(parent, child string) string {
	if parent == "" {
		return child
	}
	return parent + "." + child
}

func resolve(n *yaml.Node) *yaml.Node { return yamldoc.Resolve(n) }

func hasKey(n *yaml.Node, key string) bool { return keyNode(n, key) != nil }

// keyNode returns the value node of key in a mapping, or nil.
func keyNode(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return resolve(n.Content[i+1])
		}
	}
	return nil
}

// keyOf returns the key node of key in a mapping (for its line), or the
// mapping itself.
func keyOf(n *yaml.Node, key string) *yaml.Node {
	for i := 0; n != nil && i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i]
		}
	}
	return n
}

// suggest returns the known word closest to got when it is a plausible typo.
func suggest(got string, known []string) string {
	best, bestDist := "", 3
	for _, k := range known {
		if d := textdist.Levenshtein(got, k); d < bestDist {
			best, bestDist = k, d
		}
	}
	return best
}

// skillIndex is the skills expectations may name: the union of the
// versions' registries, or a case's own tools.
type skillIndex map[string][]*registry.Skill

func newSkillIndex(regs []*registry.Registry) skillIndex {
	idx := skillIndex{}
	for _, r := range regs {
		if r == nil {
			continue
		}
		for _, s := range r.Skills {
			idx[s.Name] = append(idx[s.Name], s)
		}
	}
	return idx
}

// empty means nothing is known, so names are not checked.
func (idx skillIndex) empty() bool { return len(idx) == 0 }

func (idx skillIndex) has(name string) bool { return len(idx[name]) > 0 }

func (idx skillIndex) hint(name string) string {
	names := make([]string, 0, len(idx))
	for n := range idx {
		names = append(names, n)
	}
	sort.Strings(names)
	if s := suggest(name, names); s != "" {
		return fmt.Sprintf("; did you mean %q?", s)
	}
	return "; name a skill of the versions' registries (or the case's tools)"
}

// defines reports whether any definition of the skill has the param.
func (idx skillIndex) defines(skill, param string) bool {
	for _, s := range idx[skill] {
		if _, ok := s.Properties()[param]; ok {
			return true
		}
	}
	return false
}

// ownNode is a copy of n and all it reaches (children and alias targets,
// shared nodes copied once) with strings of its own, for a node a loaded
// case keeps (a workflow's confirm script). The parser's nodes are cut
// from blocks shared by a whole batch of items and their values from the
// batch's text, so keeping one of them would keep every node and byte of
// the batch: 4x a workflow suite's held memory.
func ownNode(n *yaml.Node) *yaml.Node {
	copied := map[*yaml.Node]*yaml.Node{}
	var own func(n *yaml.Node) *yaml.Node
	own = func(n *yaml.Node) *yaml.Node {
		if n == nil {
			return nil
		}
		if c, ok := copied[n]; ok {
			return c
		}
		c := new(yaml.Node)
		copied[n] = c // before the children: an alias may lead back here
		*c = *n
		c.Tag, c.Value, c.Anchor = strings.Clone(n.Tag), strings.Clone(n.Value), strings.Clone(n.Anchor)
		c.HeadComment, c.LineComment, c.FootComment = strings.Clone(n.HeadComment), strings.Clone(n.LineComment), strings.Clone(n.FootComment)
		c.Alias = own(n.Alias)
		if n.Content != nil {
			c.Content = make([]*yaml.Node, len(n.Content))
			for i, k := range n.Content {
				c.Content[i] = own(k)
			}
		}
		return c
	}
	return own(n)
}
