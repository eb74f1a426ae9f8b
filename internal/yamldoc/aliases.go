package yamldoc

import (
	"bytes"
	"fmt"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// MaxValues bounds the values a loader takes from one source: a skill's
// schema and examples (router/registry), a file's aliases (Aliases).
// Anchors and aliases let a few lines of YAML stand for billions of values
// ("billion laughs"), which would hang the loader and exhaust memory; no
// real input comes near this.
const MaxValues = 100_000

// TooManyValues is the problem of a source past MaxValues, in the words
// every loader uses; what names the source, e.g. "the skill's schema and
// examples".
func TooManyValues(what string) string {
	return fmt.Sprintf("makes %s hold more than %d values (an alias counts each time it is used); "+
		"write the values out plainly, or use fewer aliases", what, MaxValues)
}

// Aliases counts what one file's aliases stand for, against MaxValues:
// each use of an alias counts every value under its anchor (a mapping, a
// list, each item and value in them, aliases within followed), however
// often the same anchor is used. Values written out are not counted: the
// file's size bounds them. A loader that follows aliases itself (Resolve)
// checks each part of the file once before reading it, so a chain of
// anchors that multiply stops after MaxValues values, not billions. The
// zero value is ready; use one per file.
type Aliases struct {
	used int
}

// AliasExcess is the alias use that takes a file's aliases past MaxValues.
type AliasExcess struct {
	// Alias is the alias node as written (its Value is the anchor's name).
	Alias *yaml.Node
	// Field is its path below the field Check was given, e.g.
	// cases[0].expect.params.p4[7].
	Field string
}

// Message says what is wrong and what to change, in TooManyValues' words;
// the file, line (Alias.Line) and Field go before it.
func (e *AliasExcess) Message() string {
	return "*" + e.Alias.Value + " " + TooManyValues("this file's aliases")
}

// Check counts the aliases used in n, a node of the file as written (not
// one reached through an alias), whose field is field. It returns the
// first use that takes the file's count past MaxValues, or nil; once the
// count is past, it returns one for any n that uses an alias. Checking
// costs the nodes written in n plus at most MaxValues more.
func (a *Aliases) Check(n *yaml.Node, field string) *AliasExcess {
	var path []pathStep
	return a.check(n, &path, field)
}

// CheckDoc is Check of a whole document parsed from data: text without a
// '*' holds no alias, and the usual file is not walked at all.
func (a *Aliases) CheckDoc(data []byte, root *yaml.Node) *AliasExcess {
	if bytes.IndexByte(data, '*') < 0 {
		return nil
	}
	return a.Check(root, "")
}

// pathStep is one step from the checked node down to a node: a mapping key
// or a list index; the field is spelt out only for an excess.
type pathStep struct {
	key     string
	index   int
	isIndex bool
}

func (a *Aliases) check(n *yaml.Node, path *[]pathStep, field string) *AliasExcess {
	if n == nil {
		return nil
	}
	switch n.Kind {
	case yaml.AliasNode:
		if !a.count(n.Alias) {
			return &AliasExcess{Alias: n, Field: spell(field, *path)}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			*path = append(*path, pathStep{key: k.Value})
			if e := a.check(k, path, field); e != nil {
				return e
			}
			if e := a.check(v, path, field); e != nil {
				return e
			}
			*path = (*path)[:len(*path)-1]
		}
	default: // documents, lists
		for i, c := range n.Content {
			if n.Kind == yaml.SequenceNode {
				*path = append(*path, pathStep{index: i, isIndex: true})
			}
			if e := a.check(c, path, field); e != nil {
				return e
			}
			if n.Kind == yaml.SequenceNode {
				*path = (*path)[:len(*path)-1]
			}
		}
	}
	return nil
}

// count adds the values an alias to n stands for and reports whether the
// file is still within MaxValues. It stops as soon as it is not, so it
// never walks more than MaxValues nodes in all (a cycle through a list or
// mapping, which no parser makes, stops too).
func (a *Aliases) count(n *yaml.Node) bool {
	if n == nil {
		return a.used <= MaxValues
	}
	if n.Kind == yaml.AliasNode {
		return a.count(n.Alias)
	}
	if n.Kind != yaml.DocumentNode {
		a.used++
	}
	if a.used > MaxValues {
		return false
	}
	for i, c := range n.Content {
		// A mapping's plain keys belong to their values; a key that is a
		// collection or an alias is a value of its own.
		if n.Kind == yaml.MappingNode && i%2 == 0 && c.Kind == yaml.ScalarNode {
			continue
		}
		if !a.count(c) {
			return false
		}
	}
	return true
}

// spell writes a path as the loaders name fields: key.key[index].
func spell(field string, path []pathStep) string {
	b := []byte(field)
	for _, s := range path {
		if s.isIndex {
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(s.index), 10)
			b = append(b, ']')
			continue
		}
		if len(b) > 0 {
			b = append(b, '.')
		}
		b = append(b, s.key...)
	}
	return string(b)
}
