package router

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/routebench/routebench/router/registry"
)

// routing is the state of one Route call as it moves through the stages.
type routing struct {
	r    *Router
	set  *skillSet
	req  Request
	text string
	now  time.Time
	held heldScopes
	d    Decision
	// repaired is set once the single judge repair attempt is spent,
	// whether on the contract or on params.
	repaired bool
	// kept are the skills policy let through; cover is the allowed skill
	// chosen at or above the clarify band, if any, which explainDropped
	// may offer instead of a skill the caller cannot use.
	kept  []*registry.Skill
	cover *registry.Skill
	// recalled memoises the request's recall scores in recalledIx
	// (recallIndex.scores): ranking and diagnosis share one scan.
	recalled   []float32
	recalledIx *recallIndex
	// hits memoises which skills' triggers match the text.
	hits triggerHits
	// room is storage for what a usual decision holds, in one allocation
	// of its own rather than one each (see decisionRoom); the decision
	// points into it, so every routing has a fresh one.
	room *decisionRoom
	// work is storage for lists the routing uses and the decision never
	// holds (see workRoom); it goes back to the router's pool with the
	// routing.
	work workRoom
	// scratch holds recall's per-request buffers, from the router's pool;
	// nothing in the decision points into it.
	scratch *routeScratch
}

// decisionRoom is room for the parts of a usual decision: its trace steps
// (policy, rules, recall, judge, bands, params or gate, diagnosis: seven),
// the numbers they point at (the judge's confidence, twice with a repair,
// and the bands'; policy's kept count), the names policy drops and recall
// offers; and the skills the judge weighs, which its JudgeRequest hands
// out (a judge may keep the request). Each is used while it fits and then
// left for an allocation of its own. It fits the 2,048-byte size class.
type decisionRoom struct {
	trace   [7]TraceStep
	floats  [3]float64
	nFloats int
	ints    [1]int
	nInts   int
	dropped [4]string
	top     [8]string
	cands   [8]*registry.Skill
}

// workRoom is room for the skills policy keeps, which only the routing
// reads: they live in the routing, which Route reuses (Router.routings).
type workRoom struct {
	kept [32]*registry.Skill
}

// floatp is &f, in the room while it lasts.
func (rt *routing) floatp(f float64) *float64 {
	r := rt.room
	if r.nFloats == len(r.floats) {
		p := new(float64) // not &f: that would move f to the heap on every call
		*p = f
		return p
	}
	p := &r.floats[r.nFloats]
	r.nFloats++
	*p = f
	return p
}

// intp is &n, in the room while it lasts.
func (rt *routing) intp(n int) *int {
	r := rt.room
	if r.nInts == len(r.ints) {
		p := new(int)
		*p = n
		return p
	}
	p := &r.ints[r.nInts]
	r.nInts++
	*p = n
	return p
}

// recallRank ranks allowed skills of rt.set by recall, embedding and
// scoring the request once per routing. The ranking is appended to dst
// (nil: a new list).
func (rt *routing) recallRank(ctx context.Context, allowed []*registry.Skill, k int, dst []Candidate) ([]Candidate, error) {
	if rt.recalledIx != rt.set.index {
		best, err := rt.set.index.scores(ctx, rt.text, rt.routeScratch())
		if err != nil {
			return nil, err
		}
		rt.recalled, rt.recalledIx = best, rt.set.index
	}
	return rt.set.index.rankWith(rt.recalled, allowed, k, dst, rt.routeScratch()), nil
}

// routeScratch is the routing's recall buffers, taken from the router's
// pool on first use.
func (rt *routing) routeScratch() *routeScratch {
	if rt.scratch == nil {
		rt.scratch, _ = rt.r.scratch.Get().(*routeScratch)
		if rt.scratch == nil {
			rt.scratch = new(routeScratch)
		}
	}
	return rt.scratch
}

// release gives the recall buffers back once the request is routed; the
// recall scores are gone with them.
func (rt *routing) release() {
	if rt.scratch != nil {
		rt.r.scratch.Put(rt.scratch)
		rt.scratch, rt.recalled, rt.recalledIx = nil, nil, nil
	}
}

func (rt *routing) trace(step TraceStep) { rt.d.Trace = append(rt.d.Trace, step) }

func (rt *routing) run(ctx context.Context) error {
	if rt.text == "" {
		rt.trace(TraceStep{Stage: "input", Note: "empty input"})
		rt.d.Stage = "policy"
		rt.refuse("The request is empty; say what you need.")
		return nil
	}
	set, err := rt.r.setFor(ctx, rt.req.Tools)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		rt.d.Stage = "policy"
		rt.fail(Error{Category: CatProviderError, Message: "build models for the request's tools: " + err.Error()})
		return nil
	}
	rt.set = set
	rt.d.Model = set.models.Judge.Name()

	// Stage 0: policy.
	candidates, dropped := policy(set.reg.Skills, rt.req.Caller, rt.held, rt.work.kept[:0], rt.room.dropped[:0])
	rt.kept = candidates
	rt.trace(TraceStep{Stage: "policy", Kept: rt.intp(len(candidates)), Dropped: dropped})
	if len(candidates) == 0 {
		rt.d.Stage = "policy"
		rt.refuse(fmt.Sprintf("No skill is available to you for this request: your permissions and disabled skills leave none of the %d skills.", len(set.reg.Skills)))
		return nil
	}

	// Stage 1: rules.
	// Matched stays the triggers' own matches: workflows that join below are
	// named in the note, so the trace still says what the rules saw.
	matched := rt.matchTriggers(candidates)
	rules := TraceStep{Stage: "rules"}
	if len(matched) > 0 {
		// No match is no list (nil, as the results line reads back), not
		// an empty one, which would have the harness copy the trace.
		rules.Matched = skillNames(matched)
	}
	joined, via := workflowsOver(candidates, matched)
	if len(matched) == 1 && len(joined) == 0 && !rt.sharedSignal(candidates) {
		rt.trace(rules)
		return rt.byRule(ctx, matched[0])
	}
	if len(matched) > 0 {
		pool := append(append([]*registry.Skill(nil), matched...), joined...)
		rules.Note = rulesNote(matched, joined, via)
		rt.trace(rules)
		ranked, err := rt.recallRank(ctx, pool, len(pool), nil)
		if err != nil {
			return rt.recallFailed(ctx, err)
		}
		return rt.judged(ctx, rt.skillsOf(ranked), ranked)
	}
	rt.trace(rules)

	// Stage 2: recall.
	ranked, err := rt.recallRank(ctx, candidates, rt.r.topK(), nil)
	if err != nil {
		return rt.recallFailed(ctx, err)
	}
	rt.trace(TraceStep{Stage: "recall", Top: appendNames(rt.room.top[:0], ranked), Scores: ranked})
	return rt.judged(ctx, rt.skillsOf(ranked), ranked)
}

// rulesNote says why stage 1 did not decide and what the judge will weigh.
func rulesNote(matched, joined []*registry.Skill, via [][]string) string {
	var note string
	switch {
	case len(matched) > 1:
		note = "several skills matched; they are the candidates, recall skipped"
	case len(joined) == 0:
		note = "the same signal matches a skill you cannot use, so it does not decide; the judge weighs the matched skill"
	default:
		note = "one skill matched, but a workflow calls it, so the rule does not decide; the judge weighs them, recall skipped"
	}
	if len(joined) == 0 {
		return note
	}
	parts := make([]string, len(joined))
	for i, w := range joined {
		parts[i] = fmt.Sprintf("%s (calls %s)", w.Name, strings.Join(via[i], ", "))
	}
	return note + "; workflows joined because their nodes call a matched skill: " + strings.Join(parts, "; ")
}

func (rt *routing) recallFailed(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	rt.d.Stage = "recall"
	rt.fail(Error{Category: CatProviderError, Message: err.Error()})
	return nil
}

func (rt *routing) skillsOf(ranked []Candidate) []*registry.Skill {
	out := rt.room.cands[:0]
	for _, c := range ranked {
		out = append(out, rt.set.byName[c.Skill])
	}
	return out
}

func candidateNames(cs []Candidate) []string {
	return appendNames(make([]string, 0, len(cs)), cs)
}

// appendNames appends the candidates' skill names to dst.
func appendNames(dst []string, cs []Candidate) []string {
	for _, c := range cs {
		dst = append(dst, c.Skill)
	}
	return dst
}

// ParamExtractor is implemented by judges that can read a given skill's
// params from text without choosing a skill (the builtin judge, as wrapped
// by router/models). The rules stage uses it when it decided a skill the
// judge did not answer.
type ParamExtractor interface {
	ExtractParams(s *registry.Skill, text string, now time.Time) map[string]any
}

// byRule handles a request one trigger decided: the skill is fixed with
// confidence 1.0; the judge, shown only that skill, supplies the params.
func (rt *routing) byRule(ctx context.Context, s *registry.Skill) error {
	rt.d.Stage = "rules"
	ranking := []Candidate{{Skill: s.Name, Score: 1}}
	rt.d.Candidates = ranking
	cands := append(rt.room.cands[:0], s)
	v, _, ok, err := rt.judgeWithRepair(ctx, cands, ranking)
	if err != nil || !ok {
		return err
	}
	if chosen, outcome, _ := resolveSkill(v.Skill, cands); chosen != s {
		if outcome == choiceInvalid {
			// The rule stands, but the judge's output still named a skill
			// it was not offered: a failed output for schema_pass_rate.
			rt.flagLastCall(invalidSkill(v.Skill, cands))
		}
		note := fmt.Sprintf("rule decided %s; the judge answered %q, only its params are used", s.Name, v.Skill)
		// A judge that answered something else (typically "none") has no
		// params for the rule's skill; one that can extract them on demand
		// is asked for them, rather than asking the user for what the text
		// already says.
		if x, ok := rt.set.models.Judge.(ParamExtractor); ok {
			v.Params = x.ExtractParams(s, rt.text, rt.now)
			note = fmt.Sprintf("rule decided %s; the judge answered %q, params come from its extractor", s.Name, v.Skill)
		}
		rt.trace(TraceStep{Stage: "judge", Choice: v.Skill, Note: note})
	}
	return rt.act(ctx, s, v, 1.0, cands, ranking)
}

// judged handles stage 3 over the recalled (or rule-matched) candidates.
func (rt *routing) judged(ctx context.Context, cands []*registry.Skill, recall []Candidate) error {
	rt.d.Stage = "judge"
	rt.d.Candidates = recall
	v, ranking, ok, err := rt.judgeWithRepair(ctx, cands, recall)
	if err != nil || !ok {
		return err
	}
	rt.d.Candidates = ranking
	rt.d.Confidence = v.Confidence
	s, outcome, note := resolveSkill(v.Skill, cands)
	if note != "" {
		rt.trace(TraceStep{Stage: "judge", Choice: v.Skill, Note: note})
	}
	switch outcome {
	case choiceNone:
		rt.refuse("None of the available skills fits this request, so nothing was run. " + capabilities(cands))
		return nil
	case choiceInvalid:
		// A judge failure, not a refusal: acting on nothing is right, but
		// scoring it as a correct "none" would reward a judge that invents
		// tools (DESIGN §6).
		e := invalidSkill(v.Skill, cands)
		rt.flagLastCall(e)
		rt.fail(e)
		return nil
	}
	return rt.act(ctx, s, v, v.Confidence, cands, ranking)
}

// act is stages 4 and 5: bands and gates pick the action, then the params
// of an acting decision are validated.
func (rt *routing) act(ctx context.Context, s *registry.Skill, v verdict, conf float64, cands []*registry.Skill, ranking []Candidate) error {
	rt.d.Confidence = conf
	execute, clarify := rt.r.v.Router.Bands.For(s.SideEffect)
	action := band(s, conf, execute, clarify)
	if action != Refuse {
		rt.cover = s
	}
	rt.trace(TraceStep{Stage: "bands", Choice: s.Name, Confidence: rt.floatp(conf), Note: rt.r.bandsNote(s.SideEffect, execute, clarify, action)})
	switch action {
	case Clarify:
		rt.d.Skill = s.Name
		rt.d.Params = withoutNulls(v.Params)
		rt.clarifyBetween(topTwo(ranking))
		return nil
	case Refuse:
		rt.refuse(unsureMessage(s, conf, clarify, cands))
		return nil
	}
	return rt.checkParams(ctx, s, v, action, cands, ranking)
}

// unsureMessage is fmt.Sprintf("I'm not confident enough that any
// available skill fits this request (best guess %s at %.2f, below %.2f),
// so nothing was run. %s", s.Name, conf, clarify, capabilities(cands))
// built by hand, in one allocation: most refusals say it.
func unsureMessage(s *registry.Skill, conf, clarify float64, cands []*registry.Skill) string {
	n := 160 + len(s.Name)
	for _, c := range cands {
		n += len(c.Name) + 2
	}
	b := make([]byte, 0, n)
	b = append(b, "I'm not confident enough that any available skill fits this request (best guess "...)
	b = append(b, s.Name...)
	b = append(b, " at "...)
	b = strconv.AppendFloat(b, conf, 'f', 2, 64)
	b = append(b, ", below "...)
	b = strconv.AppendFloat(b, clarify, 'f', 2, 64)
	b = append(b, "), so nothing was run. "...)
	b = appendCapabilities(b, cands)
	return string(b)
}

// bandKey names a bands note: execute and clarify are the router's
// version's bands for the side effect.
type bandKey struct {
	se     registry.SideEffect
	action Action
}

// bandsNote is bandsNote(se, execute, clarify, action) for the bands of
// r's version (Bands.For(se)), remembered.
func (r *Router) bandsNote(se registry.SideEffect, execute, clarify float64, action Action) string {
	k := bandKey{se, action}
	if note, ok := r.bandNotes.Load(k); ok {
		return note.(string)
	}
	note := bandsNote(se, execute, clarify, action)
	r.bandNotes.Store(k, note)
	return note
}

// bandsNote is fmt.Sprintf("%s skill: execute at >= %g, clarify at >= %g
// -> %s", ...) built by hand: it is on every acting request's path.
func bandsNote(se registry.SideEffect, execute, clarify float64, action Action) string {
	b := make([]byte, 0, 64)
	b = append(b, se...)
	b = append(b, " skill: execute at >= "...)
	b = strconv.AppendFloat(b, execute, 'g', -1, 64)
	b = append(b, ", clarify at >= "...)
	b = strconv.AppendFloat(b, clarify, 'g', -1, 64)
	b = append(b, " -> "...)
	b = append(b, action...)
	return string(b)
}

// band maps a confidence to an action. A side-effect skill never gets
// execute: acting means confirm, with the skill's gate.
func band(s *registry.Skill, conf, execute, clarify float64) Action {
	switch {
	case conf >= execute && s.SideEffect.Acts():
		return Confirm
	case conf >= execute:
		return Execute
	case conf >= clarify:
		return Clarify
	default:
		return Refuse
	}
}

// topTwo is what a clarifying question offers.
func topTwo(ranking []Candidate) []Candidate {
	if len(ranking) > 2 {
		return ranking[:2]
	}
	return ranking
}
