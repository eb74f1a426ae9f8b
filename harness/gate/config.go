package gate

import (
	"go.yaml.in/yaml/v3"

	"github.com/routebench/routebench/harness"
)

// Config is the gate block of routebench.yaml.
type Config = harness.GateConfig

// Regression is the paired rule: head fails when a metric worsens by more
// than MaxDrop AND McNemar's exact test finds the change significant at
// Alpha.
type Regression = harness.Regression

// DefaultRegression fills what a regression block leaves out.
var DefaultRegression = harness.DefaultRegression

// FromConfig returns the gate block of a loaded routebench.yaml, which
// harness.LoadConfig has already parsed and validated (gate.versions
// resolved like versions and checked against them). No block gives an
// empty Config: nothing is gated. A Config built by hand rather than loaded
// is not checked, so the error is nil today.
func FromConfig(c *harness.Config) (Config, error) {
	if c == nil {
		return Config{}, nil
	}
	return c.Gate, nil
}

// ParseConfig validates the value of a `gate:` key; see harness.ParseGate.
func ParseConfig(file string, node *yaml.Node) (Config, error) {
	return harness.ParseGate(file, node)
}
