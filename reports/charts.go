package reports

import (
	"math"
	"strings"
)

// confidenceBins is the number of bins of the histogram and the
// reliability diagram, as in the ece metric (DESIGN §6).
const confidenceBins = 10

// versionColors are told apart by colour-blind readers (Paul Tol's
// bright scheme); versions beyond six reuse them.
var versionColors = []string{"#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377"}

func versionColor(i int) string { return versionColors[i%len(versionColors)] }

// Chart geometry in SVG user units; the plot area sits inside margins
// that hold the axis labels.
const (
	chartW, chartH   = 360, 220
	marginL, marginR = 48, 12
	marginT, marginB = 14, 40
	plotW            = chartW - marginL - marginR
	plotH            = chartH - marginT - marginB
	legendRowH       = 16
)

// chartView is a hand-drawn SVG chart: every coordinate is already a
// fixed-precision string, so the same data gives the same bytes.
type chartView struct {
	Title                              string
	W, H                               int
	X0, X1, Y0, Y1                     string // plot area corners
	PW, PH                             string // plot area size
	XTicks, YTicks                     []tick
	XLabel, YLabel                     string
	XLabelX, XLabelY, YLabelX, YLabelY string
	Bars                               []bar
	Series                             []series
	Diagonal                           bool
	Legend                             []legendItem
}

// tick is an axis label at (X, Y); L is where its grid line runs.
type tick struct{ X, Y, L, Label string }

type bar struct {
	X, Y, W, H string
	Fill       string
	Title      string
}

type series struct {
	Label  string
	Color  string
	Points string // polyline points
	Dots   []dot
}

type dot struct{ X, Y, R, Title string }

type legendItem struct {
	X, Y, TX, TY string
	Color        string
	Label        string
}

func px(v float64) string { return fixed(v, 1) }

// xAt and yAt map [0,1] data to plot coordinates.
func xAt(f float64) float64 { return marginL + f*plotW }
func yAt(f float64) float64 { return marginT + (1-f)*plotH }

func newChart(title, xLabel, yLabel string) chartView {
	c := chartView{Title: title, W: chartW, H: chartH, XLabel: xLabel, YLabel: yLabel,
		X0: px(marginL), X1: px(marginL + plotW), Y0: px(marginT), Y1: px(marginT + plotH),
		PW: px(plotW), PH: px(plotH),
		XLabelX: px(marginL + plotW/2), XLabelY: px(chartH - 6),
		YLabelX: px(12), YLabelY: px(marginT + plotH/2)}
	for i := 0; i <= 5; i++ {
		f := float64(i) / 5
		c.XTicks = append(c.XTicks, tick{X: px(xAt(f)), Y: px(marginT + plotH + 14), Label: fixed(f, 1)})
	}
	return c
}

// binOf puts a confidence into one of confidenceBins bins; 1.0 joins the
// top bin.
func binOf(conf float64) int {
	b := int(math.Floor(conf * confidenceBins))
	return max(0, min(confidenceBins-1, b))
}

// calibration is, per confidence bin, the decisions that enter
// calibration, how many of them were right and the sum of their
// confidences, the way the ece metric counts: decision_accuracy's
// indicator, over decisions that are not errors (an error has no
// meaningful confidence). Both charts read these; the digest adds each
// decision as it comes (digest.add), so a bin's sum adds the same
// confidences in the same order as summing the decisions kept would.
type calibration struct {
	n, right [confidenceBins]int
	sum      [confidenceBins]float64
}

func (c *calibration) add(conf float64, right bool) {
	b := binOf(conf)
	c.n[b]++
	c.sum[b] += conf
	if right {
		c.right[b]++
	}
}

// calibrations are the versions' calibration bins, in versions' order.
func calibrations(versions []string, d *digest) []*calibration {
	out := make([]*calibration, len(versions))
	for i, id := range versions {
		out[i] = &d.version(id).calibration
	}
	return out
}

// histograms draws one confidence histogram per version, right decisions
// stacked under wrong ones, on a shared y scale so heights compare across
// versions.
func histograms(versions []string, cals []*calibration) []chartView {
	type counts struct{ pass, fail [confidenceBins]int }
	all := make([]counts, len(versions))
	peak := 1
	for i := range versions {
		for b := range confidenceBins {
			all[i].pass[b], all[i].fail[b] = cals[i].right[b], cals[i].n[b]-cals[i].right[b]
			peak = max(peak, cals[i].n[b])
		}
	}
	top := niceCeil(peak)
	var charts []chartView
	for i, id := range versions {
		c := newChart(id, "decision confidence", "decisions")
		for t := 0; t <= 4; t++ {
			v := top * t / 4
			y := yAt(float64(v) / float64(top))
			c.YTicks = append(c.YTicks, tick{X: px(marginL - 6), Y: px(y + 4), L: px(y), Label: itoa(v)})
		}
		bw := float64(plotW) / confidenceBins
		for b := 0; b < confidenceBins; b++ {
			lo, hi := fixed(float64(b)/confidenceBins, 1), fixed(float64(b+1)/confidenceBins, 1)
			pass, fail := all[i].pass[b], all[i].fail[b]
			x := xAt(float64(b)/confidenceBins) + 1
			hPass := float64(pass) / float64(top) * plotH
			hFail := float64(fail) / float64(top) * plotH
			base := float64(marginT + plotH)
			label := "confidence " + lo + "–" + hi + ": "
			if pass > 0 {
				c.Bars = append(c.Bars, bar{X: px(x), Y: px(base - hPass), W: px(bw - 2), H: px(hPass),
					Fill: "#228833", Title: label + itoa(pass) + " right"})
			}
			if fail > 0 {
				c.Bars = append(c.Bars, bar{X: px(x), Y: px(base - hPass - hFail), W: px(bw - 2), H: px(hFail),
					Fill: "#cc3311", Title: label + itoa(fail) + " wrong"})
			}
		}
		c.Legend = legend([]string{"right decision", "wrong decision"}, []string{"#228833", "#cc3311"})
		charts = append(charts, c)
	}
	return charts
}

// reliability draws, for every version, the share of right decisions in
// each confidence bin against the bin's mean confidence (what ece sums
// up). Points on the diagonal are calibrated; below it the router is
// over-confident.
func reliability(versions []string, cals []*calibration) chartView {
	c := newChart("reliability: share of right decisions by confidence", "mean confidence in bin", "share of right decisions")
	c.Diagonal = true
	for t := 0; t <= 5; t++ {
		f := float64(t) / 5
		c.YTicks = append(c.YTicks, tick{X: px(marginL - 6), Y: px(yAt(f) + 4), L: px(yAt(f)), Label: fixed(f, 1)})
	}
	var labels, colors []string
	for i, id := range versions {
		sum, n, pass := cals[i].sum, cals[i].n, cals[i].right
		s := series{Label: id, Color: versionColor(i)}
		var pts []string
		for b := 0; b < confidenceBins; b++ {
			if n[b] == 0 {
				continue
			}
			mean := sum[b] / float64(n[b])
			acc := float64(pass[b]) / float64(n[b])
			x, y := px(xAt(mean)), px(yAt(acc))
			pts = append(pts, x+","+y)
			// Dot area grows with the bin's size, capped, so a bin of
			// three cases does not look as solid as one of three hundred.
			r := 2.5 + math.Min(4, math.Sqrt(float64(n[b]))/4)
			s.Dots = append(s.Dots, dot{X: x, Y: y, R: px(r), Title: id + ": confidence " +
				fixed(float64(b)/confidenceBins, 1) + "–" + fixed(float64(b+1)/confidenceBins, 1) +
				", n=" + itoa(n[b]) + ", mean confidence " + fixed(mean, 3) + ", right " + fixed(acc, 3)})
		}
		s.Points = strings.Join(pts, " ")
		c.Series = append(c.Series, s)
		labels = append(labels, id)
		colors = append(colors, versionColor(i))
	}
	c.Legend = legend(labels, colors)
	return c
}

// legend stacks items below the plot, growing the chart to fit.
func legend(labels, colors []string) []legendItem {
	var items []legendItem
	for i, l := range labels {
		y := float64(marginT + 6 + i*legendRowH)
		items = append(items, legendItem{X: px(marginL + 8), Y: px(y), TX: px(marginL + 22), TY: px(y + 9),
			Color: colors[i], Label: l})
	}
	return items
}

// niceCeil rounds a count up to 1, 2 or 5 times a power of ten, divisible
// by 4 where it can be, so axis ticks are whole numbers.
func niceCeil(n int) int {
	if n <= 4 {
		return 4
	}
	p := 1
	for p*10 < n {
		p *= 10
	}
	for _, m := range []int{1, 2, 4, 5, 8, 10} {
		if m*p >= n && (m*p)%4 == 0 {
			return m * p
		}
	}
	return 10 * p
}
