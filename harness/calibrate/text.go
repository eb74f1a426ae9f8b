package calibrate

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/internal/textwrap"
	"github.com/routebench/routebench/router/registry"
)

// maxTableRows bounds the trade-off table; the full grid is in the JSON.
const maxTableRows = 20

// Frontier picks the rows of a curve worth a table: the first point of
// each run of identical figures (raising execute inside a run changes
// nothing on these cases), thinned evenly to about maxTableRows, plus the
// rows whose execute is in keep.
func Frontier(curve []Point, keep ...float64) []int {
	var starts []int
	for i, p := range curve {
		if i == 0 || p.Counts != curve[i-1].Counts {
			starts = append(starts, i)
		}
	}
	var rows []int
	if len(starts) <= maxTableRows {
		rows = starts
	} else {
		for k := range maxTableRows {
			rows = append(rows, starts[k*(len(starts)-1)/(maxTableRows-1)])
		}
	}
	for _, e := range keep {
		for i, p := range curve {
			if math.Abs(p.Execute-e) < 1e-9 {
				rows = append(rows, i)
			}
		}
	}
	slices.Sort(rows)
	return slices.Compact(rows)
}

// WriteText renders the report with whole lines and intervals (--wide).
func (r *Report) WriteText(w io.Writer) error { return r.WriteTextWidth(w, 0) }

// WriteTextWidth renders the report for a terminal of width columns: the
// tables compact (values only, short headers) and every other line
// wrapped, so a terminal never wraps a row into the next. Width 0 is
// WriteText: no limit, intervals shown.
func (r *Report) WriteTextWidth(w io.Writer, width int) error {
	var text strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&text, format, args...) }
	view := *r // a shallow copy: only the view's compact flag differs
	view.compact = width > 0
	r = &view

	p("routebench calibrate: %s (judge %s, embedder %s)\n", r.Version, r.Judge, r.Embedder)
	switch r.Split.Method {
	case "suites":
		p("cases: fit %d (%s), eval %d (%s)\n", r.Split.Fit, strings.Join(r.Split.FitSuites, ", "), r.Split.Eval, strings.Join(r.Split.EvalSuites, ", "))
	default:
		p("cases: %d; fit %d, eval %d (holdout %.2f of cases, by case id hash)\n", r.Split.Fit+r.Split.Eval, r.Split.Fit, r.Split.Eval, r.Split.Holdout)
	}
	p("unbanded (same at any bands: a \"none\" answer, no candidates, a judge error): fit %d, eval %d\n", r.Unbanded[0], r.Unbanded[1])
	if r.ProviderErrors > 0 {
		p("provider errors: %d cases (counted as they are: errors, never refusals)\n", r.ProviderErrors)
	}
	p("target: wrong-execution rate <= %.3f, by its 95%% Wilson upper bound on the fit split\n\n", r.MaxWrongExec)

	r.writeTradeOff(p)
	r.writeRecommendation(p)
	r.writeHeldOut(p)
	r.writeCalibration(p)
	r.writeOperatingPoint(p)
	b := bufio.NewWriter(w)
	for _, line := range strings.SplitAfter(text.String(), "\n") {
		body := strings.TrimSuffix(line, "\n")
		if body == "" {
			b.WriteString(line)
			continue
		}
		lead := body[:len(body)-len(strings.TrimLeft(body, " "))]
		for _, l := range textwrap.Wrap(strings.TrimLeft(body, " "), width, lead, lead+"  ") {
			b.WriteString(l + "\n")
		}
	}
	return b.Flush()
}

type printer func(format string, args ...any)

func (r *Report) writeTradeOff(p printer) {
	p("Trade-off on the fit split (one band pair for every skill; at each execute, the clarify with the best accuracy)\n")
	if r.compact {
		// No dividers and short marks: the wide row is 103 columns before
		// its mark.
		p("%7s %7s %8s %8s %8s %7s %8s %8s %8s %8s %8s\n", "execute", "clarify",
			"wrong-ex", "coverage", "clarify", "refuse", "accuracy", "in-scope", "ref-rec", "eval wex", "eval acc")
	} else {
		p("%7s %7s | %10s %8s %8s %7s %8s %8s %8s | %10s %8s\n", "execute", "clarify",
			"wrong-exec", "coverage", "clarify", "refuse", "accuracy", "in-scope", "ref-rec", "eval w-ex", "eval acc")
	}
	readExec, _ := r.Recommended.Registry().For(registry.Read)
	curExec, _ := r.Current.Registry().For(registry.Read)
	for _, i := range Frontier(r.FitCurve, curExec, readExec) {
		f, e := r.FitCurve[i], r.EvalCurve[i]
		var marks []string
		if math.Abs(f.Execute-curExec) < 1e-9 {
			marks = append(marks, "current (read)")
		}
		if math.Abs(f.Execute-readExec) < 1e-9 {
			marks = append(marks, r.fittedLabel()+" (read)")
		}
		mark := ""
		if len(marks) > 0 {
			mark = "  <- " + strings.Join(marks, ", ")
		}
		if r.compact {
			mark = ""
			if math.Abs(f.Execute-curExec) < 1e-9 {
				mark += "c"
			}
			if math.Abs(f.Execute-readExec) < 1e-9 {
				mark += "f"
			}
			if mark != "" {
				mark = " " + mark
			}
			p("%7.2f %7.2f %8.3f %8.3f %8.3f %7.3f %8.3f %8s %8s %8.3f %8.3f%s\n", f.Execute, f.Clarify,
				f.WrongExecRate(), f.Coverage(), f.ClarificationRate(), f.RefusalRate(), f.Accuracy(),
				optRate(f.ActCorrect, f.ActExpected), optRate(f.RefuseRecalled, f.RefuseExpected),
				e.WrongExecRate(), e.Accuracy(), mark)
			continue
		}
		p("%7.2f %7.2f | %10.3f %8.3f %8.3f %7.3f %8.3f %8s %8s | %10.3f %8.3f%s\n", f.Execute, f.Clarify,
			f.WrongExecRate(), f.Coverage(), f.ClarificationRate(), f.RefusalRate(), f.Accuracy(),
			optRate(f.ActCorrect, f.ActExpected), optRate(f.RefuseRecalled, f.RefuseExpected),
			e.WrongExecRate(), e.Accuracy(), mark)
	}
	if r.compact {
		p("c = the current read bands, f = the fitted read bands (%s); eval = on the eval split\n", r.fittedLabel())
	}
	p("coverage = acts (execute or confirm) / N; in-scope = correct among cases expecting an action; ref-rec = refused among cases expecting a refusal\n\n")
}

func optRate(k, n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", frac(k, n))
}

// fittedLabel names the fitted read bands in the table and the plot.
func (r *Report) fittedLabel() string {
	if r.Certified {
		return "recommended"
	}
	return "not certified"
}

func (r *Report) writeRecommendation(p printer) {
	if r.Certified {
		p("Recommended bands, per side-effect class (fitted on the fit split)\n")
	} else {
		p("Fitted bands, per side-effect class: NOT CERTIFIED at the target on the fit split, so not a recommendation\n")
	}
	p("%-18s %5s %7s %7s  %-16s %9s  %s\n", "class", "n", "execute", "clarify", "wrong-exec (fit)", "95% upper", "certified")
	for _, c := range r.Classes {
		cert := "no"
		if c.Certified {
			cert = "yes"
		}
		we := "-"
		if c.N > 0 {
			we = fmt.Sprintf("%d/%d = %.3f", c.Fit.WrongExec, c.Fit.N, c.Fit.WrongExecRate())
		}
		p("%-18s %5d %7.2f %7.2f  %-16s %9.3f  %s\n", c.Class, c.N, c.Execute, c.Clarify, we, c.WrongExecUpper, cert)
	}
	for _, c := range r.Classes {
		p("  %s: %s\n", c.Class, c.Reason)
	}
	if !r.Certified {
		names := make([]string, len(r.Uncertified))
		for i, c := range r.Uncertified {
			names[i] = string(c)
		}
		what := "no class has fit cases"
		if len(names) > 0 {
			what = strings.Join(names, ", ") + " not certified"
		}
		p("\n  no version.yaml snippet: %s; keep the current bands, add labelled cases, or raise --max-wrong-exec\n\n", what)
		return
	}
	p("\n  in version.yaml:\n  router:\n    bands:\n      execute: %.2f\n      clarify: %.2f\n", r.Recommended.Execute, r.Recommended.Clarify)
	if len(r.Recommended.SideEffects) > 0 {
		p("      side_effects:\n")
		for _, se := range []registry.SideEffect{registry.Write, registry.Delete, registry.Send} {
			if b, ok := r.Recommended.SideEffects[se]; ok {
				p("        %s: {execute: %.2f, clarify: %.2f}\n", se, b.Execute, b.Clarify)
			}
		}
	}
	p("\n")
}

func (r *Report) writeHeldOut(p printer) {
	p("Held-out check: eval split (n=%d), bands fitted on the other %d cases\n", r.Split.Eval, r.Split.Fit)
	fitted := "recommended"
	if !r.Certified {
		fitted = "fitted (not certified)"
	}
	row := func(name string, get func(Evaluation) harness.Rate) {
		p("%-30s %-30s %-30s %-30s\n", name, fmtRate(get(r.Fit.Recommended)), fmtRate(get(r.Eval.Current)), fmtRate(get(r.Eval.Recommended)))
	}
	if r.compact {
		// Values only (--wide adds the intervals): four 30-column cells are
		// 123 columns.
		if !r.Certified {
			p("fitted bands: not certified\n")
		}
		p("%-26s %-18s %-18s %-18s\n", "metric", "fit, fitted", "eval, current", "eval, fitted")
		row = func(name string, get func(Evaluation) harness.Rate) {
			p("%-26s %-18s %-18s %-18s\n", name, shortRate(get(r.Fit.Recommended)), shortRate(get(r.Eval.Current)), shortRate(get(r.Eval.Recommended)))
		}
	} else {
		p("%-30s %-30s %-30s %-30s\n", "metric", "fit, "+fitted, "eval, current bands", "eval, "+fitted)
	}
	row("wrong_execution_rate", func(e Evaluation) harness.Rate { return e.WrongExec })
	for _, c := range Classes {
		row("  "+string(c)+" only", func(e Evaluation) harness.Rate { return e.ByClass[c] })
	}
	row("decision_accuracy", func(e Evaluation) harness.Rate { return e.Accuracy })
	row("clarification_rate", func(e Evaluation) harness.Rate { return e.Clarification })
	row("refusal_rate", func(e Evaluation) harness.Rate { return e.Refusal })
	row("coverage (acts)", func(e Evaluation) harness.Rate { return e.Coverage })
	row("in-scope accuracy", func(e Evaluation) harness.Rate { return e.InScopeAccuracy })
	row("refusal_recall", func(e Evaluation) harness.Rate { return e.RefusalRecall })
	ev := r.Eval.Recommended.WrongExec
	verdict := "holds"
	if ev.Value > r.MaxWrongExec {
		verdict = "does NOT hold"
	}
	p("target %.3f on the eval split: %s (point estimate %.3f", r.MaxWrongExec, verdict, ev.Value)
	if ev.Hi != nil {
		p(", 95%% interval [%.3f, %.3f]", *ev.Lo, *ev.Hi)
	}
	p(")\n\n")
}

func fmtRate(x harness.Rate) string {
	if x.N == 0 {
		return "-"
	}
	if x.Lo == nil || x.Hi == nil {
		return fmt.Sprintf("%.3f (n=%d)", x.Value, x.N)
	}
	return fmt.Sprintf("%.3f [%.3f, %.3f] n=%d", x.Value, *x.Lo, *x.Hi, x.N)
}

// shortRate is a rate without its interval, for the compact tables.
func shortRate(x harness.Rate) string {
	if x.N == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f n=%d", x.Value, x.N)
}

func (r *Report) writeCalibration(p printer) {
	c := r.Calibration
	p("Judge calibration (judge-decided cases expecting an action or a refusal; right = expected skill, or \"none\" for a refusal; %d bins)\n", CalibrationBins)
	p("Platt scaling fitted on the fit split (n=%d): p = sigmoid(a*logit(conf) + b), a = %.4f, b = %.4f\n", c.Platt.N, c.Platt.A, c.Platt.B)
	p("%-6s %6s %11s %10s %13s %12s\n", "split", "n", "ECE before", "ECE after", "Brier before", "Brier after")
	p("%-6s %6d %11.4f %10.4f %13.4f %12.4f\n", "fit", c.FitBefore.N, c.FitBefore.ECE, c.FitAfter.ECE, c.FitBefore.Brier, c.FitAfter.Brier)
	p("%-6s %6d %11.4f %10.4f %13.4f %12.4f\n", "eval", c.EvalBefore.N, c.EvalBefore.ECE, c.EvalAfter.ECE, c.EvalBefore.Brier, c.EvalAfter.Brier)
	p("(bands apply to the raw confidences above; with a > 0 the recalibration is monotone, so it would only rename the thresholds)\n\n")
}

func (r *Report) writeOperatingPoint(p printer) {
	op := r.Operating
	if op == nil {
		return
	}
	p("Operating point: best in-scope accuracy with refusal recall >= %.3f (one band pair for every skill, chosen on the fit split)\n", op.MinRefusalRecall)
	if !op.Found {
		p("  none: no band pair reaches that refusal recall on the fit split\n\n")
		return
	}
	p("  execute %.2f, clarify %.2f", op.Execute, op.Clarify)
	if op.Ties > 1 {
		p(" (the median of %d grid points with the same fit figures)", op.Ties)
	}
	p("\n")
	if r.compact {
		p("  %-5s %-18s %-18s %-20s\n", "split", "in-scope accuracy", "refusal recall", "wrong_execution_rate")
		p("  %-5s %-18s %-18s %-20s\n", "fit", shortRate(op.Fit.InScopeAccuracy), shortRate(op.Fit.RefusalRecall), shortRate(op.Fit.WrongExec))
		p("  %-5s %-18s %-18s %-20s\n\n", "eval", shortRate(op.Eval.InScopeAccuracy), shortRate(op.Eval.RefusalRecall), shortRate(op.Eval.WrongExec))
		return
	}
	p("  %-5s %-30s %-30s %-30s\n", "split", "in-scope accuracy", "refusal recall", "wrong_execution_rate")
	p("  %-5s %-30s %-30s %-30s\n", "fit", fmtRate(op.Fit.InScopeAccuracy), fmtRate(op.Fit.RefusalRecall), fmtRate(op.Fit.WrongExec))
	p("  %-5s %-30s %-30s %-30s\n\n", "eval", fmtRate(op.Eval.InScopeAccuracy), fmtRate(op.Eval.RefusalRecall), fmtRate(op.Eval.WrongExec))
}
