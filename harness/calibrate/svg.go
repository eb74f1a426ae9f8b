package calibrate

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/routebench/routebench/router/registry"
)

// The plot is three panels side by side: rates against the execute
// threshold, wrong executions against coverage (fit and eval), and the
// judge's reliability diagram on the eval split before and after Platt.
const (
	panelW, panelH = 340, 330
	marginL        = 50
	marginT        = 40
	plotW, plotH   = panelW - marginL - 14, panelH - marginT - 84
)

// series is one line of a panel.
type series struct {
	name   string
	colour string
	dashed bool
	xs, ys []float64
}

// panel maps [0,1]x[0,ymax] to pixels inside panel number i.
type panel struct {
	i    int
	ymax float64
	b    *bufio.Writer
}

func (p panel) x(v float64) float64 { return float64(p.i*panelW+marginL) + v*plotW }
func (p panel) y(v float64) float64 { return float64(marginT+plotH) - v/p.ymax*plotH }

func (p panel) frame(title, xlabel, ylabel string) {
	x0, y0 := p.x(0), p.y(0)
	fmt.Fprintf(p.b, `<text x="%.1f" y="%d" class="t">%s</text>`+"\n", p.x(0), marginT-16, html.EscapeString(title))
	fmt.Fprintf(p.b, `<rect x="%.1f" y="%.1f" width="%d" height="%d" class="f"/>`+"\n", x0, p.y(p.ymax), plotW, plotH)
	for k := 0; k <= 4; k++ {
		v := float64(k) / 4
		fmt.Fprintf(p.b, `<text x="%.1f" y="%.1f" class="a" text-anchor="middle">%.2f</text>`+"\n", p.x(v), y0+14, v)
		yv := p.ymax * v
		fmt.Fprintf(p.b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" class="g"/>`+"\n", x0, p.y(yv), p.x(1), p.y(yv))
		fmt.Fprintf(p.b, `<text x="%.1f" y="%.1f" class="a" text-anchor="end">%s</text>`+"\n", x0-4, p.y(yv)+3, tick(yv, p.ymax))
	}
	fmt.Fprintf(p.b, `<text x="%.1f" y="%.1f" class="a" text-anchor="middle">%s</text>`+"\n", p.x(0.5), y0+28, html.EscapeString(xlabel))
	fmt.Fprintf(p.b, `<text x="%.1f" y="%.1f" class="a" text-anchor="middle" transform="rotate(-90 %.1f %.1f)">%s</text>`+"\n",
		x0-38, p.y(p.ymax/2), x0-38, p.y(p.ymax/2), html.EscapeString(ylabel))
}

// tick formats an axis value with enough decimals for the axis range.
func tick(v, ymax float64) string {
	if ymax < 0.2 {
		return fmt.Sprintf("%.3f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

func (p panel) line(s series) {
	if len(s.xs) == 0 {
		return
	}
	var pts strings.Builder
	for k := range s.xs {
		if k > 0 {
			pts.WriteByte(' ')
		}
		fmt.Fprintf(&pts, "%.1f,%.1f", p.x(s.xs[k]), p.y(min(s.ys[k], p.ymax)))
	}
	dash := ""
	if s.dashed {
		dash = ` stroke-dasharray="5 3"`
	}
	fmt.Fprintf(p.b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="1.6"%s/>`+"\n", pts.String(), s.colour, dash)
}

// vline marks a threshold; row staggers the labels of nearby marks.
func (p panel) vline(v float64, colour, label string, row int) {
	fmt.Fprintf(p.b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-dasharray="2 2"/>`+"\n", p.x(v), p.y(0), p.x(v), p.y(p.ymax), colour)
	fmt.Fprintf(p.b, `<text x="%.1f" y="%.1f" class="a" fill="%s" text-anchor="end">%s</text>`+"\n", p.x(v)-2, p.y(p.ymax)+10+11*float64(row), colour, html.EscapeString(label))
}

func (p panel) legend(ss []series) {
	for k, s := range ss {
		y := float64(marginT+plotH+48) + float64(12*(k/3))
		x := float64(p.i*panelW+marginL) + float64(k%3)*98
		dash := ""
		if s.dashed {
			dash = ` stroke-dasharray="5 3"`
		}
		fmt.Fprintf(p.b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="1.6"%s/>`, x, y, x+14, y, s.colour, dash)
		fmt.Fprintf(p.b, `<text x="%.1f" y="%.1f" class="a">%s</text>`+"\n", x+17, y+3, html.EscapeString(s.name))
	}
}

// WriteSVG renders the trade-off and calibration plots as one
// self-contained SVG file.
func (r *Report) WriteSVG(w io.Writer) error {
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif">`+"\n", 3*panelW, panelH, 3*panelW, panelH)
	b.WriteString(`<style>.t{font-size:12px;font-weight:bold}.a{font-size:9px}.f{fill:none;stroke:#888}.g{stroke:#eee}</style>` + "\n")
	fmt.Fprintf(b, `<rect width="%d" height="%d" fill="white"/>`+"\n", 3*panelW, panelH)

	// Panel 1: rates against the execute threshold.
	p1 := panel{i: 0, ymax: 1, b: b}
	p1.frame("Fit split: rates vs execute threshold", "execute threshold (clarify: best accuracy at each)", "rate")
	xs := make([]float64, len(r.FitCurve))
	col := func(curve []Point, f func(Point) float64) []float64 {
		ys := make([]float64, len(curve))
		for k, pt := range curve {
			xs[k], ys[k] = pt.Execute, f(pt)
		}
		return ys
	}
	rates := []series{
		{"wrong-exec", "#d62728", false, xs, col(r.FitCurve, Point.WrongExecRate)},
		{"coverage", "#1f77b4", false, xs, col(r.FitCurve, Point.Coverage)},
		{"accuracy", "#2ca02c", false, xs, col(r.FitCurve, Point.Accuracy)},
		{"clarification", "#ff7f0e", false, xs, col(r.FitCurve, Point.ClarificationRate)},
		{"refusal", "#9467bd", false, xs, col(r.FitCurve, Point.RefusalRate)},
		{"eval wrong-exec", "#d62728", true, xs, col(r.EvalCurve, Point.WrongExecRate)},
	}
	for _, s := range rates {
		p1.line(s)
	}
	cur, _ := r.Current.Registry().For(registry.Read)
	rec, _ := r.Recommended.Registry().For(registry.Read)
	p1.vline(cur, "#555", fmt.Sprintf("current %.2f", cur), 0)
	p1.vline(rec, "#000", fmt.Sprintf("%s %.2f", r.fittedLabel(), rec), 1)
	p1.legend(rates)

	// Panel 2: wrong executions against coverage, zoomed on the target.
	ymax := 0.05
	for _, pt := range append(slicesOf(r.FitCurve), r.EvalCurve...) {
		ymax = max(ymax, pt.WrongExecRate())
	}
	ymax = min(1, ymax*1.1)
	p2 := panel{i: 1, ymax: ymax, b: b}
	p2.frame("Wrong executions vs coverage", "coverage (acts / N)", "wrong-execution rate")
	cov := func(curve []Point) (x, y []float64) {
		for _, pt := range curve {
			x, y = append(x, pt.Coverage()), append(y, pt.WrongExecRate())
		}
		return x, y
	}
	fx, fy := cov(r.FitCurve)
	ex, ey := cov(r.EvalCurve)
	target := series{"target", "#555", true, []float64{0, 1}, []float64{r.MaxWrongExec, r.MaxWrongExec}}
	risk := []series{{"fit", "#d62728", false, fx, fy}, {"eval", "#1f77b4", false, ex, ey}, target}
	for _, s := range risk {
		p2.line(s)
	}
	p2.legend(risk)

	// Panel 3: reliability diagram on the eval split.
	p3 := panel{i: 2, ymax: 1, b: b}
	p3.frame(fmt.Sprintf("Eval reliability (Platt a=%.2f b=%.2f)", r.Calibration.Platt.A, r.Calibration.Platt.B), "confidence", "share right")
	rel := func(q Quality) (x, y []float64) {
		for _, bin := range q.Bins {
			if bin.N > 0 {
				x, y = append(x, bin.Confidence), append(y, bin.Accuracy)
			}
		}
		return x, y
	}
	bx, by := rel(r.Calibration.EvalBefore)
	ax, ay := rel(r.Calibration.EvalAfter)
	calib := []series{
		{fmt.Sprintf("raw ECE %.3f", r.Calibration.EvalBefore.ECE), "#d62728", false, bx, by},
		{fmt.Sprintf("Platt ECE %.3f", r.Calibration.EvalAfter.ECE), "#2ca02c", false, ax, ay},
		{"ideal", "#888", true, []float64{0, 1}, []float64{0, 1}},
	}
	for _, s := range calib {
		p3.line(s)
	}
	p3.legend(calib)

	b.WriteString("</svg>\n")
	return b.Flush()
}

func slicesOf(ps []Point) []Point { return append([]Point(nil), ps...) }
