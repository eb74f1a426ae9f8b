package router

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/routebench/routebench/router/registry"
)

// StageDiagnosis is the trace step of explainDropped. Its decision does not
// depend on the bands: whatever they chose, a clear ask for a dropped skill
// is refused.
const StageDiagnosis = "diagnosis"

// askedMargin is how far, in recall score over the whole registry, a skill
// policy dropped must stand above the best skill the caller may use before
// the request counts as clearly asking for it. Below that the request is
// as much about an allowed skill, and the usual decision stands.
// 0.05 is a judgement, not a measurement (tune it on a suite of dropped-
// skill requests before leaning on it); the spec in
// dropped_margin_test.go pins where it cuts.
const askedMargin = 0.05

// useAlternative finds "(use other_skill)" in a when_not_to_use line: the
// registry's own pointer to the skill that covers what this one does not.
var useAlternative = regexp.MustCompile(`\(use ([A-Za-z0-9_.-]+)\)`)

// explainDropped is diagnosis after the decision is settled, never a stage
// that picks a skill: when the request clearly asks for a skill policy
// dropped (disabled for the caller, calling a disabled skill, or outside
// its scopes), the decision becomes a refusal naming that skill and why,
// offering an allowed skill that covers the request when there is one,
// instead of "none fits" with unrelated suggestions or an answer from a
// near-miss skill. The dropped skill is only scored here, on the full
// registry's recall index; it never reaches the judge and never acts.
func (rt *routing) explainDropped(ctx context.Context) error {
	if rt.set == nil || len(rt.kept) == len(rt.set.reg.Skills) || rt.d.Action == Fail || hasLayer(rt.d.Errors, LayerPermission) {
		return nil
	}
	// A trigger of an allowed skill deciding alone is a strong signal the
	// request is about that skill, and stage 1 lets it decide only when no
	// dropped skill's trigger matches too.
	if rt.d.Stage == "rules" {
		return nil
	}
	all := rt.set.reg.Skills
	buf := rt.routeScratch()
	ranked, err := rt.recallRank(ctx, all, len(all), buf.ranked)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		rt.trace(TraceStep{Stage: StageDiagnosis, Note: "could not score skills policy dropped: " + err.Error()})
		return nil
	}
	buf.ranked = ranked
	var best *Candidate // best allowed
	var asked *Candidate
	var room [8]string
	recalled := room[:0] // the allowed skills recall would pass to a judge
	askedByTrigger := false
	// The skills policy dropped are few: a ranked skill is one of them or
	// kept, found by comparing names with them rather than by a lookup
	// and a search of the kept ones per skill. Names are unique in a
	// skill set (byName has one entry a skill); otherwise by lookup.
	var droppedRoom [8]*registry.Skill
	droppedSkills := droppedRoom[:0]
	unique := len(rt.set.byName) == len(all)
	if unique {
		for _, s := range all {
			if !slices.Contains(rt.kept, s) {
				droppedSkills = append(droppedSkills, s)
			}
		}
	}
	for i := range ranked {
		c := &ranked[i]
		var s *registry.Skill
		var kept bool
		if unique {
			k := slices.IndexFunc(droppedSkills, func(d *registry.Skill) bool { return d.Name == c.Skill })
			if kept = k < 0; !kept {
				s = droppedSkills[k]
			}
		} else {
			s = rt.set.byName[c.Skill]
			kept = slices.Contains(rt.kept, s)
		}
		if kept {
			if best == nil {
				best = c
			}
			if len(recalled) < rt.r.topK() && c.Score > 0 {
				recalled = append(recalled, c.Skill)
			}
			continue
		}
		triggered := rt.triggered(s)
		switch {
		case asked == nil:
			asked, askedByTrigger = c, triggered
		case triggered && !askedByTrigger:
			// A dropped skill the text triggers outranks one recall merely
			// scores higher; both still have to clear the margin.
			if bestScore(best) == 0 || c.Score >= bestScore(best)+askedMargin {
				asked, askedByTrigger = c, true
			}
		}
	}
	if asked == nil || asked.Score <= 0 || asked.Score < bestScore(best)+askedMargin {
		return nil
	}
	s := rt.set.byName[asked.Skill]
	why := rt.dropReason(s)
	cover := rt.coverFor(s, recalled)
	how := "scores"
	if askedByTrigger {
		how = "matches its trigger and scores"
	}
	bestNote := "no allowed skill scores"
	if best != nil {
		bestNote = fmt.Sprintf("the best allowed skill %s scores %.4f", best.Skill, best.Score)
	}
	rt.trace(TraceStep{Stage: StageDiagnosis, Choice: s.Name, Note: fmt.Sprintf(
		"the request asks for %s (%s): it %s %.4f in recall over every skill; %s (margin %g); was %s, now refuse",
		s.Name, why.short, how, asked.Score, bestNote, askedMargin, rt.d.Action)})
	msg := why.long + ", so nothing was run."
	if cover != "" {
		msg += fmt.Sprintf(" %s is available to you and may cover this request: ask for it if that is what you need.", cover)
	}
	if len(rt.kept) == 0 {
		// Policy already refused, saying nothing is left; name what was asked for too.
		msg = rt.d.Message + " " + msg
	}
	rt.refuse(msg)
	return nil
}

func bestScore(c *Candidate) float64 {
	if c == nil {
		return 0
	}
	return c.Score
}

// dropReason says why policy dropped a skill, briefly for the trace and in
// full for the caller.
type dropWhy struct{ short, long string }

func (rt *routing) dropReason(s *registry.Skill) dropWhy {
	disabled := map[string]bool{}
	for _, d := range rt.req.Caller.Disabled {
		disabled[strings.TrimSpace(d)] = true
	}
	switch {
	case disabled[s.Name]:
		return dropWhy{"disabled", fmt.Sprintf("%s is disabled for this caller", s.Name)}
	case callsAny(s.Steps, disabled):
		var off []string
		for _, st := range s.Steps {
			if disabled[st] {
				off = append(off, st)
			}
		}
		return dropWhy{"calls a disabled skill", fmt.Sprintf("%s calls %s, which is disabled for this caller", s.Name, joinNames(off))}
	}
	miss := missingScopes(rt.held, s.PermissionScope)
	if len(miss) == 0 {
		// Dropped for a reason that is not a scope of its own (a caller
		// setting policy applies): say so without naming an empty scope.
		return dropWhy{"not available", fmt.Sprintf("%s is not available to this caller", s.Name)}
	}
	return dropWhy{"not permitted", fmt.Sprintf("%s is not permitted for this caller (it needs scope %s)", s.Name, strings.Join(miss, ", "))}
}

// coverFor names an allowed skill that covers the request: the one the
// judge chose above the clarify band, else one the dropped skill's
// when_not_to_use points to with "(use X)" that recall also finds for this
// request (a pointer written for another kind of request is no offer).
// Empty when none does.
func (rt *routing) coverFor(s *registry.Skill, recalled []string) string {
	if rt.cover != nil && rt.cover != s {
		return rt.cover.Name
	}
	for _, line := range s.WhenNotToUse {
		for _, m := range useAlternative.FindAllStringSubmatch(line, -1) {
			if alt := rt.set.byName[m[1]]; alt != nil && slices.Contains(rt.kept, alt) && slices.Contains(recalled, alt.Name) {
				return alt.Name
			}
		}
	}
	return ""
}
