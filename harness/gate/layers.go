package gate

import (
	"fmt"
	"strings"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/router/models"
	"github.com/routebench/routebench/router/registry"
)

// Verdict outcomes, as the terminal, summary.md and report.html print them.
const (
	OutcomePass         = "PASS"
	OutcomeFail         = "FAIL"
	OutcomeNotEvaluated = "NOT EVALUATED"
)

// Values of gate.untested_layers (see harness.GateConfig.Untested).
const (
	UntestedFail = harness.UntestedFail
	UntestedWarn = harness.UntestedWarn
)

// UntestedLayers lists the version files base and head differ in that a
// judge built from judgeSpec (the head's) does not read, in
// registry.VersionFiles order. Running the suites cannot show what such a
// change does: the decisions are the same whatever the file says. Which
// layers a judge reads is models.UnreadLayers's to say.
func UntestedLayers(base, head *registry.Version, judgeSpec string) []string {
	if base == nil || head == nil || base.Fingerprint == head.Fingerprint {
		return nil
	}
	var out []string
	for _, file := range models.UnreadLayers(judgeSpec) {
		b, okB := layerText(base, file)
		h, okH := layerText(head, file)
		// A file this package cannot read back is assumed changed: saying
		// "not evaluated" wrongly costs a rerun, passing wrongly ships it.
		if !okB || !okH || normalize(b) != normalize(h) {
			out = append(out, file)
		}
	}
	return out
}

// layerText is a version file's text as loaded.
func layerText(v *registry.Version, file string) (string, bool) {
	switch file {
	case "persona.md":
		return v.Persona, true
	case "constraints.md":
		return v.Constraints, true
	case "contract.schema.json":
		return string(v.ContractRaw), true
	case registry.WorkflowsFile:
		return string(v.WorkflowsRaw), true
	}
	return "", false
}

// normalize compares as the fingerprint does: a CRLF checkout is no change.
func normalize(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

// ApplyUntested records the layers the head's judge (judge, a spec such
// as "builtin") could not test, and lets cfg's gate.untested_layers
// decide: with fail the verdict cannot pass and reads NOT EVALUATED
// unless a check failed too; with warn it keeps its outcome and carries
// the warning. No files changes nothing.
func (v *Verdict) ApplyUntested(files []string, judge string, cfg Config) {
	if len(files) == 0 {
		return
	}
	v.Untested = append([]string(nil), files...)
	v.UntestedJudge = judge
	v.UntestedPolicy = cfg.Untested()
	if v.UntestedPolicy == UntestedFail {
		v.NotEvaluated = true
		v.Pass = false
	}
}

// Outcome is PASS, FAIL or NOT EVALUATED. A failed threshold or regression
// rule is a FAIL even when a layer went untested: what was measured
// already fails.
func (v Verdict) Outcome() string {
	switch {
	case v.Pass:
		return OutcomePass
	case v.NotEvaluated && v.checksHeld():
		return OutcomeNotEvaluated
	}
	return OutcomeFail
}

func (v Verdict) checksHeld() bool {
	for _, t := range v.Thresholds {
		if !t.Pass {
			return false
		}
	}
	for _, r := range v.Regressions {
		if !r.Pass {
			return false
		}
	}
	return true
}

// UntestedNote says which changed layers the judge does not read, as
// DESIGN §7 words it: "not evaluated: persona.md changed; the judge does
// not read it". "" when every change was tested.
func (v Verdict) UntestedNote() string {
	switch len(v.Untested) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("not evaluated: %s changed; the judge does not read it", v.Untested[0])
	}
	return fmt.Sprintf("not evaluated: %s changed; the judge does not read them", strings.Join(v.Untested, ", "))
}

// UntestedHint says what to do about untested layers.
func (v Verdict) UntestedHint() string {
	if len(v.Untested) == 0 {
		return ""
	}
	what := "so this gate cannot fail or pass the change: gate it with a model judge (--judge openai:MODEL or anthropic:MODEL), which reads every layer"
	if v.UntestedPolicy == UntestedWarn {
		return fmt.Sprintf("judge %s; gate.untested_layers is warn, so the other checks decided", v.UntestedJudge)
	}
	return fmt.Sprintf("judge %s, %s, or set gate.untested_layers: warn to let the other checks decide", v.UntestedJudge, what)
}

// Overall is the outcome of a gate over every head version: FAIL when one
// failed, else NOT EVALUATED when one was not evaluated, else PASS.
func Overall(vs []Verdict) string {
	out := OutcomePass
	for _, v := range vs {
		switch v.Outcome() {
		case OutcomeFail:
			return OutcomeFail
		case OutcomeNotEvaluated:
			out = OutcomeNotEvaluated
		}
	}
	return out
}
