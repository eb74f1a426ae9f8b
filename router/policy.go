package router

import (
	"regexp"
	"slices"
	"strings"

	"github.com/routebench/routebench/router/registry"
)

// policy is stage 0: only skills the caller may use, and that are not
// switched off for them, become candidates. Nothing else is ever seen by a
// later stage, so no judge answer can reach a skill outside the caller's
// scope.
func policy(skills []*registry.Skill, caller Caller, scopes heldScopes) (kept []*registry.Skill, dropped []string) {
	disabled := make(map[string]bool, len(caller.Disabled))
	for _, d := range caller.Disabled {
		disabled[strings.TrimSpace(d)] = true
	}
	kept = make([]*registry.Skill, 0, len(skills))
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

// triggerFilter answers, in one pass over the text, whether any trigger of
// a skill set can match: most requests match none, and trying each
// trigger in turn costs a regexp run per trigger per request.
type triggerFilter struct {
	none bool           // the set has no triggers at all
	any  *regexp.Regexp // every trigger as one alternation; nil: try each
}

func newTriggerFilter(skills []*registry.Skill) triggerFilter {
	var alts []string
	for _, s := range skills {
		for _, t := range s.Triggers {
			if t.Re != nil {
				// Each pattern keeps its own flags: a flag group such as
				// (?i) set inside (?:…) ends with that group.
				alts = append(alts, "(?:"+t.Re.String()+")")
			}
		}
	}
	if len(alts) == 0 {
		return triggerFilter{none: true}
	}
	re, err := regexp.Compile(strings.Join(alts, "|"))
	if err != nil {
		// Too large to join (each compiled alone): every trigger is tried.
		return triggerFilter{}
	}
	return triggerFilter{any: re}
}

// mayMatch is false only when no trigger of the set matches text.
func (f triggerFilter) mayMatch(text string) bool {
	if f.none {
		return false
	}
	return f.any == nil || f.any.MatchString(text)
}

// matchTriggers is stage 1: the candidates whose trigger regexes match the
// text, in registry order. Triggers of skills that did not pass policy are
// never consulted.
func matchTriggers(candidates []*registry.Skill, text string) []*registry.Skill {
	var matched []*registry.Skill
	for _, s := range candidates {
		for _, t := range s.Triggers {
			if t.Re != nil && t.Re.MatchString(text) {
				matched = append(matched, s)
				break
			}
		}
	}
	return matched
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
// also matches the text. An order id names both "show the order" and
// "refund the order"; when the caller may only read, the id alone must not
// decide "show the order" for "refund ORD-…". The dropped skill is only
// consulted here and never becomes a candidate.
func sharedSignal(all, candidates []*registry.Skill, text string) bool {
	for _, s := range all {
		if slices.Contains(candidates, s) {
			continue
		}
		if len(matchTriggers([]*registry.Skill{s}, text)) > 0 {
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
