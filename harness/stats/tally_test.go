package stats

import "testing"

// tallyDrawn counts as Rates counts the pairs the draws stand for.
func TestTallyDrawnIsRatesOfTheDraws(t *testing.T) {
	for seed := range 200 {
		var drawn [kinds]int
		var pairs []Pair
		for kind := range kinds {
			drawn[kind] = (seed*7 + kind*kind*13) % (5 + kind)
			for range drawn[kind] {
				pairs = append(pairs, Pair{Base: Outcome(kind / 3), Head: Outcome(kind % 3)})
			}
		}
		bk, bn, hk, hn := tallyDrawn(&drawn)
		wbk, wbn, whk, whn := Rates(pairs)
		if bk != wbk || bn != wbn || hk != whk || hn != whn {
			t.Fatalf("draws %v: tallyDrawn %d/%d, %d/%d; Rates %d/%d, %d/%d", drawn, bk, bn, hk, hn, wbk, wbn, whk, whn)
		}
	}
}

// The kind constants resample draws by are kindOf's numbers.
func TestKindConstants(t *testing.T) {
	for _, c := range []struct {
		kind       int
		base, head Outcome
	}{{hh, Hit, Hit}, {mm, Miss, Miss}, {hm, Hit, Miss}, {mh, Miss, Hit}, {xh, Excluded, Hit}, {xm, Excluded, Miss}, {hx, Hit, Excluded}, {mx, Miss, Excluded}} {
		if want := kindOf(Pair{Base: c.base, Head: c.head}); c.kind != want {
			t.Errorf("kind of %v/%v is %d, want %d", c.base, c.head, c.kind, want)
		}
	}
}
