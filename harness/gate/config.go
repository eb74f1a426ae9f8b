package gate

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/harness/compare"
	"github.com/routebench/routebench/router/registry"
)

// Config is the gate block of routebench.yaml.
type Config struct {
	// Versions, when set, are the configured versions `gate --base` holds to
	// the rules; the others (say, a historical v1 kept for the report) are
	// not gated. Empty means every configured version.
	Versions   []string    `json:"versions,omitempty"`
	Thresholds []Threshold `json:"thresholds"`
	// Regression is nil when the block has no regression rule.
	Regression *Regression `json:"regression,omitempty"`
}

// Regression is the paired rule: head fails when a metric worsens by more
// than MaxDrop AND McNemar's exact test finds the change significant at
// Alpha. Both are needed: a large drop on a handful of flipped cases is
// noise, and a significant but tiny drop is not worth blocking a change.
type Regression struct {
	Metrics []string `json:"metrics"`
	// MaxDrop is the largest tolerated worsening, as a fraction (0.02 is two
	// points of accuracy, or two points more param errors).
	MaxDrop float64 `json:"max_drop"`
	Alpha   float64 `json:"alpha"`
}

// DefaultRegression fills what a regression block leaves out.
var DefaultRegression = Regression{MaxDrop: 0.02, Alpha: 0.05}

// FromConfig validates the gate block of a loaded routebench.yaml (the
// harness loader keeps it as a YAML node). No block gives an empty Config:
// nothing is gated. Problems come back together as a *registry.LoadError,
// one "file:line: field: message" per line.
func FromConfig(c *harness.Config) (Config, error) {
	if c == nil || c.Gate == nil {
		return Config{}, nil
	}
	cfg, err := ParseConfig(c.Path, c.Gate)
	if err != nil {
		return cfg, err
	}
	p := &parser{file: c.Path}
	for key, val := range p.fields(c.Gate, "gate", []string{"versions", "thresholds", "regression"}) {
		if key != "versions" {
			continue
		}
		for i, item := range val.Content {
			cfg.Versions[i] = c.Resolve(item.Value)
			if !slices.Contains(c.Versions, cfg.Versions[i]) {
				p.add(item, fmt.Sprintf("gate.versions[%d]", i), "%q is not one of the config's versions (%s); list a directory from `versions:`", item.Value, strings.Join(c.Versions, ", "))
			}
		}
	}
	return cfg, p.err()
}

// ParseConfig validates the value of a `gate:` key. file names the source
// in messages; every problem is reported, not just the first.
func ParseConfig(file string, node *yaml.Node) (Config, error) {
	p := &parser{file: file}
	var cfg Config
	if node.Kind == yaml.ScalarNode && node.Tag == "!!null" {
		return cfg, nil
	}
	if !p.expect(node, yaml.MappingNode, "gate", "a mapping with thresholds and regression") {
		return cfg, p.err()
	}
	for key, val := range p.fields(node, "gate", []string{"versions", "thresholds", "regression"}) {
		switch key {
		case "versions":
			if p.expect(val, yaml.SequenceNode, "gate.versions", "a list of version directories from `versions:`") {
				for _, item := range val.Content {
					cfg.Versions = append(cfg.Versions, item.Value)
				}
			}
		case "thresholds":
			cfg.Thresholds = p.thresholds(val)
		case "regression":
			cfg.Regression = p.regression(val)
		}
	}
	return cfg, p.err()
}

type parser struct {
	file     string
	problems []registry.Problem
}

func (p *parser) add(n *yaml.Node, field, format string, args ...any) {
	p.problems = append(p.problems, registry.Problem{
		Pos: registry.Pos{File: p.file, Line: n.Line}, Field: field, Message: fmt.Sprintf(format, args...)})
}

func (p *parser) err() error {
	if len(p.problems) == 0 {
		return nil
	}
	slices.SortStableFunc(p.problems, func(a, b registry.Problem) int { return a.Pos.Line - b.Pos.Line })
	return &registry.LoadError{Problems: p.problems}
}

func (p *parser) expect(n *yaml.Node, kind yaml.Kind, field, what string) bool {
	if n.Kind != kind {
		p.add(n, field, "must be %s", what)
		return false
	}
	return true
}

// fields yields a mapping's known keys in order and reports unknown ones.
func (p *parser) fields(n *yaml.Node, field string, known []string) func(func(string, *yaml.Node) bool) {
	return func(yield func(string, *yaml.Node) bool) {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if !slices.Contains(known, k.Value) {
				hint := ""
				if s := suggest(k.Value, known); s != "" {
					hint = fmt.Sprintf(" (did you mean %s?)", s)
				}
				p.add(k, field+"."+k.Value, "unknown field%s; %s takes %v", hint, field, known)
				continue
			}
			if !yield(k.Value, v) {
				return
			}
		}
	}
}

func (p *parser) thresholds(n *yaml.Node) []Threshold {
	if !p.expect(n, yaml.SequenceNode, "gate.thresholds", `a list of "metric op value" strings`) {
		return nil
	}
	var out []Threshold
	for i, item := range n.Content {
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

func (p *parser) regression(n *yaml.Node) *Regression {
	if !p.expect(n, yaml.MappingNode, "gate.regression", "a mapping with metrics, max_drop and alpha") {
		return nil
	}
	r := DefaultRegression
	for key, val := range p.fields(n, "gate.regression", []string{"metrics", "max_drop", "alpha"}) {
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
	}
	if len(r.Metrics) == 0 {
		p.add(n, "gate.regression.metrics", "is empty: list the rate metrics to guard, e.g. [decision_accuracy, refusal_accuracy]")
	}
	return &r
}

// regressionMetrics accepts rate metrics with a better direction: only
// they pair case by case, and only they can "drop".
func (p *parser) regressionMetrics(n *yaml.Node, field string) []string {
	if !p.expect(n, yaml.SequenceNode, field, "a list of metric names") {
		return nil
	}
	rates := compare.RateMetrics()
	var out []string
	for i, item := range n.Content {
		f := fmt.Sprintf("%s[%d]", field, i)
		name := item.Value
		info, known := harness.LookupMetric(name)
		switch {
		case item.Kind != yaml.ScalarNode:
			p.add(item, f, "must be a metric name")
		case !known:
			p.add(item, f, "%v", unknownMetric(name, rates))
		case info.Kind != harness.KindRate:
			p.add(item, f, "%s is a %s, not a rate: regressions are tested case by case on rates; gate it with a threshold instead", name, info.Kind)
		case compare.DirectionOf(name) == compare.Neutral:
			p.add(item, f, "%s has no better direction, so it cannot drop; guard clarify_recall instead", name)
		case slices.Contains(out, name):
			p.add(item, f, "%s is listed twice", name)
		default:
			out = append(out, name)
		}
	}
	return out
}

func (p *parser) number(n *yaml.Node, field string) (float64, bool) {
	v, err := strconv.ParseFloat(n.Value, 64)
	if n.Kind != yaml.ScalarNode || err != nil {
		p.add(n, field, "must be a number, got %q", n.Value)
		return 0, false
	}
	return v, true
}
