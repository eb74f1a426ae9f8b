package reports

import (
	"math"
	"strings"

	"github.com/routebench/routebench/harness"
)

// trendCharts draws one chart per headline metric over the runs of the
// trend (harness.NewTrend over the history's last runs): a line per
// version, x the run's position in the history, y the value. Only what
// the trend holds is drawn, so the same history gives the same bytes.
func trendCharts(t *harness.Trend) []chartView {
	if t == nil || len(t.Versions) == 0 {
		return nil
	}
	var charts []chartView
	for _, metric := range harness.HeadlineMetrics {
		var lo, hi = math.Inf(1), math.Inf(-1)
		count := false
		for _, v := range t.Versions {
			for _, m := range v.Metrics {
				if m.Metric != metric {
					continue
				}
				count = m.Count
				for _, p := range m.Points {
					lo, hi = math.Min(lo, p.Value), math.Max(hi, p.Value)
				}
			}
		}
		if math.IsInf(lo, 1) {
			continue // no version measured it in these runs
		}
		charts = append(charts, trendChart(t, metric, count, lo, hi))
	}
	return charts
}

func trendChart(t *harness.Trend, metric string, count bool, lo, hi float64) chartView {
	c := newChart(metric, "run (position in the history file)", metric)
	yLo, yHi, yTicks := trendScale(count, lo, hi)
	yOf := func(v float64) float64 { return yAt((v - yLo) / (yHi - yLo)) }
	for _, v := range yTicks {
		y := yOf(v)
		label := fixed(v, 2)
		if count {
			label = itoa(int(v))
		}
		c.YTicks = append(c.YTicks, tick{X: px(marginL - 6), Y: px(y + 4), L: px(y), Label: label})
	}
	// Runs are spread evenly over the width; one run sits in the middle.
	span := t.Last - t.First
	xOf := func(run int) float64 {
		if span == 0 {
			return xAt(0.5)
		}
		return xAt(float64(run-t.First) / float64(span))
	}
	c.XTicks = nil
	step := max(1, (span+5)/6)
	lastTick := t.First
	for run := t.First; run <= t.Last; run += step {
		c.XTicks = append(c.XTicks, tick{X: px(xOf(run)), Y: px(marginT + plotH + 14), Label: "#" + itoa(run)})
		lastTick = run
	}
	// The newest run is the one a reader looks for: label it when the
	// labels do not already reach it and it does not crowd the one before.
	if t.Last-lastTick > step/2 {
		c.XTicks = append(c.XTicks, tick{X: px(xOf(t.Last)), Y: px(marginT + plotH + 14), Label: "#" + itoa(t.Last)})
	}
	var labels, colors []string
	for i, v := range t.Versions {
		for _, m := range v.Metrics {
			if m.Metric != metric {
				continue
			}
			s := series{Label: v.Name, Color: versionColor(i)}
			var pts []string
			for _, p := range m.Points {
				x, y := px(xOf(p.Run)), px(yOf(p.Value))
				pts = append(pts, x+","+y)
				s.Dots = append(s.Dots, dot{X: x, Y: y, R: "3.0", Title: trendPointTitle(metric, count, p)})
			}
			s.Points = strings.Join(pts, " ")
			c.Series = append(c.Series, s)
			labels = append(labels, v.Name)
			colors = append(colors, versionColor(i))
		}
	}
	c.Legend = legend(labels, colors)
	return c
}

// trendScale is the y range and its ticks: rates on a 0.05 grid around the
// values (a 1-point change must show, so not always 0 to 1), counts from
// 0 to a whole number.
func trendScale(count bool, lo, hi float64) (yLo, yHi float64, ticks []float64) {
	if count {
		top := float64(niceCeil(int(math.Ceil(hi))))
		for i := 0; i <= 4; i++ {
			ticks = append(ticks, top*float64(i)/4)
		}
		return 0, top, ticks
	}
	const grid = 0.05
	yLo = math.Max(0, math.Floor(lo/grid-1e-9)*grid)
	yHi = math.Min(1, math.Ceil(hi/grid+1e-9)*grid)
	if yHi-yLo < 4*grid {
		// Too flat to read: widen to four grid steps, inside [0, 1].
		mid := (yLo + yHi) / 2
		yLo = math.Max(0, math.Round((mid-2*grid)/grid)*grid)
		yHi = math.Min(1, yLo+4*grid)
		yLo = yHi - 4*grid
	}
	n := int(math.Round((yHi - yLo) / grid))
	every := max(1, (n+4)/5)
	for i := 0; i <= n; i += every {
		ticks = append(ticks, yLo+float64(i)*grid)
	}
	return yLo, yHi, ticks
}

func trendPointTitle(metric string, count bool, p harness.TrendPoint) string {
	var b strings.Builder
	b.WriteString(p.Version + " · run #" + itoa(p.Run) + " (" + p.Command + ", " + p.Time)
	if p.Commit != "" {
		b.WriteString(", commit " + shortCommit(p.Commit))
	}
	b.WriteString("): " + metric + " ")
	if count {
		b.WriteString(itoa(int(p.Value)))
	} else {
		b.WriteString(fixed(p.Value, 3))
		if p.Lo != nil && p.Hi != nil {
			b.WriteString(" [" + fixed(*p.Lo, 3) + ", " + fixed(*p.Hi, 3) + "]")
		}
	}
	b.WriteString(", n=" + itoa(p.N))
	return b.String()
}

func shortCommit(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}
