package router

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/routebench/routebench/router/registry"
)

// judgeWithRepair is stage 3: compose the prompt, call the judge, parse and
// validate its output against the contract. A model judge whose output does
// not parse or match gets exactly one repair attempt with the structured
// errors; the builtin judge is deterministic and would only repeat itself.
// ok is false when the decision is already settled as an error; err is only
// a cancelled context. ranking is the judge's scores over the candidates,
// best first, or recall's when the judge gives none.
func (rt *routing) judgeWithRepair(ctx context.Context, cands []*registry.Skill, recall []Candidate) (v verdict, ranking []Candidate, ok bool, err error) {
	jreq := JudgeRequest{
		Text:         rt.text,
		Now:          rt.now,
		SystemPrompt: rt.prompt(cands),
		Candidates:   cands,
		Recall:       recall,
		Version:      rt.r.v,
		Turns:        rt.req.Turns,
	}
	resp, v, errs, perr := rt.ask(ctx, jreq, 1)
	if perr != nil {
		return verdict{}, nil, false, rt.providerFailed(ctx, perr)
	}
	if len(errs) > 0 && !isBuiltinJudge(rt.set.models.Judge) {
		rt.repaired = true
		jreq.Repair = &Repair{Raw: resp.Raw, Errors: errs}
		resp, v, errs, perr = rt.ask(ctx, jreq, 2)
		if perr != nil {
			return verdict{}, nil, false, rt.providerFailed(ctx, perr)
		}
	}
	if len(errs) > 0 {
		rt.fail(errs...)
		return verdict{}, nil, false, nil
	}
	return v, judgeRanking(resp.Scores, cands, recall), true, nil
}

// lastRaw is the raw output of the latest judge attempt, for a params repair.
func (rt *routing) lastRaw() string {
	for i := len(rt.d.Trace) - 1; i >= 0; i-- {
		if t := rt.d.Trace[i]; t.Stage == "judge" && t.Attempt > 0 {
			return t.Raw
		}
	}
	return ""
}

// ask makes one judge call and records it in the trace.
func (rt *routing) ask(ctx context.Context, jreq JudgeRequest, attempt int) (JudgeResponse, verdict, []Error, error) {
	judge := rt.set.models.Judge
	resp, err := judge.Judge(ctx, jreq)
	step := TraceStep{Stage: "judge", Provider: judge.Name(), Attempt: attempt}
	if err != nil {
		step.Errors = []Error{{Category: CatProviderError, Message: err.Error()}}
		rt.trace(step)
		return resp, verdict{}, nil, err
	}
	rt.addUsage(resp.Usage)
	v, errs := responseVerdict(resp, rt.r.v.Contract, rt.r.contract)
	step.Prompt, step.Raw, step.Usage, step.Errors = resp.Prompt, resp.Raw, resp.Usage, errs
	if errs == nil {
		step.Choice, step.Confidence = v.Skill, rt.floatp(v.Confidence)
	}
	rt.trace(step)
	return resp, v, errs, nil
}

func (rt *routing) providerFailed(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	rt.fail(Error{Category: CatProviderError, Message: err.Error()})
	return nil
}

func (rt *routing) addUsage(u *Usage) {
	if u == nil {
		return
	}
	if rt.d.Usage == nil {
		rt.d.Usage = &Usage{}
	}
	rt.d.Usage.InputTokens += u.InputTokens
	rt.d.Usage.OutputTokens += u.OutputTokens
	rt.d.Usage.CostUSD += u.CostUSD
}

// prompt composes the system prompt from the skill set's cached sections.
// The builtin judge reads candidates' definitions directly and never the
// prompt, so composing one for it would only cost latency.
func (rt *routing) prompt(cands []*registry.Skill) string {
	if isBuiltinJudge(rt.set.models.Judge) {
		return ""
	}
	sections := make([]string, len(cands))
	for i, s := range cands {
		sections[i] = rt.set.sections[s]
	}
	return composePrompt(rt.r.v, sections)
}

// judgeRanking orders the judge's scores for the candidates, best first,
// ties by candidate order; names that are not candidates are ignored.
func judgeRanking(scores []Candidate, cands []*registry.Skill, recall []Candidate) []Candidate {
	pos := candidatePositions(cands)
	var room [16]rankedAt // a usual judge's scores, on the stack
	out := room[:0]
	for _, c := range scores {
		if at, ok := pos.of(c.Skill); ok && !slices.ContainsFunc(out, func(r rankedAt) bool { return r.Skill == c.Skill }) {
			out = append(out, rankedAt{Candidate{Skill: c.Skill, Score: round4(c.Score)}, at})
		}
	}
	if len(out) == 0 {
		return recall
	}
	slices.SortStableFunc(out, func(a, b rankedAt) int {
		if a.Score != b.Score {
			return cmp.Compare(b.Score, a.Score)
		}
		return a.at - b.at
	})
	ranked := make([]Candidate, len(out))
	for i, r := range out {
		ranked[i] = r.Candidate
	}
	return ranked
}

// rankedAt is a judge's score with the candidate's place, the tie-break.
type rankedAt struct {
	Candidate
	at int
}

// positions finds a candidate's place by name: by scanning a few, by a
// map for many (a request's own tools may be hundreds).
type positions struct {
	cands []*registry.Skill
	index map[string]int
}

func candidatePositions(cands []*registry.Skill) positions {
	p := positions{cands: cands}
	if len(cands) > 16 {
		p.index = make(map[string]int, len(cands))
		for i, s := range cands {
			p.index[s.Name] = i // the last of a repeated name, as the scan
		}
	}
	return p
}

func (p positions) of(name string) (int, bool) {
	if p.index != nil {
		i, ok := p.index[name]
		return i, ok
	}
	for i := len(p.cands) - 1; i >= 0; i-- {
		if p.cands[i].Name == name {
			return i, true
		}
	}
	return 0, false
}

// invalidSkill is the schema_error for a judge answer naming a skill that
// is not a candidate.
func invalidSkill(choice string, cands []*registry.Skill) Error {
	return Error{Category: CatSchemaError, Path: "/skill", Rule: RuleInvalidSkill,
		Message: fmt.Sprintf("the judge chose %q, which is not a candidate skill (%s)", choice, joinNames(skillNames(cands)))}
}

// flagLastCall records e on the latest judge call's trace step, so the
// output that named a non-candidate counts as a failed judge output
// (schema_pass_rate) even though it parsed.
func (rt *routing) flagLastCall(e Error) {
	for i := len(rt.d.Trace) - 1; i >= 0; i-- {
		if t := &rt.d.Trace[i]; t.Stage == "judge" && t.Attempt > 0 {
			t.Errors = append(t.Errors, e)
			return
		}
	}
}

type choiceOutcome int

const (
	choiceSkill choiceOutcome = iota
	choiceNone
	choiceInvalid
)

// resolveSkill maps the judge's choice to a candidate. A name that is not a
// candidate is repaired only on an unambiguous case-insensitive exact match;
// anything else is invalid and never mapped to some other skill.
func resolveSkill(choice string, cands []*registry.Skill) (*registry.Skill, choiceOutcome, string) {
	if choice == NoneChoice {
		return nil, choiceNone, ""
	}
	var folded []*registry.Skill
	for _, s := range cands {
		if s.Name == choice {
			return s, choiceSkill, ""
		}
		if strings.EqualFold(s.Name, choice) {
			folded = append(folded, s)
		}
	}
	if len(folded) == 1 {
		return folded[0], choiceSkill, fmt.Sprintf("repaired %q -> %q", choice, folded[0].Name)
	}
	if strings.EqualFold(choice, NoneChoice) {
		return nil, choiceNone, fmt.Sprintf("read %q as %q", choice, NoneChoice)
	}
	if len(folded) > 1 {
		return nil, choiceInvalid, fmt.Sprintf("%q matches several candidates ignoring case; not repaired", choice)
	}
	return nil, choiceInvalid, ""
}
