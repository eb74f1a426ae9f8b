package calibrate

import (
	"crypto/sha256"
	"encoding/binary"

	"github.com/routebench/routebench/router/registry"
)

// InEval reports whether a case belongs to the held-out (eval) part of a
// holdout split: a deterministic function of its id alone, so a case stays
// on its side when others are added, removed or reordered.
func InEval(caseID string, fraction float64) bool {
	sum := sha256.Sum256([]byte("routebench/calibrate holdout\x00" + caseID))
	u := float64(binary.BigEndian.Uint64(sum[:8])>>11) / (1 << 53)
	return u < fraction
}

// Holdout splits records into fit and eval by InEval, keeping order.
func Holdout(records []Record, fraction float64) (fit, eval []Record) {
	for _, r := range records {
		if InEval(r.Case, fraction) {
			eval = append(eval, r)
		} else {
			fit = append(fit, r)
		}
	}
	return fit, eval
}

// Split says how the cases were divided.
type Split struct {
	// Method is "holdout" (by case id hash) or "suites" (given files).
	Method string `json:"method"`
	// Holdout is the eval fraction of a holdout split.
	Holdout    float64  `json:"holdout,omitempty"`
	FitSuites  []string `json:"fit_suites,omitempty"`
	EvalSuites []string `json:"eval_suites,omitempty"`
	Fit        int      `json:"fit"`
	Eval       int      `json:"eval"`
}

// Options are the analysis settings.
type Options struct {
	// Version is the version's id ("v2@3f9a1c2e"); Judge and Embedder the
	// models that routed.
	Version, Judge, Embedder string
	// MaxWrongExec is the target wrong-execution rate.
	MaxWrongExec float64
	// MinRefusalRecall, when > 0, also chooses an OperatingPoint.
	MinRefusalRecall float64
	// Current is the version's own bands.
	Current registry.Bands
	Split   Split
}

// Figures are a split's evaluations under the version's bands and the
// recommended ones.
type Figures struct {
	Current     Evaluation `json:"current"`
	Recommended Evaluation `json:"recommended"`
}

// Report is everything calibrate computed; render it with WriteText,
// WriteSVG or as JSON.
type Report struct {
	// compact is set on WriteTextWidth's copy: tables print values only.
	compact bool

	Version      string  `json:"version"`
	Judge        string  `json:"judge"`
	Embedder     string  `json:"embedder"`
	MaxWrongExec float64 `json:"max_wrong_exec"`
	Split        Split   `json:"split"`
	// Current are the version's bands; Recommended the fitted ones.
	Current     Bands        `json:"current"`
	Recommended Bands        `json:"recommended"`
	Classes     []ClassBands `json:"classes"`
	// Certified is set when every class with fit cases is certified: only
	// then are the fitted bands a recommendation worth pasting. Uncertified
	// names the classes that are not.
	Certified   bool    `json:"certified"`
	Uncertified []Class `json:"uncertified,omitempty"`
	// Sweep is the whole grid on the fit split, one band pair for every
	// skill. FitCurve is its best clarify per execute; EvalCurve the same
	// band pairs applied to the eval split.
	Sweep     []Point `json:"sweep"`
	FitCurve  []Point `json:"fit_curve"`
	EvalCurve []Point `json:"eval_curve"`
	// Fit and Eval are each split's figures; Eval is the honest check.
	Fit  Figures `json:"fit"`
	Eval Figures `json:"eval"`
	// Unbanded counts the cases whose decision does not depend on bands
	// (a "none" answer, no candidates, a judge error), per split.
	Unbanded       [2]int          `json:"unbanded"`
	ProviderErrors int             `json:"provider_errors"`
	Calibration    Calibration     `json:"calibration"`
	Operating      *OperatingPoint `json:"operating_point,omitempty"`
	Records        []Record        `json:"records"`
}

// Analyze computes the report from the fit and eval records.
func Analyze(fit, eval []Record, o Options) *Report {
	rep := &Report{
		Version:      o.Version,
		Judge:        o.Judge,
		Embedder:     o.Embedder,
		MaxWrongExec: o.MaxWrongExec,
		Split:        o.Split,
		Current:      BandsOf(o.Current),
	}
	rep.Split.Fit, rep.Split.Eval = len(fit), len(eval)
	rep.Classes = Recommend(fit, o.MaxWrongExec, o.Current)
	rep.Recommended = Assemble(rep.Classes, o.Current)
	fitted := 0
	for _, cb := range rep.Classes {
		switch {
		case cb.N == 0: // keeps the version's bands: nothing to certify
		case cb.Certified:
			fitted++
		default:
			fitted++
			rep.Uncertified = append(rep.Uncertified, cb.Class)
		}
	}
	rep.Certified = fitted > 0 && len(rep.Uncertified) == 0
	rec := rep.Recommended.Registry()

	rep.Sweep = Sweep(fit)
	rep.FitCurve = Curve(rep.Sweep)
	for _, p := range rep.FitCurve {
		q := Point{Execute: p.Execute, Clarify: p.Clarify}
		for i := range eval {
			r := &eval[i]
			q.add(r, r.outcomeAt(q.Execute, q.Clarify))
		}
		rep.EvalCurve = append(rep.EvalCurve, q)
	}
	rep.Fit = Figures{Current: Evaluate(fit, o.Current), Recommended: Evaluate(fit, rec)}
	rep.Eval = Figures{Current: Evaluate(eval, o.Current), Recommended: Evaluate(eval, rec)}
	for s, recs := range [2][]Record{fit, eval} {
		for _, r := range recs {
			if !r.Banded {
				rep.Unbanded[s]++
			}
			if r.ProviderError {
				rep.ProviderErrors++
			}
		}
	}
	rep.Calibration = Calibrate(fit, eval)
	if o.MinRefusalRecall > 0 {
		op := &OperatingPoint{MinRefusalRecall: o.MinRefusalRecall}
		if p, ties, ok := ChooseOperatingPoint(rep.Sweep, o.MinRefusalRecall); ok {
			op.Found, op.Execute, op.Clarify, op.Ties = true, p.Execute, p.Clarify, ties
			b := registry.Bands{Execute: p.Execute, Clarify: p.Clarify}
			op.Fit, op.Eval = Evaluate(fit, b), Evaluate(eval, b)
		}
		rep.Operating = op
	}
	rep.Records = append(append([]Record{}, fit...), eval...)
	return rep
}
