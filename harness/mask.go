package harness

import (
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
// and the values where they appear in the input text. It records in
// r.Masked, for each masked param, how its real value compared with the
// expectation. reg is the skill set the case was routed with. Call it
// after scoring r.
func MaskResult(reg *registry.Registry, r *Result) {
	// Each turn of a conversation keeps its own comparison record; the
	// line's own input, expectation and decision are a copy of its deciding
	// turn (sharing its maps), so they are taken from the masked turn.
	if len(r.Turns) > 0 {
		for i := range r.Turns {
			t := &r.Turns[i]
			t.Masked = maskDecision(reg, t.Expect, &t.Decision, &t.Input)
			if len(t.Masked) > 0 {
				t.Expect = maskExpect(reg, t.Expect)
			}
		}
		t := r.Turns[len(r.Turns)-1]
		if r.FailedTurn > 0 && r.FailedTurn <= len(r.Turns) {
			t = r.Turns[r.FailedTurn-1]
		}
		r.Input, r.Expect, r.Decision, r.Masked = t.Input, t.Expect, t.Decision, t.Masked
		return
	}
	r.Masked = maskDecision(reg, r.Expect, &r.Decision, &r.Input)
	if len(r.Masked) > 0 {
		r.Expect = maskExpect(reg, r.Expect)
	}
}

func maskDecision(reg *registry.Registry, e Expect, d *router.Decision, input *string) map[string]string {
	real := d.Params
	names, values := router.MaskSensitive(reg, d)
	*input = router.MaskText(*input, values)
	if len(names) == 0 {
		return nil
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
	return out
}

// maskExpect masks the expected values (equals, any_of) of e's skill's
// sensitive params: the case's author wrote the real value there. A regex
// is a pattern, not a value, and is kept.
func maskExpect(reg *registry.Registry, e Expect) Expect {
	if reg == nil || len(e.Params) == 0 {
		return e
	}
	s := reg.Skill(e.Skill)
	if s == nil {
		return e
	}
	var params map[string]ParamMatcher
	for _, name := range s.Sensitive() {
		m, ok := e.Params[name]
		if !ok || m.Absent {
			continue
		}
		if params == nil {
			params = make(map[string]ParamMatcher, len(e.Params))
			for k, v := range e.Params {
				params[k] = v
			}
		}
		if m.Equals != nil {
			m.Equals = router.Masked
		}
		if len(m.AnyOf) > 0 {
			m.AnyOf = []any{router.Masked}
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
