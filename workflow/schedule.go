package workflow

import (
	"fmt"
	"strings"
)

// advance runs the next step of the plan: first every ready decision and
// aggregate (they only compute), then either all ready read nodes at once
// or the first ready side-effect or confirm node alone, in the fixed order.
func (r *run) advance() {
	for progressed := true; progressed && !r.ended; {
		progressed = false
		for _, n := range r.w.order {
			if !r.ready(n) {
				continue
			}
			if why := r.skipWhy(n); why != "" {
				r.skip(n, why)
				progressed = true
				continue
			}
			if n.Kind == KindDecision || n.Kind == KindAggregate {
				if n.Kind == KindDecision {
					r.runDecision(n)
				} else {
					r.runAggregate(n)
				}
				progressed = true
				if r.ended || r.err != nil {
					return
				}
			}
		}
	}
	if r.ended {
		return
	}
	var reads []*Node
	var acting *Node
	for _, n := range r.w.order {
		if !r.ready(n) {
			continue
		}
		if n.Kind == KindTool && !n.SideEffect().Acts() {
			reads = append(reads, n)
		} else if acting == nil {
			acting = n
		}
	}
	switch {
	case len(reads) > 0:
		r.runReads(reads)
	case acting != nil && acting.Kind == KindConfirm:
		r.runConfirm(acting)
	case acting != nil:
		r.runSideEffect(acting)
	default:
		r.end(Completed, "", "", "", "", "")
	}
}

// ready: pending, and every dependency done or skipped.
func (r *run) ready(n *Node) bool {
	if r.state[n.ID].Status != NodePending {
		return false
	}
	for _, d := range n.deps {
		if r.state[d].Status == NodePending || r.state[d].Status == NodeFailed {
			return false
		}
	}
	return true
}

// skipWhy says why a ready node will not run: its deciding node chose
// another case, or something it needs was on a branch not taken. An
// aggregate runs while at least one of its inputs has an output.
func (r *run) skipWhy(n *Node) string {
	if n.decidedBy != "" && r.chosen[n.decidedBy] != n.ID {
		return fmt.Sprintf("branch not taken: decision %s chose %s", n.decidedBy, r.chosen[n.decidedBy])
	}
	inputs := map[string]bool{}
	live := 0
	for _, id := range n.Inputs {
		inputs[id] = true
		if !r.branch[id] {
			live++
		}
	}
	if n.Kind == KindAggregate && live == 0 {
		return "every input was on a branch not taken"
	}
	for _, d := range n.deps {
		if r.branch[d] && !inputs[d] {
			return fmt.Sprintf("needs %s, which was on a branch not taken", d)
		}
	}
	return ""
}

func (r *run) skip(n *Node, why string) {
	st := r.state[n.ID]
	st.Status, st.Why = NodeSkipped, why
	r.branch[n.ID] = true
	r.event(Event{Kind: EvNodeSkipped, Node: n.ID, Skill: n.Tool, Message: why})
}

// finishNode stores a node's output by ref, passes its summary on and
// writes the checkpoint.
func (r *run) finishNode(n *Node, hash string, output any, attempts int) {
	raw := mustCanonical(output)
	ref := "out-" + hashOf(output)[:16]
	if err := r.store.SaveOutput(ref, raw); err != nil {
		r.fail(err)
		return
	}
	sum, view := summarize(output, ref, n.Tool)
	r.roots[n.ID], r.raw[n.ID] = view, output
	st := r.state[n.ID]
	st.Status, st.Attempts, st.Summary, st.InputHash = NodeDone, attempts, &sum, hash
	if attempts > 1 {
		st.Status = NodeRetried
	}
	if n.Kind == KindTool && sum.Empty {
		r.o.Report.Empty = append(r.o.Report.Empty, EmptyResult{Node: n.ID, SkillUsed: n.Tool})
		r.event(Event{Kind: EvEmpty, Node: n.ID, Skill: n.Tool, Message: "empty result; skill_used: " + n.Tool})
	}
	cp := Checkpoint{Node: n.ID, InputHash: hash, OutputRef: ref, Time: r.clock.Now().UTC()}
	if err := r.store.SaveCheckpoint(r.in.ID, cp); err != nil {
		r.fail(err)
		return
	}
	r.o.Checkpoints.Written = append(r.o.Checkpoints.Written, cp)
	r.event(Event{Kind: EvCheckpoint, Node: n.ID, Message: ref})
	r.event(Event{Kind: EvNodeDone, Node: n.ID, Skill: n.Tool})
}

// resume skips a node whose input hash an earlier run checkpointed,
// restoring its output so later nodes read the same values.
func (r *run) resume(n *Node, hash string) bool {
	cp, ok, err := r.store.Checkpoint(r.in.ID, n.ID, hash)
	if err != nil {
		r.fail(err)
		return false
	}
	if !ok {
		return false
	}
	output, ok := r.restore(cp.OutputRef)
	if !ok {
		return false // the output is gone: run the node again rather than guess it
	}
	sum, view := summarize(output, cp.OutputRef, n.Tool)
	r.roots[n.ID], r.raw[n.ID] = view, output
	if n.Kind == KindDecision {
		if m, ok := output.(map[string]any); ok {
			r.chosen[n.ID], _ = m["target"].(string)
		}
	}
	if n.Kind == KindConfirm {
		r.yes[n.ID] = true
	}
	st := r.state[n.ID]
	st.Status, st.Why, st.Summary, st.InputHash = NodeSkipped, "checkpoint: done by an earlier run with the same input", &sum, hash
	r.o.Checkpoints.Skipped = append(r.o.Checkpoints.Skipped, n.ID)
	r.event(Event{Kind: EvCheckpointSkip, Node: n.ID, Skill: n.Tool, Message: cp.OutputRef})
	return true
}

func (r *run) runDecision(n *Node) {
	v, err := resolveRef(r.roots, n.On)
	if err != nil {
		r.end(Failed, n.ID, ReasonMissingInput, ReasonMissingInput, err.Error(), "")
		return
	}
	hash := hashOf("decision", n.ID, v)
	if r.resume(n, hash) {
		return
	}
	key := scalarText(v)
	target, ok := n.Cases[key]
	if !ok {
		r.end(Failed, n.ID, ReasonNoMatchingCase, ReasonNoMatchingCase,
			fmt.Sprintf("decision %s: {{%s}} is %q, which is none of the cases [%s]; nothing was guessed", n.ID, n.On, key, strings.Join(n.CaseOrder, ", ")), "")
		return
	}
	r.chosen[n.ID] = target
	r.finishNode(n, hash, map[string]any{"value": v, "target": target}, 1)
}

func (r *run) runAggregate(n *Node) {
	var inputs []any
	for _, id := range n.Inputs {
		if !r.branch[id] {
			inputs = append(inputs, r.raw[id])
		}
	}
	hash := hashOf("aggregate", n.ID, n.Rule, inputs)
	if r.resume(n, hash) {
		return
	}
	var out any
	switch n.Rule {
	case RuleFirstNonEmpty:
		for _, in := range inputs {
			if s, _ := summarize(in, "", ""); !s.Empty {
				out = in
				break
			}
		}
	case RuleConcat:
		items := []any{}
		for _, in := range inputs {
			switch x := in.(type) {
			case []any:
				items = append(items, x...)
			case map[string]any:
				if list, ok := x["items"].([]any); ok {
					items = append(items, list...)
				} else if len(x) > 0 {
					items = append(items, x)
				}
			}
		}
		out = map[string]any{"items": items}
	case RuleMerge:
		merged := map[string]any{}
		for _, in := range inputs {
			if m, ok := in.(map[string]any); ok {
				for k, v := range m {
					merged[k] = v
				}
			}
		}
		out = merged
	}
	r.finishNode(n, hash, out, 1)
}

func (r *run) runConfirm(n *Node) {
	msg, err := renderValue(n.Message, r.roots)
	if err != nil {
		r.end(Failed, n.ID, ReasonMissingInput, ReasonMissingInput, err.Error(), "")
		return
	}
	hash := hashOf("confirm", n.ID, msg)
	if r.resume(n, hash) {
		return
	}
	req := ConfirmRequest{Node: n.ID, Gate: "confirm", Message: scalarText(msg), Timeout: n.Timeout}
	if !r.ask(n, req, nil) {
		return
	}
	r.yes[n.ID] = true
	r.finishNode(n, hash, map[string]any{"answer": string(Yes)}, 1)
}
