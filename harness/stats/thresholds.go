package stats

import (
	"fmt"
	"math"
)

// Thresholds are the knobs of every paired comparison, in one place so a
// report can say which ones it used.
type Thresholds struct {
	// Alpha is the significance level of McNemar's exact test, in (0, 1).
	Alpha float64 `json:"alpha"`
	// Confidence is the level of the bootstrap interval of a delta, in (0, 1).
	Confidence float64 `json:"confidence"`
	// Resamples is the number of bootstrap resamples, at least 100.
	Resamples int `json:"resamples"`
	// Seed seeds the bootstrap's PCG generator, so the same inputs give the
	// same interval, byte for byte, on every machine.
	Seed uint64 `json:"seed"`
	// MinDiscordant is the number of discordant cases below which a delta is
	// flagged as meaningless. Zero means MinDetectable(Alpha): the smallest
	// count at which the exact test can reach Alpha at all.
	MinDiscordant int `json:"min_discordant,omitempty"`
}

// DefaultThresholds are what routebench uses unless told otherwise.
var DefaultThresholds = Thresholds{
	Alpha:      0.05,
	Confidence: Confidence,
	Resamples:  2000,
	Seed:       1,
}

// Validate reports the first field outside its range, naming it.
func (t Thresholds) Validate() error {
	switch {
	case !(t.Alpha > 0 && t.Alpha < 1):
		return fmt.Errorf("alpha %v: must be between 0 and 1 (e.g. 0.05)", t.Alpha)
	case !(t.Confidence > 0 && t.Confidence < 1):
		return fmt.Errorf("confidence %v: must be between 0 and 1 (e.g. 0.95)", t.Confidence)
	case t.Resamples < 100:
		return fmt.Errorf("resamples %d: need at least 100 for a percentile interval (2000 is the default)", t.Resamples)
	case t.MinDiscordant < 0:
		return fmt.Errorf("min discordant %d: must not be negative", t.MinDiscordant)
	}
	return nil
}

// Discordant returns the discordant-case count below which a delta is
// flagged: MinDiscordant, or MinDetectable(Alpha) when that is zero.
func (t Thresholds) Discordant() int {
	if t.MinDiscordant > 0 {
		return t.MinDiscordant
	}
	return MinDetectable(t.Alpha)
}

// MinDetectable returns the smallest number of discordant cases n for which
// McNemar's exact two-sided test can give p < alpha: the most lopsided split
// (all n one way) has p = 2 * 0.5^n. Below it no change is detectable,
// however large it looks. At alpha 0.05 it is 6 (p = 0.03125; 5 gives 0.0625).
func MinDetectable(alpha float64) int {
	if !(alpha > 0 && alpha < 1) {
		return 0
	}
	n := 1
	for 2*math.Pow(0.5, float64(n)) >= alpha {
		n++
	}
	return n
}
