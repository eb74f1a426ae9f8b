package harness

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
	"github.com/routebench/routebench/workflow"
)

// Workflow failure categories, after DESIGN §6's (FailureCategories) and
// in this order of precedence. A workflow case whose routing fails gets a
// §6 category; one routed as expected gets the first of these that
// applies:
const (
	// FailGuardViolation: the outcome breaks a guard of DESIGN §11
	// (workflow.Guards: an illegal retry, a duplicate side effect, an
	// unverified success, overlapping or reordered writes, a side effect
	// without its confirmation, a silent failure, a missed doom loop),
	// whatever the case expects. Code is law: a bug in the engine.
	FailGuardViolation = "guard_violation"
	// FailWorkflowOutcome: outcome, stopped_at, reason, error_code or
	// skill_used differ from the expectation.
	FailWorkflowOutcome = "workflow_outcome"
	// FailCallSequence: the calls made, a `never` skill called, the
	// retries per node or the side effects executed differ.
	FailCallSequence = "call_sequence"
	// FailResume: the second run (resume) differs.
	FailResume = "resume_mismatch"
)

// WorkflowFailureCategories follow FailureCategories in precedence. They
// appear in a summary's failures only for groups with workflow cases.
var WorkflowFailureCategories = []string{FailGuardViolation, FailWorkflowOutcome, FailCallSequence, FailResume}

// AllFailureCategories is every category, in precedence order.
func AllFailureCategories() []string {
	return append(slices.Clone(FailureCategories), WorkflowFailureCategories...)
}

// WorkflowMismatch is one way a workflow outcome differs from its case.
type WorkflowMismatch struct {
	Category string `json:"category"`
	// Field is the expectation ("outcome", "calls", "resume.skipped") or
	// the guard ("illegal_retries").
	Field string `json:"field"`
	Want  string `json:"want"`
	Got   string `json:"got"`
}

func (m WorkflowMismatch) String() string {
	if m.Category == FailGuardViolation {
		return fmt.Sprintf("guard %s broken: %s (must be %s)", m.Field, m.Got, m.Want)
	}
	return fmt.Sprintf("%s: expected %s, got %s", m.Field, m.Want, m.Got)
}

// GuardTotals adds the guard counts of a case's runs (first and resume).
func GuardTotals(runs ...*workflow.Outcome) workflow.GuardCounts {
	var t workflow.GuardCounts
	for _, o := range runs {
		if o == nil {
			continue
		}
		addGuards(&t, workflow.Guards(o))
	}
	return t
}

// addGuards adds g's counts to t.
func addGuards(t *workflow.GuardCounts, g workflow.GuardCounts) {
	t.IllegalRetries += g.IllegalRetries
	t.DuplicateSideEffects += g.DuplicateSideEffects
	t.DoomLoopsStopped += g.DoomLoopsStopped
	t.DoomLoopsMissed += g.DoomLoopsMissed
	t.UnverifiedClaimsFlagged += g.UnverifiedClaimsFlagged
	t.UnverifiedClaims += g.UnverifiedClaims
	t.WriteOrderViolations += g.WriteOrderViolations
	t.ConfirmationMisses += g.ConfirmationMisses
	t.SilentFailures += g.SilentFailures
	t.ResumeSkippedNodes += g.ResumeSkippedNodes
}

// brokenGuards are the guard counts that must be 0, by metric name.
func brokenGuards(g workflow.GuardCounts) [][2]any {
	return [][2]any{
		{IllegalRetries, g.IllegalRetries},
		{DuplicateSideEffects, g.DuplicateSideEffects},
		{UnverifiedClaims, g.UnverifiedClaims},
		{WriteOrderViolations, g.WriteOrderViolations},
		{ConfirmationMisses, g.ConfirmationMisses},
		{SilentFailures, g.SilentFailures},
		{"doom_loops_missed", g.DoomLoopsMissed},
	}
}

// WorkflowMismatches lists how a workflow case's outcomes differ from its
// expectation, guards first, in category order. It reads only the result,
// so reports can say what differed without re-running anything.
func WorkflowMismatches(e Expect, o, resume *workflow.Outcome) []WorkflowMismatch {
	if o == nil {
		return []WorkflowMismatch{{Category: FailWorkflowOutcome, Field: "workflow", Want: "a run", Got: "none recorded"}}
	}
	var out []WorkflowMismatch
	add := func(cat, field, want, got string) {
		out = append(out, WorkflowMismatch{Category: cat, Field: field, Want: want, Got: got})
	}
	for _, g := range brokenGuards(GuardTotals(o, resume)) {
		if n := g[1].(int); n > 0 {
			add(FailGuardViolation, g[0].(string), "0", fmt.Sprint(n))
		}
	}
	text := func(field, want, got string) {
		if want != "" && want != got {
			add(FailWorkflowOutcome, field, want, orNone(got))
		}
	}
	text("outcome", e.Outcome, string(o.Outcome))
	text("stopped_at", e.StoppedAt, o.StoppedAt)
	text("reason", e.Reason, o.Reason)
	text("error_code", e.ErrorCode, o.ErrorCode)
	if e.SkillUsed != "" && !slices.Contains(skillsUsed(o), e.SkillUsed) {
		add(FailWorkflowOutcome, "skill_used", e.SkillUsed, orNone(strings.Join(skillsUsed(o), ", ")))
	}
	if e.Calls != nil && !slices.Equal(*e.Calls, o.CallSkills()) {
		add(FailCallSequence, "calls", listText(*e.Calls), listText(o.CallSkills()))
	}
	for _, c := range o.Calls {
		if slices.Contains(e.Never, c.Skill) {
			add(FailCallSequence, "never", "no call of "+c.Skill, fmt.Sprintf("%s called by %s (attempt %d)", c.Skill, c.Node, c.Attempt))
			break
		}
	}
	if e.Retries != nil && !sameRetries(*e.Retries, o.Retries) {
		add(FailCallSequence, "retries", retriesText(*e.Retries), retriesText(o.Retries))
	}
	if e.SideEffects != nil && *e.SideEffects != o.SideEffectsExecuted() {
		add(FailCallSequence, "side_effects", fmt.Sprint(*e.SideEffects), fmt.Sprint(o.SideEffectsExecuted()))
	}
	if r := e.Resume; r != nil {
		if resume == nil {
			add(FailResume, "resume", "a second run", "none recorded")
			return out
		}
		if r.Outcome != "" && r.Outcome != string(resume.Outcome) {
			add(FailResume, "resume.outcome", r.Outcome, string(resume.Outcome))
		}
		if r.Skipped != nil {
			want, got := slices.Sorted(slices.Values(*r.Skipped)), slices.Sorted(slices.Values(resume.Checkpoints.Skipped))
			if !slices.Equal(want, got) {
				add(FailResume, "resume.skipped", listText(want), listText(got))
			}
		}
		if r.Calls != nil && !slices.Equal(*r.Calls, resume.CallSkills()) {
			add(FailResume, "resume.calls", listText(*r.Calls), listText(resume.CallSkills()))
		}
	}
	return out
}

// skillsUsed are the skills an outcome names as behind its result: the
// node it ended at, then each empty result's.
func skillsUsed(o *workflow.Outcome) []string {
	var out []string
	if o.SkillUsed != "" {
		out = append(out, o.SkillUsed)
	}
	for _, e := range o.Report.Empty {
		if !slices.Contains(out, e.SkillUsed) {
			out = append(out, e.SkillUsed)
		}
	}
	return out
}

// sameRetries compares retries per node, a node left out being 0.
func sameRetries(want, got map[string]int) bool {
	for _, k := range slices.Concat(slices.Collect(maps.Keys(want)), slices.Collect(maps.Keys(got))) {
		if want[k] != got[k] {
			return false
		}
	}
	return true
}

func retriesText(m map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if m[k] != 0 {
			parts = append(parts, fmt.Sprintf("%s: %d", k, m[k]))
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func listText(xs []string) string { return "[" + strings.Join(xs, ", ") + "]" }

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// CheckWorkflow judges a workflow case: its routing expectation when it
// has one (action and/or skill, as Check does, with policy always
// checked), then every workflow expectation and guard. reg is the skill
// set the decision was made over (the routing registry: skills and
// workflows). A routing failure gets its DESIGN §6 category; otherwise
// the first workflow mismatch's category.
func CheckWorkflow(c *Case, d router.Decision, reg *registry.Registry, o, resume *workflow.Outcome) Verdict {
	e := c.Expect
	var problems []string
	violation := PolicyViolation(c.Caller, d, reg)
	if violation != "" {
		problems = append(problems, "policy violation: "+violation)
	}
	routed := routingExpect(e, d)
	routingOK := DecisionCorrect(routed, d)
	var mismatches []ParamMismatch
	if routingOK && routed.Action.Acts() && d.Action.Acts() && d.Skill == routed.Skill {
		mismatches = MatchParams(e.Params, d.Params)
		for _, mm := range mismatches {
			problems = append(problems, "param "+mm.String())
		}
	}
	if !routingOK {
		problems = append(problems, describeDecisionMiss(routed, d))
	}
	wm := WorkflowMismatches(e, o, resume)
	for _, m := range wm {
		problems = append(problems, m.String())
	}
	if len(problems) == 0 {
		return Verdict{Pass: true}
	}
	if violation != "" || !routingOK || len(mismatches) > 0 {
		return Verdict{Failure: classify(routed, d, violation != "", len(mismatches) > 0), Problems: problems}
	}
	return Verdict{Failure: wm[0].Category, Problems: problems}
}

// routingExpect is the routing half of a workflow case's expectation as
// Check reads it. Without an action, a skill means "acts on it" (the
// decision's own acting action is taken as right), and no skill means any
// decision is right as long as no `never` skill acts.
func routingExpect(e Expect, d router.Decision) Expect {
	if e.Action != "" {
		return e
	}
	r := Expect{Skill: e.Skill, Never: e.Never, Params: e.Params}
	switch {
	case e.Skill != "" && d.Action.Acts():
		r.Action = d.Action
	case e.Skill != "":
		r.Action = router.Confirm // acting was expected; the decision did not act
	default:
		// Anything goes: expect exactly what was decided, so only `never` can fail it.
		r.Action, r.Skill = d.Action, d.Skill
		for _, cand := range d.Candidates {
			r.Candidates = append(r.Candidates, cand.Skill)
		}
		if d.Action == router.Clarify || !d.Action.Acts() {
			r.Skill, r.Candidates = "", nil
		}
		if d.Action == router.Fail {
			r.Action = router.Refuse // an error decision is never right; Check treats it so
		}
	}
	return r
}
