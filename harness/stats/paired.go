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
	// P is McNemar's exact two-sided p-value on B and C.
	P float64 `json:"p"`
	// Significant is P < Alpha with enough discordant cases to mean it.
	Significant bool      `json:"significant"`
	Warnings    []Warning `json:"warnings,omitempty"`
}

// ComparePaired computes every figure of a paired rate comparison with
// McNemar's exact test and the paired bootstrap under th.
func ComparePaired(pairs []Pair, th Thresholds) PairedDelta {
	return ComparePairedWith(pairs, th, McNemar{}, NewBootstrap(th))
}

// ComparePairedWith is ComparePaired with another test or interval method.
func ComparePairedWith(pairs []Pair, th Thresholds, test PairedTest, ci DeltaInterval) PairedDelta {
	var d PairedDelta
	d.BaseK, d.BaseN, d.HeadK, d.HeadN = Rates(pairs)
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
	d.P = test.PValue(pairs)
	d.Interval = ci.Interval(pairs)

	need := th.Discordant()
	enough := d.B+d.C >= need
	d.Significant = enough && d.P < th.Alpha
	if d.B+d.C > 0 && !enough {
		d.Warnings = append(d.Warnings, Warning{Kind: WarnFewDiscordant, Message: fmt.Sprintf(
			"only %d discordant %s: need >= %d to detect a change at alpha %g; add cases",
			d.B+d.C, plural(d.B+d.C, "case", "cases"), need, th.Alpha)})
	}
	if r := d.Interval.Replicates; r < th.Resamples {
		d.Warnings = append(d.Warnings, Warning{Kind: WarnDegenerateResamples, Message: fmt.Sprintf(
			"%d of %d bootstrap resamples had an empty denominator and were dropped: the interval is rough; add cases this metric counts",
			th.Resamples-r, th.Resamples)})
	}
	return d
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
