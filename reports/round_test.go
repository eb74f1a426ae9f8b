package reports

import (
	"encoding/json"
	"math"
	"testing"
)

// A value too large to round must stay finite: JSON holds no +Inf, and
// before, 1e308*1000 overflowed and the whole report failed.
func TestRound3KeepsEveryValueJSONCanHold(t *testing.T) {
	for _, v := range []float64{1e308, -1e308, math.MaxFloat64, 1 << 53, 0.12345, -2.0005} {
		got := round3(v)
		if _, err := json.Marshal(got); err != nil {
			t.Errorf("round3(%v) = %v, which JSON cannot hold: %v", v, got, err)
		}
	}
	if got := round3(0.12345); got != 0.123 {
		t.Errorf("round3(0.12345) = %v, want 0.123", got)
	}
	if got := round3(1e308); got != 1e308 {
		t.Errorf("round3(1e308) = %v, want it unchanged", got)
	}
}
