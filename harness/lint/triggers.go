package lint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/routebench/routebench/router/registry"
)

// triggers checks that stage-1 regexes are strong signals for their own
// skill: a trigger that also fires on another skill's examples is no
// decision (several matches only pass the skills on as candidates), and
// one that fires on its own skill's counter_examples decides the very
// requests the skill must not take, with confidence 1.0, when it is the
// only trigger that matches.
func (c *checker) triggers() {
	skills := c.v.Registry.Skills
	for _, s := range skills {
		for _, t := range s.Triggers {
			var others []string
			for _, o := range skills {
				if o == s || len(o.Examples) == 0 {
					continue
				}
				var hit *registry.Example
				n := 0
				for k := range o.Examples {
					if t.Re.MatchString(o.Examples[k].Input) {
						if hit == nil {
							hit = &o.Examples[k]
						}
						n++
					}
				}
				if n > 0 {
					others = append(others, fmt.Sprintf("%s (%d of %d, e.g. %q at line %d)", o.Name, n, len(o.Examples), hit.Input, hit.Pos.Line))
				}
			}
			if len(others) > 0 {
				c.add(Warning, CheckTriggerPrecise, s, t.Pos, fmt.Sprintf(
					"trigger %s of %s also matches examples of %s; a match on several skills decides nothing and only passes them on to recall and the judge: require words only %s's requests have, or drop the trigger if narrowing candidates is all it is for",
					t.Pattern, s.Name, strings.Join(others, ", "), s.Name))
			}
			c.counterMatches(s, t)
		}
	}
}

func (c *checker) counterMatches(s *registry.Skill, t *registry.Trigger) {
	lines := c.raw[s.Name].counterLines
	var hits []string
	// shared collects the other skills whose triggers also match every hit:
	// then the rules stage passes them all on, and only that saves the day.
	var shared []string
	for k, ce := range s.CounterExamples {
		if !t.Re.MatchString(ce) {
			continue
		}
		where := ""
		if k < len(lines) {
			where = fmt.Sprintf(" (line %d)", lines[k])
		}
		co := c.otherTriggers(s, ce)
		if len(hits) == 0 {
			shared = co
		} else {
			shared = intersect(shared, co)
		}
		hits = append(hits, fmt.Sprintf("%q%s", ce, where))
	}
	if len(hits) == 0 {
		return
	}
	risk := fmt.Sprintf("where no other skill's trigger matches too, the rules stage routes such a request to %s with confidence 1.0", s.Name)
	if len(shared) > 0 {
		risk = fmt.Sprintf("only because the trigger of %s matches them too does the rules stage pass them on instead of routing them to %s with confidence 1.0",
			strings.Join(shared, ", "), s.Name)
	}
	c.add(Warning, CheckTriggerPrecise, s, t.Pos, fmt.Sprintf(
		"trigger %s of %s matches its own counter_examples %s; %s: narrow the trigger to what only %s's requests say",
		t.Pattern, s.Name, strings.Join(hits, ", "), risk, s.Name))
}

// otherTriggers lists the skills other than s with a trigger matching text.
func (c *checker) otherTriggers(s *registry.Skill, text string) []string {
	var out []string
	for _, o := range c.v.Registry.Skills {
		if o == s {
			continue
		}
		for _, t := range o.Triggers {
			if t.Re.MatchString(text) {
				out = append(out, o.Name)
				break
			}
		}
	}
	return out
}

func intersect(a, b []string) []string {
	var out []string
	for _, x := range a {
		if slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}
