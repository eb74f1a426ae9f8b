package harness

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
	for _, d := range DecisionResults(r) {
		if d.Failure == FailPolicyViolation {
			return SeverityPolicyViolation
		}
		if d.Decision.Action.Acts() && (d.Decision.Action != d.Expect.Action || d.Decision.Skill != d.Expect.Skill) {
			worst = SeverityWrongExecution
		}
	}
	if r.Failure == FailPolicyViolation {
		return SeverityPolicyViolation
	}
	return worst
}
