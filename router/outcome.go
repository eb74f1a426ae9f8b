package router

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/routebench/routebench/router/registry"
)

// checkParams is stage 5 for an acting decision. Schema or rule failures
// get one repair attempt from a model judge (when the contract repair did
// not already spend it); what still fails turns into clarify, asking for
// exactly those fields; a permission failure refuses.
func (rt *routing) checkParams(ctx context.Context, s *registry.Skill, v verdict, action Action, cands []*registry.Skill, ranking []Candidate) error {
	params := withoutNulls(v.Params)
	errs := validateParams(s, rt.set.quick[s], params, rt.held, rt.now)
	rt.trace(TraceStep{Stage: "params", Choice: s.Name, Errors: errs, Note: paramsNote(errs)})
	if len(errs) > 0 && !hasLayer(errs, LayerPermission) && !rt.repaired && !isBuiltinJudge(rt.set.models.Judge) {
		rt.repaired = true
		jreq := JudgeRequest{
			Text: rt.text, Now: rt.now, SystemPrompt: rt.prompt(cands), Candidates: cands,
			Recall: ranking, Version: rt.r.v, Repair: &Repair{Raw: rt.lastRaw(), Errors: errs}, Turns: rt.req.Turns,
		}
		_, fixed, cerrs, perr := rt.ask(ctx, jreq, 2)
		if perr != nil {
			return rt.providerFailed(ctx, perr)
		}
		fixedSkill, outcome, _ := resolveSkill(fixed.Skill, cands)
		switch {
		case len(cerrs) > 0:
			rt.trace(TraceStep{Stage: "params", Note: "the repair did not match the contract; the first answer stands"})
		case outcome == choiceInvalid:
			rt.flagLastCall(invalidSkill(fixed.Skill, cands))
			rt.trace(TraceStep{Stage: "params", Note: fmt.Sprintf("the repair named %q, which is not a candidate; the first answer stands", fixed.Skill)})
		case outcome != choiceSkill || fixedSkill != s:
			rt.trace(TraceStep{Stage: "params", Note: fmt.Sprintf("the repair switched to %q; only a params repair is taken, the first answer stands", fixed.Skill)})
		default:
			params = withoutNulls(fixed.Params)
			errs = validateParams(s, rt.set.quick[s], params, rt.held, rt.now)
			rt.trace(TraceStep{Stage: "params", Choice: s.Name, Attempt: 2, Errors: errs, Note: paramsNote(errs)})
		}
	}
	rt.d.Skill = s.Name
	rt.d.Params = params
	switch {
	case hasLayer(errs, LayerPermission):
		rt.d.Errors = append(rt.d.Errors, errs...)
		var msgs []string
		for _, e := range errs {
			if e.Layer == LayerPermission {
				msgs = append(msgs, e.Message)
			}
		}
		rt.refuse("Not allowed, so nothing was run: " + strings.Join(msgs, "; ") + ".")
	case len(errs) > 0:
		rt.d.Errors = append(rt.d.Errors, errs...)
		fields := invalidFields(s, errs)
		var msgs []string
		for _, e := range errs {
			msgs = append(msgs, e.Message)
		}
		rt.d.Action = Clarify
		rt.d.Candidates = topTwo(ranking)
		rt.d.Message = fmt.Sprintf("To use %s, please give %s (%s).", s.Name, joinNames(fields), strings.Join(msgs, "; "))
	default:
		rt.d.Action = action
		if action == Confirm {
			rt.confirmGate(s, params)
		}
	}
	return nil
}

func paramsNote(errs []Error) string {
	if len(errs) == 0 {
		return "params valid"
	}
	return ""
}

func hasLayer(errs []Error, layer string) bool {
	return slices.ContainsFunc(errs, func(e Error) bool { return e.Layer == layer })
}

// invalidFields names the params a clarifying question must ask for: the
// field each error points at, and for a rule every param it reads (a start
// after its end is fixed by changing either).
func invalidFields(s *registry.Skill, errs []Error) []string {
	var out []string
	add := func(f string) {
		if f != "" && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	for _, e := range errs {
		if e.Layer == LayerRule {
			for _, r := range s.Rules {
				if r.Expr == e.Rule {
					for _, f := range ruleReads(r) {
						add(f)
					}
				}
			}
		}
		add(topField(e.Path))
	}
	if len(out) == 0 {
		out = append(out, "the parameters")
	}
	return out
}

// refuse settles the decision as a refusal with a plain message.
func (rt *routing) refuse(msg string) {
	rt.d.Action = Refuse
	rt.d.Gate = ""
	if rt.d.Stage == "" {
		rt.d.Stage = "policy"
	}
	if rt.d.Errors == nil {
		rt.d.Errors = []Error{}
	}
	if !hasLayer(rt.d.Errors, LayerPermission) {
		rt.d.Skill = ""
		rt.d.Params = map[string]any{}
	}
	rt.d.Message = msg
}

// fail settles the decision as a judge or provider failure: action error,
// never a refusal.
func (rt *routing) fail(errs ...Error) {
	rt.d.Action = Fail
	rt.d.Skill = ""
	rt.d.Params = map[string]any{}
	rt.d.Confidence = 0
	rt.d.Gate = ""
	rt.d.Errors = append(rt.d.Errors, errs...)
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Message
	}
	what := "the judge failed"
	if len(errs) > 0 && errs[0].Category == CatSchemaError {
		what = "the judge's answer did not match the output contract"
	}
	rt.d.Message = fmt.Sprintf("Routing failed: %s (%s).", what, strings.Join(msgs, "; "))
}

// clarifyBetween settles the decision as a question offering candidates.
func (rt *routing) clarifyBetween(offer []Candidate) {
	rt.d.Action = Clarify
	rt.d.Candidates = offer
	names := candidateNames(offer)
	switch len(names) {
	case 0:
		rt.d.Message = "Could you say more about what you need?"
	case 1:
		rt.d.Message = fmt.Sprintf("Did you mean %s? Please confirm or rephrase.", names[0])
	default:
		rt.d.Message = fmt.Sprintf("Did you mean %s or %s? Please say which one, or rephrase.", names[0], names[1])
	}
}

// capabilities states the boundary: what the system can do here.
func capabilities(cands []*registry.Skill) string {
	return string(appendCapabilities(nil, cands))
}

// appendCapabilities appends capabilities(cands) to b.
func appendCapabilities(b []byte, cands []*registry.Skill) []byte {
	if len(cands) == 0 {
		return b
	}
	b = append(b, "I can help with: "...)
	for i, c := range cands {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, c.Name...)
	}
	return append(b, '.')
}

// joinNames lists names as "a", "a and b" or "a, b and c".
func joinNames(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
