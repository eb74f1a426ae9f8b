package harness

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkOpenPlan100k reads and checks a made-up plan.json of 100,000
// cases as merge opens each shard's plan (openPlanFile): one pass that
// decodes, counts and hashes the cases.
//
//	go test ./harness -run '^$' -bench OpenPlan100k -benchmem -count 5
func BenchmarkOpenPlan100k(b *testing.B) {
	p := Plan{Format: PlanFormat, Versions: []PlanVersion{{ID: "v1@0000aaaa", Fingerprint: strings.Repeat("a", 64)}}}
	for i := range 100000 {
		p.Cases = append(p.Cases, PlanCase{ID: fmt.Sprintf("made-up-case-%06d", i), Hash: fmt.Sprintf("%064x", i)})
	}
	p.Hash = p.hash()
	path := filepath.Join(b.TempDir(), PlanFile)
	if err := WritePlanFile(path, p); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		pf, err := openPlanFile(path)
		if err != nil || pf.cases != len(p.Cases) {
			b.Fatalf("%d cases, %v", pf.cases, err)
		}
	}
}
