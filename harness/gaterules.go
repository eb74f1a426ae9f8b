package harness

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/routebench/routebench/internal/yamldoc"
	"github.com/routebench/routebench/internal/yamlkind"
	"github.com/routebench/routebench/router/registry"
)

// The gate block of routebench.yaml is parsed here rather than in package
// gate so that every command loading the config (run, lint and gate alike,
// DESIGN §7) rejects a misspelt metric or an alpha of 3 before anything
// runs; package gate imports harness, so it could not be called from here.
// Package gate re-exports these types and evaluates them.

// Op is a threshold's comparison.
type Op string

const (
	OpGE Op = ">="
	OpLE Op = "<="
	OpGT Op = ">"
	OpLT Op = "<"
	OpEQ Op = "=="
	OpNE Op = "!="
)

// BoundTolerance absorbs float noise: 0.85 computed as 17/20 or an ECE
// summed in another order must not cross a bound it only touches.
const BoundTolerance = 1e-9

const tolerance = BoundTolerance

// Holds reports whether value op bound.
func (op Op) Holds(value, bound float64) bool {
	switch op {
	case OpGE:
		return value >= bound-tolerance
	case OpLE:
		return value <= bound+tolerance
	case OpGT:
		return value > bound+tolerance
	case OpLT:
		return value < bound-tolerance
	case OpEQ:
		return math.Abs(value-bound) <= tolerance
	case OpNE:
		return math.Abs(value-bound) > tolerance
	}
	return false
}

// Threshold is one "metric op value" entry, with an optional group
// selector: refusal_recall{suite:adversarial} >= 0.95.
type Threshold struct {
	// Text is the entry as written, for messages.
	Text   string     `json:"text"`
	Metric string     `json:"metric"`
	Group  string     `json:"group"` // "all", "suite:adversarial", "tag:zh"
	Op     Op         `json:"op"`
	Bound  float64    `json:"bound"`
	Kind   MetricKind `json:"kind"`
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

// GateConfig is the gate block of routebench.yaml.
type GateConfig struct {
	// Versions, when set, are the configured versions `gate --base` holds to
	// the rules; the others (say, a historical v1 kept for the report) are
	// not gated. Empty means every configured version.
	Versions   []string    `json:"versions,omitempty"`
	Thresholds []Threshold `json:"thresholds"`
	// Regression is nil when the block has no regression rule.
	Regression *Regression `json:"regression,omitempty"`
	// UntestedLayers decides a change the head's judge cannot see (a
	// layer it does not read, DESIGN §7): UntestedFail or UntestedWarn;
	// "" means UntestedFail. Read it through Untested.
	UntestedLayers string `json:"untested_layers,omitempty"`
}

// Values of gate.untested_layers.
const (
	// UntestedFail: the verdict is NOT EVALUATED and the gate exits 1.
	UntestedFail = "fail"
	// UntestedWarn: the verdict warns and the other checks decide.
	UntestedWarn = "warn"
)

var untestedPolicies = []string{UntestedFail, UntestedWarn}

// Untested is gate.untested_layers with its default: fail, because a
// change nothing measured must not pass as if it had been.
func (c GateConfig) Untested() string {
	if c.UntestedLayers == "" {
		return UntestedFail
	}
	return c.UntestedLayers
}

// Regression is the paired rule: head fails when a metric worsens by more
// than MaxDrop AND McNemar's exact test finds the change significant at
// Alpha. Both are needed: a large drop on a handful of flipped cases is
// noise, and a significant but tiny drop is not worth blocking a change.
type Regression struct {
	Metrics []string `json:"metrics"`
	// MaxDrop is the largest tolerated worsening, as a fraction in [0, 1)
	// (0.02 is two points of accuracy, or two points more param errors); 1
	// would switch the rule off, which is done by leaving the metric out.
	MaxDrop float64 `json:"max_drop"`
	// Alpha is the significance level, in (0, 1).
	Alpha float64 `json:"alpha"`
}

// DefaultRegression fills what a regression block leaves out.
var DefaultRegression = Regression{MaxDrop: 0.02, Alpha: 0.05}

// NeutralMetric reports whether a rate's rise or fall is not good or bad in
// itself. A router that clarifies more may be right to (clarify_recall says
// whether it clarifies when it should), so comparisons show the change
// without judging it and the gate refuses it as a regression metric.
// The workflow counts doom_loops_stopped and resume_skipped_nodes are
// informative in the same way: a stopped doom loop is a guard that held.
func NeutralMetric(name string) bool {
	return name == ClarificationRate || name == DoomLoopsStopped || name == ResumeSkippedNodes
}

var thresholdSyntax = regexp.MustCompile(`^\s*([A-Za-z0-9_]+)\s*(?:\{\s*([^}]*?)\s*\})?\s*(>=|<=|==|!=|>|<)\s*(\S+)\s*$`)

// ParseThreshold parses and validates one entry against the known metrics:
// the metric must exist, a selector is {suite:NAME} or {tag:NAME}, and the
// bound must be a number the metric can take (rates are fractions in
// [0, 1]). Errors say what to write instead.
func ParseThreshold(text string) (Threshold, error) {
	// A tag selector takes any text, and a tag with a control character in
	// it could never match a case's tags (suites reject such tags).
	if i := strings.IndexFunc(text, unicode.IsControl); i >= 0 {
		return Threshold{}, fmt.Errorf("%q holds a control character (U+%04X); write the threshold on one line", text, []rune(text[i:])[0])
	}
	m := thresholdSyntax.FindStringSubmatch(text)
	if m == nil {
		return Threshold{}, fmt.Errorf("%q is not \"metric op value\": write e.g. \"decision_accuracy >= 0.85\" or \"refusal_recall{suite:adversarial} >= 0.95\" (ops: >= <= > < == !=)", text)
	}
	name, selector, op, value := m[1], m[2], Op(m[3]), m[4]
	t := Threshold{Text: strings.TrimSpace(text), Metric: name, Group: "all", Op: op}

	info, ok := LookupMetric(name)
	if !ok {
		return Threshold{}, unknownMetric(name, metricNames(""))
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
		if info.Kind != KindRate {
			return Threshold{}, fmt.Errorf("bound %q: only rates take a percentage, and %s is a %s", value, name, info.Kind)
		}
		bound /= 100
	}
	switch {
	case info.Kind == KindRate && (bound < 0 || bound > 1):
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
		if s := suggest(value, suiteKinds); s != "" && s != value {
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

// metricNames lists the metrics of a kind ("" for every kind), in report order.
func metricNames(kind MetricKind) []string {
	var names []string
	for _, m := range Metrics {
		if kind == "" || m.Kind == kind {
			names = append(names, m.Name)
		}
	}
	return names
}

func unknownMetric(name string, known []string) error {
	if s := suggest(name, known); s != "" {
		return fmt.Errorf("unknown metric %q (did you mean %s?)", name, s)
	}
	return fmt.Errorf("unknown metric %q: use one of %s", name, strings.Join(known, ", "))
}

var (
	gateFields       = []string{"versions", "thresholds", "regression", "untested_layers"}
	regressionFields = []string{"metrics", "max_drop", "alpha"}
)

// ParseGate validates the value of a `gate:` key; file names the source in
// messages. Every problem is reported, not just the first, as a
// *registry.LoadError whose lines read "file:line: field: column N: what".
// gate.versions are kept as written; ParseConfig resolves and checks them.
func ParseGate(file string, node *yaml.Node) (GateConfig, error) {
	p := &gateParser{file: file}
	cfg := p.gate(node)
	if len(p.problems) > 0 {
		sortProblems(p.problems)
		return cfg, &registry.LoadError{Problems: p.problems}
	}
	return cfg, nil
}

// gateParser collects problems with the column of the offending node:
// a threshold line can hold several entries in a flow list.
type gateParser struct {
	file     string
	problems []registry.Problem
	// versions are the nodes of GateConfig.Versions with their index in
	// the list, for ParseConfig's check against the configured versions.
	versions []gateVersion
}

type gateVersion struct {
	node  *yaml.Node
	index int
}

func (p *gateParser) add(n *yaml.Node, field, format string, args ...any) {
	p.problems = append(p.problems, oneLine(registry.Problem{
		Pos:     registry.Pos{File: p.file, Line: n.Line},
		Field:   field,
		Message: fmt.Sprintf("column %d: ", n.Column) + fmt.Sprintf(format, args...)}))
}

func (p *gateParser) gate(node *yaml.Node) GateConfig {
	var cfg GateConfig
	node = yamldoc.Resolve(node)
	if node == nil || node.Kind == yaml.ScalarNode && node.Tag == "!!null" {
		return cfg
	}
	if !p.expect(node, yaml.MappingNode, "gate", "a mapping with thresholds and regression") {
		return cfg
	}
	p.fields(node, "gate", gateFields, func(key string, val *yaml.Node) {
		switch key {
		case "versions":
			if p.expect(val, yaml.SequenceNode, "gate.versions", "a list of version directories from `versions:`") {
				for i, item := range val.Content {
					item = yamldoc.Resolve(item)
					if item.Kind != yaml.ScalarNode || item.Value == "" {
						p.add(item, fmt.Sprintf("gate.versions[%d]", i), "must be a version directory from `versions:`, got %s", yamlkind.Of(item))
						continue
					}
					cfg.Versions = append(cfg.Versions, item.Value)
					p.versions = append(p.versions, gateVersion{item, i})
				}
			}
		case "thresholds":
			cfg.Thresholds = p.thresholds(val)
		case "regression":
			cfg.Regression = p.regression(val)
		case "untested_layers":
			cfg.UntestedLayers = p.untested(val)
		}
	})
	return cfg
}

// untested reads gate.untested_layers: fail or warn.
func (p *gateParser) untested(n *yaml.Node) string {
	const field = "gate.untested_layers"
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		p.add(n, field, "must be %s, got %s", strings.Join(untestedPolicies, " or "), yamlkind.Of(n))
		return ""
	}
	if !slices.Contains(untestedPolicies, n.Value) {
		hint, lower := "", strings.ToLower(strings.TrimSpace(n.Value))
		for _, c := range untestedPolicies {
			if strings.HasPrefix(lower, c) { // "warning", "failure"
				hint = fmt.Sprintf(" (did you mean %s?)", c)
			}
		}
		if s := suggest(lower, untestedPolicies); hint == "" && s != "" {
			hint = fmt.Sprintf(" (did you mean %s?)", s)
		}
		p.add(n, field, "%q is not a choice%s; write fail (a change the judge cannot read fails the gate, the default) or warn (it is reported and the other checks decide)", n.Value, hint)
		return ""
	}
	return n.Value
}

func (p *gateParser) expect(n *yaml.Node, kind yaml.Kind, field, what string) bool {
	if n.Kind != kind {
		p.add(n, field, "must be %s, got %s", what, yamlkind.Of(n))
		return false
	}
	return true
}

// fields calls fn for a mapping's known keys in order, with aliases
// resolved, and reports unknown and repeated ones.
func (p *gateParser) fields(n *yaml.Node, field string, known []string, fn func(string, *yaml.Node)) {
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := yamldoc.Resolve(n.Content[i]), yamldoc.Resolve(n.Content[i+1])
		switch {
		case !slices.Contains(known, k.Value):
			hint := ""
			if s := suggest(k.Value, known); s != "" {
				hint = fmt.Sprintf(" (did you mean %s?)", s)
			}
			p.add(k, field+"."+k.Value, "unknown field%s; %s takes %v", hint, field, known)
		case seen[k.Value]:
			p.add(k, field+"."+k.Value, "appears twice; keep one")
		default:
			seen[k.Value] = true
			fn(k.Value, v)
		}
	}
}

func (p *gateParser) thresholds(n *yaml.Node) []Threshold {
	if !p.expect(n, yaml.SequenceNode, "gate.thresholds", `a list of "metric op value" strings`) {
		return nil
	}
	var out []Threshold
	for i, item := range n.Content {
		item = yamldoc.Resolve(item)
		field := fmt.Sprintf("gate.thresholds[%d]", i)
		if item.Kind != yaml.ScalarNode {
			p.add(item, field, `must be a string "metric op value", e.g. "decision_accuracy >= 0.85"`)
			continue
		}
		t, err := ParseThreshold(item.Value)
		if err != nil {
			p.add(item, field, "%v", err)
			continue
		}
		out = append(out, t)
	}
	return out
}

func (p *gateParser) regression(n *yaml.Node) *Regression {
	if !p.expect(n, yaml.MappingNode, "gate.regression", "a mapping with metrics, max_drop and alpha") {
		return nil
	}
	r := DefaultRegression
	p.fields(n, "gate.regression", regressionFields, func(key string, val *yaml.Node) {
		field := "gate.regression." + key
		switch key {
		case "metrics":
			r.Metrics = p.regressionMetrics(val, field)
		case "max_drop":
			if v, ok := p.number(val, field); ok {
				if v < 0 || v >= 1 {
					p.add(val, field, "%s: a drop is a fraction in [0, 1), e.g. 0.02 for two points", val.Value)
				}
				r.MaxDrop = v
			}
		case "alpha":
			if v, ok := p.number(val, field); ok {
				if v <= 0 || v >= 1 {
					p.add(val, field, "%s: a significance level is between 0 and 1, e.g. 0.05", val.Value)
				}
				r.Alpha = v
			}
		}
	})
	// A list whose every entry was wrong has its problems reported already.
	if list := keyNode(n, "metrics"); len(r.Metrics) == 0 && (list == nil || len(list.Content) == 0) {
		p.add(n, "gate.regression.metrics", "is empty: list the rate metrics to guard, e.g. [decision_accuracy, refusal_accuracy]")
	}
	return &r
}

// regressionMetrics accepts rate metrics with a better direction: only
// they pair case by case, and only they can "drop".
func (p *gateParser) regressionMetrics(n *yaml.Node, field string) []string {
	if !p.expect(n, yaml.SequenceNode, field, "a list of metric names") {
		return nil
	}
	var out []string
	for i, item := range n.Content {
		item = yamldoc.Resolve(item)
		f := fmt.Sprintf("%s[%d]", field, i)
		name := item.Value
		info, known := LookupMetric(name)
		switch {
		case item.Kind != yaml.ScalarNode:
			p.add(item, f, "must be a metric name, got %s", yamlkind.Of(item))
		case !known:
			p.add(item, f, "%v", unknownMetric(name, metricNames(KindRate)))
		case info.Kind != KindRate:
			p.add(item, f, "%s is a %s, not a rate: regressions are tested case by case on rates; gate it with a threshold instead", name, info.Kind)
		case NeutralMetric(name):
			p.add(item, f, "%s has no better direction, so it cannot drop; guard clarify_recall instead", name)
		case slices.Contains(out, name):
			p.add(item, f, "%s is listed twice", name)
		default:
			out = append(out, name)
		}
	}
	return out
}

func (p *gateParser) number(n *yaml.Node, field string) (float64, bool) {
	v, err := strconv.ParseFloat(n.Value, 64)
	if n.Kind != yaml.ScalarNode || err != nil || math.IsNaN(v) {
		p.add(n, field, "must be a number, got %q", n.Value)
		return 0, false
	}
	return v, true
}
