// Package matchers holds Gomega matchers over router decisions, for specs
// that route a request and check what the router decided. Failure messages
// say what was expected, what was decided, and show the stage trace.
package matchers

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/onsi/gomega/types"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

// decisionMatcher is every matcher here: a test on a decision and the
// words for what it expects.
type decisionMatcher struct {
	want string
	test func(d router.Decision) (ok bool, why string)
	why  string
}

func (m *decisionMatcher) Match(actual any) (bool, error) {
	d, err := toDecision(actual)
	if err != nil {
		return false, err
	}
	ok, why := m.test(d)
	m.why = why
	return ok, nil
}

func (m *decisionMatcher) FailureMessage(actual any) string {
	return m.message(actual, "Expected the router to "+m.want)
}

func (m *decisionMatcher) NegatedFailureMessage(actual any) string {
	return m.message(actual, "Expected the router not to "+m.want)
}

func (m *decisionMatcher) message(actual any, head string) string {
	d, err := toDecision(actual)
	if err != nil {
		return err.Error()
	}
	var b strings.Builder
	b.WriteString(head)
	b.WriteString("\n  decided: ")
	b.WriteString(harness.DescribeDecision(d))
	if m.why != "" {
		b.WriteString("\n  why: ")
		b.WriteString(m.why)
	}
	if len(d.Params) > 0 {
		fmt.Fprintf(&b, "\n  params: %s", jsonish(d.Params))
	}
	b.WriteString("\n")
	b.WriteString(FormatTrace(d))
	return b.String()
}

func toDecision(actual any) (router.Decision, error) {
	switch d := actual.(type) {
	case router.Decision:
		return d, nil
	case *router.Decision:
		if d == nil {
			return router.Decision{}, fmt.Errorf("expected a router.Decision, got nil")
		}
		return *d, nil
	}
	return router.Decision{}, fmt.Errorf("expected a router.Decision, got %T", actual)
}

// RouteTo succeeds when the decision executes the skill (a read skill
// acting now). Use Confirm for side-effect skills.
func RouteTo(skill string) types.GomegaMatcher {
	return &decisionMatcher{want: "execute " + skill, test: func(d router.Decision) (bool, string) {
		return d.Action == router.Execute && d.Skill == skill, ""
	}}
}

// Confirm succeeds when the decision asks to confirm the skill through
// the gate; an empty gate accepts any gate (but not none).
func Confirm(skill string, gate registry.Gate) types.GomegaMatcher {
	want := "confirm " + skill
	if gate != "" {
		want += " through the " + string(gate) + " gate"
	}
	return &decisionMatcher{want: want, test: func(d router.Decision) (bool, string) {
		if d.Action != router.Confirm || d.Skill != skill {
			return false, ""
		}
		if d.Gate == "" {
			return false, "a confirm must carry a gate"
		}
		return gate == "" || d.Gate == gate, ""
	}}
}

// Clarify succeeds when the decision clarifies and offers every candidate
// (as its skill or among its candidates).
func Clarify(candidates ...string) types.GomegaMatcher {
	want := "clarify"
	if len(candidates) > 0 {
		want += fmt.Sprintf(" offering %v", candidates)
	}
	return &decisionMatcher{want: want, test: func(d router.Decision) (bool, string) {
		if d.Action != router.Clarify {
			return false, ""
		}
		var missing []string
		for _, c := range candidates {
			if !harness.Offers(d, c) {
				missing = append(missing, c)
			}
		}
		if len(missing) > 0 {
			return false, fmt.Sprintf("not offered: %v", missing)
		}
		return true, ""
	}}
}

// Refuse succeeds when the decision refuses. An error decision is not a
// refusal, nor is a judge answer naming a skill outside the candidates.
func Refuse() types.GomegaMatcher {
	return &decisionMatcher{want: "refuse", test: func(d router.Decision) (bool, string) {
		if d.Action == router.Refuse && slices.ContainsFunc(d.Errors, router.IsInvalidSkill) {
			return false, "the judge named a skill outside the candidates (invalid_skill): a judge failure, not a refusal"
		}
		return d.Action == router.Refuse, ""
	}}
}

// HaveParams succeeds when the decision's params match, as a subset: each
// value is a literal (numbers compare numerically) or a
// harness.ParamMatcher ({AnyOf}, {Regex}, {Absent}).
func HaveParams(want map[string]any) types.GomegaMatcher {
	matchers := make(map[string]harness.ParamMatcher, len(want))
	for k, v := range want {
		if pm, ok := v.(harness.ParamMatcher); ok {
			matchers[k] = pm
		} else {
			matchers[k] = harness.ParamMatcher{Equals: v}
		}
	}
	return &decisionMatcher{want: "decide params " + describeMatchers(matchers), test: func(d router.Decision) (bool, string) {
		ms := harness.MatchParams(matchers, d.Params)
		if len(ms) == 0 {
			return true, ""
		}
		parts := make([]string, len(ms))
		for i, m := range ms {
			parts[i] = m.String()
		}
		return false, strings.Join(parts, "; ")
	}}
}

// NeverAct succeeds when the decision does not execute or confirm any of
// the skills.
func NeverAct(skills ...string) types.GomegaMatcher {
	return &decisionMatcher{want: fmt.Sprintf("never act on %v", skills), test: func(d router.Decision) (bool, string) {
		if d.Action.Acts() && slices.Contains(skills, d.Skill) {
			return false, fmt.Sprintf("%s %s", d.Action, d.Skill)
		}
		return true, ""
	}}
}

// MeetExpectation succeeds when the decision satisfies the case's whole
// expectation (harness.Check: action, skill, gate, candidates, params,
// never, and no policy violation). reg is the skill set routed over: the
// case's tools or the version's registry.
func MeetExpectation(c *harness.Case, reg *registry.Registry) types.GomegaMatcher {
	m := &decisionMatcher{want: describeExpect(c)}
	m.test = func(d router.Decision) (bool, string) {
		v := harness.Check(c, d, reg)
		if v.Pass {
			return true, ""
		}
		// The decided line already says what was decided; keep the rest.
		var rest []string
		for _, p := range v.Problems {
			if !strings.HasPrefix(p, "expected ") {
				rest = append(rest, p)
			}
		}
		why := "failure category " + v.Failure
		if len(rest) > 0 {
			why += ": " + strings.Join(rest, "; ")
		}
		return false, why
	}
	return m
}

func describeExpect(c *harness.Case) string {
	e := c.Expect
	s := fmt.Sprintf("meet case %s (%q): %s", c.ID, clip(c.Input, 80), e.Action)
	if e.Skill != "" {
		s += " " + e.Skill
	}
	if e.Gate != "" {
		s += " through the " + string(e.Gate) + " gate"
	}
	if len(e.Candidates) > 0 {
		s += fmt.Sprintf(" offering %v", e.Candidates)
	}
	if len(e.Params) > 0 {
		s += " with params " + describeMatchers(e.Params)
	}
	if len(e.Never) > 0 {
		s += fmt.Sprintf(", never acting on %v", e.Never)
	}
	return s
}

func describeMatchers(ms map[string]harness.ParamMatcher) string {
	names := make([]string, 0, len(ms))
	for k := range ms {
		names = append(names, k)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = k + ": " + ms[k].String()
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
