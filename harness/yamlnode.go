package harness

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/routebench/routebench/internal/textdist"
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

var yamlErrLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parseYAML returns a document's root node, or the problem that stops it.
func parseYAML(file string, data []byte) (*yaml.Node, *registry.Problem) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		msg, line := err.Error(), 0
		if m := yamlErrLine.FindStringSubmatch(msg); m != nil {
			line, _ = strconv.Atoi(m[1])
			msg = m[2]
		} else {
			msg = strings.TrimPrefix(msg, "yaml: ")
		}
		return nil, &registry.Problem{Pos: registry.Pos{File: file, Line: line},
			Message: fmt.Sprintf("is not valid YAML: %s; fix the syntax (indentation, quoting, a missing colon)", msg)}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, &registry.Problem{Pos: registry.Pos{File: file}, Message: "is empty; write the document described in DESIGN §5"}
	}
	return resolve(doc.Content[0]), nil
}

// fields walks a mapping, reporting unknown and repeated keys, and calls fn
// for each known key with its (alias-resolved) value.
func (y *ynode) fields(n *yaml.Node, field string, known []string, fn func(key string, v *yaml.Node)) {
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolve(n.Content[i+1])
		f := joinField(field, k.Value)
		if !slices.Contains(known, k.Value) {
			hint := ""
			if s := suggest(k.Value, known); s != "" {
				hint = fmt.Sprintf("did you mean %q? ", s)
			}
			y.problem(k, f, "unknown field; %sknown fields here: %s", hint, strings.Join(known, ", "))
			continue
		}
		if seen[k.Value] {
			y.problem(k, f, "appears twice; keep one")
			continue
		}
		seen[k.Value] = true
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
	if n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" || n.ShortTag() == "!!bool" {
		y.problem(n, field, "must be a string, got %s", yamlkind.Of(n))
		return ""
	}
	return n.Value
}

func (y *ynode) strList(n *yaml.Node, field string) []string {
	if n.Kind != yaml.SequenceNode {
		y.problem(n, field, "must be a list of strings, got %s", yamlkind.Of(n))
		return nil
	}
	out := make([]string, 0, len(n.Content))
	for i, item := range n.Content {
		if s := y.str(resolve(item), fmt.Sprintf("%s[%d]", field, i)); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func joinField(parent, child string) string {
	if parent == "" {
		return child
	}
	return parent + "." + child
}

func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

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
