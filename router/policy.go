package router

import (
	"slices"
	"strings"

	"github.com/routebench/routebench/router/internal/prefilter"
	"github.com/routebench/routebench/router/registry"
)

// policy is stage 0: only skills the caller may use, and that are not
// switched off for them, become candidates. Nothing else is ever seen by a
// later stage, so no judge answer can reach a skill outside the caller's
// scope. kept and dropped are appended to keptRoom and droppedRoom (empty
// slices with room, or nil).
func policy(skills []*registry.Skill, caller Caller, scopes heldScopes, keptRoom []*registry.Skill, droppedRoom []string) (kept []*registry.Skill, dropped []string) {
	disabled := make(map[string]bool, len(caller.Disabled))
	for _, d := range caller.Disabled {
		disabled[strings.TrimSpace(d)] = true
	}
	kept = keptRoom
	if cap(kept) < len(skills) {
		kept = make([]*registry.Skill, 0, len(skills))
	}
	dropped = droppedRoom
	for _, s := range skills {
		// A workflow's scopes already include its nodes' (a workflow never
		// lends a node a permission); a disabled node skill must shut it out
		// the same way, or switching refund_order off would leave a workflow
		// that refunds.
		if disabled[s.Name] || callsAny(s.Steps, disabled) || !holdsAll(scopes, s.PermissionScope) {
			dropped = append(dropped, s.Name)
			continue
		}
		kept = append(kept, s)
	}
	if len(dropped) == 0 {
		dropped = nil // as before the room: no list, not an empty one
	}
	slices.Sort(dropped)
	return kept, dropped
}

// callsAny reports whether any of a workflow's steps is in the set.
func callsAny(steps []string, set map[string]bool) bool {
	for _, st := range steps {
		if set[st] {
			return true
		}
	}
	return false
}

// holdsAll reports whether every needed scope is held.
func holdsAll(held heldScopes, needed []string) bool {
	for _, n := range needed {
		if !held.has(n) {
			return false
		}
	}
	return true
}

// missingScopes lists, in order, the needed scopes that are not held.
func missingScopes(held heldScopes, needed []string) []string {
	var out []string
	for _, n := range needed {
		if !held.has(n) && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// heldScopes is the set of scopes a caller holds, each trimmed. A caller
// holds a handful, so a list is searched; a long one gets a map.
type heldScopes struct {
	list []string
	set  map[string]bool // only for a long list
}

// scopeListMax is the longest scope list searched in turn.
const scopeListMax = 16

// scopeSet turns a caller's scopes into a set, built once per request.
// Scopes written without surrounding space (the usual case) are used as
// they are, without a copy.
func scopeSet(c Caller) heldScopes {
	list, copied := c.Scopes, false
	for i, s := range c.Scopes {
		if t := strings.TrimSpace(s); t != s {
			if !copied {
				list, copied = slices.Clone(c.Scopes), true
			}
			list[i] = t
		}
	}
	h := heldScopes{list: list}
	if len(list) > scopeListMax {
		h.set = make(map[string]bool, len(list))
		for _, s := range list {
			h.set[s] = true
		}
	}
	return h
}

// has reports whether scope n is held.
func (h heldScopes) has(n string) bool {
	if h.set != nil {
		return h.set[n]
	}
	return slices.Contains(h.list, n)
}

// triggerIndex holds a skill set's triggers for stage 1, each with the
// literals one of which every match of it contains: most requests match no
// trigger, and a text holding none of a trigger's literals is never run
// through its regexp. Which skills a request triggers is worked out once
// per request (triggerHits), however many times stage 1 and diagnosis ask.
type triggerIndex struct {
	at     map[*registry.Skill]int // the place of each skill with triggers
	skills [][]trigger             // by place
}

// trigger is one compiled trigger, searched through its prefilters: not
// in text without what every match of it contains (prefilter.Required),
// and only in the runs of runes a match can be made of when its matches
// are made of few kinds (prefilter.AlphabetOf; an id trigger such as
// `(?i)\bORD-\d{8}\b` is tried in a few short windows, not at every
// position of the request).
type trigger struct {
	filtered prefilter.Filtered
}

func newTriggerIndex(skills []*registry.Skill) triggerIndex {
	var ix triggerIndex
	for _, s := range skills {
		var ts []trigger
		for _, t := range s.Triggers {
			if t.Re != nil {
				ts = append(ts, trigger{filtered: prefilter.Filter(t.Re)})
			}
		}
		if len(ts) == 0 {
			continue
		}
		if ix.at == nil {
			ix.at = map[*registry.Skill]int{}
		}
		if _, seen := ix.at[s]; !seen {
			ix.at[s] = len(ix.skills)
			ix.skills = append(ix.skills, ts)
		}
	}
	return ix
}

// matchesAny reports whether one of ts matches text, trying a regexp only
// where it can match.
func matchesAny(ts []trigger, text string) bool {
	for _, t := range ts {
		if t.filtered.MatchString(text) {
			return true
		}
	}
	return false
}

// triggerHits remembers, for one request's text, whose triggers match.
type triggerHits struct {
	ix    *triggerIndex
	state []uint8 // by place: 0 not tried yet, 1 no match, 2 a match
	small [16]uint8
}

// triggered reports whether a trigger of s matches text (the text of the
// request the hits belong to), running s's triggers at most once.
func (h *triggerHits) triggered(ix *triggerIndex, s *registry.Skill, text string) bool {
	i, ok := ix.at[s]
	if !ok {
		return false
	}
	if h.ix != ix {
		h.ix = ix
		if n := len(ix.skills); n <= len(h.small) {
			h.small = [16]uint8{}
			h.state = h.small[:n]
		} else {
			h.state = make([]uint8, n)
		}
	}
	if h.state[i] == 0 {
		h.state[i] = 1
		if matchesAny(ix.skills[i], text) {
			h.state[i] = 2
		}
	}
	return h.state[i] == 2
}

// matchTriggers is stage 1: the candidates whose trigger regexes match the
// request, in registry order. Triggers of skills that did not pass policy
// are never consulted.
func (rt *routing) matchTriggers(candidates []*registry.Skill) []*registry.Skill {
	var matched []*registry.Skill
	for _, s := range candidates {
		if rt.triggered(s) {
			matched = append(matched, s)
		}
	}
	return matched
}

// triggered reports whether a trigger of s matches the request.
func (rt *routing) triggered(s *registry.Skill) bool {
	return rt.hits.triggered(&rt.set.triggers, s, rt.text)
}

// workflowsOver is the rest of stage 1: the candidates (so policy has
// already had its say, and nothing the caller may not use comes back) whose
// Steps call a matched skill. A trigger says the request is about that
// skill; it cannot say whether the request wants the skill alone or the
// whole task built around it, so such workflows must stay in the running.
// Matched skills themselves are not repeated. Only a matched skill that
// acts (write, delete, send) brings a workflow in: a workflow exists for
// its side effects, and the reads it starts with are plumbing. An order id
// that matches the lookup must not turn "show ORD-…" into a choice
// between the lookup and "refund then notify".
func workflowsOver(candidates, matched []*registry.Skill) (joined []*registry.Skill, via [][]string) {
	for _, s := range candidates {
		if len(s.Steps) == 0 || slices.Contains(matched, s) {
			continue
		}
		var calls []string
		for _, m := range matched {
			if m.SideEffect.Acts() && slices.Contains(s.Steps, m.Name) {
				calls = append(calls, m.Name)
			}
		}
		if len(calls) > 0 {
			joined = append(joined, s)
			via = append(via, calls)
		}
	}
	return joined, via
}

// sharedSignal reports whether a trigger of a skill that did not pass policy
// also matches the request. An order id names both "show the order" and
// "refund the order"; when the caller may only read, the id alone must not
// decide "show the order" for "refund ORD-…". The dropped skill is only
// consulted here and never becomes a candidate.
func (rt *routing) sharedSignal(candidates []*registry.Skill) bool {
	for _, s := range rt.set.reg.Skills {
		if !slices.Contains(candidates, s) && rt.triggered(s) {
			return true
		}
	}
	return false
}

func skillNames(skills []*registry.Skill) []string {
	out := make([]string, len(skills))
	for i, s := range skills {
		out[i] = s.Name
	}
	return out
}
