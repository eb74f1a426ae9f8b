// Package gate decides whether a prompt change may ship: it checks a head
// version's metrics against thresholds ("decision_accuracy >= 0.85") and its
// paired comparison with the base version against regression rules, and
// explains every crossing (DESIGN §7).
package gate

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/internal/textdist"
)

// Op is a threshold's comparison.
type Op string

const (
	GE Op = ">="
	LE Op = "<="
	GT Op = ">"
	LT Op = "<"
	EQ Op = "=="
	NE Op = "!="
)

// ops in match order: two-character operators first.
var ops = []Op{GE, LE, EQ, NE, GT, LT}

// tolerance absorbs float noise: 0.85 computed as 17/20 or an ECE summed
// in another order must not cross a bound it only touches.
const tolerance = 1e-9

// Holds reports whether value op bound.
func (op Op) Holds(value, bound float64) bool {
	switch op {
	case GE:
		return value >= bound-tolerance
	case LE:
		return value <= bound+tolerance
	case GT:
		return value > bound+tolerance
	case LT:
		return value < bound-tolerance
	case EQ:
		return math.Abs(value-bound) <= tolerance
	case NE:
		return math.Abs(value-bound) > tolerance
	}
	return false
}

// Threshold is one "metric op value" entry, with an optional group
// selector: refusal_recall{suite:adversarial} >= 0.95.
type Threshold struct {
	// Text is the entry as written, for messages.
	Text   string             `json:"text"`
	Metric string             `json:"metric"`
	Group  string             `json:"group"` // "all", "suite:adversarial", "tag:zh"
	Op     Op                 `json:"op"`
	Bound  float64            `json:"bound"`
	Kind   harness.MetricKind `json:"kind"`
}

// String is the threshold in its canonical spelling.
func (t Threshold) String() string {
	return fmt.Sprintf("%s %s %s", t.Name(), t.Op, strconv.FormatFloat(t.Bound, 'g', -1, 64))
}

// Name is the metric with its selector: "refusal_recall{suite:adversarial}".
func (t Threshold) Name() string {
	if t.Group == "all" {
		return t.Metric
	}
	return t.Metric + "{" + t.Group + "}"
}

var thresholdSyntax = regexp.MustCompile(`^\s*([A-Za-z0-9_]+)\s*(?:\{\s*([^}]*?)\s*\})?\s*(>=|<=|==|!=|>|<)\s*(\S+)\s*$`)

// ParseThreshold parses and validates one entry against the known metrics:
// the metric must exist, a selector is {suite:NAME} or {tag:NAME}, and the
// bound must be a number the metric can take (rates are fractions in
// [0, 1]). Errors say what to write instead.
func ParseThreshold(text string) (Threshold, error) {
	m := thresholdSyntax.FindStringSubmatch(text)
	if m == nil {
		return Threshold{}, fmt.Errorf("%q is not \"metric op value\": write e.g. \"decision_accuracy >= 0.85\" or \"refusal_recall{suite:adversarial} >= 0.95\" (ops: >= <= > < == !=)", text)
	}
	name, selector, op, value := m[1], m[2], Op(m[3]), m[4]
	t := Threshold{Text: strings.TrimSpace(text), Metric: name, Group: "all", Op: op}

	info, ok := harness.LookupMetric(name)
	if !ok {
		return Threshold{}, unknownMetric(name, metricNames())
	}
	t.Kind = info.Kind

	if strings.Contains(text, "{") && selector == "" {
		return Threshold{}, fmt.Errorf("empty selector in %q: write {suite:NAME} or {tag:NAME}, or drop the braces", text)
	}
	if selector != "" {
		group, err := parseSelector(selector)
		if err != nil {
			return Threshold{}, err
		}
		t.Group = group
	}

	bound, err := strconv.ParseFloat(strings.TrimSuffix(value, "%"), 64)
	if err != nil || math.IsNaN(bound) || math.IsInf(bound, 0) {
		return Threshold{}, fmt.Errorf("bound %q is not a number: write a plain number such as 0.85", value)
	}
	if strings.HasSuffix(value, "%") {
		if info.Kind != harness.KindRate {
			return Threshold{}, fmt.Errorf("bound %q: only rates take a percentage, and %s is a %s", value, name, info.Kind)
		}
		bound /= 100
	}
	switch {
	case info.Kind == harness.KindRate && (bound < 0 || bound > 1):
		return Threshold{}, fmt.Errorf("bound %s: %s is a rate between 0 and 1; write %g or %s%%", value, name, bound/100, value)
	case bound < 0:
		return Threshold{}, fmt.Errorf("bound %s: %s is never negative", value, name)
	}
	t.Bound = bound
	return t, nil
}

// parseSelector turns "suite:adversarial" into the summary group name.
func parseSelector(sel string) (string, error) {
	kind, value, ok := strings.Cut(sel, ":")
	kind, value = strings.TrimSpace(kind), strings.TrimSpace(value)
	if !ok || value == "" {
		return "", fmt.Errorf("selector {%s}: write {suite:NAME} or {tag:NAME}", sel)
	}
	switch kind {
	case "suite":
		if s := suggest(value, knownSuites); s != "" && s != value {
			return "", fmt.Errorf("selector {%s}: unknown suite %q (did you mean %s?)", sel, value, s)
		}
	case "tag":
	default:
		hint := ""
		if s := suggest(kind, []string{"suite", "tag"}); s != "" {
			hint = fmt.Sprintf(" (did you mean %s?)", s)
		}
		return "", fmt.Errorf("selector {%s}: unknown selector %q%s; write {suite:NAME} or {tag:NAME}", sel, kind, hint)
	}
	return kind + ":" + value, nil
}

var knownSuites = []string{harness.SuiteNormal, harness.SuiteBoundary, harness.SuiteAdversarial}

func metricNames() []string {
	names := make([]string, len(harness.Metrics))
	for i, m := range harness.Metrics {
		names[i] = m.Name
	}
	return names
}

func unknownMetric(name string, known []string) error {
	if s := suggest(name, known); s != "" {
		return fmt.Errorf("unknown metric %q (did you mean %s?)", name, s)
	}
	return fmt.Errorf("unknown metric %q: use one of %s", name, strings.Join(known, ", "))
}

// suggest returns the known word within edit distance 2 of got, for
// "did you mean" hints, or "".
func suggest(got string, known []string) string {
	best, bestDist := "", 3
	for _, k := range known {
		if d := textdist.Levenshtein(got, k); d < bestDist {
			best, bestDist = k, d
		}
	}
	return best
}
