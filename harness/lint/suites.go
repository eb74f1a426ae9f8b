package lint

import (
	"fmt"
	"strings"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/router"
)

var suiteKinds = []string{harness.SuiteNormal, harness.SuiteBoundary, harness.SuiteAdversarial}

// involved lists the skills a case is about: the one it expects, the
// candidates a clarify must offer and the ones that must never act.
func involved(e harness.Expect) []string {
	var out []string
	if e.Skill != "" {
		out = append(out, e.Skill)
	}
	out = append(out, e.Candidates...)
	return append(out, e.Never...)
}

// failurePath reports whether a case expects the router not to act.
func failurePath(e harness.Expect) bool {
	return e.Action == router.Refuse || e.Action == router.Clarify
}

// suites checks the cases against this version's registry: every skill is
// covered by normal, boundary and adversarial cases, every side-effect skill
// has a case where acting is wrong, and every skill a case names exists.
// Cases with their own tools route against those, not the version, and are
// left out.
func (c *checker) suites(cases []harness.Case) {
	reg := c.v.Registry
	covered := map[string]map[string]bool{} // skill -> suite kind -> covered
	failure := map[string]bool{}
	fileOf := map[string]string{} // suite kind -> first file holding it
	for i := range cases {
		cs := &cases[i]
		if _, ok := fileOf[cs.Suite]; !ok {
			fileOf[cs.Suite] = cs.Pos.File
		}
		if cs.Tools != nil {
			continue
		}
		seen := map[string]bool{}
		// A conversation covers every skill its turns name.
		for _, e := range cs.Expectations() {
			for _, name := range involved(e) {
				if failurePath(e) && reg.Skill(name) != nil {
					failure[name] = true
				}
				if seen[name] {
					continue
				}
				seen[name] = true
				if reg.Skill(name) == nil && c.workflows.Workflow(name) != nil {
					continue // a workflow: routable, but not a skill of the checklist
				}
				if reg.Skill(name) == nil {
					c.found = append(c.found, Finding{Severity: Warning, Version: c.v.ID(), Skill: name, File: cs.Pos.File, Line: cs.Pos.Line,
						Check: CheckSuiteSkill, Message: fmt.Sprintf(
							"case %s names skill %s, which %s does not have; rename it in the case, or add the skill to %s",
							cs.ID, name, c.v.ID(), c.v.Dir)})
					continue
				}
				if covered[name] == nil {
					covered[name] = map[string]bool{}
				}
				covered[name][cs.Suite] = true
			}
		}
	}
	for _, s := range reg.Skills {
		var missing, where []string
		for _, kind := range suiteKinds {
			if covered[s.Name][kind] {
				continue
			}
			missing = append(missing, kind)
			if f := fileOf[kind]; f != "" {
				where = append(where, f)
			} else {
				where = append(where, "a new "+kind+" suite")
			}
		}
		if len(missing) > 0 {
			c.add(Warning, CheckCoverage, s, s.Pos, fmt.Sprintf(
				"%s has no %s case (as expected skill, clarify candidate or never-list); add one to %s",
				s.Name, list(missing, "or"), list(where, "and")))
		}
		if s.SideEffect.Acts() && !failure[s.Name] {
			c.add(Warning, CheckFailurePath, s, s.Pos, fmt.Sprintf(
				"%s has side_effect %s but no failure-path case; add a case expecting refuse or clarify that lists it under never or candidates (an injection, a missing param, a request outside the caller's scope)",
				s.Name, s.SideEffect))
		}
	}
	c.confusable(cases)
}

// pairCase is the first case that offers two skills as clarify candidates.
type pairCase struct {
	a, b string
	c    *harness.Case
}

// confusablePairs lists the skill pairs the suites offer together as
// clarify candidates, in case order, each once.
func confusablePairs(cases []harness.Case) []pairCase {
	var out []pairCase
	seen := map[[2]string]bool{}
	for i := range cases {
		cs := &cases[i]
		if cs.Tools != nil {
			continue
		}
		for _, e := range cs.Expectations() {
			if e.Action != router.Clarify {
				continue
			}
			for x, a := range e.Candidates {
				for _, b := range e.Candidates[x+1:] {
					key := [2]string{min(a, b), max(a, b)}
					if a == b || seen[key] {
						continue
					}
					seen[key] = true
					out = append(out, pairCase{a: a, b: b, c: cs})
				}
			}
		}
	}
	return out
}

// confusable checks that skills the suites treat as confusable (offered
// together when clarifying) each name the other in when_not_to_use, which
// is what tells a judge where the boundary runs. A skill with no
// when_not_to_use at all is left to that check.
func (c *checker) confusable(cases []harness.Case) {
	reg := c.v.Registry
	for _, p := range confusablePairs(cases) {
		for _, pair := range [][2]string{{p.a, p.b}, {p.b, p.a}} {
			s, other := reg.Skill(pair[0]), reg.Skill(pair[1])
			if s == nil || other == nil || len(s.WhenNotToUse) == 0 || namesSkill(s.WhenNotToUse, other.Name) {
				continue
			}
			c.add(Warning, CheckConfusablePair, s, c.at(s, c.raw[s.Name], "when_not_to_use"), fmt.Sprintf(
				"%s's when_not_to_use does not name %s, though case %s (%s) offers the two as clarify candidates; add a line for the requests that belong to %s, ending (use %s)",
				s.Name, other.Name, p.c.ID, p.c.Pos, other.Name, other.Name))
		}
	}
}

// namesSkill reports whether any line mentions name as a whole word.
func namesSkill(lines []string, name string) bool {
	for _, l := range lines {
		for rest := l; ; {
			i := strings.Index(rest, name)
			if i < 0 {
				break
			}
			end := i + len(name)
			if (i == 0 || !nameChar(rest[i-1])) && (end == len(rest) || !nameChar(rest[end])) {
				return true
			}
			rest = rest[end:]
		}
	}
	return false
}

func nameChar(b byte) bool {
	return b == '_' || b == '.' || b == '-' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// list joins items as "a", "a or b", "a, b or c".
func list(items []string, conj string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + conj + " " + items[len(items)-1]
}
