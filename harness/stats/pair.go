package stats

// Outcome is one case's standing in one rate metric under one version.
type Outcome uint8

const (
	// Excluded: the case is outside the metric's denominator for this
	// version (judge_accuracy only counts cases whose skill was recalled,
	// which can differ between versions).
	Excluded Outcome = iota
	// Miss: in the denominator, not in the numerator.
	Miss
	// Hit: in the numerator.
	Hit
)

// OutcomeOf maps a harness indicator (present in the map or not, and its
// value) to an Outcome.
func OutcomeOf(counted, success bool) Outcome {
	switch {
	case !counted:
		return Excluded
	case success:
		return Hit
	default:
		return Miss
	}
}

// Pair is one case under the base and the head version.
type Pair struct {
	Base, Head Outcome
}

// Rates counts each side's numerator and denominator over pairs; each side
// uses its own denominator, so the values match that version's summary.
func Rates(pairs []Pair) (baseK, baseN, headK, headN int) {
	for _, p := range pairs {
		baseK, baseN = tally(p.Base, baseK, baseN)
		headK, headN = tally(p.Head, headK, headN)
	}
	return baseK, baseN, headK, headN
}

func tally(o Outcome, k, n int) (int, int) {
	switch o {
	case Hit:
		return k + 1, n + 1
	case Miss:
		return k, n + 1
	}
	return k, n
}

// Discordant counts the cases counted under both versions whose outcome
// differs: b went from hit to miss (base hit, head miss), c from miss to
// hit. McNemar's test looks at these only.
func Discordant(pairs []Pair) (b, c int) {
	for _, p := range pairs {
		switch {
		case p.Base == Hit && p.Head == Miss:
			b++
		case p.Base == Miss && p.Head == Hit:
			c++
		}
	}
	return b, c
}

// ratio is k/n, or 0 for an empty denominator.
func ratio(k, n int) float64 {
	if n == 0 {
		return 0
	}
	return float64(k) / float64(n)
}
