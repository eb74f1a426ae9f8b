package compare

import (
	"slices"

	"github.com/routebench/routebench/harness"
)

// Direction says which way a metric improves.
type Direction int8

const (
	// Neutral metrics have no better direction: a significant change is
	// shown, but is neither a fix nor a regression.
	Neutral Direction = 0
	// HigherIsBetter: accuracies, recalls, precisions, pass rates.
	HigherIsBetter Direction = 1
	// LowerIsBetter: error rates, where the indicator marks the bad event.
	LowerIsBetter Direction = -1
)

func (d Direction) String() string {
	switch d {
	case HigherIsBetter:
		return "higher is better"
	case LowerIsBetter:
		return "lower is better"
	}
	return "neutral"
}

// DirectionOf returns the metric's direction, from harness.Metrics with the
// exceptions of harness.NeutralMetric (which the config loader also needs,
// to refuse a neutral regression metric). Unknown metrics are Neutral.
func DirectionOf(metric string) Direction {
	if harness.NeutralMetric(metric) {
		return Neutral
	}
	info, ok := harness.LookupMetric(metric)
	switch {
	case !ok:
		return Neutral
	case info.HigherIsBetter:
		return HigherIsBetter
	}
	return LowerIsBetter
}

// RateMetrics lists the metrics a paired comparison covers (every rate
// metric, in report order).
func RateMetrics() []string { return slices.Clone(harness.RateMetricNames) }

// Symbol is what a table prints beside a delta: "~" for no significant
// change, "+" better, "-" worse, "*" a significant change of a neutral
// metric. gained is the direction of the change: under McNemar the paired
// one (c - b: cases that became hits minus cases that stopped being hits),
// under the bootstrap the sign of the delta.
func Symbol(dir Direction, significant bool, gained int) string {
	switch {
	case !significant || gained == 0:
		return "~"
	case dir == Neutral:
		return "*"
	case (gained > 0) == (dir == HigherIsBetter):
		return "+"
	}
	return "-"
}
