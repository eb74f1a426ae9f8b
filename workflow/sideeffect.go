package workflow

import (
	"fmt"

	"github.com/routebench/routebench/router/registry"
)

// idempotencyKey is derived by the engine alone, from the run, the node and
// the input hash: a retry of the same input reuses it, and no model output
// can change it.
func idempotencyKey(runID, node, inputHash string) string {
	return "idk-" + hashOf(runID, node, inputHash)[:32]
}

// runSideEffect runs one write, delete or send node, alone: checkpoint and
// ledger first (never twice), then the doom-loop window, the dry-run
// preview and the gate, then at most two attempts with the same key.
func (r *run) runSideEffect(n *Node) {
	p := r.prepare(n)
	if p == nil || r.resume(n, p.hash) {
		return
	}
	key := idempotencyKey(r.in.ID, n.ID, p.hash)
	if r.alreadyExecuted(n, p, key) {
		return
	}
	if r.doom(n.Tool, p.params, n.ID) {
		return
	}
	p.call = ToolCall{Skill: n.Tool, Node: n.ID, Params: p.params, IdempotencyKey: key, Attempt: 1}
	pv := r.e.Tools.Preview(r.ctx, p.call)
	count := affects(p.params, pv)
	if pv != nil {
		r.event(Event{Kind: EvPreview, Node: n.ID, Skill: n.Tool, Key: key, Message: fmt.Sprintf("would affect %d item(s)", count)})
	}
	gate := n.Skill.Confirm
	if gate == "" {
		gate = registry.GateNormal
	}
	if gate == registry.GateIrreversible && count > 1 {
		msg := fmt.Sprintf("%s is irreversible and this call would affect %d items; it must be done one at a time", n.Tool, count)
		r.event(Event{Kind: EvGateRefused, Node: n.ID, Skill: n.Tool, Message: msg})
		r.end(Refused, n.ID, ReasonIrreversibleBulk, ReasonIrreversibleBulk, msg, n.Tool)
		return
	}
	if count > BatchThreshold {
		gate = registry.GateBatch
	}
	var sample []any
	if pv != nil {
		sample = sampleOf(pv.Items)
	}
	if !r.gate(n, p, gate, count, sample) {
		return
	}
	for attempt := 1; attempt <= 2; attempt++ {
		p.call.Attempt = attempt
		starts, ends := r.callAll([]*pending{p})
		status, out, terr := classify(n.Skill, p.res)
		r.record(p, starts[0], ends[0], status, terr)
		r.state[n.ID].Attempts = attempt
		rc := Receipt{Node: n.ID, Skill: n.Tool, Operation: string(n.Skill.SideEffect), Status: "failed",
			ExternalID: p.res.ExternalID, Key: key, Attempt: attempt, Preview: pv}
		switch {
		case terr == nil:
			rc.Status = "success"
			rc.OutputRef = "out-" + hashOf(out)[:16]
			r.o.Receipts = append(r.o.Receipts, rc)
			// The ledger is written before anything else: if the run dies
			// now, a re-run finds the key and does not act again.
			if err := r.store.SaveExecuted(key, rc); err != nil {
				r.fail(err)
				return
			}
			r.o.Report.Succeeded = append(r.o.Report.Succeeded, n.ID)
			r.finishNode(n, p.hash, out, attempt)
			return
		case status == "malformed":
			// The tool answered, so it may have acted: the key is spent.
			rc.Status = "malformed"
			r.o.Receipts = append(r.o.Receipts, rc)
			if err := r.store.SaveExecuted(key, rc); err != nil {
				r.fail(err)
				return
			}
		default:
			r.o.Receipts = append(r.o.Receipts, rc)
		}
		if terr.Retryable() && attempt == 1 {
			r.o.Retries[n.ID]++
			r.event(Event{Kind: EvRetry, Node: n.ID, Skill: n.Tool, Key: key, Attempt: 2, Code: terr.Code, Message: terr.Message})
			if terr.RetryAfter > 0 {
				if err := r.clock.Sleep(r.ctx, terr.RetryAfter); err != nil {
					r.fail(err)
					return
				}
			}
			continue
		}
		r.nodeErr[n.ID] = terr
		r.failTool(n.ID, n.Tool, terr)
		return
	}
}

// alreadyExecuted blocks a key the ledger holds (an earlier run acted and
// died before its checkpoint): the node is done, from the recorded receipt.
func (r *run) alreadyExecuted(n *Node, p *pending, key string) bool {
	rc, ok, err := r.store.Executed(key)
	if err != nil {
		r.fail(err)
		return true
	}
	if !ok {
		return false
	}
	r.event(Event{Kind: EvDuplicateBlocked, Node: n.ID, Skill: n.Tool, Key: key,
		Message: fmt.Sprintf("key already executed (receipt %s, %s); not sent again", rc.ExternalID, rc.Status)})
	if rc.Status != "success" {
		r.failTool(n.ID, n.Tool, &ToolError{Code: ReasonMalformed, Message: fmt.Sprintf("an earlier attempt of %s answered a malformed result; it is not sent again", n.Tool)})
		return true
	}
	output, _ := r.restore(rc.OutputRef)
	r.finishNode(n, p.hash, output, 1)
	st := r.state[n.ID]
	st.Status, st.Why = NodeSkipped, "ledger: key already executed by an earlier run (receipt "+rc.ExternalID+")"
	r.o.Checkpoints.Skipped = append(r.o.Checkpoints.Skipped, n.ID)
	return true
}

// affects is how many items a call touches: the preview's count, else the
// length of the largest list param, else 1 (DESIGN §2's default).
func affects(params map[string]any, pv *Preview) int {
	if pv != nil {
		return max(pv.Count, len(pv.Items))
	}
	count := 1
	for _, v := range params {
		if list, ok := v.([]any); ok {
			count = max(count, len(list))
		}
	}
	return count
}

func sampleOf(items []any) []any {
	if len(items) == 0 {
		return nil
	}
	return append([]any{}, items[:min(len(items), SampleSize)]...)
}

// gate asks for the confirmation the node's gate needs. A normal gate is
// met by a confirm node the node runs directly after; a batch or
// irreversible gate is always asked, with the count and a sample.
func (r *run) gate(n *Node, p *pending, gate registry.Gate, count int, sample []any) bool {
	if gate == registry.GateNormal {
		for _, a := range n.After {
			if r.yes[a] {
				r.o.Confirmations = append(r.o.Confirmations, Confirmation{Node: n.ID, Gate: string(gate), Answer: Yes, Via: a, Seq: r.next()})
				return true
			}
		}
	}
	req := ConfirmRequest{Node: n.ID, Skill: n.Tool, Gate: string(gate), Params: p.params,
		Message: fmt.Sprintf("%s %s via %s", n.Skill.SideEffect, n.ID, n.Tool)}
	if gate == registry.GateBatch || count > 1 {
		req.Count, req.Sample = count, sample
		req.Message = fmt.Sprintf("%s will affect %d items, e.g. %s", n.Tool, count, scalarText(sample))
	}
	return r.ask(n, req, p.params)
}

// ask puts a question to the Confirmer. Only yes goes on, and only if the
// caller still holds every scope the run needs; no and timeout refuse,
// pending (or no confirmer) suspends the run.
func (r *run) ask(n *Node, req ConfirmRequest, params map[string]any) bool {
	if r.in.Confirmer == nil {
		r.o.Pending = &req
		r.end(AwaitingConfirmation, n.ID, ReasonAwaiting, "", "waiting for a person to confirm: "+req.Message, n.Tool)
		return false
	}
	r.event(Event{Kind: EvConfirmAsked, Node: n.ID, Skill: n.Tool, Message: req.Message})
	resp := r.in.Confirmer.Confirm(r.ctx, req)
	seq := r.event(Event{Kind: EvConfirmAnswer, Node: n.ID, Skill: n.Tool, Message: string(resp.Answer)})
	answer := resp.Answer
	if answer != Yes && answer != No && answer != Pending {
		answer = Timeout // anything but a clear answer is no answer
	}
	r.o.Confirmations = append(r.o.Confirmations, Confirmation{Node: n.ID, Gate: req.Gate, Count: req.Count, Sample: req.Sample, Answer: answer, Seq: seq})
	switch answer {
	case Yes:
		for _, s := range resp.Revoked {
			delete(r.scopes, s)
			r.event(Event{Kind: EvPermRevoked, Node: n.ID, Message: s})
		}
		if s := r.missingScope(n, params); s != "" {
			r.end(Refused, n.ID, ReasonPermRevoked, ReasonPermRevoked,
				fmt.Sprintf("scope %s was revoked while waiting for confirmation; permissions are checked again after every confirmation, and nothing more ran", s), n.Tool)
			return false
		}
		return true
	case Pending:
		r.o.Pending = &req
		r.end(AwaitingConfirmation, n.ID, ReasonAwaiting, "", "waiting for a person to confirm: "+req.Message, n.Tool)
	case No:
		r.end(Refused, n.ID, ReasonDeclined, ReasonDeclined, "the person declined: "+req.Message, n.Tool)
	default:
		r.end(Refused, n.ID, ReasonConfirmTimeout, ReasonConfirmTimeout,
			fmt.Sprintf("no answer in time to: %s; a confirmation that times out is a refusal", req.Message), n.Tool)
	}
	return false
}

// missingScope is the first scope the run still needs that the caller no
// longer holds, or "".
func (r *run) missingScope(n *Node, params map[string]any) string {
	for _, s := range r.w.Scopes() {
		if !r.scopes[s] {
			return s
		}
	}
	if n.Skill != nil {
		for _, vs := range n.Skill.ValueScopes(params) {
			for _, s := range vs.Scopes {
				if !r.scopes[s] {
					return s
				}
			}
		}
	}
	return ""
}
