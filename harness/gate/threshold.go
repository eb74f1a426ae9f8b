// Package gate decides whether a prompt change may ship: it checks a head
// version's metrics against thresholds ("decision_accuracy >= 0.85") and its
// paired comparison with the base version against regression rules, and
// explains every crossing (DESIGN §7).
//
// The gate block itself is parsed by package harness when routebench.yaml
// loads, so run and lint reject a bad threshold as gate does; the names
// below keep this package's vocabulary.
package gate

import "github.com/routebench/routebench/harness"

// Op is a threshold's comparison.
type Op = harness.Op

const (
	GE = harness.OpGE
	LE = harness.OpLE
	GT = harness.OpGT
	LT = harness.OpLT
	EQ = harness.OpEQ
	NE = harness.OpNE
)

// tolerance is the float noise Op.Holds absorbs; regression drops get the same.
const tolerance = harness.BoundTolerance

// Threshold is one "metric op value" entry, with an optional group
// selector: refusal_recall{suite:adversarial} >= 0.95.
type Threshold = harness.Threshold

// ParseThreshold parses and validates one entry against the known metrics;
// see harness.ParseThreshold.
func ParseThreshold(text string) (Threshold, error) { return harness.ParseThreshold(text) }
