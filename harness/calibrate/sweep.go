package calibrate

import (
	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/harness/stats"
	"github.com/routebench/routebench/router"
)

// GridSteps is the number of steps of the band grid 0.00, 0.01, ..., 1.00.
const GridSteps = 100

// gridValue is the i-th grid threshold. i/100 is the double nearest the
// decimal, the same value a version.yaml "0.85" parses to, so a case at
// exactly the threshold falls on the same side as in the router.
func gridValue(i int) float64 { return float64(i) / GridSteps }

// Counts are the numerators and denominators of the sweep's rates.
type Counts struct {
	N              int `json:"n"`
	Acts           int `json:"acts"` // execute or confirm
	WrongExec      int `json:"wrong_exec"`
	Clarifications int `json:"clarifications"`
	Refusals       int `json:"refusals"`
	Correct        int `json:"correct"` // decision_accuracy
	// ActExpected counts cases expecting execute or confirm; ActCorrect
	// those decided correctly (CLINC's in-scope accuracy).
	ActExpected int `json:"act_expected"`
	ActCorrect  int `json:"act_correct"`
	// RefuseExpected counts cases expecting a refusal; RefuseRecalled those
	// refused (refusal recall, CLINC's out-of-scope recall).
	RefuseExpected int `json:"refuse_expected"`
	RefuseRecalled int `json:"refuse_recalled"`
}

func (c *Counts) add(r *Record, o *Outcome) {
	c.N++
	if o.Action.Acts() {
		c.Acts++
	}
	if o.WrongExec {
		c.WrongExec++
	}
	switch o.Action {
	case router.Clarify:
		c.Clarifications++
	case router.Refuse:
		c.Refusals++
	}
	if o.Correct {
		c.Correct++
	}
	if r.Expect.Acts() {
		c.ActExpected++
		if o.Correct {
			c.ActCorrect++
		}
	}
	if r.Expect == router.Refuse {
		c.RefuseExpected++
		if o.Action == router.Refuse {
			c.RefuseRecalled++
		}
	}
}

func frac(k, n int) float64 {
	if n == 0 {
		return 0
	}
	return float64(k) / float64(n)
}

// Rates over N (in-scope accuracy and refusal recall over their own n).
func (c Counts) WrongExecRate() float64     { return frac(c.WrongExec, c.N) }
func (c Counts) Coverage() float64          { return frac(c.Acts, c.N) }
func (c Counts) ClarificationRate() float64 { return frac(c.Clarifications, c.N) }
func (c Counts) RefusalRate() float64       { return frac(c.Refusals, c.N) }
func (c Counts) Accuracy() float64          { return frac(c.Correct, c.N) }
func (c Counts) InScopeAccuracy() float64   { return frac(c.ActCorrect, c.ActExpected) }
func (c Counts) RefusalRecall() float64     { return frac(c.RefuseRecalled, c.RefuseExpected) }

// WrongExecUpper is the 95% Wilson upper bound of the wrong-execution rate.
func (c Counts) WrongExecUpper() float64 {
	_, hi := stats.Wilson(c.WrongExec, c.N, stats.Confidence)
	return hi
}

// rate is k of n with its 95% Wilson interval, as the harness reports rates.
func rate(k, n int) harness.Rate {
	r := harness.Rate{Value: frac(k, n), N: n, K: k}
	if n > 0 {
		lo, hi := stats.Wilson(k, n, stats.Confidence)
		r.Lo, r.Hi = &lo, &hi
	}
	return r
}

// Point is one band pair of the sweep and the counts it gives.
type Point struct {
	Execute float64 `json:"execute"`
	Clarify float64 `json:"clarify"`
	Counts
}

// Sweep applies every band pair of the grid (clarify <= execute) to the
// records, the same pair for every side effect, and counts the outcomes.
// Points are ordered by execute, then clarify.
func Sweep(records []Record) []Point {
	return sweepFrom(records, 0)
}

// sweepFrom sweeps the grid from step lo up (side-effect bands start at
// 0.01, since a zero side-effect threshold means "inherit the default").
func sweepFrom(records []Record, lo int) []Point {
	var fixed Counts
	var banded []*Record
	for i := range records {
		r := &records[i]
		if r.Banded {
			banded = append(banded, r)
		} else {
			fixed.add(r, &r.Outcomes[regionAct])
		}
	}
	points := make([]Point, 0, (GridSteps+2)*(GridSteps+1)/2)
	for e := lo; e <= GridSteps; e++ {
		for c := lo; c <= e; c++ {
			p := Point{Execute: gridValue(e), Clarify: gridValue(c), Counts: fixed}
			for _, r := range banded {
				p.add(r, r.outcomeAt(p.Execute, p.Clarify))
			}
			points = append(points, p)
		}
	}
	return points
}

// Curve is, for each execute threshold of a sweep, the point whose clarify
// threshold gives the best decision accuracy (see bestClarify).
func Curve(points []Point) []Point {
	var out []Point
	for start := 0; start < len(points); {
		end := start
		for end < len(points) && points[end].Execute == points[start].Execute {
			end++
		}
		out = append(out, bestClarify(points[start:end]))
		start = end
	}
	return out
}

// bestClarify picks, among points of one execute threshold ordered by
// clarify, the one with the highest decision accuracy; on a tie the one
// with the fewest clarifications (asking costs the user a turn), then the
// highest clarify threshold (for the same reason: an empty clarify zone
// when clarifying never paid off on the fit cases).
func bestClarify(points []Point) Point {
	best := points[0]
	for _, p := range points[1:] {
		switch {
		case p.Correct != best.Correct:
			if p.Correct > best.Correct {
				best = p
			}
		case p.Clarifications != best.Clarifications:
			if p.Clarifications < best.Clarifications {
				best = p
			}
		default:
			best = p // ordered by clarify: a later point is higher
		}
	}
	return best
}
