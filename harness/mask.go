package harness

import (
	"maps"
	"sort"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

// maskedOK is Result.Masked's value for a masked param whose real value
// matched the expectation, or that the case expects nothing of.
const maskedOK = "ok"

// MaskResult masks r's x-sensitive values before r is written anywhere
// (results.jsonl, and the reports rendered from the same results): the
// decision (router.MaskSensitive), the expected values of those params,
// and every one of those values, decided or expected, wherever the
// result holds free text: the input, the decision's message and errors,
// the prompt and raw output of each trace step, and a workflow case's
// outcomes, whose tool calls carry the decision's real params (their
// sensitive params are written as "***" too). An expected value is
// masked even when the router never extracted it, as happens when it
// refused, asked or chose another skill. It records in r.Masked, for
// each masked param, how its real value compared with the expectation.
// reg is the skill set the case was routed with. Call it after scoring r.
func MaskResult(reg *registry.Registry, r *Result) {
	if len(r.Turns) == 0 {
		values := ExpectedSensitiveValues(reg, r.Expect)
		values = append(values, outcomeSensitiveValues(reg, r.Workflow)...)
		values = append(values, outcomeSensitiveValues(reg, r.Resume)...)
		r.Masked, values = maskDecision(reg, r.Expect, &r.Decision, values)
		r.Input = router.MaskText(r.Input, values)
		r.Expect = maskExpect(reg, r.Expect, values)
		r.Workflow, r.Resume = maskOutcome(reg, r.Workflow, values), maskOutcome(reg, r.Resume, values)
		return
	}
	// A conversation is masked with the values of all its turns: a code
	// said in one turn may be extracted, or expected, in a later one.
	var values []string
	for _, t := range r.Turns {
		values = append(values, ExpectedSensitiveValues(reg, t.Expect)...)
	}
	for i := range r.Turns {
		t := &r.Turns[i]
		var decided []string
		t.Masked, decided = maskDecision(reg, t.Expect, &t.Decision, nil)
		values = append(values, decided...)
	}
	for i := range r.Turns {
		t := &r.Turns[i]
		router.MaskDecisionText(&t.Decision, values)
		t.Input = router.MaskText(t.Input, values)
		t.Expect = maskExpect(reg, t.Expect, values)
	}
	// The line's own input, expectation and decision are its deciding
	// turn's.
	t := r.Turns[len(r.Turns)-1]
	if r.FailedTurn > 0 && r.FailedTurn <= len(r.Turns) {
		t = r.Turns[r.FailedTurn-1]
	}
	r.Input, r.Expect, r.Decision, r.Masked = t.Input, t.Expect, t.Decision, t.Masked
}

// ExpectedSensitiveValues are the values e expects (equals and any_of)
// of its skill's x-sensitive params, in text form: what the case's
// author wrote, which the request's text most likely holds too.
func ExpectedSensitiveValues(reg *registry.Registry, e Expect) []string {
	if reg == nil || len(e.Params) == 0 || !reg.HasSensitive() {
		return nil
	}
	s := reg.Skill(e.Skill)
	if s == nil {
		return nil
	}
	var values []string
	for _, name := range s.Sensitive() {
		m, ok := e.Params[name]
		if !ok || m.Absent {
			continue
		}
		if m.Equals != nil && m.Equals != router.Masked {
			values = router.AppendValues(values, m.Equals)
		}
		for _, v := range m.AnyOf {
			if v != router.Masked {
				values = router.AppendValues(values, v)
			}
		}
	}
	return values
}

// CaseSensitiveValues are ExpectedSensitiveValues of c's expectation and
// of each of its turns', for masking what is shown of c before it is
// scored (replay's judge calls).
func CaseSensitiveValues(reg *registry.Registry, c *Case) []string {
	values := ExpectedSensitiveValues(reg, c.Expect)
	for _, t := range c.Turns {
		values = append(values, ExpectedSensitiveValues(reg, t.Expect)...)
	}
	return values
}

// maskDecision masks d's sensitive params (router.MaskSensitive) and,
// in its free text, those values and extra. It returns how each masked
// param's real value compared with e, and every value masked.
func maskDecision(reg *registry.Registry, e Expect, d *router.Decision, extra []string) (map[string]string, []string) {
	real := d.Params
	names, values := router.MaskSensitive(reg, d)
	router.MaskDecisionText(d, extra)
	values = append(values, extra...)
	if len(names) == 0 {
		return nil, values
	}
	kinds := map[string]string{}
	for _, mm := range MatchParams(e.Params, real) {
		kinds[mm.Param] = mm.Kind
	}
	out := make(map[string]string, len(names))
	for _, n := range names {
		out[n] = maskedOK
		if k, ok := kinds[n]; ok {
			out[n] = k
		}
	}
	return out, values
}

// maskExpect masks the expected values (equals, any_of) of e's skill's
// sensitive params, since the case's author wrote the real value there,
// and values inside the expected values of its other params, as the
// decision's params are masked (router.MaskDecisionText) so the two
// still compare alike. A regex is a pattern, not a value, and is kept.
func maskExpect(reg *registry.Registry, e Expect, values []string) Expect {
	if reg == nil || len(e.Params) == 0 || !reg.HasSensitive() {
		return e
	}
	sensitive := map[string]bool{}
	if s := reg.Skill(e.Skill); s != nil {
		for _, name := range s.Sensitive() {
			sensitive[name] = true
		}
	}
	var params map[string]ParamMatcher
	for name, m := range e.Params {
		changed := false
		switch {
		case m.Absent:
			continue
		case sensitive[name]:
			if m.Equals != nil {
				m.Equals, changed = router.Masked, true
			}
			if len(m.AnyOf) > 0 {
				m.AnyOf, changed = []any{router.Masked}, true
			}
		default:
			var equals, anyOf bool
			m.Equals, equals = router.MaskStrings(m.Equals, values)
			var masked any
			if masked, anyOf = router.MaskStrings(m.AnyOf, values); anyOf {
				m.AnyOf = masked.([]any)
			}
			changed = equals || anyOf
		}
		if !changed {
			continue
		}
		if params == nil {
			params = maps.Clone(e.Params)
		}
		params[name] = m
	}
	if params != nil {
		e.Params = params
	}
	return e
}

// ResultParamMismatches compares a result's decided params with its
// expectation, as scoring does: a masked param counts as it compared
// before masking (Result.Masked), not as "***".
func ResultParamMismatches(r Result) []ParamMismatch {
	all := MatchParams(r.Expect.Params, r.Decision.Params)
	if len(r.Masked) == 0 {
		return all
	}
	out := all[:0:0]
	for _, mm := range all {
		if _, masked := r.Masked[mm.Param]; !masked {
			out = append(out, mm)
		}
	}
	for name, kind := range r.Masked {
		if kind != maskedOK {
			if _, expected := r.Expect.Params[name]; expected {
				out = append(out, ParamMismatch{Param: name, Kind: kind, Want: r.Expect.Params[name], Got: router.Masked})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Param < out[j].Param })
	return out
}
