package workflow

import (
	"maps"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/routebench/routebench/router/registry"
)

// summaryFields are what every node's output offers later steps, whatever
// the tool answers (see summarize).
var summaryFields = []string{"ref", "count", "items", "empty", "skill_used"}

// graph checks references and the shape of the DAG once every node is read,
// and fixes the execution order.
func (r *reader) graph(w *Workflow, lines map[*Node]*nodeLines) {
	ids := make([]string, 0, len(w.Nodes)+1)
	for _, n := range w.Nodes {
		ids = append(ids, n.ID)
	}
	exists := func(id string, self *Node, at *yaml.Node, field, what string) bool {
		if w.byID[id] == nil {
			hint := "use the id of a node of this workflow"
			if s := registry.Suggest(id, ids); s != "" {
				hint = "did you mean " + s + "?"
			}
			r.problem(at, field, "%s %q is not a node of workflow %s; %s", what, id, w.Name, hint)
			return false
		}
		if id == self.ID {
			r.problem(at, field, "node %q names itself; a node cannot depend on or lead to itself", id)
			return false
		}
		return true
	}
	for _, n := range w.Nodes {
		nl := lines[n]
		for _, id := range n.After {
			if exists(id, n, nl.after[id], join(nl.field, "after"), "after names") {
				n.deps = appendNew(n.deps, id)
			}
		}
		for _, id := range n.Inputs {
			if exists(id, n, nl.inputs[id], join(nl.field, "aggregate"), "aggregate names") {
				n.deps = appendNew(n.deps, id)
			}
		}
		for _, v := range n.CaseOrder {
			id, at := n.Cases[v], nl.cases[v]
			if !exists(id, n, at, join(nl.field, "decision.cases."+v), "case leads to") {
				continue
			}
			t := w.byID[id]
			if t.decidedBy != "" && t.decidedBy != n.ID {
				r.problem(at, join(nl.field, "decision.cases."+v), "node %q is already a case of decision %q; a node is chosen by one decision only", id, t.decidedBy)
				continue
			}
			t.decidedBy = n.ID
		}
		if n.On != nil {
			r.checkBranches(n, nl, r.checkRef(w, n, n.On, nl.on, join(nl.field, "decision.on"), ids))
		}
		if n.Kind == KindConfirm {
			refsIn(n.Message, "confirm.message", func(field string, ref *Ref, err error) {
				if err != nil {
					r.problem(nl.node, join(nl.field, field), "%v", err)
					return
				}
				r.checkRef(w, n, ref, nl.node, join(nl.field, field), ids)
			})
		}
		refsIn(n.Params, "params", func(field string, ref *Ref, err error) {
			at := nodeAtKey(nl.params, strings.SplitN(strings.TrimPrefix(field, "params."), ".", 2)[0])
			if err != nil {
				r.problem(at, join(nl.field, field), "%v", err)
				return
			}
			r.checkRef(w, n, ref, at, join(nl.field, field), ids)
		})
	}
	for _, n := range w.Nodes {
		if n.decidedBy != "" {
			n.deps = appendNew(n.deps, n.decidedBy)
		}
		for _, id := range n.reads {
			n.deps = appendNew(n.deps, id)
		}
	}
	if !r.acyclic(w, lines) {
		return
	}
	w.order = topoOrder(w)
	anc := ancestors(w)
	r.sideEffectOrder(w, lines, anc)
}

// checkRef checks one {{reference}}: its root exists and comes earlier, its
// path stays inside what outputs pass on and what their schemas declare.
// It returns the schema of the value read, or nil when not known.
func (r *reader) checkRef(w *Workflow, n *Node, ref *Ref, at *yaml.Node, field string, ids []string) map[string]any {
	if ref.Root == "params" {
		if len(ref.Path) == 0 || ref.Path[0].IsIndex {
			r.problem(at, field, "{{%s}} names no param; write {{params.name}}", ref)
			return nil
		}
		name := ref.Path[0].Key
		if _, ok := w.PropSchemas[name]; !ok && w.Schema != nil {
			hint := "add it to the workflow's params_schema.properties"
			if s := registry.Suggest(name, slices.Sorted(maps.Keys(w.PropSchemas))); s != "" {
				hint = "did you mean params." + s + "?"
			}
			r.problem(at, field, "{{%s}}: %q is not a workflow param; %s", ref, name, hint)
			return nil
		}
		return r.schemaOfRef(w, ref, at, field)
	}
	src := w.byID[ref.Root]
	if src == nil {
		hint := "write {{params.name}} or {{node.field}}"
		if s := registry.Suggest(ref.Root, append(ids, "params")); s != "" {
			hint = "did you mean " + s + "?"
		}
		r.problem(at, field, "{{%s}}: %q is neither params nor a node of workflow %s; %s", ref, ref.Root, w.Name, hint)
		return nil
	}
	if src == n {
		r.problem(at, field, "{{%s}} reads the node's own output; read an earlier node", ref)
		return nil
	}
	n.reads = appendNew(n.reads, src.ID)
	if len(ref.Path) == 0 {
		return nil
	}
	first := ref.Path[0]
	if first.IsIndex {
		r.problem(at, field, "{{%s}}: index a node's items, e.g. {{%s.items[0]}}", ref, ref.Root)
		return nil
	}
	if first.Key == "items" && len(ref.Path) > 1 && ref.Path[1].IsIndex && ref.Path[1].Index >= SampleSize {
		r.problem(at, field, "{{%s}}: only the first %d items pass on to later steps (context budget); use items[0..%d], {{%s.count}} or an aggregate",
			ref, SampleSize, SampleSize-1, ref.Root)
		return nil
	}
	known := outputFields(src)
	if known != nil && !slices.Contains(known, first.Key) {
		hint := ""
		if s := registry.Suggest(first.Key, known); s != "" {
			hint = "did you mean " + s + "? "
		}
		r.problem(at, field, "{{%s}}: %s has no output %q; %sits outputs are %s", ref, ref.Root, first.Key, hint, strings.Join(known, ", "))
		return nil
	}
	return r.schemaOfRef(w, ref, at, field)
}

// outputFields lists what a node's output offers, or nil when unknown (a
// tool without a result_schema may answer anything).
func outputFields(n *Node) []string {
	switch n.Kind {
	case KindDecision:
		return []string{"value", "target"}
	case KindConfirm:
		return []string{"answer"}
	case KindAggregate:
		return nil
	}
	if n.Skill == nil || n.Skill.ResultSchemaRaw == nil {
		return nil
	}
	props, ok := n.Skill.ResultSchemaRaw["properties"].(map[string]any)
	if !ok {
		return append([]string{}, summaryFields...)
	}
	return append(append([]string{}, summaryFields...), slices.Sorted(maps.Keys(props))...)
}

// acyclic reports each cycle once, naming it in execution direction.
func (r *reader) acyclic(w *Workflow, lines map[*Node]*nodeLines) bool {
	const (
		white = iota
		grey
		black
	)
	color := map[string]int{}
	var stack []string
	seen := map[string]bool{}
	ok := true
	var visit func(id string)
	visit = func(id string) {
		color[id] = grey
		stack = append(stack, id)
		for _, d := range w.byID[id].deps {
			switch color[d] {
			case white:
				visit(d)
			case grey:
				ok = false
				// stack holds id, its dep, its dep's dep...: reversed, it is
				// the order things would have to run in.
				i := len(stack) - 1
				for stack[i] != d {
					i--
				}
				cyc := append([]string{}, stack[i:]...)
				key := append([]string{}, cyc...)
				sort.Strings(key)
				if seen[strings.Join(key, ",")] {
					continue
				}
				seen[strings.Join(key, ",")] = true
				for a, b := 0, len(cyc)-1; a < b; a, b = a+1, b-1 {
					cyc[a], cyc[b] = cyc[b], cyc[a]
				}
				// Start the name at the node declared first, so it reads
				// the same whichever node the search entered the cycle by.
				at := 0
				for i, c := range cyc {
					if w.byID[c].index < w.byID[cyc[at]].index {
						at = i
					}
				}
				cyc = append(cyc[at:], cyc[:at]...)
				first := w.byID[cyc[0]]
				path := strings.Join(append(cyc, cyc[0]), " → ")
				r.problem(lines[first].node, lines[first].field, "is part of a cycle: %s; a workflow is a DAG: remove one of these dependencies (an after, a {{reference}} or a decision case)", path)
			}
		}
		stack = stack[:len(stack)-1]
		color[id] = black
	}
	for _, n := range w.Nodes {
		if color[n.ID] == white {
			visit(n.ID)
		}
	}
	return ok
}

// topoOrder is Kahn's order with ties broken by declaration order, so the
// schedule (and with it every side effect's position) is fixed.
func topoOrder(w *Workflow) []*Node {
	indeg := map[string]int{}
	succ := map[string][]*Node{}
	for _, n := range w.Nodes {
		indeg[n.ID] = len(n.deps)
		for _, d := range n.deps {
			succ[d] = append(succ[d], n)
		}
	}
	var ready, out []*Node
	for _, n := range w.Nodes {
		if indeg[n.ID] == 0 {
			ready = append(ready, n)
		}
	}
	for len(ready) > 0 {
		sort.Slice(ready, func(i, j int) bool { return ready[i].index < ready[j].index })
		n := ready[0]
		ready = ready[1:]
		out = append(out, n)
		for _, s := range succ[n.ID] {
			if indeg[s.ID]--; indeg[s.ID] == 0 {
				ready = append(ready, s)
			}
		}
	}
	return out
}

// ancestors maps each node to every node that must finish before it.
func ancestors(w *Workflow) map[string]map[string]bool {
	anc := map[string]map[string]bool{}
	for _, n := range w.order {
		set := map[string]bool{}
		for _, d := range n.deps {
			set[d] = true
			for a := range anc[d] {
				set[a] = true
			}
		}
		anc[n.ID] = set
	}
	return anc
}

// sideEffectOrder checks that side-effect nodes are totally ordered among
// themselves, and that each is explicitly ordered (through after or its
// deciding node) after every node whose output it reads: side effects must
// never depend on an order the scheduler happened to pick.
func (r *reader) sideEffectOrder(w *Workflow, lines map[*Node]*nodeLines, anc map[string]map[string]bool) {
	var acting []*Node
	for _, n := range w.Nodes {
		if n.SideEffect().Acts() {
			acting = append(acting, n)
		}
	}
	for j, b := range acting {
		for _, a := range acting[:j] {
			if !anc[b.ID][a.ID] && !anc[a.ID][b.ID] {
				r.problem(lines[b].node, lines[b].field, "side-effect node %q (%s) and %q (%s, line %d) have no fixed order; side effects run one at a time: add after: [%s] to %s",
					b.ID, b.Tool, a.ID, a.Tool, a.Pos.Line, a.ID, b.ID)
				break
			}
		}
		explicit := map[string]bool{}
		for _, p := range append(append([]string{}, b.After...), b.decidedBy) {
			if p == "" || w.byID[p] == nil {
				continue
			}
			explicit[p] = true
			for a := range anc[p] {
				explicit[a] = true
			}
		}
		for _, id := range b.reads {
			if !explicit[id] {
				r.problem(lines[b].node, join(lines[b].field, "after"), "%s node %q reads %q but is not ordered after it; add %s (or a node after it) to after, so the write waits for everything it depends on",
					b.SideEffect(), b.ID, id, id)
			}
		}
	}
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
