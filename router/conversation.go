package router

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"unicode"

	"github.com/routebench/routebench/router/registry"
)

// StageConversation is the Decision.Stage of a decision the conversation
// settled (a clarification answered, a confirmation answered) and the
// trace step that says what the conversation did.
const StageConversation = "conversation"

// converse routes a turn of a conversation (DESIGN §12). The last turn's
// decision says what is pending: a clarify waits for an answer that
// completes its skill's params or picks one of its candidates, a confirm
// waits for yes or no. A new request in the middle starts over. Policy is
// applied to this turn's caller before anything else, so no earlier turn
// can bring back a skill the caller may not use.
func (rt *routing) converse(ctx context.Context) error {
	last := rt.req.Turns[len(rt.req.Turns)-1].Decision
	if last.Action != Clarify && last.Action != Confirm {
		return rt.startOver(ctx, nil, fmt.Sprintf("started over: nothing was pending (the last turn's action was %s)", actionName(last.Action)))
	}
	set, err := rt.r.setFor(ctx, rt.req.Tools)
	if err != nil {
		// run reports a tools failure the same way for a fresh request.
		return rt.startOver(ctx, nil, "started over: the request's tools could not be built")
	}
	rt.set = set
	rt.d.Model = set.models.Judge.Name()
	candidates, dropped := policy(set.reg.Skills, rt.req.Caller, rt.held, nil, nil)
	kept := make(map[string]*registry.Skill, len(candidates))
	for _, s := range candidates {
		kept[s.Name] = s
	}
	c := &conversation{rt: rt, last: last, kept: kept, dropped: dropped}
	if last.Action == Confirm {
		err = c.answerConfirm(ctx)
	} else {
		err = c.answerClarify(ctx)
	}
	// rt.d has what it takes from the probe's decision, whose trace is
	// in the probe's own decisionRoom.
	if c.probe != nil {
		rt.r.putRouting(c.probe)
	}
	return err
}

// conversation is what converse knows about the pending question.
type conversation struct {
	rt      *routing
	last    Decision
	kept    map[string]*registry.Skill
	dropped []string
	probe   *routing // the text routed on its own, once computed
}

// tracePolicy records stage 0 for a decision the conversation settles:
// it ran before anything the earlier turns named was considered.
func (c *conversation) tracePolicy() {
	c.rt.trace(TraceStep{Stage: "policy", Kept: c.rt.intp(len(c.kept)), Dropped: c.dropped})
}

// extractor is the judge's param reader, when it has one (the builtin
// judge). A model judge reads the earlier turns in its messages instead.
func (c *conversation) extractor() ParamExtractor {
	x, _ := c.rt.set.models.Judge.(ParamExtractor)
	return x
}

// fresh routes the text on its own (policy first, as always) and keeps
// the result, so it is computed at most once per turn.
func (c *conversation) fresh(ctx context.Context) (*routing, error) {
	if c.probe != nil {
		return c.probe, nil
	}
	p := c.rt.r.newRouting(c.rt.req, c.rt.now)
	if err := p.run(ctx); err != nil {
		return nil, err
	}
	c.probe = p
	return p, nil
}

// actsOn is the skill the probe acts on when it is a request of its
// own: an acting decision at or above its skill's clarify band.
func (c *conversation) actsOn(p *routing) *registry.Skill {
	if p == nil || !p.d.Action.Acts() {
		return nil
	}
	s := c.kept[p.d.Skill]
	if s == nil {
		return nil
	}
	_, clarify := c.rt.r.v.Router.Bands.For(s.SideEffect)
	if p.d.Confidence < clarify {
		return nil
	}
	return s
}

// answerConfirm handles the turn after a confirm: yes executes the
// confirmed call, no or silence refuses, changed params ask again, and a
// new request starts over.
func (c *conversation) answerConfirm(ctx context.Context) error {
	rt := c.rt
	name := c.last.Skill
	if rt.text == "" {
		return c.refuse(fmt.Sprintf("unanswered: the confirmation of %s got no answer; nothing was run", name),
			fmt.Sprintf("The confirmation of %s was not answered, so nothing was done.", name))
	}
	r, only := classifyReply(rt.text)
	if only {
		if r == replyNo {
			return c.declined(name)
		}
		return c.confirmed(ctx)
	}
	probe, err := c.fresh(ctx)
	if err != nil {
		return err
	}
	if s := c.actsOn(probe); s != nil && s.Name != name {
		return rt.startOver(ctx, probe, fmt.Sprintf("started over: the text routes on its own to %s (%s, %.2f), not an answer to the confirmation of %s",
			s.Name, probe.d.Action, probe.d.Confidence, name))
	}
	if s, x := c.kept[name], c.extractor(); s != nil && x != nil {
		given := x.ExtractParams(s, rt.text, rt.now)
		if changes(c.last.Params, given) {
			// Changed params are a new call: it is confirmed again, never
			// run on the strength of the earlier yes.
			rt.addUsage(probe.d.Usage)
			return c.continueWith(ctx, s, c.last.Confidence, given,
				fmt.Sprintf("changed the params of the pending confirmation of %s", name))
		}
	}
	switch r {
	case replyNo:
		rt.addUsage(probe.d.Usage)
		return c.declined(name)
	case replyYes:
		rt.addUsage(probe.d.Usage)
		return c.confirmed(ctx)
	}
	if probe.d.Action != Refuse && probe.d.Action != Fail {
		return rt.startOver(ctx, probe, fmt.Sprintf("started over: the text asks something new (%s), not an answer to the confirmation of %s",
			probe.d.Action, name))
	}
	rt.addUsage(probe.d.Usage)
	return c.refuse(fmt.Sprintf("unanswered: the text neither answers the confirmation of %s nor asks something new; nothing was run", name),
		fmt.Sprintf("The confirmation of %s was not answered, so nothing was done.", name))
}

// confirmed runs the confirmed call: the same skill and params, with the
// gate that was passed recorded, and permissions checked again against
// this turn's caller.
func (c *conversation) confirmed(ctx context.Context) error {
	rt := c.rt
	name := c.last.Skill
	s := c.kept[name]
	if s == nil {
		return c.refuse(fmt.Sprintf("confirmed yes, but %s is not available to this caller (policy); nothing was run", name),
			fmt.Sprintf("%s is not available to you, so nothing was done.", name))
	}
	params := maps.Clone(c.last.Params)
	if params == nil {
		params = map[string]any{}
	}
	gate := c.last.Gate
	if gate == "" && s.SideEffect.Acts() {
		gate = gateOf(s)
	}
	rt.d.Stage = StageConversation
	rt.d.Confidence = c.last.Confidence
	rt.d.Candidates = []Candidate{{Skill: name, Score: c.last.Confidence}}
	c.tracePolicy()
	rt.trace(TraceStep{Stage: StageConversation, Choice: name,
		Note: fmt.Sprintf("confirmed yes: %s with params %s, %s gate passed", name, paramsText(params), gateName(gate))})
	// No judge answer stands behind this call, so there is nothing to repair.
	rt.repaired = true
	if err := rt.checkParams(ctx, s, verdict{Skill: name, Confidence: c.last.Confidence, Params: params}, Execute, []*registry.Skill{s}, rt.d.Candidates); err != nil {
		return err
	}
	if rt.d.Action == Execute {
		rt.d.Gate = gate
		rt.d.Message = fmt.Sprintf("Confirmed: running %s (%s gate passed).", name, gateName(gate))
	}
	return nil
}

func gateName(g registry.Gate) string {
	if g == "" {
		return "no"
	}
	return string(g)
}

func (c *conversation) declined(name string) error {
	return c.refuse(fmt.Sprintf("declined: the user answered no to %s; nothing was run", name),
		fmt.Sprintf("Understood: %s was not run, nothing was done.", name))
}

// refuse settles the turn as a refusal the conversation decided.
func (c *conversation) refuse(note, msg string) error {
	rt := c.rt
	c.tracePolicy()
	rt.trace(TraceStep{Stage: StageConversation, Choice: c.last.Skill, Note: note})
	rt.d.Stage = StageConversation
	rt.refuse(msg)
	return nil
}

// answerClarify handles the turn after a clarify: an answer completes the
// pending skill's params (or picks one of the offered candidates) and the
// call is decided as usual; a new request starts over.
func (c *conversation) answerClarify(ctx context.Context) error {
	rt := c.rt
	pending := c.kept[c.last.Skill]
	about := c.last.Skill
	if about == "" {
		about = joinNames(candidateNames(c.last.Candidates))
	}
	if rt.text == "" {
		return c.refuse(fmt.Sprintf("unanswered: the question about %s got no answer; nothing was run", about),
			fmt.Sprintf("The question about %s was not answered, so nothing was done.", about))
	}
	r, only := classifyReply(rt.text)
	if only && r == replyNo {
		return c.declined(about)
	}
	offered := c.offered()
	x := c.extractor()
	if x == nil {
		// A model judge reads the earlier turns in its messages and
		// answers for the whole conversation.
		return rt.startOver(ctx, nil, "routed with the earlier turns: the model judge read them in its messages")
	}
	if s := namedPick(rt.text, offered); s != nil {
		return c.continueWith(ctx, s, 1, x.ExtractParams(s, rt.text, rt.now),
			fmt.Sprintf("picked %s, named in the answer, from the offered %s", s.Name, joinNames(skillNames(offered))))
	}
	probe, err := c.fresh(ctx)
	if err != nil {
		return err
	}
	asked := c.askedFields(pending)
	if s := c.actsOn(probe); s != nil && s != pending {
		given := x.ExtractParams(s, rt.text, rt.now)
		switch {
		case slices.Contains(offered, s):
			rt.addUsage(probe.d.Usage)
			return c.continueWith(ctx, s, 1, given,
				fmt.Sprintf("picked %s from the offered %s: the answer on its own routes to it", s.Name, joinNames(skillNames(offered))))
		case pending != nil && probe.d.Stage == "rules" && fills(x.ExtractParams(pending, rt.text, rt.now), asked):
			// A trigger matches values (ids) that an answer naturally
			// holds; filling the field that was asked for is the answer.
		default:
			return rt.startOver(ctx, probe, fmt.Sprintf("started over: the text routes on its own to %s (%s, %.2f), not an answer to the question about %s",
				s.Name, probe.d.Action, probe.d.Confidence, about))
		}
	}
	if pending != nil {
		if given := x.ExtractParams(pending, rt.text, rt.now); len(given) > 0 {
			rt.addUsage(probe.d.Usage)
			return c.continueWith(ctx, pending, c.last.Confidence, given,
				fmt.Sprintf("continued the clarification of %s", pending.Name))
		}
	}
	// Values only one offered candidate can take say which one was meant
	// ("the critical ones" when only one skill has a severity).
	var takers []*registry.Skill
	for _, s := range offered {
		if len(x.ExtractParams(s, rt.text, rt.now)) > 0 {
			takers = append(takers, s)
		}
	}
	if len(takers) == 1 {
		rt.addUsage(probe.d.Usage)
		return c.continueWith(ctx, takers[0], 1, x.ExtractParams(takers[0], rt.text, rt.now),
			fmt.Sprintf("picked %s from the offered %s: only it takes the values the answer gives", takers[0].Name, joinNames(skillNames(offered))))
	}
	if r == replyYes && pending != nil {
		conf := c.last.Confidence
		if len(offered) == 1 {
			conf = 1 // "Did you mean X?" "yes": the user chose X
		}
		rt.addUsage(probe.d.Usage)
		return c.continueWith(ctx, pending, conf, nil, fmt.Sprintf("the user said yes to %s", pending.Name))
	}
	return rt.startOver(ctx, probe, fmt.Sprintf("started over: the text does not answer the question about %s", about))
}

// offered lists the pending skill and the clarify's candidates that this
// turn's caller may use, pending first.
func (c *conversation) offered() []*registry.Skill {
	var out []*registry.Skill
	add := func(name string) {
		if s := c.kept[name]; s != nil && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	add(c.last.Skill)
	for _, cand := range c.last.Candidates {
		add(cand.Skill)
	}
	return out
}

// askedFields are the params the clarify asked for: those its errors name
// and the required ones it did not have.
func (c *conversation) askedFields(s *registry.Skill) []string {
	if s == nil {
		return nil
	}
	var out []string
	var pe []Error
	for _, e := range c.last.Errors {
		if e.Category == CatParams && e.Layer != LayerPermission {
			pe = append(pe, e)
		}
	}
	if len(pe) > 0 {
		out = invalidFields(s, pe)
	}
	for _, f := range s.Required() {
		if _, ok := c.last.Params[f]; !ok && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// continueWith decides the pending call with the params completed: the
// earlier turns' params (the clarify's own for its skill, else what the
// clarifying turns' texts give for the picked one), overridden by what
// this turn gives. Bands, gates and the three params layers decide as for
// any request; a field still missing is asked for again, alone.
func (c *conversation) continueWith(ctx context.Context, s *registry.Skill, conf float64, given map[string]any, what string) error {
	rt := c.rt
	merged := c.earlierParams(s)
	maps.Copy(merged, given)
	ranking := []Candidate{{Skill: s.Name, Score: conf}}
	cands := []*registry.Skill{s}
	for _, o := range c.offered() {
		if o != s {
			ranking = append(ranking, Candidate{Skill: o.Name, Score: scoreOf(c.last.Candidates, o.Name)})
			cands = append(cands, o)
		}
	}
	c.tracePolicy()
	rt.trace(TraceStep{Stage: StageConversation, Choice: s.Name,
		Note: fmt.Sprintf("%s with params %s (from this answer %s)", what, paramsText(merged), paramsText(given))})
	rt.d.Stage = StageConversation
	rt.d.Candidates = ranking
	// The call rests on the conversation, not on a judge answer to repair.
	rt.repaired = true
	return rt.act(ctx, s, verdict{Skill: s.Name, Confidence: conf, Params: merged}, conf, cands, ranking)
}

// earlierParams are the params the conversation already holds for s.
func (c *conversation) earlierParams(s *registry.Skill) map[string]any {
	if s.Name == c.last.Skill {
		return dropNulls(c.last.Params)
	}
	out := map[string]any{}
	x := c.extractor()
	if x == nil {
		return out
	}
	turns := c.rt.req.Turns
	from := len(turns) - 1
	for from > 0 && turns[from-1].Decision.Action == Clarify {
		from--
	}
	for _, t := range turns[from:] {
		maps.Copy(out, x.ExtractParams(s, t.Text, c.rt.now))
	}
	return out
}

func scoreOf(cs []Candidate, name string) float64 {
	for _, c := range cs {
		if c.Skill == name {
			return c.Score
		}
	}
	return 0
}

// startOver routes the text as a fresh request (probe, when it was already
// routed) and records why in a conversation step.
func (rt *routing) startOver(ctx context.Context, probe *routing, note string) error {
	if probe == nil {
		probe = rt.r.newRouting(rt.req, rt.now)
		defer rt.r.putRouting(probe)
		if err := probe.run(ctx); err != nil {
			return err
		}
	}
	rt.d = probe.d
	rt.trace(TraceStep{Stage: StageConversation, Note: note})
	return nil
}

// changes reports whether given sets a param to a value other than the
// one it had.
func changes(old, given map[string]any) bool {
	for k, v := range given {
		if !reflect.DeepEqual(old[k], v) {
			return true
		}
	}
	return false
}

// fills reports whether given sets any of the fields.
func fills(given map[string]any, fields []string) bool {
	for _, f := range fields {
		if _, ok := given[f]; ok {
			return true
		}
	}
	return false
}

// namedPick is the offered skill the text names by a word of its name
// that no other offered skill's name has ("the alerts one" between
// query_orders_by_region and query_alerts_by_zone). Words shared by the
// names ("query") and short ones ("by") say nothing.
func namedPick(text string, offered []*registry.Skill) *registry.Skill {
	if len(offered) < 2 {
		return nil
	}
	words := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		words[w] = true
		words[strings.TrimSuffix(w, "s")] = true
	}
	owners := map[string]int{}
	parts := make([][]string, len(offered))
	for i, s := range offered {
		seen := map[string]bool{}
		for _, p := range strings.FieldsFunc(strings.ToLower(s.Name), func(r rune) bool { return r == '_' || r == '-' || r == '.' }) {
			p = strings.TrimSuffix(p, "s")
			if len(p) < 3 || seen[p] {
				continue
			}
			seen[p] = true
			parts[i] = append(parts[i], p)
			owners[p]++
		}
	}
	var pick *registry.Skill
	for i, s := range offered {
		for _, p := range parts[i] {
			if owners[p] == 1 && words[p] {
				if pick != nil && pick != s {
					return nil // names two of them: not a pick
				}
				pick = s
			}
		}
	}
	return pick
}

func paramsText(p map[string]any) string {
	if len(p) == 0 {
		return "{}"
	}
	b, err := json.Marshal(p)
	if err != nil {
		return fmt.Sprintf("%v", p)
	}
	return string(b)
}

func actionName(a Action) string {
	if a == "" {
		return "none"
	}
	return string(a)
}

// Summary is the decision as a model judge is shown it for an earlier turn
// of a conversation: the action, the skill and params, and the question or
// message the user saw. It is deterministic (params keys sorted).
func (d Decision) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Router decision: %s", actionName(d.Action))
	if d.Skill != "" {
		fmt.Fprintf(&b, " %s with params %s", d.Skill, paramsText(d.Params))
	}
	if d.Gate != "" {
		fmt.Fprintf(&b, " (%s gate)", d.Gate)
	}
	if d.Action == Clarify && len(d.Candidates) > 0 {
		fmt.Fprintf(&b, "; offered %s", joinNames(candidateNames(d.Candidates)))
	}
	b.WriteString(".")
	if d.Message != "" {
		label := "Message"
		if d.Action == Clarify || d.Action == Confirm {
			label = "Question to the user"
		}
		fmt.Fprintf(&b, " %s: %s", label, d.Message)
	}
	return b.String()
}
