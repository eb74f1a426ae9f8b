package calibrate_test

import (
	"math/rand/v2"
	"testing"

	"github.com/routebench/routebench/harness/calibrate"
	"github.com/routebench/routebench/router/registry"
)

// BenchmarkAnalyze is the offline part of a CLINC150-sized calibration:
// 3,100 records, the full grid on the fit half, per-class sweeps, the
// eval figures and Platt.
func BenchmarkAnalyze(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 8))
	recs := make([]calibrate.Record, 3100)
	for i := range recs {
		conf := rng.Float64()
		recs[i] = synthetic(string(rune('a'+i%26))+string(rune(i)), conf, rng.Float64() < conf, registry.Read)
	}
	fit, eval := calibrate.Holdout(recs, 0.5)
	b.ResetTimer()
	for b.Loop() {
		calibrate.Analyze(fit, eval, calibrate.Options{MaxWrongExec: 0.02, MinRefusalRecall: 0.5})
	}
}
