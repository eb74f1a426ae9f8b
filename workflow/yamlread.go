package workflow

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/routebench/routebench/internal/yamldoc"
	"github.com/routebench/routebench/internal/yamlkind"
	"github.com/routebench/routebench/router/registry"
)

// reader reads one YAML file at the node level, collecting every problem
// with its line in router/registry's style, so all are reported at once.
type reader struct {
	file string
	list []registry.Problem
}

func (r *reader) pos(n *yaml.Node) registry.Pos { return registry.Pos{File: r.file, Line: n.Line} }

func (r *reader) problem(n *yaml.Node, field, format string, args ...any) {
	r.list = append(r.list, registry.Problem{Pos: r.pos(n), Field: field, Message: fmt.Sprintf(format, args...)})
}

func (r *reader) err() error { return registry.SortProblems(r.list) }

// merge takes in the problems of an error from a registry helper.
func (r *reader) merge(err error) {
	var le *registry.LoadError
	if errors.As(err, &le) {
		r.list = append(r.list, le.Problems...)
	} else if err != nil {
		r.list = append(r.list, registry.Problem{Pos: registry.Pos{File: r.file}, Message: err.Error()})
	}
}

// parse returns the root node of the file's only document.
func (r *reader) parse(data []byte) *yaml.Node {
	root, err := yamldoc.Parse(data)
	if err != nil {
		var ye *yamldoc.Error
		line := 0
		msg := err.Error()
		if errors.As(err, &ye) {
			line, msg = ye.Line, ye.Message
		}
		if msg == yamldoc.ErrEmpty {
			msg = "is empty; list workflows under a top-level workflows: key (DESIGN §11) or delete the file"
		}
		r.list = append(r.list, registry.Problem{Pos: registry.Pos{File: r.file, Line: line}, Message: msg})
		return nil
	}
	// An anchor reused from value to value would multiply past any count
	// of one value: the file's aliases are counted as a whole.
	if e := new(yamldoc.Aliases).CheckDoc(data, root); e != nil {
		r.list = append(r.list, registry.Problem{Pos: registry.Pos{File: r.file, Line: e.Alias.Line}, Field: e.Field, Message: e.Message()})
		return nil
	}
	return root
}

func join(parent, child string) string {
	if parent == "" {
		return child
	}
	return parent + "." + child
}

func index(parent string, i int) string { return fmt.Sprintf("%s[%d]", parent, i) }

// fields walks a mapping's pairs as router/registry does for skills.yaml,
// reporting unknown keys (with a did-you-mean) and duplicates; it returns
// false after reporting when n is not a mapping.
func (r *reader) fields(n *yaml.Node, field string, known []string, fn func(key string, v *yaml.Node)) bool {
	return registry.Fields(n, field, known, func(at *yaml.Node, field, msg string) { r.problem(at, field, "%s", msg) }, fn)
}

func (r *reader) str(n *yaml.Node, field string) (string, bool) {
	if n.Kind != yaml.ScalarNode {
		r.problem(n, field, "must be a string, got %s; write plain text (quote it if it has a colon)", yamlkind.Of(n))
		return "", false
	}
	if n.ShortTag() == "!!null" || strings.TrimSpace(n.Value) == "" {
		r.problem(n, field, "is empty; write a value or remove the field")
		return "", false
	}
	return n.Value, true
}

// strList reads a list of non-empty strings; a single string is taken as a
// list of one when one is true (permission_scope: ops:write).
func (r *reader) strList(n *yaml.Node, field string, one bool) []string {
	if n == nil || n.ShortTag() == "!!null" {
		return nil
	}
	if one && n.Kind == yaml.ScalarNode {
		if s, ok := r.str(n, field); ok {
			return []string{s}
		}
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		r.problem(n, field, "must be a list of strings, got %s; write [\"...\"] or one \"- ...\" line per item", yamlkind.Of(n))
		return nil
	}
	out := make([]string, 0, len(n.Content))
	for i, item := range n.Content {
		if s, ok := r.str(yamldoc.Resolve(item), index(field, i)); ok {
			out = append(out, s)
		}
	}
	return out
}

// json converts a node to JSON values through the registry's converter.
func (r *reader) json(n *yaml.Node, field string) (any, bool) {
	v, err := registry.JSONValue(r.file, field, n)
	if err != nil {
		r.merge(err)
		return nil, false
	}
	return v, true
}

// duration reads a Go duration such as 90s or 15m within (0, max].
func (r *reader) duration(n *yaml.Node, field string, max time.Duration) (time.Duration, bool) {
	s, ok := r.str(n, field)
	if !ok {
		return 0, false
	}
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		r.problem(n, field, "%q is not a duration; write a number with a unit, e.g. 90s, 15m or 2h", s)
	case d <= 0:
		r.problem(n, field, "is %s; a timeout must be more than zero (a confirmation with no time to answer always refuses)", s)
	case d > max:
		r.problem(n, field, "is %s, over the limit of %s; nobody should hold a run open that long, use a shorter timeout", s, max)
	default:
		return d, true
	}
	return 0, false
}
