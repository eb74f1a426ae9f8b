package stats

import (
	"math"
	"math/rand/v2"
	"slices"
)

// bootstrapStream is PCG's second seed word. It is fixed so that Seed alone
// decides the resamples; changing it would change every published interval.
const bootstrapStream = 0x726f757465626e63 // "routebnc"

// DeltaInterval gives a confidence interval for head rate minus base rate
// over paired cases.
type DeltaInterval interface {
	Interval(pairs []Pair) Interval
}

// Interval is a confidence interval of a delta.
type Interval struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
	// Replicates is how many resamples gave a defined delta: a resample
	// that leaves either version with an empty denominator is dropped.
	// Zero means no interval could be computed (Lo and Hi are 0).
	Replicates int `json:"replicates"`
}

// Bootstrap is the paired percentile bootstrap: resample cases with
// replacement, recompute both rates on each resample, and take the
// percentiles of the deltas. Resampling whole cases keeps the pairing, so
// the interval is as narrow as the correlation between versions allows.
type Bootstrap struct {
	Resamples  int
	Confidence float64
	Seed       uint64
}

// NewBootstrap takes its settings from th.
func NewBootstrap(th Thresholds) Bootstrap {
	return Bootstrap{Resamples: th.Resamples, Confidence: th.Confidence, Seed: th.Seed}
}

// Interval implements DeltaInterval. Pairs excluded under both versions are
// dropped first: they cannot move either rate, and resampling only the
// cases a metric counts keeps small denominators (clarify_recall over a
// handful of clarify cases) from producing mostly empty resamples.
//
// A pair takes one of eight values (three outcomes a side, less
// excluded-under-both), and a resample's rates depend only on how many of
// each it drew. Drawing n cases with replacement is therefore the same as
// drawing those eight counts from the multinomial over the pairs' own
// counts, which costs at most eight binomial draws whatever n is (see
// resample).
// The result is a pure function of the multiset of pairs and the settings:
// the order of pairs does not matter.
func (bs Bootstrap) Interval(pairs []Pair) Interval {
	counts, n := tallyKinds(pairs)
	return bs.intervalOf(&counts, n, nil)
}

// tallyKinds counts the pairs of each kind but excluded under both, and
// how many that is.
func tallyKinds(pairs []Pair) (counts [kinds]int, n int) {
	for _, p := range pairs {
		if p.Base != Excluded || p.Head != Excluded {
			counts[kindOf(p)]++
			n++
		}
	}
	return counts, n
}

// MemoBootstrap is Bootstrap keeping each interval it works out under the
// tally it depends on, for one caller asking about many metrics and
// groups of the same cases, where tallies repeat (a third of them on a
// generated 10,000-case run): a repeated tally costs a map lookup, not
// Resamples draws. It holds a few words per distinct tally; it is not
// safe for concurrent use.
type MemoBootstrap struct {
	bs   Bootstrap
	seen map[[kinds]int]Interval
	// deltas is the resamples' deltas of the interval being worked
	// out, the same memory for each.
	deltas []float64
}

// NewMemoBootstrap is NewBootstrap with memory.
func NewMemoBootstrap(th Thresholds) *MemoBootstrap {
	return &MemoBootstrap{bs: NewBootstrap(th), seen: map[[kinds]int]Interval{}}
}

// Interval implements DeltaInterval: Bootstrap's interval of the pairs.
func (m *MemoBootstrap) Interval(pairs []Pair) Interval {
	counts, n := tallyKinds(pairs)
	if iv, ok := m.seen[counts]; ok {
		return iv
	}
	iv := m.bs.intervalOf(&counts, n, &m.deltas)
	m.seen[counts] = iv
	return iv
}

// intervalOf is Interval of pairs tallied as counts, n in all; buf, when
// not nil, is memory for the deltas that the caller keeps between calls.
func (bs Bootstrap) intervalOf(counts *[kinds]int, n int, buf *[]float64) Interval {
	if n == 0 || bs.Resamples <= 0 {
		return Interval{}
	}
	if counts[hh]+counts[mm] == n {
		// Every pair is a hit under both versions or a miss under both:
		// each resample's two rates are one number, its delta 0.
		return Interval{Replicates: bs.Resamples}
	}
	rng := rand.NewPCG(bs.Seed, bootstrapStream)
	var deltas []float64
	if buf != nil {
		deltas = slices.Grow((*buf)[:0], bs.Resamples)
		defer func() { *buf = deltas[:0] }()
	} else {
		deltas = make([]float64, 0, bs.Resamples)
	}
	var drawn [kinds]int
	for range bs.Resamples {
		resample(rng, counts, n, &drawn)
		bk, bn, hk, hn := tallyDrawn(&drawn)
		if bn == 0 || hn == 0 {
			continue
		}
		deltas = append(deltas, ratio(hk, hn)-ratio(bk, bn))
	}
	if len(deltas) == 0 {
		return Interval{}
	}
	tail := (1 - bs.Confidence) / 2
	lo, hi := percentiles(deltas, tail, 1-tail)
	return Interval{Lo: lo, Hi: hi, Replicates: len(deltas)}
}

// kinds is how many values a Pair takes: three outcomes a side.
const kinds = 9

func kindOf(p Pair) int { return int(p.Base)*3 + int(p.Head) }

// tallyDrawn is each side's numerator and denominator over the pairs
// drawn of each kind (kindOf), Rates of the pairs drawn written out: a
// hit counts in both, a miss in the denominator alone, excluded in neither.
func tallyDrawn(d *[kinds]int) (bk, bn, hk, hn int) {
	const (
		x, m, h = int(Excluded), int(Miss), int(Hit)
	)
	bk = d[h*3+x] + d[h*3+m] + d[h*3+h]
	bn = bk + d[m*3+x] + d[m*3+m] + d[m*3+h]
	hk = d[x*3+h] + d[m*3+h] + d[h*3+h]
	hn = hk + d[x*3+m] + d[m*3+m] + d[h*3+m]
	return bk, bn, hk, hn
}

// resample draws into drawn how many of each kind n draws with replacement
// from the pairs would give, counts being the pairs' own tally of each
// kind (summing to n): a multinomial, drawn as a chain of conditional
// binomials whose shares are ratios of whole counts, so exact.
//
// The chain first splits the n draws among the mirror groups, each kind
// a resample can draw with its mirror image (hit and miss swapped under
// both versions; excluded under both is never drawn), then each group's
// draws between its two kinds. A metric and its complement (hit
// and miss swapped under both versions, as decision_accuracy and a rate
// of wrong decisions can be) have the same group counts, and within a
// group share p against 1-p, which binomialShare draws as exact complements:
// so the complement gets the mirrored interval, as it did when cases were
// drawn one by one (except where a group's two kinds tie, p = 1/2).
func resample(rng *rand.PCG, counts *[kinds]int, n int, drawn *[kinds]int) {
	left, pool := n, n
	// The groups in a fixed order (the draws' order decides every
	// interval), their kinds as constants rather than read from a table.
	drawn[hh], drawn[mm] = drawMirrors(rng, counts[hh], counts[mm], &left, &pool)
	drawn[hm], drawn[mh] = drawMirrors(rng, counts[hm], counts[mh], &left, &pool)
	drawn[xh], drawn[xm] = drawMirrors(rng, counts[xh], counts[xm], &left, &pool)
	drawn[hx], drawn[mx] = drawMirrors(rng, counts[hx], counts[mx], &left, &pool)
}

// Kinds by base and head outcome: h hit, m miss, x excluded.
const (
	hh = int(Hit)*3 + int(Hit)
	mm = int(Miss)*3 + int(Miss)
	hm = int(Hit)*3 + int(Miss)
	mh = int(Miss)*3 + int(Hit)
	xh = int(Excluded)*3 + int(Hit)
	xm = int(Excluded)*3 + int(Miss)
	hx = int(Hit)*3 + int(Excluded)
	mx = int(Miss)*3 + int(Excluded)
)

// drawMirrors is one step of resample's chain for a mirror group whose
// kinds the pairs hold first and second of: of the draws left, those
// that fall in the group (its share of the pairs pool still to split),
// split between its two kinds.
func drawMirrors(rng *rand.PCG, first, second int, left, pool *int) (int, int) {
	total := first + second
	var m int
	switch {
	case total == 0 || *left == 0:
	case total == *pool:
		m = *left
	default:
		m = binomialShare(rng, *left, total, *pool)
	}
	*left -= m
	*pool -= total
	var a int
	switch {
	case m == 0 || first == 0:
	case second == 0:
		a = m
	default:
		a = binomialShare(rng, m, first, total)
	}
	return a, m - a
}

// binomialShare draws from Binomial(n, k/total). A share above one half is
// drawn as n minus a draw of the rest, with the rest's share computed from
// whole counts, so that shares k and total-k give exact complements.
func binomialShare(rng *rand.PCG, n, k, total int) int {
	if 2*k > total {
		return n - binomial(rng, n, float64(total-k)/float64(total))
	}
	return binomial(rng, n, float64(k)/float64(total))
}

// percentiles is the q1 and q2 percentiles of xs, interpolated linearly
// between the order statistics around q*(len-1) (Hyndman and Fan's type 7,
// numpy's default; the sorted reference is in export_test.go), found by
// selecting the few order statistics they read rather than sorting the
// resamples' deltas (a sort was a tenth of an interval's cost): the same
// order statistics, so the same values. xs is reordered.
func percentiles(xs []float64, q1, q2 float64) (float64, float64) {
	// at is the order statistics percentile reads for q: the i-th, and
	// the next when there is one.
	at := func(q float64) (i int, frac float64, next bool) {
		h := q * float64(len(xs)-1)
		lo := math.Floor(h)
		i = int(lo)
		if i+1 >= len(xs) {
			return len(xs) - 1, 0, false
		}
		return i, h - lo, true
	}
	value := func(i int, frac float64, next bool) float64 {
		if !next {
			return xs[i]
		}
		// Everything after the i-th is at least it: the next is their least.
		following := slices.Min(xs[i+1:])
		return xs[i] + frac*(following-xs[i])
	}
	i1, f1, n1 := at(q1)
	i2, f2, n2 := at(q2)
	selectNth(xs, i1)
	v1 := value(i1, f1, n1)
	switch {
	case i2 > i1:
		selectNth(xs[i1+1:], i2-i1-1)
	case i2 < i1:
		selectNth(xs[:i1], i2)
	}
	return v1, value(i2, f2, n2)
}

// selectNth reorders xs so that xs[k] is what sorting would put there,
// with nothing greater before it and nothing less after it (Hoare's
// selection, median-of-three pivots). A range that keeps failing to
// shrink is sorted instead, so the cost stays bounded on any input.
func selectNth(xs []float64, k int) {
	lo, hi := 0, len(xs)-1
	for rounds := 0; lo < hi; rounds++ {
		if rounds == 64 {
			slices.Sort(xs[lo : hi+1])
			return
		}
		a, p, c := xs[lo], xs[lo+(hi-lo)/2], xs[hi]
		if a > p {
			a, p = p, a
		}
		if p > c {
			p = c
		}
		if a > p {
			p = a
		}
		i, j := lo, hi
		for i <= j {
			for xs[i] < p {
				i++
			}
			for xs[j] > p {
				j--
			}
			if i <= j {
				xs[i], xs[j] = xs[j], xs[i]
				i++
				j--
			}
		}
		// Now xs[lo..j] <= p <= xs[i..hi], and what lies between is p.
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return
		}
	}
}
