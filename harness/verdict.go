package harness

import (
	"fmt"
	"slices"
	"strings"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

// Failure categories (DESIGN §6), in FailureCategories' precedence order.
// A failed case gets the first that applies:
const (
	// FailPolicyViolation: the decision acts (execute or confirm) on a skill
	// the caller may not use (outside its scopes, disabled, a param value whose
	// x-permission scopes it lacks, or not in the registry at all), executes a
	// side-effect skill, or confirms one without a gate. Code is law: this is
	// a bug in the router, never in the prompt.
	FailPolicyViolation = "policy_violation"
	// FailProviderError: the decision is an error because the model provider
	// failed beyond its retry (or the error carries no known category).
	FailProviderError = "provider_error"
	// FailSchemaError: the decision is an error because the judge's output did
	// not parse or match the contract (or named a skill that could not be
	// repaired: invalid_skill).
	FailSchemaError = "schema_error"
	// FailRuleFalsePositive: stage-1 rules decided, and their skill was wrong
	// (see ruleCorrect).
	FailRuleFalsePositive = "rule_false_positive"
	// FailRecallMiss: a skill the case expects (its skill, or a clarify
	// candidate) was neither in the recall stage's top-k nor matched by a rule,
	// so the judge never saw it.
	FailRecallMiss = "recall_miss"
	// FailJudgeWrongSkill: the decision commits to another skill than
	// expected: it acts on a different skill, asks for a different skill's
	// params, offers other candidates than expected, refuses after the
	// judge chose a different skill (too unsure to act on it), or acts
	// where the case expects a clarify between candidates that do not
	// include that skill.
	FailJudgeWrongSkill = "judge_wrong_skill"
	// FailFalseRefusal: the decision refuses where the case expects another
	// action.
	FailFalseRefusal = "false_refusal"
	// FailMissedRefusal: the case expects a refusal and the decision does
	// anything else (acts or clarifies).
	FailMissedRefusal = "missed_refusal"
	// FailWrongBand: the right skill (or no skill conflict) with the wrong
	// action: execute vs confirm vs clarify, or the wrong confirmation gate.
	FailWrongBand = "wrong_band"
	// FailParamError: right action and skill, but a param mismatches.
	FailParamError = "param_error"
)

// Stage names in Decision.Stage and TraceStep.Stage.
const (
	StagePolicy = "policy"
	StageRules  = "rules"
	StageRecall = "recall"
	StageJudge  = "judge"
)

// Verdict is a decision judged against a case's expectation.
type Verdict struct {
	Pass    bool
	Failure string // primary category, "" when passed
	// Problems say in words everything that is wrong, for spec failures.
	Problems []string
}

// Check judges a decision against the case. reg is the skill set the
// decision was made over (the case's tools, or the version's registry); it
// is needed to see policy violations.
func Check(c *Case, d router.Decision, reg *registry.Registry) Verdict {
	return check(c, d, reg, true)
}

// check is Check; words says whether the verdict's Problems are written.
// A run keeps only Pass and Failure, and writing a miss in words cost
// more than judging it.
func check(c *Case, d router.Decision, reg *registry.Registry, words bool) Verdict {
	return checkWithPolicy(c, d, PolicyViolation(c.Caller, d, reg), words)
}

// checkWithPolicy is check with the policy verdict already made ("" when
// the decision is clean).
func checkWithPolicy(c *Case, d router.Decision, violation string, words bool) Verdict {
	e := c.Expect
	var problems []string
	failed := violation != ""
	if failed && words {
		problems = append(problems, "policy violation: "+violation)
	}
	if !DecisionCorrect(e, d) {
		failed = true
		if words {
			problems = append(problems, describeDecisionMiss(e, d))
		}
	}
	mismatches := []ParamMismatch(nil)
	if e.Action.Acts() && d.Action.Acts() && d.Skill == e.Skill {
		mismatches = MatchParams(e.Params, d.Params)
		failed = failed || len(mismatches) > 0
		for _, mm := range mismatches {
			if words {
				problems = append(problems, "param "+mm.String())
			}
		}
	}
	if !failed {
		return Verdict{Pass: true}
	}
	return Verdict{Failure: classify(e, d, violation != "", len(mismatches) > 0), Problems: problems}
}

// classify picks the primary failure category of a failed case.
func classify(e Expect, d router.Decision, violation, paramsWrong bool) string {
	switch {
	case violation:
		return FailPolicyViolation
	case d.Action == router.Fail && hasCategory(d, router.CatProviderError):
		return FailProviderError
	case hasCategory(d, router.CatSchemaError) || namedInvalidSkill(d):
		// Whatever action the router fell back to, the judge's output was
		// unusable; that, not the fallback, is what to fix.
		return FailSchemaError
	case d.Action == router.Fail:
		return FailProviderError
	case d.Stage == StageRules && !ruleCorrect(e, d):
		return FailRuleFalsePositive
	case recallMissed(e, d):
		return FailRecallMiss
	case wrongSkill(e, d):
		return FailJudgeWrongSkill
	case d.Action == router.Refuse && e.Action != router.Refuse:
		return FailFalseRefusal
	case e.Action == router.Refuse && d.Action != router.Refuse:
		return FailMissedRefusal
	case !DecisionCorrect(e, d) || !paramsWrong:
		// Right skill, wrong action or gate. Also the fallback for a failure
		// nothing above explains (a `never` skill acting as expected).
		return FailWrongBand
	default:
		return FailParamError
	}
}

// DecisionCorrect is decision_accuracy's per-case test, without params.
func DecisionCorrect(e Expect, d router.Decision) bool {
	if d.Action.Acts() && slices.Contains(e.Never, d.Skill) {
		return false
	}
	switch e.Action {
	case router.Execute, router.Confirm:
		return d.Action == e.Action && d.Skill == e.Skill && (e.Gate == "" || d.Gate == e.Gate)
	case router.Clarify:
		if d.Action != router.Clarify || (e.Skill != "" && !Offers(d, e.Skill)) {
			return false
		}
		for _, c := range e.Candidates {
			if !Offers(d, c) {
				return false
			}
		}
		return true
	case router.Refuse:
		return refused(d)
	}
	return false
}

// refused reports whether the decision is a refusal. A judge that named a
// skill outside the candidates failed; a router that still reports that
// as a refusal (older results, another router behind --target) must not
// score it as a correct "nothing fits".
func refused(d router.Decision) bool {
	return d.Action == router.Refuse && !slices.ContainsFunc(d.Errors, router.IsInvalidSkill)
}

// namedInvalidSkill reports whether some judge output of the decision named
// a skill outside the candidates (after the case repair): recorded on the
// judge call's trace step, or only on the decision by a router that keeps
// no such trace.
func namedInvalidSkill(d router.Decision) bool {
	if slices.ContainsFunc(d.Errors, router.IsInvalidSkill) {
		return true
	}
	for _, st := range d.Trace {
		if isJudgeCall(st) && slices.ContainsFunc(st.Errors, router.IsInvalidSkill) {
			return true
		}
	}
	return false
}

// Offers reports whether a decision puts the skill before the user: as its
// skill, or among the candidates a clarify offers.
func Offers(d router.Decision, skill string) bool {
	if d.Skill == skill {
		return true
	}
	for _, c := range d.Candidates {
		if c.Skill == skill {
			return true
		}
	}
	return false
}

// wrongSkill reports whether the decision commits to a skill the case does
// not expect, or the judge chose one (see FailJudgeWrongSkill).
func wrongSkill(e Expect, d router.Decision) bool {
	switch {
	case e.Skill != "":
		switch {
		case d.Action.Acts():
			return d.Skill != e.Skill
		case d.Action == router.Clarify:
			// Asking for another skill's params commits to that skill,
			// whatever runners-up the question lists.
			return (d.Skill != "" && d.Skill != e.Skill) || !Offers(d, e.Skill)
		case d.Action == router.Refuse:
			// A judge that chose another skill, which the bands then turned
			// into a refusal, still chose wrong: the band is not what to fix.
			choice, ok := judgeChoice(d)
			return ok && choice != router.NoneChoice && choice != e.Skill && judgeConsidered(&d, e.Skill)
		}
	case len(e.Candidates) > 0:
		if d.Action.Acts() {
			return !slices.Contains(e.Candidates, d.Skill)
		}
		if d.Action == router.Clarify {
			for _, c := range e.Candidates {
				if !Offers(d, c) {
					return true
				}
			}
		}
	}
	return false
}

// expectedSkills are the skills a case wants the router to find.
func expectedSkills(e Expect) []string {
	if e.Skill != "" {
		return append([]string{e.Skill}, e.Candidates...)
	}
	return e.Candidates
}

func recallMissed(e Expect, d router.Decision) bool {
	if !reportsRecall(d) {
		return false
	}
	for _, s := range expectedSkills(e) {
		if !Recalled(d, s) {
			return true
		}
	}
	return false
}

// ruleCorrect says whether a rules-stage decision picked the right skill:
// the expected skill, one of the expected clarify candidates, or, for a
// case expecting a refusal, no action at all (the rule's skill was then
// refused by a later check, which is what the case wants).
func ruleCorrect(e Expect, d router.Decision) bool {
	switch {
	case e.Skill != "":
		return d.Skill == e.Skill
	case len(e.Candidates) > 0:
		return slices.Contains(e.Candidates, d.Skill)
	default:
		return !d.Action.Acts()
	}
}

// reportsRecall tells whether a decision says what reached its judge. A
// router behind --target that leaves no policy, rules or recall step in
// its trace says nothing about recall: it neither misses nor hits.
func reportsRecall(d router.Decision) bool {
	target := false
	for _, st := range d.Trace {
		switch st.Stage {
		case StagePolicy, StageRules, StageRecall:
			return true
		case router.StageTarget:
			target = true
		}
	}
	return !target
}

// Recalled reports whether the skill reached the judge's candidates: in the
// recall stage's top-k, or matched by a stage-1 rule.
func Recalled(d router.Decision, skill string) bool {
	for _, st := range d.Trace {
		if (st.Stage == StageRecall && slices.Contains(st.Top, skill)) ||
			(st.Stage == StageRules && slices.Contains(st.Matched, skill)) {
			return true
		}
	}
	return false
}

// JudgeCalls counts the judge outputs of a decision and those that parsed
// and matched the contract. A call that failed at the provider produced no
// output and is not counted; nor are judge-stage notes that record no call
// (a skill-name repair). The answer of a router behind --target (its
// "target" trace step) is an output too, held to the Decision format.
//
// An output naming a skill outside the candidates parsed but failed the
// contract, so it is a failed call too (DESIGN §6).
func JudgeCalls(d router.Decision) (calls, passed int) {
	flagged := false
	for _, st := range d.Trace {
		if !(isJudgeCall(st) || st.Stage == router.StageTarget) || stepHas(st, router.CatProviderError) {
			continue
		}
		calls++
		invalid := slices.ContainsFunc(st.Errors, router.IsInvalidSkill)
		flagged = flagged || invalid
		if !stepHas(st, router.CatSchemaError) && !invalid {
			passed++
		}
	}
	decisionInvalid := slices.ContainsFunc(d.Errors, router.IsInvalidSkill)
	switch {
	case calls == 0 && (hasCategory(d, router.CatSchemaError) || decisionInvalid):
		// A router that records no judge steps still owes the failed call.
		calls = 1
	case decisionInvalid && !flagged && passed > 0:
		// The invalid name is on the decision only: the last output that
		// passed was the one that named it.
		passed--
	}
	return calls, passed
}

// isJudgeCall tells a judge call's trace step (it has an attempt number,
// a raw output or errors) from a judge-stage note.
func isJudgeCall(st router.TraceStep) bool {
	return st.Stage == StageJudge && (st.Attempt > 0 || st.Raw != "" || len(st.Errors) > 0 || st.Note == "")
}

// judgeChoice is the judge's final answer (a skill or "none"), after the
// router's unambiguous case-insensitive repair of the name.
func judgeChoice(d router.Decision) (string, bool) {
	for i := len(d.Trace) - 1; i >= 0; i-- {
		if st := d.Trace[i]; isJudgeCall(st) && st.Choice != "" {
			if d.Skill != "" && strings.EqualFold(st.Choice, d.Skill) {
				return d.Skill, true
			}
			return st.Choice, true
		}
	}
	return "", false
}

func stepHas(st router.TraceStep, category string) bool {
	for _, e := range st.Errors {
		if e.Category == category {
			return true
		}
	}
	return false
}

func hasCategory(d router.Decision, category string) bool {
	for _, e := range d.Errors {
		if e.Category == category {
			return true
		}
	}
	return false
}

func describeDecisionMiss(e Expect, d router.Decision) string {
	want := string(e.Action)
	if e.Skill != "" {
		want += " " + e.Skill
	}
	if e.Gate != "" {
		want += " (gate " + string(e.Gate) + ")"
	}
	if len(e.Candidates) > 0 {
		want += fmt.Sprintf(" offering %v", e.Candidates)
	}
	if len(e.Never) > 0 {
		want += fmt.Sprintf(", never acting on %v", e.Never)
	}
	return "expected " + want + ", decided " + DescribeDecision(d)
}

// DescribeDecision is a one-line summary of a decision for messages.
func DescribeDecision(d router.Decision) string {
	s := string(d.Action)
	if d.Skill != "" {
		s += " " + d.Skill
	}
	if d.Gate != "" {
		s += " (gate " + string(d.Gate) + ")"
	}
	if d.Action == router.Clarify && len(d.Candidates) > 0 {
		names := make([]string, len(d.Candidates))
		for i, c := range d.Candidates {
			names[i] = c.Skill
		}
		s += fmt.Sprintf(" offering %v", names)
	}
	s += fmt.Sprintf(" at confidence %.2f by %s", d.Confidence, d.Stage)
	for _, e := range d.Errors {
		s += fmt.Sprintf("; %s error: %s", e.Category, e.Message)
	}
	return s
}
