package workflow

import (
	"fmt"
	"slices"

	"github.com/routebench/routebench/router/registry"
)

// modelSkill finds a skill the model names: the workflow's own first, then
// the engine's registry.
func (r *run) modelSkill(name string) *registry.Skill {
	for _, n := range r.w.Nodes {
		if n.Tool == name && n.Skill != nil {
			return n.Skill
		}
	}
	if r.e.Registry != nil {
		return r.e.Registry.Skill(name)
	}
	return nil
}

func (r *run) blocked(at, skill, code, msg string) {
	r.event(Event{Kind: EvCallBlocked, Node: at, Skill: skill, Code: code, Message: msg})
}

// modelCall handles a call the model asks for outside the plan. It counts
// in the doom-loop window; it must pass the same policy, availability and
// params checks as a plan node; a side effect never runs this way (only as
// a plan node behind its gate), and a read runs with the usual retry rule.
func (r *run) modelCall(st Step) {
	at := ModelStepPrefix + st.Skill
	if r.ended {
		r.blocked(at, st.Skill, "run_ended", "the run has ended; nothing runs after its outcome")
		return
	}
	v, err := normalize(st.Params)
	params, ok := v.(map[string]any)
	if err != nil || (!ok && v != nil) {
		r.blocked(at, st.Skill, ReasonParamsInvalid, "the model's params are not a JSON object")
		return
	}
	if params == nil {
		params = map[string]any{}
	}
	if r.doom(st.Skill, params, at) {
		return
	}
	s := r.modelSkill(st.Skill)
	if s == nil {
		r.blocked(at, st.Skill, "unknown_skill", fmt.Sprintf("%q is not a skill of this version; nothing was called", st.Skill))
		return
	}
	if reason, msg := r.permitted(s, params); reason != "" {
		r.blocked(at, s.Name, reason, msg+"; nothing was called")
		return
	}
	if !r.avail[s.Name] && len(FailClosed(r.ctx, r.e.Tools, []string{s.Name})) == 0 {
		r.blocked(at, s.Name, ReasonUnavailable, s.Name+"'s source is unavailable; nothing was called")
		return
	}
	if s.SideEffect.Acts() {
		for _, n := range r.w.order {
			if n.Tool != s.Name {
				continue
			}
			key := idempotencyKey(r.in.ID, n.ID, hashOf(s.Name, params))
			if rc, done, err := r.store.Executed(key); err == nil && done {
				r.event(Event{Kind: EvDuplicateBlocked, Node: n.ID, Skill: s.Name, Key: key,
					Message: fmt.Sprintf("the model asked for %s again; key already executed (receipt %s), not sent again", s.Name, rc.ExternalID)})
				return
			}
		}
		r.blocked(at, s.Name, "off_plan_side_effect", fmt.Sprintf("%s is a %s; side effects run only as plan nodes, in their fixed order, behind their gates", s.Name, s.SideEffect))
		return
	}
	if msg := r.checkParams(s, params); msg != "" {
		r.blocked(at, s.Name, ReasonParamsInvalid, msg+"; nothing was called")
		return
	}
	r.readAttempts([]*pending{{at: at, skill: s, params: params, hash: hashOf(s.Name, params), origin: "model"}})
}

// modelRetry answers a model that asks for a retry. The engine already
// retried whatever could be retried, once: every such request is refused
// and recorded, with why.
func (r *run) modelRetry(st Step) {
	n := r.w.Node(st.Node)
	code, msg := "", ""
	switch {
	case n == nil:
		code, msg = "unknown_node", fmt.Sprintf("%q is not a node of workflow %s", st.Node, r.w.Name)
	case r.state[n.ID].Status == NodePending:
		code, msg = "not_run", fmt.Sprintf("node %s has not run; it runs in plan order", n.ID)
	case r.state[n.ID].Status != NodeFailed:
		code, msg = "already_done", fmt.Sprintf("node %s is %s; running it again would repeat it", n.ID, r.state[n.ID].Status)
	case r.nodeErr[n.ID] != nil && !r.nodeErr[n.ID].Retryable():
		e := r.nodeErr[n.ID]
		code, msg = "not_retryable", fmt.Sprintf("node %s failed with %s (%s), which is not retryable: 4xx, params, permission and malformed errors stop at once", n.ID, e.Code, e.Message)
	case r.o.Retries[n.ID] > 0:
		code, msg = "retried_once", fmt.Sprintf("node %s was already retried once; a node is retried at most once", n.ID)
	default:
		code, msg = "run_ended", fmt.Sprintf("node %s stopped the run (%s); a run does not resume on the model's word", n.ID, r.o.Reason)
	}
	r.event(Event{Kind: EvRetryRefused, Node: st.Node, Code: code, Message: msg})
}

// claim records what the model says and checks it: success of a side
// effect needs a success receipt from this run, success of the run needs
// the outcome completed. A model's word is never evidence.
func (r *run) claim(st Step) {
	c := Claim{Claim: st.Claim, Node: st.Node}
	success := st.Claim == "success"
	switch {
	case st.Node != "":
		n := r.w.Node(st.Node)
		switch {
		case n == nil:
			c.Why = "no such node"
		case n.SideEffect().Acts():
			has := slices.Contains(r.o.Report.Succeeded, n.ID)
			c.Verified = has == success
			if !has {
				c.Why = "no success receipt for " + n.ID
			}
		default:
			st := r.state[n.ID].Status
			done := st == NodeDone || st == NodeRetried
			c.Verified = done == success
			c.Why = "node is " + string(st)
		}
	case !r.ended:
		c.Why = "the run has not ended"
	default:
		c.Verified = (r.o.Outcome == Completed) == success
		c.Why = "outcome is " + string(r.o.Outcome)
	}
	c.Seq = r.event(Event{Kind: EvClaim, Node: st.Node, Code: st.Claim, Message: fmt.Sprintf("verified=%t: %s", c.Verified, c.Why)})
	r.o.Claims = append(r.o.Claims, c)
}
