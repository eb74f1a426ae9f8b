package gate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/harness/compare"
	"github.com/routebench/routebench/harness/stats"
)

// WorstFlips is how many broken cases a verdict names.
const WorstFlips = 10

// Verdict is the gate's answer for one head version.
type Verdict struct {
	Head string `json:"head"`
	// Base is "" when the version has no base to compare with (new in the
	// change); then only thresholds apply.
	Base        string            `json:"base,omitempty"`
	Pass        bool              `json:"pass"`
	Thresholds  []ThresholdResult `json:"thresholds"`
	Regressions []RuleResult      `json:"regressions,omitempty"`
	// Broken are the worst flipped cases (adversarial first), up to
	// WorstFlips, of BrokenTotal.
	Broken      []compare.Flip `json:"broken,omitempty"`
	BrokenTotal int            `json:"broken_total"`
	// Notes say what could not be checked and why.
	Notes []string `json:"notes,omitempty"`
	// Untested are the version files base and head differ in that the
	// head's judge (UntestedJudge) does not read (DESIGN §7), with the
	// gate.untested_layers that decided them. NotEvaluated is set when
	// that is fail: the verdict cannot pass (see ApplyUntested, Outcome).
	Untested       []string `json:"untested_layers,omitempty"`
	UntestedJudge  string   `json:"untested_judge,omitempty"`
	UntestedPolicy string   `json:"untested_policy,omitempty"`
	NotEvaluated   bool     `json:"not_evaluated,omitempty"`
}

// ThresholdResult is one threshold checked against the head's summary.
type ThresholdResult struct {
	Threshold
	// Measured is false when the group is missing or the rate's denominator
	// is empty: the threshold cannot hold, and fails.
	Measured bool    `json:"measured"`
	Value    float64 `json:"value"`
	N        int     `json:"n"`
	Pass     bool    `json:"pass"`
	// Reason explains a failure in words.
	Reason string `json:"reason,omitempty"`
}

// RuleResult is one regression metric: the rule fails when Drop > MaxDrop
// and the drop is significant, judged by the same test compare chose for
// the metric: McNemar (P < Alpha, more cases worse than better) where
// every case counts in both versions, else the bootstrap interval lying
// wholly on the worse side of 0.
type RuleResult struct {
	Metric string `json:"metric"`
	// Measured is false when either version counts no case for the
	// metric: nothing can have dropped, and the rule holds vacuously.
	Measured bool    `json:"measured"`
	Base     float64 `json:"base"`
	Head     float64 `json:"head"`
	// Drop is how much worse head is, in the metric's bad direction
	// (base - head for accuracies, head - base for error rates); negative
	// means better.
	Drop    float64 `json:"drop"`
	MaxDrop float64 `json:"max_drop"`
	B       int     `json:"b"`
	C       int     `json:"c"`
	// Worse and Better split the discordant cases by the metric's
	// direction: cases that got worse under head, and better.
	Worse  int `json:"worse"`
	Better int `json:"better"`
	// Test is stats.TestMcNemar or stats.TestBootstrap, as in compare.
	Test string `json:"test"`
	// Interval is the delta's bootstrap interval (head - base) at
	// Confidence; it decides Significant under stats.TestBootstrap.
	Interval    stats.Interval  `json:"interval"`
	Confidence  float64         `json:"confidence"`
	P           float64         `json:"p"`
	Alpha       float64         `json:"alpha"`
	Significant bool            `json:"significant"`
	Pass        bool            `json:"pass"`
	Warnings    []stats.Warning `json:"warnings,omitempty"`
}

// Evaluate checks every threshold of cfg against head (one version's
// summary) and, when cmp is not nil, every regression rule against the
// paired comparison of head with its base. Every check is recorded, passing
// or not, so the verdict shows how close each came.
func Evaluate(head harness.VersionSummary, cmp *compare.Comparison, cfg Config) Verdict {
	v := Verdict{Head: head.Version, Pass: true}
	for _, t := range cfg.Thresholds {
		r := check(head, t)
		v.Pass = v.Pass && r.Pass
		v.Thresholds = append(v.Thresholds, r)
	}
	if cmp == nil {
		if cfg.Regression != nil {
			v.Notes = append(v.Notes, "no base version to compare with: regression rules skipped")
		}
		return v
	}
	v.Base = cmp.Base
	if cfg.Regression != nil {
		all, ok := cmp.Group(compare.GroupAll)
		for _, metric := range cfg.Regression.Metrics {
			m, found := all.Metric(metric)
			if !ok || !found {
				v.Notes = append(v.Notes, fmt.Sprintf("%s: not in the comparison; regression rule skipped", metric))
				continue
			}
			r := rule(m, *cfg.Regression, cmp.Thresholds.Confidence)
			v.Pass = v.Pass && r.Pass
			v.Regressions = append(v.Regressions, r)
		}
	}
	v.BrokenTotal = len(cmp.Broken)
	v.Broken = cmp.Broken[:min(len(cmp.Broken), WorstFlips)]
	return v
}

func check(head harness.VersionSummary, t Threshold) ThresholdResult {
	r := ThresholdResult{Threshold: t}
	g, ok := head.Groups[t.Group]
	if !ok {
		r.Reason = fmt.Sprintf("no cases in %s: add cases there or drop the selector", t.Group)
		return r
	}
	rate, ok := g.Metrics[t.Metric]
	if !ok && t.Kind == harness.KindCount && harness.IsWorkflowMetric(t.Metric) {
		// A guard count over no workflow run is 0: nothing broke it. The
		// n of 0 says no run was looked at.
		ok = true
	}
	switch {
	case !ok:
		r.Reason = fmt.Sprintf("not measured in %s", t.Group)
		return r
	case t.Kind == harness.KindRate && rate.N == 0:
		r.Reason = "no case in its denominator: add cases it counts"
		return r
	}
	r.Measured, r.Value, r.N = true, rate.Value, rate.N
	r.Pass = t.Op.Holds(rate.Value, t.Bound)
	if !r.Pass {
		r.Reason = fmt.Sprintf("%s, needs %s %s", formatValue(t.Kind, rate.Value, rate.N), t.Op, formatBound(t.Bound))
	}
	return r
}

func rule(m compare.Metric, reg Regression, confidence float64) RuleResult {
	drop := m.Base - m.Head
	if m.Direction == compare.LowerIsBetter {
		drop = m.Head - m.Base // not -drop: that prints 0 as -0.000
	}
	// For an error rate a hit is the error, so cases that turned into hits
	// (c) are the ones that got worse.
	worse, better := m.B, m.C
	if m.Direction == compare.LowerIsBetter {
		worse, better = better, worse
	}
	r := RuleResult{
		Metric: m.Name, Measured: m.BaseN > 0 && m.HeadN > 0,
		Base: m.Base, Head: m.Head, Drop: drop, MaxDrop: reg.MaxDrop,
		B: m.B, C: m.C, Worse: worse, Better: better,
		Test: m.Test, Interval: m.Interval, Confidence: confidence,
		P: m.P, Alpha: reg.Alpha, Warnings: m.Warnings,
	}
	if r.Test == stats.TestBootstrap {
		// The denominators differ, so b and c miss most of the change:
		// the interval of the delta must lie wholly on the worse side.
		iv := m.Interval
		worseSide := iv.Hi < 0
		if m.Direction == compare.LowerIsBetter {
			worseSide = iv.Lo > 0
		}
		r.Significant = iv.Replicates > 0 && worseSide
	} else {
		// McNemar (also a comparison recorded before tests were named):
		// the paired change must point the same way as the drop.
		r.Test = stats.TestMcNemar
		r.Significant = m.P < reg.Alpha && worse > better
	}
	r.Pass = !(drop > reg.MaxDrop+tolerance && r.Significant)
	return r
}

// Message explains a failed verdict: every threshold crossed with its value
// and bound, every regression with its drop and p-value, and the worst
// broken cases. A passing verdict gives a one-line summary.
//
// Untested layers come first when they decide the verdict (NOT EVALUATED),
// and as a warning line otherwise.
func (v Verdict) Message() string {
	var b strings.Builder
	b.WriteString(v.headline())
	b.WriteByte('\n')
	for _, f := range v.Findings() {
		if !f.Broken {
			fmt.Fprintf(&b, "  %s\n", f.Text)
			continue
		}
		fmt.Fprintf(&b, "  worst broken cases (%d of %d):\n", len(v.Broken), v.BrokenTotal)
		for _, c := range v.Broken {
			fmt.Fprintf(&b, "    %s %s: expected %s, now %s (%s), was %s  %q\n", c.Suite, c.Case,
				decision(string(c.Expect), c.ExpectSkill), decision(string(c.Head.Action), c.Head.Skill),
				c.Head.Failure, decision(string(c.Base.Action), c.Base.Skill), c.Input)
		}
	}
	return b.String()
}

// headline is Message's first line: the outcome and, when it failed, the
// metrics that crossed their bounds.
func (v Verdict) headline() string {
	switch v.Outcome() {
	case OutcomePass:
		return fmt.Sprintf("gate passed for %s%s: %d thresholds, %d regression rules held",
			v.Head, baseNote(v.Base), len(v.Thresholds), len(v.Regressions))
	case OutcomeNotEvaluated:
		return fmt.Sprintf("gate NOT EVALUATED for %s%s: %s", v.Head, baseNote(v.Base), v.UntestedNote())
	}
	var crossed []string
	for _, t := range v.Thresholds {
		if !t.Pass {
			crossed = append(crossed, t.Name())
		}
	}
	for _, r := range v.Regressions {
		if !r.Pass && !slices.Contains(crossed, r.Metric) {
			crossed = append(crossed, r.Metric)
		}
	}
	return fmt.Sprintf("gate failed for %s%s: metrics %s crossed", v.Head, baseNote(v.Base), strings.Join(crossed, ", "))
}

// Finding is one line of a verdict below its headline. Broken stands for
// the list of worst broken cases, which each reader shows its own way
// (Message lists them; the report points to its flipped cases).
type Finding struct {
	Text   string
	Broken bool
}

// Findings are the verdict's reasons in Message's order: thresholds and
// regressions crossed, the broken cases, untested layers, notes.
func (v Verdict) Findings() []Finding {
	var out []Finding
	add := func(format string, args ...any) { out = append(out, Finding{Text: fmt.Sprintf(format, args...)}) }
	switch v.Outcome() {
	case OutcomePass:
		if note := v.UntestedNote(); note != "" {
			add("warning: %s (%s)", note, v.UntestedHint())
		}
		return out
	case OutcomeNotEvaluated:
		add("%d thresholds and %d regression rules held, but the decisions they measured cannot show a change to those layers (%s)",
			len(v.Thresholds), len(v.Regressions), v.UntestedHint())
		for _, n := range v.Notes {
			add("note: %s", n)
		}
		return out
	}
	for _, t := range v.Thresholds {
		if !t.Pass {
			add("threshold %s: %s", t.Text, t.Reason)
		}
	}
	for _, r := range v.Regressions {
		if !r.Pass {
			add("regression %s: %.3f -> %.3f, worse by %.3f (max %g); %s",
				r.Metric, r.Base, r.Head, r.Drop, r.MaxDrop, r.Evidence())
		}
	}
	if len(v.Broken) > 0 {
		out = append(out, Finding{Broken: true})
	}
	if note := v.UntestedNote(); note != "" {
		add("%s (%s)", note, v.UntestedHint())
	}
	for _, n := range v.Notes {
		add("note: %s", n)
	}
	return out
}

// Evidence says why the rule's drop counts as significant, in the words of
// its test.
func (r RuleResult) Evidence() string {
	if r.Test == stats.TestBootstrap {
		return fmt.Sprintf("bootstrap %g%% interval %s excludes 0", 100*r.Confidence, r.IntervalText())
	}
	return fmt.Sprintf("McNemar p=%s < alpha %g (%d cases worse, %d better)", formatP(r.P), r.Alpha, r.Worse, r.Better)
}

// IntervalText is the delta's interval, "[+0.100, +0.300]".
func (r RuleResult) IntervalText() string {
	return fmt.Sprintf("[%+.3f, %+.3f]", r.Interval.Lo, r.Interval.Hi)
}

func baseNote(base string) string {
	if base == "" {
		return " (no base)"
	}
	return " against " + base
}

func decision(action, skill string) string {
	if skill == "" || action == "refuse" {
		return action
	}
	return action + " " + skill
}

func formatValue(kind harness.MetricKind, v float64, n int) string {
	switch kind {
	case harness.KindRate:
		return fmt.Sprintf("%.3f (n=%d)", v, n)
	case harness.KindCount:
		return fmt.Sprintf("%g (of %d cases)", v, n)
	}
	return fmt.Sprintf("%.4g", v)
}

func formatBound(b float64) string { return fmt.Sprintf("%g", b) }

func formatP(p float64) string {
	if p < 0.001 {
		return fmt.Sprintf("%.1e", p)
	}
	return fmt.Sprintf("%.3f", p)
}

// Passed reports whether every verdict passed.
func Passed(vs []Verdict) bool {
	for _, v := range vs {
		if !v.Pass {
			return false
		}
	}
	return true
}
