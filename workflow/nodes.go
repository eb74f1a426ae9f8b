package workflow

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/routebench/routebench/internal/yamldoc"
	"github.com/routebench/routebench/internal/yamlkind"
	"github.com/routebench/routebench/router/registry"
)

var nodeFields = []string{"id", "tool", "params", "after", "decision", "confirm", "aggregate", "rule"}

var idRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// Confirmation timeouts: a confirm node without one waits DefaultConfirmTimeout.
const (
	DefaultConfirmTimeout = 30 * time.Minute
	MaxConfirmTimeout     = 24 * time.Hour
)

// nodeLines remembers where each part of a node was written, for the
// graph checks that run after every node is read.
type nodeLines struct {
	node   *yaml.Node
	after  map[string]*yaml.Node // target id -> its list item
	cases  map[string]*yaml.Node // case value -> its target node
	inputs map[string]*yaml.Node
	on     *yaml.Node
	params *yaml.Node
	field  string
}

func (r *reader) nodes(n *yaml.Node, field string, w *Workflow, reg *registry.Registry) {
	if n.Kind != yaml.SequenceNode {
		r.problem(n, field, "must be a list of nodes, got %s; start each with \"- id: ...\"", yamlkind.Of(n))
		return
	}
	if len(n.Content) == 0 {
		r.problem(n, field, "is empty; a workflow needs at least one node")
		return
	}
	lines := map[*Node]*nodeLines{}
	for i, item := range n.Content {
		nf := index(field, i)
		node, nl := r.node(yamldoc.Resolve(item), nf, reg)
		if node == nil {
			continue
		}
		if prev, dup := w.byID[node.ID]; dup {
			r.problem(nl.node, join(nf, "id"), "duplicate node id %q (first at line %d); node ids must be unique in a workflow", node.ID, prev.Pos.Line)
			continue
		}
		if node.ID == "params" {
			r.problem(nl.node, join(nf, "id"), "\"params\" is reserved for {{params.name}}; pick another id")
			continue
		}
		node.index = len(w.Nodes)
		w.byID[node.ID] = node
		w.Nodes = append(w.Nodes, node)
		lines[node] = nl
	}
	r.graph(w, lines)
}

// node reads one node; nil when it has no usable id.
func (r *reader) node(n *yaml.Node, field string, reg *registry.Registry) (*Node, *nodeLines) {
	parts := map[string]*yaml.Node{}
	if !r.fields(n, field, nodeFields, func(k string, v *yaml.Node) { parts[k] = v }) {
		return nil, nil
	}
	nl := &nodeLines{node: n, field: field, after: map[string]*yaml.Node{}, cases: map[string]*yaml.Node{}, inputs: map[string]*yaml.Node{}}
	node := &Node{Pos: r.pos(n)}
	if v := parts["id"]; v == nil {
		r.problem(n, join(field, "id"), "is missing; every node needs an id that later nodes refer to")
	} else if id, ok := r.str(v, join(field, "id")); ok {
		if !idRe.MatchString(id) {
			r.problem(v, join(field, "id"), "%q is not an id; use letters, digits, _ and -, starting with a letter", id)
		}
		node.ID, node.Pos = id, r.pos(v)
	}
	var kinds []string
	for _, k := range []string{"tool", "decision", "confirm", "aggregate"} {
		if parts[k] != nil {
			kinds = append(kinds, k)
		}
	}
	switch len(kinds) {
	case 0:
		r.problem(n, field, "has no kind; give exactly one of tool, decision, confirm or aggregate")
	case 1:
		node.Kind = Kind(kinds[0])
	default:
		r.problem(n, field, "has %s; a node is exactly one of tool, decision, confirm or aggregate: split it", strings.Join(kinds, " and "))
	}
	if v := parts["after"]; v != nil {
		for i, id := range r.strList(v, join(field, "after"), true) {
			node.After = append(node.After, id)
			if v.Kind == yaml.SequenceNode {
				nl.after[id] = v.Content[i]
			} else {
				nl.after[id] = v
			}
		}
	}
	for _, k := range []string{"params", "rule"} {
		owner := map[string]Kind{"params": KindTool, "rule": KindAggregate}[k]
		if parts[k] != nil && node.Kind != "" && node.Kind != owner {
			r.problem(parts[k], join(field, k), "belongs to %s nodes only; remove it from this %s node", owner, node.Kind)
		}
	}
	switch node.Kind {
	case KindTool:
		r.toolNode(node, parts, nl, reg)
	case KindDecision:
		r.decisionNode(node, parts["decision"], nl)
	case KindConfirm:
		r.confirmNode(node, parts["confirm"], join(field, "confirm"))
	case KindAggregate:
		r.aggregateNode(node, parts, nl)
	}
	if node.ID == "" {
		return nil, nil
	}
	return node, nl
}

func (r *reader) toolNode(node *Node, parts map[string]*yaml.Node, nl *nodeLines, reg *registry.Registry) {
	field := nl.field
	v := parts["tool"]
	name, ok := r.str(v, join(field, "tool"))
	if !ok {
		return
	}
	node.Tool = name
	node.Skill = reg.Skill(name)
	if node.Skill == nil {
		hint := "use a skill of this version's skills.yaml"
		if s := registry.Suggest(name, reg.Names()); s != "" {
			hint = "did you mean " + s + "?"
		}
		r.problem(v, join(field, "tool"), "unknown skill %q; %s", name, hint)
	}
	node.Params = map[string]any{}
	if p := parts["params"]; p != nil && p.ShortTag() != "!!null" {
		nl.params = p
		val, ok := r.json(p, join(field, "params"))
		m, isMap := val.(map[string]any)
		switch {
		case !ok:
		case !isMap:
			r.problem(p, join(field, "params"), "must be a mapping of param name to value, got %s", yamlkind.Of(p))
		default:
			node.Params = m
		}
	}
	if node.Skill == nil {
		return
	}
	props := node.Skill.Properties()
	for _, name := range slices.Sorted(maps.Keys(node.Params)) {
		at := nodeAtKey(nl.params, name)
		pf := join(field, "params."+name)
		ps, defined := node.Skill.PropSchemas[name]
		if _, inProps := props[name]; !defined && !inProps {
			hint := "remove it or add it to the skill's params_schema"
			if s := registry.Suggest(name, slices.Sorted(maps.Keys(props))); s != "" {
				hint = "did you mean " + s + "?"
			}
			r.problem(at, pf, "is not a param of %s; %s", node.Tool, hint)
			continue
		}
		// Literal values are checked now; references are checked when they
		// have values, at run time.
		if val := node.Params[name]; ps != nil && !containsTemplate(val) {
			if err := ps.Validate(val); err != nil {
				r.problem(at, pf, "value %s fails %s's schema (%s); use a value the skill allows", scalarText(val), node.Tool, schemaMessage(err))
			}
		}
	}
	for _, req := range node.Skill.Required() {
		if _, ok := node.Params[req]; !ok {
			r.problem(nl.node, join(field, "params."+req), "is missing; %s requires %s: map it from {{params.name}} or an earlier output", node.Tool, req)
		}
	}
}

func containsTemplate(v any) bool {
	found := false
	refsIn(v, "", func(string, *Ref, error) { found = true })
	return found
}

func (r *reader) decisionNode(node *Node, v *yaml.Node, nl *nodeLines) {
	field := join(nl.field, "decision")
	var casesNode *yaml.Node
	if !r.fields(v, field, []string{"on", "cases"}, func(k string, val *yaml.Node) {
		if k == "on" {
			nl.on = val
		} else {
			casesNode = val
		}
	}) {
		return
	}
	if nl.on == nil {
		r.problem(v, join(field, "on"), "is missing; branch on one earlier output, e.g. on: \"{{alerts.items[0].level}}\"")
	} else if s, ok := r.str(nl.on, join(field, "on")); ok {
		t, err := parseTemplate(s)
		ref, whole := (*Ref)(nil), false
		if err == nil {
			ref, whole = t.whole()
		}
		if !whole {
			r.problem(nl.on, join(field, "on"), "%q is not one reference; a decision branches on an earlier output, written as \"{{node.field}}\", never on free text", s)
		} else {
			node.On = ref
		}
	}
	if casesNode == nil {
		r.problem(v, join(field, "cases"), "is missing; map each possible value to the node it leads to, e.g. {critical: ticket, warning: done}")
		return
	}
	if casesNode.Kind != yaml.MappingNode || len(casesNode.Content) == 0 {
		r.problem(casesNode, join(field, "cases"), "must be a non-empty mapping of literal value to node id, got %s; branches are a finite enum, e.g. {critical: ticket, warning: done}", yamlkind.Of(casesNode))
		return
	}
	node.Cases = map[string]string{}
	for i := 0; i+1 < len(casesNode.Content); i += 2 {
		k, t := casesNode.Content[i], yamldoc.Resolve(casesNode.Content[i+1])
		cf := join(field, "cases."+k.Value)
		switch {
		case k.Kind != yaml.ScalarNode || k.ShortTag() == "!!null" || k.Value == "":
			r.problem(k, join(field, "cases"), "has a key that is %s; each case is one literal value", yamlkind.Of(k))
			continue
		case hasTemplate(k.Value) || strings.ContainsAny(k.Value, "*|^$"):
			r.problem(k, cf, "%q is not a literal value; cases are a finite enum of exact values, never patterns or references", k.Value)
			continue
		}
		if _, dup := node.Cases[k.Value]; dup {
			r.problem(k, cf, "duplicate case; each value leads to one node")
			continue
		}
		target, ok := r.str(t, cf)
		if !ok {
			continue
		}
		node.Cases[k.Value] = target
		node.CaseOrder = append(node.CaseOrder, k.Value)
		nl.cases[k.Value] = t
	}
}

func (r *reader) confirmNode(node *Node, v *yaml.Node, field string) {
	node.Timeout = DefaultConfirmTimeout
	if v.Kind == yaml.ScalarNode {
		node.Message, _ = r.str(v, field)
		return
	}
	r.fields(v, field, []string{"message", "timeout"}, func(k string, val *yaml.Node) {
		switch k {
		case "message":
			node.Message, _ = r.str(val, join(field, k))
		case "timeout":
			if d, ok := r.duration(val, join(field, k), MaxConfirmTimeout); ok {
				node.Timeout = d
			}
		}
	})
	if node.Message == "" {
		r.problem(v, join(field, "message"), "is missing; say what the person is asked to approve")
	}
}

func (r *reader) aggregateNode(node *Node, parts map[string]*yaml.Node, nl *nodeLines) {
	v := parts["aggregate"]
	node.Inputs = r.strList(v, join(nl.field, "aggregate"), false)
	if v.Kind == yaml.SequenceNode {
		for i, id := range node.Inputs {
			if i < len(v.Content) {
				nl.inputs[id] = v.Content[i]
			}
		}
	}
	if v.Kind == yaml.SequenceNode && len(v.Content) == 0 {
		r.problem(v, join(nl.field, "aggregate"), "is empty; list the nodes whose outputs are merged")
	}
	rv := parts["rule"]
	if rv == nil {
		r.problem(nl.node, join(nl.field, "rule"), "is missing; give the merge rule: %s", strings.Join(aggregateRules, ", "))
		return
	}
	rule, ok := r.str(rv, join(nl.field, "rule"))
	if !ok {
		return
	}
	if !slices.Contains(aggregateRules, rule) {
		hint := ""
		if s := registry.Suggest(rule, aggregateRules); s != "" {
			hint = "did you mean " + s + "? "
		}
		r.problem(rv, join(nl.field, "rule"), "unknown rule %q; %suse %s", rule, hint, strings.Join(aggregateRules, ", "))
		return
	}
	node.Rule = rule
}

// nodeAtKey is the value node under key in a mapping, or the mapping itself.
func nodeAtKey(n *yaml.Node, key string) *yaml.Node {
	if n == nil {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i]
		}
	}
	return n
}

// schemaMessage shortens a jsonschema error to its located causes.
func schemaMessage(err error) string {
	var out []string
	for _, l := range strings.Split(err.Error(), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "jsonschema validation failed") {
			continue
		}
		out = append(out, strings.TrimPrefix(l, "- "))
	}
	if len(out) == 0 {
		return err.Error()
	}
	return fmt.Sprint(strings.Join(out, "; "))
}
