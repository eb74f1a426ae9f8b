package workflow

import (
	"fmt"
	"sync"
	"time"

	"github.com/routebench/routebench/router/registry"
)

// pending is one tool call being made.
type pending struct {
	n      *Node
	at     string // node id, or model:<skill>
	skill  *registry.Skill
	params map[string]any
	hash   string
	call   ToolCall
	res    ToolResult
	origin string
}

// prepare renders a tool node's params from earlier outputs and checks
// them: schema, rules, permission. A problem ends the run; nil is returned.
func (r *run) prepare(n *Node) *pending {
	v, err := renderValue(n.Params, r.roots)
	if err != nil {
		r.end(Failed, n.ID, ReasonMissingInput, ReasonMissingInput, err.Error(), n.Tool)
		return nil
	}
	params, _ := v.(map[string]any)
	if msg := r.checkParams(n.Skill, params); msg != "" {
		r.end(Failed, n.ID, ReasonParamsInvalid, ReasonParamsInvalid, msg, n.Tool)
		return nil
	}
	if reason, msg := r.permitted(n.Skill, params); reason != "" {
		r.end(Refused, n.ID, reason, reason, msg, n.Tool)
		return nil
	}
	return &pending{n: n, at: n.ID, skill: n.Skill, params: params, hash: hashOf(n.Tool, params), origin: "plan"}
}

// checkParams validates params against the skill's schema and the rules
// whose params are all present; "" means valid.
func (r *run) checkParams(s *registry.Skill, params map[string]any) string {
	if s.Schema != nil {
		if err := s.Schema.Validate(params); err != nil {
			return fmt.Sprintf("params for %s fail its params_schema: %s", s.Name, schemaMessage(err))
		}
	}
	for _, rule := range s.Rules {
		if !hasAll(params, rule.Reads) {
			continue
		}
		ok, err := rule.Eval(params, r.clock.Now())
		if err != nil {
			return fmt.Sprintf("params for %s: rule %q cannot be evaluated: %v", s.Name, rule.Expr, err)
		}
		if !ok {
			return fmt.Sprintf("params for %s break a rule: %s", s.Name, rule.Message)
		}
	}
	return ""
}

func hasAll(params map[string]any, names []string) bool {
	for _, n := range names {
		if _, ok := params[n]; !ok {
			return false
		}
	}
	return true
}

// permitted is the policy check in code: the skill is not disabled and the
// caller holds its scopes and those its param values ask for.
func (r *run) permitted(s *registry.Skill, params map[string]any) (reason, msg string) {
	if r.disabled[s.Name] {
		return ReasonSkillDisabled, fmt.Sprintf("skill %s is disabled for this caller", s.Name)
	}
	for _, sc := range s.PermissionScope {
		if !r.scopes[sc] {
			return ReasonPermissionDenied, fmt.Sprintf("the caller lacks scope %s, which %s needs", sc, s.Name)
		}
	}
	for _, vs := range s.ValueScopes(params) {
		for _, sc := range vs.Scopes {
			if !r.scopes[sc] {
				return ReasonPermissionDenied, fmt.Sprintf("the caller lacks scope %s, which %s needs for %s=%v", sc, s.Name, vs.Param, vs.Value)
			}
		}
	}
	return "", ""
}

// doom pushes a call into the sliding window of the last 3 calls and stops
// the run when all 3 are the same tool with the same arguments.
func (r *run) doom(skill string, params map[string]any, at string) bool {
	sig := skill + "\x00" + string(mustCanonical(params))
	r.window = append(r.window, sig)
	if len(r.window) > 3 {
		r.window = r.window[1:]
	}
	if len(r.window) < 3 || r.window[0] != sig || r.window[1] != sig {
		return false
	}
	msg := fmt.Sprintf("%s was asked for 3 times in a row with the same arguments; stopped instead of retrying silently: ask the user how to go on", skill)
	r.event(Event{Kind: EvDoomLoop, Node: at, Skill: skill, Message: msg})
	r.end(Stopped, at, ReasonDoomLoop, ReasonDoomLoop, msg, skill)
	return true
}

// classify turns a tool's answer into a call status and, for a failure,
// the error to report: a result that fails the skill's result_schema (or,
// without one, is not an object or list) is malformed, never retried.
func classify(s *registry.Skill, res ToolResult) (string, any, *ToolError) {
	if res.Err != nil {
		return "error", nil, res.Err
	}
	if res.Output == nil {
		return "empty", nil, nil
	}
	out, err := normalize(res.Output)
	if err != nil {
		return "malformed", nil, &ToolError{Code: ReasonMalformed, Message: fmt.Sprintf("result of %s is not JSON: %v", s.Name, err)}
	}
	if s.ResultSchema != nil {
		if err := s.ResultSchema.Validate(out); err != nil {
			return "malformed", nil, &ToolError{Code: ReasonMalformed, Message: fmt.Sprintf("result of %s does not match its result_schema: %s", s.Name, schemaMessage(err))}
		}
	} else {
		switch out.(type) {
		case map[string]any, []any:
		default:
			return "malformed", nil, &ToolError{Code: ReasonMalformed, Message: fmt.Sprintf("result of %s is %s, not a JSON object or list", s.Name, describe(out))}
		}
	}
	return "ok", out, nil
}

func describe(v any) string {
	s := scalarText(v)
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// record adds a finished call to the outcome.
func (r *run) record(p *pending, start, end int, status string, terr *ToolError) {
	c := Call{Node: p.at, Skill: p.skill.Name, SideEffect: string(p.skill.SideEffect), Params: p.params,
		Attempt: p.call.Attempt, Key: p.call.IdempotencyKey, Origin: p.origin, Start: start, End: end, Status: status}
	if terr != nil {
		c.Code, c.Message = terr.Code, terr.Message
	}
	r.o.Calls = append(r.o.Calls, c)
}

// callAll sends one attempt of each call: at once, bounded by MaxParallel.
// Start numbers are taken before any call is sent and end numbers after
// all have answered, so the outcome shows exactly what was let overlap.
func (r *run) callAll(batch []*pending) ([]int, []int) {
	starts, ends := make([]int, len(batch)), make([]int, len(batch))
	for i, p := range batch {
		starts[i] = r.event(Event{Kind: EvCallStart, Node: p.at, Skill: p.skill.Name, Key: p.call.IdempotencyKey, Attempt: p.call.Attempt})
	}
	if len(batch) == 1 {
		batch[0].res = r.e.Tools.Call(r.ctx, batch[0].call)
	} else {
		limit := r.e.MaxParallel
		if limit <= 0 {
			limit = 4
		}
		sem := make(chan struct{}, limit)
		var wg sync.WaitGroup
		for _, p := range batch {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				p.res = r.e.Tools.Call(r.ctx, p.call)
			}()
		}
		wg.Wait()
	}
	for i, p := range batch {
		code := ""
		if p.res.Err != nil {
			code = p.res.Err.Code
		}
		ends[i] = r.event(Event{Kind: EvCallEnd, Node: p.at, Skill: p.skill.Name, Key: p.call.IdempotencyKey, Attempt: p.call.Attempt, Code: code})
	}
	return starts, ends
}

// runReads calls ready read nodes together; a node that fails with a
// retryable error is retried once with the others that need it.
func (r *run) runReads(nodes []*Node) {
	var batch []*pending
	for _, n := range nodes {
		p := r.prepare(n)
		if p == nil {
			return
		}
		if r.resume(n, p.hash) {
			continue
		}
		if r.doom(n.Tool, p.params, n.ID) {
			return
		}
		batch = append(batch, p)
	}
	r.readAttempts(batch)
}

// readAttempts makes up to two attempts of read calls; the first failure
// (in order) ends the run with the tool's error verbatim.
func (r *run) readAttempts(batch []*pending) {
	for attempt := 1; len(batch) > 0; attempt++ {
		for _, p := range batch {
			p.call = ToolCall{Skill: p.skill.Name, Node: p.at, Params: p.params, Attempt: attempt}
		}
		starts, ends := r.callAll(batch)
		var again []*pending
		var wait time.Duration
		var failed *pending
		var failErr *ToolError
		for i, p := range batch {
			status, out, terr := classify(p.skill, p.res)
			r.record(p, starts[i], ends[i], status, terr)
			if st := r.state[p.at]; st != nil {
				st.Attempts = attempt
			}
			switch {
			case terr == nil:
				if p.origin == "plan" {
					r.finishNode(p.n, p.hash, out, attempt)
				}
			case terr.Retryable() && attempt == 1:
				r.o.Retries[p.at]++
				r.event(Event{Kind: EvRetry, Node: p.at, Skill: p.skill.Name, Attempt: 2, Code: terr.Code, Message: terr.Message})
				wait = max(wait, terr.RetryAfter)
				again = append(again, p)
			default:
				r.nodeErr[p.at] = terr
				if st := r.state[p.at]; st != nil {
					// Every failure stays visible on its node, even when
					// another node of the same wave is the one the outcome names.
					st.Status, st.Why = NodeFailed, terr.Code+": "+terr.Message
				}
				if failed == nil {
					failed, failErr = p, terr
				}
			}
		}
		if failed != nil {
			// Calls waiting for their retry are not retried once the run
			// stops; their errors stay on their nodes, never dropped.
			for _, p := range again {
				if st := r.state[p.at]; st != nil {
					st.Status, st.Why = NodeFailed, fmt.Sprintf("%s: %s (not retried: the run stopped at %s)", p.res.Err.Code, p.res.Err.Message, failed.at)
				}
			}
			r.failTool(failed.at, failed.skill.Name, failErr)
			return
		}
		if wait > 0 {
			if err := r.clock.Sleep(r.ctx, wait); err != nil {
				r.fail(err)
				return
			}
		}
		batch = again
	}
}
