package harness

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzWholePlan splits made-up plans into shards as run writes them and
// holds merge's reading of the whole plan to the plan split: every case
// back in its place, under the hash the shards share, from any shards but
// those with no cases. Then one shard's plan is changed so that it still
// checks out on its own (its part hash made again), and the whole must be
// refused. The input seeds a generator of the plan, the split and the
// change.
//
//	go test ./harness/ -run '^$' -fuzz '^FuzzWholePlan$' -fuzztime 60s
func FuzzWholePlan(f *testing.F) {
	for _, seed := range []uint64{0, 1, 2, 7, 42, 1 << 40} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		rng := rand.New(rand.NewPCG(seed, seed>>7^0x5eed))
		whole := madeUpPlan(rng)
		n := 1 + rng.IntN(9)
		dir := t.TempDir()
		var parts []*planFile
		for i := 1; i <= n; i++ {
			p := whole
			p.Cases, p.Shard = nil, Shard{Index: i, Count: n}
			path := filepath.Join(dir, fmt.Sprintf("plan-%d.json", i))
			if err := writeShardPlan(path, p, listCases(whole.Cases)); err != nil {
				t.Fatal(err)
			}
			pf, err := openPlanFile(path)
			if err != nil {
				t.Fatalf("shard %d/%d: %v", i, n, err)
			}
			if pf.cases == 0 && n > 1 && i > 1 && rng.IntN(2) == 0 {
				continue // a shard with no cases may be left out (merge is given one shard at least)
			}
			parts = append(parts, pf)
		}
		w, err := openWholePlan(parts)
		if err != nil {
			t.Fatalf("%d cases in %d shards: %v", len(whole.Cases), n, err)
		}
		var got []PlanCase
		if err := w.each(func(pc *PlanCase) error { got = append(got, *pc); return nil }); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(whole.Cases) || (len(got) > 0 && !reflect.DeepEqual(got, whole.Cases)) {
			t.Fatalf("%d shards give back\n%v\nfor\n%v", n, got, whole.Cases)
		}
		if w.plan.Hash != whole.hash() || w.cases != len(whole.Cases) {
			t.Fatalf("whole plan hash %s, %d cases; want %s, %d", w.plan.Hash, w.cases, whole.hash(), len(whole.Cases))
		}

		// Change one shard's plan so that it still checks out on its own.
		var victim *planFile
		for _, pf := range parts {
			if pf.cases > 0 && pf.plan.Shard.Count > 1 {
				victim = pf
				break
			}
		}
		if victim == nil {
			return // unsharded, or no shard has a case to change
		}
		p, err := ReadPlanFile(victim.path)
		if err != nil {
			t.Fatal(err)
		}
		k := rng.IntN(len(p.Cases))
		switch change := rng.IntN(4); change {
		case 0: // another place in the whole plan
			p.Cases[k].Seq += 1 + rng.IntN(len(whole.Cases)+2)
		case 1: // dropped
			p.Cases = append(p.Cases[:k], p.Cases[k+1:]...)
		case 2: // other content
			p.Cases[k].Hash += "x"
		case 3: // counted in another shard's size
			p.ShardCases[rng.IntN(n)]++
		}
		p.PartHash, err = planHashOf(p, listCases(p.Cases), false)
		if err != nil {
			t.Fatal(err)
		}
		if err := WritePlanFile(victim.path, p); err != nil {
			t.Fatal(err)
		}
		for i, pf := range parts {
			if pf.path == victim.path {
				if parts[i], err = openPlanFile(pf.path); err != nil {
					t.Fatalf("the changed plan no longer checks out on its own: %v", err)
				}
			}
		}
		if w, err := openWholePlan(parts); err == nil {
			err = w.each(func(*PlanCase) error { return nil })
			if err == nil {
				t.Fatalf("a changed shard plan (%s) is taken: %+v", victim.path, p)
			}
		}
	})
}

// madeUpPlan is a plan of up to 40 cases with ids that repeat no other,
// some run under only some of its versions.
func madeUpPlan(rng *rand.Rand) Plan {
	p := Plan{Format: PlanFormat}
	for v := range 1 + rng.IntN(3) {
		p.Versions = append(p.Versions, PlanVersion{ID: fmt.Sprintf("v%d@%08x", v, rng.Uint32()), Fingerprint: fmt.Sprintf("%064x", rng.Uint64())})
	}
	p.Cases = []PlanCase{}
	for i := range rng.IntN(41) {
		c := PlanCase{ID: fmt.Sprintf("made-up-%d-%x", i, rng.Uint32()), Hash: fmt.Sprintf("%064x", rng.Uint64())}
		if len(p.Versions) > 1 && rng.IntN(4) == 0 {
			c.Versions = []int{rng.IntN(len(p.Versions))}
		}
		p.Cases = append(p.Cases, c)
	}
	return p
}
