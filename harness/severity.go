package harness

import "github.com/routebench/routebench/router"

// Severity ranks a result for a reader who looks at the worst first:
// a policy violation, then a wrong execution (the costliest error of
// DESIGN §6), then any other failure, then a pass.
type Severity int

const (
	SeverityPolicyViolation Severity = iota + 1
	SeverityWrongExecution
	SeverityFailed
	SeverityPassed
)

// SeverityOf ranks r. A conversation ranks by its worst turn.
func SeverityOf(r Result) Severity {
	if r.Pass {
		return SeverityPassed
	}
	worst := SeverityFailed
	// Each decision as DecisionResults gives them, without their copies.
	policy := func(failure string, d *router.Decision, e *Expect) bool {
		if failure == FailPolicyViolation {
			return true
		}
		if d.Action.Acts() && (d.Action != e.Action || d.Skill != e.Skill) {
			worst = SeverityWrongExecution
		}
		return false
	}
	if !r.IsConversation() {
		if policy(r.Failure, &r.Decision, &r.Expect) {
			return SeverityPolicyViolation
		}
	}
	for i := range r.Turns {
		if t := &r.Turns[i]; r.IsConversation() && policy(t.Failure, &t.Decision, &t.Expect) {
			return SeverityPolicyViolation
		}
	}
	if r.Failure == FailPolicyViolation {
		return SeverityPolicyViolation
	}
	return worst
}
