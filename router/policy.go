package router

import (
	"slices"
	"strings"

	"github.com/routebench/routebench/router/registry"
)

// policy is stage 0: only skills the caller may use, and that are not
// switched off for them, become candidates. Nothing else is ever seen by a
// later stage, so no judge answer can reach a skill outside the caller's
// scope.
func policy(skills []*registry.Skill, caller Caller) (kept []*registry.Skill, dropped []string) {
	scopes := scopeSet(caller)
	disabled := make(map[string]bool, len(caller.Disabled))
	for _, d := range caller.Disabled {
		disabled[strings.TrimSpace(d)] = true
	}
	kept = make([]*registry.Skill, 0, len(skills))
	for _, s := range skills {
		if disabled[s.Name] || !holdsAll(scopes, s.PermissionScope) {
			dropped = append(dropped, s.Name)
			continue
		}
		kept = append(kept, s)
	}
	slices.Sort(dropped)
	return kept, dropped
}

// holdsAll reports whether every needed scope is held.
func holdsAll(held map[string]bool, needed []string) bool {
	for _, n := range needed {
		if !held[n] {
			return false
		}
	}
	return true
}

// missingScopes lists, in order, the needed scopes that are not held.
func missingScopes(held map[string]bool, needed []string) []string {
	var out []string
	for _, n := range needed {
		if !held[n] && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// scopeSet turns a caller's scopes into a set.
func scopeSet(c Caller) map[string]bool {
	m := make(map[string]bool, len(c.Scopes))
	for _, s := range c.Scopes {
		m[strings.TrimSpace(s)] = true
	}
	return m
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
