package calibrate

import (
	"fmt"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/router/registry"
)

// Bands are band thresholds as version.yaml writes them.
type Bands struct {
	Execute     float64                          `json:"execute"`
	Clarify     float64                          `json:"clarify"`
	SideEffects map[registry.SideEffect]BandPair `json:"side_effects,omitempty"`
}

// BandPair is one side effect's thresholds.
type BandPair struct {
	Execute float64 `json:"execute"`
	Clarify float64 `json:"clarify,omitempty"`
}

// Registry converts to the router's form.
func (b Bands) Registry() registry.Bands {
	out := registry.Bands{Execute: b.Execute, Clarify: b.Clarify}
	if len(b.SideEffects) > 0 {
		out.SideEffects = map[registry.SideEffect]registry.Band{}
		for se, p := range b.SideEffects {
			out.SideEffects[se] = registry.Band{Execute: p.Execute, Clarify: p.Clarify}
		}
	}
	return out
}

// BandsOf converts the router's form.
func BandsOf(b registry.Bands) Bands {
	out := Bands{Execute: b.Execute, Clarify: b.Clarify}
	if len(b.SideEffects) > 0 {
		out.SideEffects = map[registry.SideEffect]BandPair{}
		for se, p := range b.SideEffects {
			out.SideEffects[se] = BandPair{Execute: p.Execute, Clarify: p.Clarify}
		}
	}
	return out
}

// ClassBands is the recommendation for one side-effect class.
type ClassBands struct {
	Class Class `json:"class"`
	// N is the fit cases whose chosen skill is of this class: the cases
	// these bands decide, and the denominator of the class's rates.
	N       int     `json:"n"`
	Execute float64 `json:"execute"`
	Clarify float64 `json:"clarify"`
	// Certified is set when the Wilson upper bound of the wrong-execution
	// rate at Execute meets the target on the fit cases.
	Certified      bool    `json:"certified"`
	WrongExecUpper float64 `json:"wrong_exec_upper"`
	// Fit is the class's counts at the recommendation.
	Fit    Counts `json:"fit"`
	Reason string `json:"reason"`
	// Curve is, per execute threshold, the best clarify and its counts over
	// the class's fit cases.
	Curve []Point `json:"curve"`
}

// Recommend picks each class's bands on the fit records: the lowest
// execute threshold whose wrong-execution rate, over the fit cases of the
// class, has a 95% Wilson upper bound at or below target, and the clarify
// threshold with the best decision accuracy at that execute (bestClarify).
//
// The rate is taken over the class's own cases (those whose chosen skill
// has its side effect), so each class meeting the target bounds the
// router's overall rate too: other cases never act under these bands.
// When no threshold meets the target (too few cases: with n cases and no
// wrong execution the bound is still about 3.84/(n+3.84)), the pick is the
// lowest threshold with the smallest bound, and Certified is false.
// A class with no fit cases keeps the version's current bands.
func Recommend(fit []Record, target float64, current registry.Bands) []ClassBands {
	out := make([]ClassBands, 0, len(Classes))
	for _, class := range Classes {
		var recs []Record
		for _, r := range fit {
			if r.Banded && ClassOf(r.SideEffect) == class {
				recs = append(recs, r)
			}
		}
		cb := ClassBands{Class: class, N: len(recs)}
		if len(recs) == 0 {
			cb.Execute, cb.Clarify = current.For(class.SideEffects()[0])
			cb.WrongExecUpper = 1
			cb.Reason = fmt.Sprintf("no fit case chose a %s skill: the version's bands are kept", class)
			out = append(out, cb)
			continue
		}
		// A zero side-effect threshold would mean "inherit the default".
		lo := 0
		if class == ClassSideEffect {
			lo = 1
		}
		cb.Curve = Curve(sweepFrom(recs, lo))
		pick, best := -1, 2.0
		for i, p := range cb.Curve {
			u := p.WrongExecUpper()
			if u <= target {
				pick, cb.Certified = i, true
				break
			}
			if u < best {
				pick, best = i, u
			}
		}
		p := cb.Curve[pick]
		cb.Execute, cb.Clarify, cb.Fit = p.Execute, p.Clarify, p.Counts
		cb.WrongExecUpper = p.WrongExecUpper()
		if cb.Certified {
			cb.Reason = fmt.Sprintf("lowest execute whose wrong executions (%d of %d) have a 95%% upper bound %.3f <= %.3f",
				p.WrongExec, p.N, cb.WrongExecUpper, target)
		} else {
			cb.Reason = fmt.Sprintf("target not certified: with %d fit cases the smallest 95%% upper bound is %.3f (%d wrong executions) > %.3f; about %d cases with no wrong execution are needed",
				p.N, cb.WrongExecUpper, p.WrongExec, target, casesNeeded(target))
		}
		out = append(out, cb)
	}
	return out
}

// casesNeeded is the smallest n whose Wilson upper bound at 0 of n is at
// most target.
func casesNeeded(target float64) int {
	if target <= 0 {
		return 0
	}
	n := 1
	for (Counts{N: n}).WrongExecUpper() > target && n < 1<<24 {
		n *= 2
	}
	lo := n / 2
	for lo+1 < n {
		mid := (lo + n) / 2
		if (Counts{N: mid}).WrongExecUpper() > target {
			lo = mid
		} else {
			n = mid
		}
	}
	return n
}

// Assemble turns class recommendations into version bands: the read
// class's as the defaults, the side-effect class's for write, delete and
// send. A class with no fit cases keeps what the current bands say for it
// (for side effects: their own entries, if any, so they do not silently
// fall back to the read defaults).
func Assemble(classes []ClassBands, current registry.Bands) Bands {
	var b Bands
	for _, cb := range classes {
		if cb.Class == ClassRead {
			b.Execute, b.Clarify = cb.Execute, cb.Clarify
			continue
		}
		for _, se := range cb.Class.SideEffects() {
			pair := BandPair{Execute: cb.Execute, Clarify: cb.Clarify}
			if cb.N == 0 {
				cur, ok := current.SideEffects[se]
				if !ok {
					continue
				}
				pair = BandPair{Execute: cur.Execute, Clarify: cur.Clarify}
			}
			if b.SideEffects == nil {
				b.SideEffects = map[registry.SideEffect]BandPair{}
			}
			b.SideEffects[se] = pair
		}
	}
	return b
}

// Evaluation is a split's figures under one set of bands.
type Evaluation struct {
	Counts
	WrongExec       harness.Rate `json:"wrong_execution_rate"`
	Accuracy        harness.Rate `json:"decision_accuracy"`
	Clarification   harness.Rate `json:"clarification_rate"`
	Refusal         harness.Rate `json:"refusal_rate"`
	Coverage        harness.Rate `json:"coverage"`
	InScopeAccuracy harness.Rate `json:"in_scope_accuracy"`
	RefusalRecall   harness.Rate `json:"refusal_recall"`
	// ByClass is each class's wrong-execution rate over its own cases.
	ByClass map[Class]harness.Rate `json:"by_class"`
}

// Evaluate applies bands to records, per side effect as the router does.
func Evaluate(records []Record, b registry.Bands) Evaluation {
	var all Counts
	class := map[Class]*Counts{}
	for i := range records {
		r := &records[i]
		o := r.At(b)
		all.add(r, &o)
		if r.Banded {
			c := ClassOf(r.SideEffect)
			if class[c] == nil {
				class[c] = &Counts{}
			}
			class[c].add(r, &o)
		}
	}
	ev := evaluation(all)
	ev.ByClass = map[Class]harness.Rate{}
	for _, c := range Classes {
		if cc := class[c]; cc != nil {
			ev.ByClass[c] = rate(cc.WrongExec, cc.N)
		}
	}
	return ev
}

func evaluation(c Counts) Evaluation {
	return Evaluation{
		Counts:          c,
		WrongExec:       rate(c.WrongExec, c.N),
		Accuracy:        rate(c.Correct, c.N),
		Clarification:   rate(c.Clarifications, c.N),
		Refusal:         rate(c.Refusals, c.N),
		Coverage:        rate(c.Acts, c.N),
		InScopeAccuracy: rate(c.ActCorrect, c.ActExpected),
		RefusalRecall:   rate(c.RefuseRecalled, c.RefuseExpected),
	}
}

// OperatingPoint is the one-band operating point with the best in-scope
// accuracy whose refusal recall reaches a floor (CLINC150's "in-scope
// accuracy at out-of-scope recall >= X"), chosen on the fit split.
type OperatingPoint struct {
	MinRefusalRecall float64 `json:"min_refusal_recall"`
	Found            bool    `json:"found"`
	Execute          float64 `json:"execute"`
	Clarify          float64 `json:"clarify"`
	// Ties is how many grid points gave the same figures; the pick is
	// their median in grid order, away from the edges of the plateau.
	Ties int        `json:"ties"`
	Fit  Evaluation `json:"fit"`
	Eval Evaluation `json:"eval"`
}

// ChooseOperatingPoint searches a fit sweep (one band for every skill) for
// the best in-scope accuracy with refusal recall >= floor; on a tie, the
// higher refusal recall, then the fewer clarifications.
func ChooseOperatingPoint(sweep []Point, floor float64) (Point, int, bool) {
	better := func(a, b Point) int {
		switch {
		case a.ActCorrect != b.ActCorrect:
			return a.ActCorrect - b.ActCorrect
		case a.RefuseRecalled != b.RefuseRecalled:
			return a.RefuseRecalled - b.RefuseRecalled
		default:
			return b.Clarifications - a.Clarifications
		}
	}
	var ties []Point
	for _, p := range sweep {
		if p.RefuseExpected == 0 || p.RefusalRecall() < floor {
			continue
		}
		switch {
		case len(ties) == 0 || better(p, ties[0]) > 0:
			ties = []Point{p}
		case better(p, ties[0]) == 0:
			ties = append(ties, p)
		}
	}
	if len(ties) == 0 {
		return Point{}, 0, false
	}
	return ties[(len(ties)-1)/2], len(ties), true
}
