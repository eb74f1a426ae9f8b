package harness

import (
	"math/bits"
	"slices"

	"github.com/routebench/routebench/router"
)

// Metric names, exactly as DESIGN §6 spells them.
const (
	DecisionAccuracy   = "decision_accuracy"
	SkillAccuracy      = "skill_accuracy"
	RefusalPrecision   = "refusal_precision"
	RefusalRecall      = "refusal_recall"
	RefusalAccuracy    = "refusal_accuracy"
	ClarificationRate  = "clarification_rate"
	ClarifyRecall      = "clarify_recall"
	WrongExecutionRate = "wrong_execution_rate"
	ParamErrorRate     = "param_error_rate"
	SchemaPassRate     = "schema_pass_rate"
	InvalidSkillRate   = "invalid_skill_rate"
	RulePrecision      = "rule_precision"
	RecallAtK          = "recall_at_k"
	JudgeAccuracy      = "judge_accuracy"

	// param_error_rate broken down by BFCL's taxonomy (same denominator).
	ParamErrorMissing    = "param_error_missing"
	ParamErrorUnexpected = "param_error_unexpected"
	ParamErrorType       = "param_error_type"
	ParamErrorValue      = "param_error_value"
	// ...and by the router's validation layer (see layerDenominator).
	ParamErrorSchema     = "param_error_schema"
	ParamErrorRule       = "param_error_rule"
	ParamErrorPermission = "param_error_permission"

	PolicyViolations = "policy_violations"
	ECE              = "ece"
	Brier            = "brier"
	LatencyP50       = "latency_p50"
	LatencyP95       = "latency_p95"
	LatencyP99       = "latency_p99"
	Tokens           = "tokens"
	Cost             = "cost"

	// Workflow metrics (DESIGN §11), over workflow cases only: a group
	// without workflow cases has none of them.
	TaskSuccessRate      = "task_success_rate"
	CallSequenceAccuracy = "call_sequence_accuracy"
	IllegalRetries       = "illegal_retries"
	DuplicateSideEffects = "duplicate_side_effects"
	UnverifiedClaims     = "unverified_claims"
	WriteOrderViolations = "write_order_violations"
	ConfirmationMisses   = "confirmation_misses"
	SilentFailures       = "silent_failures"
	DoomLoopsStopped     = "doom_loops_stopped"
	ResumeSkippedNodes   = "resume_skipped_nodes"

	// Conversation metrics (DESIGN §12), over conversation cases only: a
	// group without conversations has none of them.
	// conversation_success_rate, over conversations: every turn passed.
	// turn_accuracy, over the turns of conversations: the turn passed
	// (decision, params and policy, as a single case passes).
	ConversationSuccessRate = "conversation_success_rate"
	TurnAccuracy            = "turn_accuracy"
)

// MetricKind says how a metric is aggregated and shown.
type MetricKind string

const (
	// KindRate is k of n with a Wilson interval; Indicators gives its per-case terms.
	KindRate MetricKind = "rate"
	// KindCount is a number of cases (Value is the count, N the cases seen).
	KindCount MetricKind = "count"
	// KindValue is a continuous statistic (calibration error, milliseconds, dollars).
	KindValue MetricKind = "value"
)

// MetricInfo describes one metric for gates, comparisons and reports.
type MetricInfo struct {
	Name string
	Kind MetricKind
	// HigherIsBetter is false for error rates, counts of bad things, latency
	// and cost, so a comparison knows which direction is a regression.
	HigherIsBetter bool
	// Unit is "" for rates and counts.
	Unit string
}

// Metrics lists every metric Score computes, in report order.
var Metrics = []MetricInfo{
	{DecisionAccuracy, KindRate, true, ""},
	{SkillAccuracy, KindRate, true, ""},
	{RefusalPrecision, KindRate, true, ""},
	{RefusalRecall, KindRate, true, ""},
	{RefusalAccuracy, KindRate, true, ""},
	// Neither direction of the clarification rate is good in itself; more
	// clarifying is treated as worse, since clarify_recall covers the need.
	{ClarificationRate, KindRate, false, ""},
	{ClarifyRecall, KindRate, true, ""},
	{WrongExecutionRate, KindRate, false, ""},
	{ParamErrorRate, KindRate, false, ""},
	{ParamErrorMissing, KindRate, false, ""},
	{ParamErrorUnexpected, KindRate, false, ""},
	{ParamErrorType, KindRate, false, ""},
	{ParamErrorValue, KindRate, false, ""},
	{ParamErrorSchema, KindRate, false, ""},
	{ParamErrorRule, KindRate, false, ""},
	{ParamErrorPermission, KindRate, false, ""},
	{SchemaPassRate, KindRate, true, ""},
	{InvalidSkillRate, KindRate, false, ""},
	{RulePrecision, KindRate, true, ""},
	{RecallAtK, KindRate, true, ""},
	{JudgeAccuracy, KindRate, true, ""},
	{PolicyViolations, KindCount, false, ""},
	{ECE, KindValue, false, ""},
	{Brier, KindValue, false, ""},
	{LatencyP50, KindValue, false, "ms"},
	{LatencyP95, KindValue, false, "ms"},
	{LatencyP99, KindValue, false, "ms"},
	{Tokens, KindValue, false, "tokens/decision"},
	{Cost, KindValue, false, "USD/decision"},
	{TaskSuccessRate, KindRate, true, ""},
	{CallSequenceAccuracy, KindRate, true, ""},
	{IllegalRetries, KindCount, false, ""},
	{DuplicateSideEffects, KindCount, false, ""},
	{UnverifiedClaims, KindCount, false, ""},
	{WriteOrderViolations, KindCount, false, ""},
	{ConfirmationMisses, KindCount, false, ""},
	{SilentFailures, KindCount, false, ""},
	// Informative: a stopped doom loop is a guard that worked, and resume
	// skips are what a second run should do; neither is good or bad alone.
	{DoomLoopsStopped, KindCount, false, ""},
	{ResumeSkippedNodes, KindCount, false, ""},
	{ConversationSuccessRate, KindRate, true, ""},
	{TurnAccuracy, KindRate, true, ""},
}

// ConversationMetrics are the metrics only conversation cases have, in
// report order.
var ConversationMetrics = []string{ConversationSuccessRate, TurnAccuracy}

// IsConversationMetric reports whether only conversation cases have the
// metric.
func IsConversationMetric(name string) bool { return slices.Contains(ConversationMetrics, name) }

// WorkflowMetrics are the metrics only workflow cases have, in report order.
var WorkflowMetrics = []string{
	TaskSuccessRate, CallSequenceAccuracy, IllegalRetries, DuplicateSideEffects, UnverifiedClaims,
	WriteOrderViolations, ConfirmationMisses, SilentFailures, DoomLoopsStopped, ResumeSkippedNodes,
}

// IsWorkflowMetric reports whether only workflow cases have the metric.
func IsWorkflowMetric(name string) bool { return slices.Contains(WorkflowMetrics, name) }

// MustBeZero reports whether the metric counts broken rules (code is
// law): any value above 0 is a defect, whatever the threshold says.
func MustBeZero(name string) bool {
	switch name {
	case PolicyViolations, IllegalRetries, DuplicateSideEffects, UnverifiedClaims,
		WriteOrderViolations, ConfirmationMisses, SilentFailures:
		return true
	}
	return false
}

// LookupMetric returns the metric's description, for validating names in
// gate thresholds.
func LookupMetric(name string) (MetricInfo, bool) {
	for _, m := range Metrics {
		if m.Name == name {
			return m, true
		}
	}
	return MetricInfo{}, false
}

// Indicators returns, for each rate metric whose denominator includes this
// case, whether the case is in the numerator. It reads one decision: for
// a conversation, apply it to each of DecisionResults (Score and the
// paired comparison do), since every turn counts as a decision; the
// conversation's own terms are ConversationIndicators. For error rates
// (wrong_execution_rate, param_error_*) and clarification_rate the numerator
// is the bad or counted event, so true means "this case erred"; read
// MetricInfo.HigherIsBetter for the direction. Score aggregates exactly these
// terms (schema_pass_rate excepted: Score counts judge calls, while the
// indicator here says whether every judge call of the case passed), and
// paired comparisons pair them case by case.
//
// Definitions (e = expectation, d = decision):
//   - decision_accuracy, over all cases: d matches e's action, its skill when
//     acting (and gate when e names one), and offers e's skill/candidates when
//     clarifying; no `never` skill acts; no policy violation.
//   - skill_accuracy, over e acting: d.Skill == e.Skill, whatever d's action.
//   - refusal_precision, over d refusing: e refuses. refusal_recall, over e
//     refusing: d refuses. refusal_accuracy, over all: both or neither refuse.
//     An error decision is never a refusal, nor is a refusal that records
//     an invalid_skill judge failure (as routers before DESIGN §6's rule did).
//   - clarification_rate, over all: d clarifies. clarify_recall, over e
//     clarifying: d clarifies.
//   - wrong_execution_rate, over all: d acts, and e expects another action or
//     another skill.
//   - param_error_rate (and _missing/_unexpected/_type/_value), over d and e
//     both acting on the same skill with e listing params: some param (of that
//     kind) mismatches.
//   - param_error_schema/_rule/_permission, over e acting and d naming e's
//     skill (any action, since a failed validation turns an act into clarify
//     or refuse): d carries a params error of that validation layer.
//   - schema_pass_rate, over cases with at least one judge output: every
//     judge output parsed and matched the contract (a skill outside the
//     candidates, after the case repair, does not match it).
//   - invalid_skill_rate, over the same cases: some judge output named a
//     skill outside the candidates. Per case rather than per call, so it
//     pairs case by case in comparisons and regression rules.
//   - rule_precision, over d decided at stage "rules": the rule's skill is
//     right (see ruleCorrect).
//   - recall_at_k, over e naming a skill and d reporting its stages (not a
//     --target router's bare answer): the skill was in the recall stage's
//     top-k, or a rule matched it.
//   - judge_accuracy, over e naming a skill the judge saw as a candidate and
//     the judge answering: the judge chose it.
//
// On a workflow case (Result.Workflow set), those routing terms count
// only when the case expects an action; and:
//   - task_success_rate, over workflow cases: the case passed (routing as
//     expected, every workflow expectation met, no guard broken).
//   - call_sequence_accuracy, over workflow cases listing calls (or
//     resume calls): the skills called are exactly those, in order.
func Indicators(r Result) map[string]bool {
	return IndicatorBitsOf(&r).into(make(map[string]bool, 16))
}

// RateMetricNames are the rate metrics (Metrics of KindRate), in report
// order: bit i of IndicatorBits stands for RateMetricNames[i].
var RateMetricNames = func() []string {
	var out []string
	for _, m := range Metrics {
		if m.Kind == KindRate {
			out = append(out, m.Name)
		}
	}
	if len(out) > 64 {
		panic("harness: more than 64 rate metrics do not fit IndicatorBits")
	}
	return out
}()

// rateBit is a rate metric's bit in IndicatorBits.
func rateBit(name string) uint {
	i := slices.Index(RateMetricNames, name)
	if i < 0 {
		panic("harness: " + name + " is not a rate metric")
	}
	return uint(i)
}

// The bits indicatorBits sets.
var (
	bitDecisionAccuracy     = rateBit(DecisionAccuracy)
	bitSkillAccuracy        = rateBit(SkillAccuracy)
	bitRefusalPrecision     = rateBit(RefusalPrecision)
	bitRefusalRecall        = rateBit(RefusalRecall)
	bitRefusalAccuracy      = rateBit(RefusalAccuracy)
	bitClarificationRate    = rateBit(ClarificationRate)
	bitClarifyRecall        = rateBit(ClarifyRecall)
	bitWrongExecutionRate   = rateBit(WrongExecutionRate)
	bitParamErrorRate       = rateBit(ParamErrorRate)
	bitParamErrorMissing    = rateBit(ParamErrorMissing)
	bitParamErrorUnexpected = rateBit(ParamErrorUnexpected)
	bitParamErrorType       = rateBit(ParamErrorType)
	bitParamErrorValue      = rateBit(ParamErrorValue)
	bitParamErrorSchema     = rateBit(ParamErrorSchema)
	bitParamErrorRule       = rateBit(ParamErrorRule)
	bitParamErrorPermission = rateBit(ParamErrorPermission)
	bitSchemaPassRate       = rateBit(SchemaPassRate)
	bitInvalidSkillRate     = rateBit(InvalidSkillRate)
	bitRulePrecision        = rateBit(RulePrecision)
	bitRecallAtK            = rateBit(RecallAtK)
	bitJudgeAccuracy        = rateBit(JudgeAccuracy)
	bitTaskSuccessRate      = rateBit(TaskSuccessRate)
	bitCallSequenceAccuracy = rateBit(CallSequenceAccuracy)
)

// IndicatorBits are one decision's indicators (Indicators) as bits over
// RateMetricNames: Has says which metrics count the decision, Val which
// of those it is in the numerator of. Scoring and pairing read these
// rather than a map a decision: the same terms, without a map's writes
// and lookups.
type IndicatorBits struct{ Has, Val uint64 }

// set is the term of the metric of bit i.
func (t *IndicatorBits) set(i uint, ok bool) {
	t.Has |= 1 << i
	if ok {
		t.Val |= 1 << i
	} else {
		t.Val &^= 1 << i
	}
}

// Get is the term of the metric of bit i, as a lookup in Indicators' map
// would say: value, and whether the metric counts the decision.
func (t IndicatorBits) Get(i uint) (value, ok bool) {
	return t.Val&(1<<i) != 0, t.Has&(1<<i) != 0
}

// into writes the terms into m.
func (t IndicatorBits) into(m map[string]bool) map[string]bool {
	for h := t.Has; h != 0; h &= h - 1 {
		i := uint(bits.TrailingZeros64(h))
		m[RateMetricNames[i]] = t.Val&(1<<i) != 0
	}
	return m
}

// IndicatorBitsOf is Indicators(*r) as bits.
func IndicatorBitsOf(r *Result) IndicatorBits {
	calls, passed := JudgeCalls(r.Decision)
	return indicatorBits(r, calls, passed)
}

// indicatorBits is IndicatorBitsOf for a caller that has counted the
// decision's judge calls (JudgeCalls) for itself too: they are counted
// once.
func indicatorBits(r *Result, calls, passed int) IndicatorBits {
	var t IndicatorBits
	e, d := &r.Expect, &r.Decision
	if r.Workflow != nil {
		t.set(bitTaskSuccessRate, r.Pass)
		if ok, listed := callsMatch(*r); listed {
			t.set(bitCallSequenceAccuracy, ok)
		}
		if e.Action == "" {
			return t
		}
	}

	correct, wrongExecution, clarifies := decisionTerms(r)
	t.set(bitDecisionAccuracy, correct)
	t.set(bitWrongExecutionRate, wrongExecution)
	t.set(bitClarificationRate, clarifies)

	if e.Action.Acts() {
		t.set(bitSkillAccuracy, d.Skill == e.Skill)
	}

	decidedRefuse, expectedRefuse := refused(*d), e.Action == router.Refuse
	if decidedRefuse {
		t.set(bitRefusalPrecision, expectedRefuse)
	}
	if expectedRefuse {
		t.set(bitRefusalRecall, decidedRefuse)
	}
	t.set(bitRefusalAccuracy, decidedRefuse == expectedRefuse)

	if e.Action == router.Clarify {
		t.set(bitClarifyRecall, d.Action == router.Clarify)
	}

	if e.Action.Acts() && d.Action.Acts() && d.Skill == e.Skill && len(e.Params) > 0 {
		ms := ResultParamMismatches(*r)
		t.set(bitParamErrorRate, len(ms) > 0)
		t.set(bitParamErrorMissing, hasMismatch(ms, MismatchMissing))
		t.set(bitParamErrorUnexpected, hasMismatch(ms, MismatchUnexpected))
		t.set(bitParamErrorType, hasMismatch(ms, MismatchType))
		t.set(bitParamErrorValue, hasMismatch(ms, MismatchValue))
	}
	if e.Action.Acts() && d.Skill == e.Skill {
		t.set(bitParamErrorSchema, hasParamsError(d, router.LayerSchema))
		t.set(bitParamErrorRule, hasParamsError(d, router.LayerRule))
		t.set(bitParamErrorPermission, hasParamsError(d, router.LayerPermission))
	}

	if calls > 0 {
		t.set(bitSchemaPassRate, passed == calls)
		t.set(bitInvalidSkillRate, namedInvalidSkill(*d))
	}

	if d.Stage == StageRules {
		t.set(bitRulePrecision, ruleCorrect(*e, *d))
	}

	if e.Skill != "" && reportsRecall(*d) {
		t.set(bitRecallAtK, Recalled(*d, e.Skill))
		if choice, ok := judgeChoice(*d); ok && judgeConsidered(d, e.Skill) {
			t.set(bitJudgeAccuracy, choice == e.Skill)
		}
	}
	return t
}

// decisionTerms are the indicators every decision a case expects an
// action of has: decision_accuracy, wrong_execution_rate and
// clarification_rate, for a reader that needs only those (per-skill
// counts) without the rest of indicatorBits' terms.
func decisionTerms(r *Result) (correct, wrongExecution, clarifies bool) {
	e, d := &r.Expect, &r.Decision
	correct = DecisionCorrect(*e, *d) && r.Failure != FailPolicyViolation
	wrongExecution = d.Action.Acts() && (d.Action != e.Action || d.Skill != e.Skill)
	clarifies = d.Action == router.Clarify
	return correct, wrongExecution, clarifies
}

func hasParamsError(d *router.Decision, layer string) bool {
	for i := range d.Errors {
		if err := &d.Errors[i]; err.Category == router.CatParams && err.Layer == layer {
			return true
		}
	}
	return false
}

func hasMismatch(ms []ParamMismatch, kind string) bool {
	for i := range ms {
		if ms[i].Kind == kind {
			return true
		}
	}
	return false
}

// judgeConsidered reports whether skill is among the skills the judge
// chose among: the skills it scored (its last scoring step), else the
// recall top k and the rules' matches.
func judgeConsidered(d *router.Decision, skill string) bool {
	for i := len(d.Trace) - 1; i >= 0; i-- {
		if st := &d.Trace[i]; st.Stage == StageJudge && len(st.Scores) > 0 {
			for _, c := range st.Scores {
				if c.Skill == skill {
					return true
				}
			}
			return false
		}
	}
	for i := range d.Trace {
		st := &d.Trace[i]
		switch st.Stage {
		case StageRecall:
			if slices.Contains(st.Top, skill) {
				return true
			}
		case StageRules:
			if slices.Contains(st.Matched, skill) {
				return true
			}
		}
	}
	return false
}

// callsMatch says whether the calls of a workflow result are the expected
// ones, and whether the case lists any.
func callsMatch(r Result) (ok, listed bool) {
	ok = true
	if c := r.Expect.Calls; c != nil {
		listed = true
		ok = slices.Equal(*c, r.Workflow.CallSkills())
	}
	if res := r.Expect.Resume; res != nil && res.Calls != nil {
		listed = true
		ok = ok && r.Resume != nil && slices.Equal(*res.Calls, r.Resume.CallSkills())
	}
	return ok, listed
}
