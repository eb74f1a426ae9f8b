package registry

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/routebench/routebench/internal/inputfile"
	"github.com/routebench/routebench/internal/yamldoc"
	"github.com/routebench/routebench/internal/yamlkind"
	"go.yaml.in/yaml/v3"
)

// yfile reads one YAML file at the node level so every problem has a line.
type yfile struct {
	name string
	ps   *problems
	// values counts what jsonValue has built, against yamldoc.MaxValues:
	// one skill's schema and examples, or one value given to JSONValue.
	// Anchors and aliases let a few lines of YAML stand for billions of
	// values ("billion laughs"), which would hang the loader.
	values int
	// valuesOf names whose values they are in the problem, when not a
	// skill's.
	valuesOf string
}

func (f *yfile) pos(n *yaml.Node) Pos { return Pos{File: f.name, Line: n.Line} }

func (f *yfile) problem(n *yaml.Node, field, format string, args ...any) {
	f.ps.add(f.pos(n), field, format, args...)
}

// parse checks the text's encoding, then returns the root node of its only
// document, or nil after reporting why there is none. Parsing is
// internal/yamldoc's, shared by every loader, so a second document after
// `---` is an error here as everywhere instead of being silently dropped.
func (f *yfile) parse(data []byte) *yaml.Node {
	if !checkText(f.name, data, f.ps) {
		return nil
	}
	root, err := yamldoc.Parse(data)
	if err != nil {
		var de *yamldoc.Error
		if !errors.As(err, &de) {
			f.ps.add(Pos{File: f.name}, "", "cannot be parsed: %v; fix the YAML", err)
			return nil
		}
		msg, line := de.Message, de.Line
		switch {
		case msg == yamldoc.ErrEmpty:
			msg += "; write the document described in DESIGN §2-3"
		}
		f.ps.add(Pos{File: f.name, Line: line}, "", "%s", msg)
		return nil
	}
	// Each skill's values are counted as they are built, but an anchor
	// reused from skill to skill would multiply past any per-skill count:
	// the file's aliases are counted as a whole, as suites' are.
	if e := new(yamldoc.Aliases).CheckDoc(data, root); e != nil {
		f.ps.add(Pos{File: f.name, Line: e.Alias.Line}, e.Field, "%s", e.Message())
		return nil
	}
	return root
}

// checkText reports the first encoding damage in a file (invalid UTF-8, a
// NUL or control character) at its line and column, and returns false
// then: a parser would either stop without a line or carry the damage on
// into prompts and reports.
func checkText(file string, data []byte, ps *problems) bool {
	err := inputfile.CheckText(data)
	if err == nil {
		return true
	}
	var te *inputfile.TextError
	if errors.As(err, &te) {
		ps.add(Pos{File: file, Line: te.Line}, "", "column %d: %s; save the file as UTF-8 text without control characters", te.Column, te.What)
	} else {
		ps.add(Pos{File: file}, "", "%v", err)
	}
	return false
}

// resolve follows aliases so anchors work anywhere.
func resolve(n *yaml.Node) *yaml.Node { return yamldoc.Resolve(n) }

func join(parent, child string) string {
	if parent == "" {
		return child
	}
	return parent + "." + child
}

func index(parent string, i int) string { return fmt.Sprintf("%s[%d]", parent, i) }

// fields walks a mapping's pairs in order, calling fn for each known key and
// reporting unknown and duplicate keys. It reports and returns false when n is
// not a mapping.
func (f *yfile) fields(n *yaml.Node, field string, known []string, fn func(key string, v *yaml.Node)) bool {
	return Fields(n, field, known, func(at *yaml.Node, field, msg string) { f.problem(at, field, "%s", msg) }, fn)
}

// pairs walks a free-form mapping (glossary, side_effects), reporting duplicates.
func (f *yfile) pairs(n *yaml.Node, field string, fn func(k, v *yaml.Node)) bool {
	if n.Kind != yaml.MappingNode {
		f.problem(n, field, "must be a mapping (key: value), got %s; write one key: value per line", yamlkind.Of(n))
		return false
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolve(n.Content[i+1])
		if first, dup := seen[k.Value]; dup {
			f.problem(k, join(field, k.Value), "duplicate key (first at line %d); keep one", first)
			continue
		}
		seen[k.Value] = k.Line
		fn(k, v)
	}
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// str reads a non-empty scalar as text. Numbers and booleans are taken as
// written, since a description of "2026" is still a description.
func (f *yfile) str(n *yaml.Node, field string) (string, bool) {
	if n.Kind != yaml.ScalarNode {
		f.problem(n, field, "must be a string, got %s; write plain text (quote it if it has a colon)", yamlkind.Of(n))
		return "", false
	}
	if n.ShortTag() == "!!null" || strings.TrimSpace(n.Value) == "" {
		f.problem(n, field, "is empty; write a value or remove the field")
		return "", false
	}
	return n.Value, true
}

// strList reads a list of non-empty strings.
func (f *yfile) strList(n *yaml.Node, field string) ([]string, bool) {
	if n.Kind != yaml.SequenceNode {
		f.problem(n, field, "must be a list of strings, got %s; write [\"...\"] or one \"- ...\" line per item", yamlkind.Of(n))
		return nil, false
	}
	out := make([]string, 0, len(n.Content))
	ok := true
	for i, item := range n.Content {
		s, good := f.str(resolve(item), index(field, i))
		if good {
			out = append(out, s)
		}
		ok = ok && good
	}
	return out, ok
}

func (f *yfile) integer(n *yaml.Node, field string) (int, bool) {
	var v int
	// YAML reads digits past int64 as a float: still a whole number, too large.
	if n.Kind == yaml.ScalarNode && (n.ShortTag() == "!!int" && n.Decode(&v) != nil || n.ShortTag() == "!!float" && allDigits(n.Value)) {
		f.problem(n, field, "%s is too large; write a whole number of at most %d", n.Value, math.MaxInt)
		return 0, false
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
		f.problem(n, field, "must be a whole number, got %s; write digits only, e.g. 5", yamlkind.Of(n))
		return 0, false
	}
	return v, true
}

func (f *yfile) number(n *yaml.Node, field string) (float64, bool) {
	var v float64
	tag := n.ShortTag()
	if n.Kind != yaml.ScalarNode || (tag != "!!int" && tag != "!!float") || n.Decode(&v) != nil {
		f.problem(n, field, "must be a number, got %s; write digits, e.g. 0.85", yamlkind.Of(n))
		return 0, false
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		f.problem(n, field, "must be a finite number, got %s; write digits, e.g. 0.85", n.Value)
		return 0, false
	}
	return v, true
}

// jsonValue converts a node to the values encoding/json would decode
// (map[string]any, []any, string, float64, bool, nil), so schemas and
// params behave the same whether they came from YAML or from a model.
func (f *yfile) jsonValue(n *yaml.Node, field string) (any, bool) {
	n = resolve(n)
	f.values++
	if f.values > yamldoc.MaxValues {
		if f.values == yamldoc.MaxValues+1 {
			what := f.valuesOf
			if what == "" {
				what = "the skill's schema and examples"
			}
			f.problem(n, field, "%s", yamldoc.TooManyValues(what))
		}
		return nil, false
	}
	switch n.Kind {
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		ok := f.pairs(n, field, func(k, v *yaml.Node) {
			if k.Kind != yaml.ScalarNode {
				f.problem(k, field, "has a key that is %s; keys must be strings", yamlkind.Of(k))
				return
			}
			if val, good := f.jsonValue(v, join(field, k.Value)); good {
				out[k.Value] = val
			}
		})
		return out, ok
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for i, item := range n.Content {
			if val, good := f.jsonValue(item, index(field, i)); good {
				out = append(out, val)
			}
		}
		return out, true
	}
	switch n.ShortTag() {
	case "!!str":
		return n.Value, true
	case "!!timestamp":
		// An unquoted 2026-11-03 is a date string to the author, not a time.
		return n.Value, true
	case "!!null":
		return nil, true
	case "!!bool":
		var b bool
		if n.Decode(&b) == nil {
			return b, true
		}
	case "!!int", "!!float":
		var v float64
		if n.Decode(&v) == nil && !math.IsNaN(v) && !math.IsInf(v, 0) {
			return v, true
		}
		f.problem(n, field, "%s is not a number JSON can hold; write a finite number", n.Value)
		return nil, false
	}
	f.problem(n, field, "has YAML tag %s, which JSON cannot hold; write a plain string, number, boolean, list or mapping", n.Tag)
	return nil, false
}

// nodeAt follows a JSON pointer's tokens into a node, stopping at the deepest
// node that exists, so errors from JSON tools can be given a line.
func nodeAt(n *yaml.Node, tokens []string) *yaml.Node {
	for _, tok := range tokens {
		n = resolve(n)
		var next *yaml.Node
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == tok {
					next = n.Content[i+1]
					break
				}
			}
		case yaml.SequenceNode:
			if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(n.Content) {
				next = n.Content[i]
			}
		}
		if next == nil {
			return n
		}
		n = next
	}
	return resolve(n)
}

// allDigits reports whether s is a run of decimal digits, with a sign.
func allDigits(s string) bool {
	s = strings.TrimLeft(s, "+-")
	return s != "" && strings.Trim(s, "0123456789") == ""
}
