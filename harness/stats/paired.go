package stats

import "fmt"

// PairedDelta is the comparison of one rate between two versions over the
// same cases.
type PairedDelta struct {
	BaseK int     `json:"base_k"`
	BaseN int     `json:"base_n"`
	HeadK int     `json:"head_k"`
	HeadN int     `json:"head_n"`
	Base  float64 `json:"base"`
	Head  float64 `json:"head"`
	// Delta is Head - Base.
	Delta    float64  `json:"delta"`
	Interval Interval `json:"interval"`
	// B counts cases that were hits under base and misses under head; C the
	// reverse. Only cases counted under both versions enter.
	B int `json:"b"`
	C int `json:"c"`
	// Test is how Significant was judged: TestMcNemar when every case
	// counts in both versions or in neither (the same denominator set),
	// TestBootstrap otherwise (see SameDenominator).
	Test string `json:"test"`
	// P is McNemar's exact two-sided p-value on B and C when Test is
	// TestMcNemar; under TestBootstrap it is 1: no p-value is claimed.
	P float64 `json:"p"`
	// Significant: under TestMcNemar, P < Alpha with enough discordant
	// cases to mean it; under TestBootstrap, the interval excludes 0.
	Significant bool      `json:"significant"`
	Warnings    []Warning `json:"warnings,omitempty"`
}

// Tests a PairedDelta can be judged by.
const (
	TestMcNemar   = "mcnemar"
	TestBootstrap = "bootstrap"
)

// ComparePaired computes every figure of a paired rate comparison with
// McNemar's exact test and the paired bootstrap under th; which of the two
// judges significance depends on the denominators (see PairedDelta.Test).
func ComparePaired(pairs []Pair, th Thresholds) PairedDelta {
	return ComparePairedWith(pairs, th, McNemar{}, NewBootstrap(th))
}

// ComparePairedWith is ComparePaired with another test or interval method.
func ComparePairedWith(pairs []Pair, th Thresholds, test PairedTest, ci DeltaInterval) PairedDelta {
	var d PairedDelta
	d.BaseK, d.BaseN, d.HeadK, d.HeadN = Rates(pairs)
	d.Test = TestMcNemar
	if !SameDenominator(pairs) {
		d.Test = TestBootstrap
	}
	if d.BaseN == 0 || d.HeadN == 0 {
		d.P = 1
		d.Warnings = append(d.Warnings, Warning{Kind: WarnNoCases, Message: fmt.Sprintf(
			"no cases in the denominator (base n=%d, head n=%d): nothing to compare; add cases this metric counts",
			d.BaseN, d.HeadN)})
		d.Base, d.Head = ratio(d.BaseK, d.BaseN), ratio(d.HeadK, d.HeadN)
		return d
	}
	d.Base, d.Head = ratio(d.BaseK, d.BaseN), ratio(d.HeadK, d.HeadN)
	d.Delta = d.Head - d.Base
	d.B, d.C = Discordant(pairs)
	d.Interval = ci.Interval(pairs)
	if d.Test == TestBootstrap {
		// McNemar's b and c only see cases counted under both versions;
		// when the denominators differ (refusal_precision counts what each
		// version refused) the rates can move far while b and c stay 0.
		// The paired bootstrap recomputes both rates, so its interval is
		// the honest judge.
		d.P = 1
		d.Significant = d.Interval.Replicates > 0 && (d.Interval.Lo > 0 || d.Interval.Hi < 0)
		d.Warnings = append(d.Warnings, resampleWarnings(d.Interval, th)...)
		return d
	}
	d.P = test.PValue(pairs)

	need := th.Discordant()
	enough := d.B+d.C >= need
	d.Significant = enough && d.P < th.Alpha
	if d.B+d.C > 0 && !enough {
		d.Warnings = append(d.Warnings, Warning{Kind: WarnFewDiscordant, Message: fmt.Sprintf(
			"only %d discordant %s: need >= %d to detect a change at alpha %g; add cases",
			d.B+d.C, plural(d.B+d.C, "case", "cases"), need, th.Alpha)})
	}
	d.Warnings = append(d.Warnings, resampleWarnings(d.Interval, th)...)
	return d
}

// SameDenominator reports whether every case is counted under both
// versions or under neither: then the two rates share one denominator set
// and McNemar's test on the discordant cases answers whether they differ.
func SameDenominator(pairs []Pair) bool {
	for _, p := range pairs {
		if (p.Base == Excluded) != (p.Head == Excluded) {
			return false
		}
	}
	return true
}

func resampleWarnings(iv Interval, th Thresholds) []Warning {
	if r := iv.Replicates; r < th.Resamples {
		return []Warning{{Kind: WarnDegenerateResamples, Message: fmt.Sprintf(
			"%d of %d bootstrap resamples had an empty denominator and were dropped: the interval is rough; add cases this metric counts",
			th.Resamples-r, th.Resamples)}}
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
