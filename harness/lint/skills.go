package lint

import (
	"fmt"

	"github.com/routebench/routebench/router/registry"
)

// minExamples is the advised lower bound of DESIGN §2's "2-3 examples".
// More are fine: imported registries carry many.
const minExamples = 2

// skills runs the per-skill checks: the when_not_to_use and
// counter_examples layers, the number of examples and the confirm gate.
// Examples that break their schema or rules never get here: the loader
// rejects them, and the version is reported under the load check.
func (c *checker) skills() {
	for i, s := range c.v.Registry.Skills {
		raw := c.raw[s.Name]
		neighbour := c.neighbour(i)
		if len(s.WhenNotToUse) == 0 {
			hint := "the requests a neighbouring skill should take, each naming it as (use other_skill)"
			if neighbour != nil {
				hint = fmt.Sprintf("the requests that belong to a neighbour, each naming it, e.g. \"... (use %s)\" for its closest skill", neighbour.Name)
			}
			c.add(Warning, CheckWhenNotToUse, s, c.at(s, raw, "when_not_to_use"), fmt.Sprintf(
				"%s has no when_not_to_use; add at least one: %s", s.Name, hint))
		}
		if len(s.CounterExamples) == 0 {
			hint := "requests in a neighbour's phrasing that must not route here"
			if neighbour != nil && len(neighbour.Examples) > 0 {
				hint = fmt.Sprintf("requests in a neighbour's phrasing that must not route here, e.g. %q (an example of %s, its closest skill)",
					neighbour.Examples[0].Input, neighbour.Name)
			}
			c.add(Warning, CheckCounterExamples, s, c.at(s, raw, "counter_examples"), fmt.Sprintf(
				"%s has no counter_examples; add at least one: %s", s.Name, hint))
		}
		if n := len(s.Examples); n < minExamples {
			c.add(Warning, CheckExamples, s, c.at(s, raw, "examples"), fmt.Sprintf(
				"%s has %d example%s; 2-3 advised: add examples in other wordings (and in each language users write), with the params their text determines",
				s.Name, n, plural(n)))
		}
		c.confirmGate(s, raw)
	}
}

// confirmGate checks that every side effect declares its gate. The loader
// gives an undeclared one the normal gate, which is wrong for what cannot
// be undone, so a missing gate is an error even though nothing runs ungated.
func (c *checker) confirmGate(s *registry.Skill, raw rawSkill) {
	written := raw.has("confirm")
	if raw.keys == nil {
		// No raw file to read: trust the loaded value.
		written = s.Confirm != ""
	}
	switch {
	case s.SideEffect.Acts() && !written:
		c.add(Error, CheckConfirmGate, s, s.Pos, fmt.Sprintf(
			"%s has side_effect %s but no confirm gate; the loader falls back to normal: write confirm: normal, batch (acts on many things at once) or irreversible (cannot be undone)",
			s.Name, s.SideEffect))
	case !s.SideEffect.Acts() && written:
		c.add(Warning, CheckConfirmGate, s, c.at(s, raw, "confirm"), fmt.Sprintf(
			"%s is a read skill with confirm: %s, which has no effect (read skills execute without a gate); remove confirm, or set side_effect to write, delete or send if it changes something",
			s.Name, s.Confirm))
	}
}

// at is where a finding about field belongs: the field's key when it was
// written (empty lists), else the skill's name line.
func (c *checker) at(s *registry.Skill, raw rawSkill, field string) registry.Pos {
	if line, ok := raw.keys[field]; ok {
		return registry.Pos{File: s.Pos.File, Line: line}
	}
	return s.Pos
}

// neighbour is skill i's closest skill in embedding space, named in
// advice; nil when the skills could not be embedded.
func (c *checker) neighbour(i int) *registry.Skill {
	sp := c.sp
	if sp == nil {
		return nil
	}
	if j := sp.nearest(i); j >= 0 {
		return sp.skills[j]
	}
	return nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
