package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/harness/compare"
	"github.com/routebench/routebench/internal/jsonstr"
)

// direction says which way a metric improves.
type direction int

const (
	neutral direction = iota
	higherBetter
	lowerBetter
)

// unit says how a metric's value is printed.
type unit int

const (
	unitNumber unit = iota // tokens and other plain quantities
	unitRate               // a proportion, printed as a percentage
	unitCount              // an integer count
	unitScore              // a unitless score such as ECE or Brier
	unitMillis             // a duration in milliseconds
	unitUSD                // money
)

// metricInfo is how one metric reads in a report.
type metricInfo struct {
	name  string
	label string
	dir   direction
	unit  unit
	// sub marks a breakdown of the row above (param_error_missing).
	sub bool
}

// metricLabels are the words a lead reads; metrics not listed show their
// name with spaces.
var metricLabels = map[string]string{
	harness.DecisionAccuracy:        "decision accuracy",
	harness.SkillAccuracy:           "skill accuracy",
	harness.RefusalPrecision:        "refusal precision",
	harness.RefusalRecall:           "refusal recall",
	harness.RefusalAccuracy:         "refusal accuracy",
	harness.ClarificationRate:       "clarification rate",
	harness.ClarifyRecall:           "clarify recall",
	harness.WrongExecutionRate:      "wrong execution rate",
	harness.ParamErrorRate:          "param error rate",
	harness.ParamErrorMissing:       "… missing param",
	harness.ParamErrorUnexpected:    "… unexpected param",
	harness.ParamErrorType:          "… wrong type",
	harness.ParamErrorValue:         "… wrong value",
	harness.ParamErrorSchema:        "… schema layer",
	harness.ParamErrorRule:          "… rule layer",
	harness.ParamErrorPermission:    "… permission layer",
	harness.SchemaPassRate:          "schema pass rate",
	harness.RulePrecision:           "rule precision",
	harness.RecallAtK:               "recall@k",
	harness.JudgeAccuracy:           "judge accuracy",
	harness.PolicyViolations:        "policy violations",
	harness.ECE:                     "ECE (10 bins)",
	harness.Brier:                   "Brier score",
	harness.LatencyP50:              "latency p50",
	harness.LatencyP95:              "latency p95",
	harness.LatencyP99:              "latency p99",
	harness.Tokens:                  "tokens per decision",
	harness.Cost:                    "cost per decision",
	harness.ConversationSuccessRate: "conversation success rate",
	harness.TurnAccuracy:            "turn accuracy (conversations)",
	harness.InvalidSkillRate:        "invalid skill rate",
}

// keyMetrics are the rows summary.md shows; the HTML shows every metric.
var keyMetrics = []string{
	harness.DecisionAccuracy, harness.SkillAccuracy, harness.WrongExecutionRate, harness.PolicyViolations,
	harness.RefusalPrecision, harness.RefusalRecall, harness.RefusalAccuracy, harness.ClarifyRecall,
	harness.ParamErrorRate, harness.SchemaPassRate, harness.ECE,
	// Workflow metrics: present only when a version ran workflow cases.
	harness.TaskSuccessRate, harness.CallSequenceAccuracy, harness.IllegalRetries, harness.DuplicateSideEffects,
	harness.UnverifiedClaims, harness.WriteOrderViolations, harness.ConfirmationMisses, harness.SilentFailures,
	harness.DoomLoopsStopped, harness.ResumeSkippedNodes,
	// Conversation metrics: present only when a version ran conversations.
	harness.ConversationSuccessRate, harness.TurnAccuracy,
}

// lookupMetric describes a metric from the harness's own list (kind, unit)
// and the comparison's direction, so every output agrees on which way is
// better. Unknown names are shown as plain numbers, neither better nor
// worse.
func lookupMetric(name string) metricInfo {
	info := metricInfo{name: name, label: metricLabels[name], unit: unitNumber}
	if info.label == "" {
		info.label = strings.ReplaceAll(name, "_", " ")
	}
	info.sub = strings.HasPrefix(name, "param_error_") && name != harness.ParamErrorRate
	switch compare.DirectionOf(name) {
	case compare.HigherIsBetter:
		info.dir = higherBetter
	case compare.LowerIsBetter:
		info.dir = lowerBetter
	}
	m, ok := harness.LookupMetric(name)
	if !ok {
		return info
	}
	switch {
	case m.Kind == harness.KindRate:
		info.unit = unitRate
	case m.Kind == harness.KindCount:
		info.unit = unitCount
	case m.Unit == "ms":
		info.unit = unitMillis
	case m.Unit == "USD/decision":
		info.unit = unitUSD
	case m.Unit == "":
		info.unit = unitScore
	}
	return info
}

// orderedMetrics returns the metric names present in any of the groups, in
// the harness's report order, then the rest by name.
func orderedMetrics(groups []harness.Group) []string {
	present := map[string]bool{}
	for _, g := range groups {
		for name := range g.Metrics {
			present[name] = true
		}
	}
	var names []string
	for _, m := range harness.Metrics {
		if present[m.Name] {
			names = append(names, m.Name)
			delete(present, m.Name)
		}
	}
	var rest []string
	for name := range present {
		rest = append(rest, name)
	}
	sort.Strings(rest)
	return append(names, rest...)
}

// fixed formats v with exactly prec decimals; -0 prints as 0 so equal
// inputs always give equal bytes.
func fixed(v float64, prec int) string {
	var text [32]byte
	return string(appendFixed(text[:0], v, prec))
}

// appendFixed appends fixed's text to b.
func appendFixed(b []byte, v float64, prec int) []byte {
	if math.IsNaN(v) {
		return append(b, "n/a"...)
	}
	start := len(b)
	b = strconv.AppendFloat(b, v, 'f', prec, 64)
	if b[start] == '-' && len(bytes.Trim(b[start:], "-0.")) == 0 {
		b = append(b[:start], b[start+1:]...)
	}
	return b
}

// signed is fixed with an explicit + for positive values.
func signed(v float64, prec int) string {
	s := fixed(v, prec)
	if s != "n/a" && !strings.HasPrefix(s, "-") && strings.Trim(s, "0.") != "" {
		s = "+" + s
	}
	return s
}

// unitFormat is how one unit prints: values are scaled (rates to
// percent), rounded to decimals and wrapped in prefix and suffix; deltas
// carry deltaSuffix ("pp" for rates) instead.
type unitFormat struct {
	scale          float64
	decimals       int
	prefix, suffix string
	deltaSuffix    string
}

var unitFormats = map[unit]unitFormat{
	unitRate:   {scale: 100, decimals: 1, suffix: "%", deltaSuffix: " pp"},
	unitCount:  {scale: 1, decimals: 0},
	unitScore:  {scale: 1, decimals: 3},
	unitMillis: {scale: 1, decimals: 2, suffix: " ms", deltaSuffix: " ms"},
	unitUSD:    {scale: 1, decimals: 4, prefix: "$"},
	unitNumber: {scale: 1, decimals: 1},
}

func formatOf(metric string) unitFormat {
	if f, ok := unitFormats[lookupMetric(metric).unit]; ok {
		return f
	}
	return unitFormats[unitNumber]
}

// FormatValue prints a metric's value the way every report shows it:
// rates as percentages with one decimal ("91.2%"), counts as integers,
// scores with three decimals, latencies in ms, cost in USD, other
// quantities with one decimal.
func FormatValue(metric string, v float64) string {
	f := formatOf(metric)
	return f.prefix + fixed(v*f.scale, f.decimals) + f.suffix
}

// FormatInterval prints a rate's 95% interval ("[87.1, 94.1]"), or "" when
// the metric carries none.
func FormatInterval(metric string, r harness.Rate) string {
	if r.Lo == nil || r.Hi == nil {
		return ""
	}
	f := formatOf(metric)
	return "[" + fixed(*r.Lo*f.scale, f.decimals) + ", " + fixed(*r.Hi*f.scale, f.decimals) + "]"
}

// FormatDelta prints head - base: percentage points for rates
// ("+4.2 pp"), the metric's own unit otherwise.
func FormatDelta(metric string, d float64) string {
	f := formatOf(metric)
	return signed(d*f.scale, f.decimals) + f.deltaSuffix
}

// formatDeltaInterval prints a delta's interval in the delta's unit.
func formatDeltaInterval(metric string, lo, hi float64) string {
	f := formatOf(metric)
	return "[" + signed(lo*f.scale, f.decimals) + ", " + signed(hi*f.scale, f.decimals) + "]"
}

// formatP prints a p-value the way papers do: three decimals, "<0.001"
// below that.
func formatP(p float64) string {
	if p < 0.001 {
		return "p<0.001"
	}
	return "p=" + fixed(p, 3)
}

// truncateRunes cuts s to at most max runes, marking the cut so a reader
// never mistakes a prefix for the whole text. The note counts characters,
// as the cut does, so "80 shown of 100" reads right in any script.
func truncateRunes(s string, max int) string {
	if len(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max {
			return s[:i] + "… [truncated, " + strconv.Itoa(utf8.RuneCountInString(s)) + " characters in all]"
		}
		n++
	}
	return s
}

// compactJSON prints v as one line of JSON with sorted keys; it is for
// text outputs, which escape on their own.
func compactJSON(v any) string {
	if m, ok := v.(map[string]any); ok && m != nil {
		if s, ok := flatParamsJSON(m); ok {
			return s
		}
	}
	return encodedJSON(v)
}

// encodedJSON is compactJSON by encoding/json.
func encodedJSON(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprintf("%v", v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// flatParamsJSON is compactJSON's bytes for the usual params: an object
// of strings, numbers, booleans and nulls, written without reflection
// (each report writes every result's params). ok is false for anything
// else, or a string or key with <, > or &, which jsonstr escapes and
// compactJSON does not; encoding/json writes those.
func flatParamsJSON(m map[string]any) (string, bool) {
	b, ok := appendFlatParamsJSON(make([]byte, 0, 16*len(m)+2), m)
	if !ok {
		return "", false
	}
	return string(b), true
}

// appendFlatParamsJSON appends flatParamsJSON's bytes to b; when ok is
// false, what it appended is to be taken back.
func appendFlatParamsJSON(b []byte, m map[string]any) ([]byte, bool) {
	var room [16]string // most params: no allocation for the keys
	keys := room[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		if strings.ContainsAny(k, "<>&") {
			return b, false
		}
		b = jsonstr.Append(b, k)
		b = append(b, ':')
		switch x := m[k].(type) {
		case string:
			if strings.ContainsAny(x, "<>&") {
				return b, false
			}
			b = jsonstr.Append(b, x)
		case float64:
			var ok bool
			if b, ok = jsonstr.AppendFloat(b, x); !ok {
				return b, false
			}
		case bool:
			b = strconv.AppendBool(b, x)
		case nil:
			b = append(b, "null"...)
		default:
			return b, false
		}
	}
	return append(b, '}'), true
}
