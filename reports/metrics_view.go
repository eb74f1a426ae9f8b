package reports

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/harness/compare"
	"github.com/routebench/routebench/harness/stats"
)

// metricTable is one group's metrics ("all", "suite:boundary", "tag:zh")
// across versions, with deltas of every later version against the first.
type metricTable struct {
	Key   string // group key as in summary.json
	Label string
	// Sizes is n per version, "240 · 120/72/48" with the suite mix.
	Sizes   []string
	Columns []metricColumn
	Rows    []metricRow
}

// metricColumn is a version value column or a delta column.
type metricColumn struct {
	Label string
	Delta bool
}

type metricRow struct {
	Metric string
	Label  string
	Hint   string // "higher is better"
	Sub    bool   // a breakdown of the row above
	Cells  []metricCell
}

// metricCell is a value or a delta. Class drives colour: "better",
// "worse", "same" (significance known, not significant), "plain"
// (unpaired), "bad" (a value that must be zero and is not), "none".
type metricCell struct {
	Delta bool
	Text  string
	CI    string
	Note  string // "n=240", "p=0.012"
	Sym   string // "~" when not significant
	Class string
	// Warn says why a paired figure should not be trusted.
	Warn string
}

// groupOrder sorts group keys: all, suites in the design's order, other
// suites, then tags, each by name.
func groupOrder(keys []string) []string {
	rank := func(k string) (int, string) {
		switch {
		case k == "all":
			return 0, ""
		case k == "suite:"+harness.SuiteNormal:
			return 1, ""
		case k == "suite:"+harness.SuiteBoundary:
			return 2, ""
		case k == "suite:"+harness.SuiteAdversarial:
			return 3, ""
		case strings.HasPrefix(k, "suite:"):
			return 4, k
		case strings.HasPrefix(k, "tag:"):
			return 5, k
		}
		return 6, k
	}
	sort.Slice(keys, func(i, j int) bool {
		ri, si := rank(keys[i])
		rj, sj := rank(keys[j])
		if ri != rj {
			return ri < rj
		}
		return si < sj
	})
	return keys
}

// metricTables builds one table per group present in the summary.
func (in *Input) metricTables(versions []string) []metricTable {
	keySet := map[string]bool{}
	for _, v := range in.Summary.Versions {
		for k := range v.Groups {
			keySet[k] = true
		}
	}
	var keys []string
	for k := range keySet {
		keys = append(keys, k)
	}
	var tables []metricTable
	for _, key := range groupOrder(keys) {
		tables = append(tables, in.metricTable(key, versions, false))
	}
	return tables
}

// metricTable builds one group's table; keyOnly limits rows to keyMetrics.
func (in *Input) metricTable(key string, versions []string, keyOnly bool) metricTable {
	t := metricTable{Key: key, Label: groupLabel(key)}
	groups := make([]*harness.Group, len(versions))
	var present []harness.Group
	for i, id := range versions {
		vs, ok := in.versionSummary(id)
		if !ok {
			continue
		}
		if g, ok := vs.Groups[key]; ok {
			groups[i] = &g
			present = append(present, g)
		}
	}
	for i, id := range versions {
		t.Columns = append(t.Columns, metricColumn{Label: id})
		if i > 0 {
			t.Columns = append(t.Columns, metricColumn{Label: "Δ vs " + shortName(versions[0]), Delta: true})
		}
		t.Sizes = append(t.Sizes, groupSize(groups[i]))
	}
	names := orderedMetrics(present)
	if keyOnly {
		names = filterKey(names)
	}
	hasParent := slices.Contains(names, harness.ParamErrorRate)
	for _, name := range names {
		info := lookupMetric(name)
		row := metricRow{Metric: name, Label: info.label, Hint: hint(info.dir), Sub: info.sub}
		if row.Sub && !hasParent {
			// Without param_error_rate the breakdown would hang under
			// whatever row comes before it: it stands on its own instead.
			row.Sub = false
			row.Label = "param error: " + strings.TrimPrefix(info.label, "… ")
		}
		for i := range versions {
			row.Cells = append(row.Cells, valueCell(name, groups[i]))
			if i > 0 {
				row.Cells = append(row.Cells, in.deltaCell(key, name, versions[0], versions[i], groups[0], groups[i]))
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func filterKey(names []string) []string {
	have := map[string]bool{}
	for _, n := range names {
		have[n] = true
	}
	var out []string
	for _, k := range keyMetrics {
		if have[k] {
			out = append(out, k)
		}
	}
	return out
}

func groupLabel(key string) string {
	switch {
	case key == "all":
		return "all cases"
	case strings.HasPrefix(key, "suite:"):
		return "suite " + strings.TrimPrefix(key, "suite:")
	case strings.HasPrefix(key, "tag:"):
		return "tag " + strings.TrimPrefix(key, "tag:")
	}
	return key
}

func groupSize(g *harness.Group) string {
	if g == nil {
		return "not run"
	}
	s := "n=" + itoa(g.N)
	var mix []string
	for _, suite := range []string{harness.SuiteNormal, harness.SuiteBoundary, harness.SuiteAdversarial} {
		if c, ok := g.Mix[suite]; ok {
			mix = append(mix, suite+" "+itoa(c))
		}
	}
	if len(mix) > 1 {
		s += " (" + strings.Join(mix, " / ") + ")"
	}
	return s
}

func hint(d direction) string {
	switch d {
	case higherBetter:
		return "higher is better"
	case lowerBetter:
		return "lower is better"
	}
	return "neither better nor worse by itself"
}

// shortName is a version ID without its fingerprint.
func shortName(id string) string {
	name, _, _ := strings.Cut(id, "@")
	return name
}

func valueCell(name string, g *harness.Group) metricCell {
	if g == nil {
		return metricCell{Text: "—", Class: "none"}
	}
	r, ok := g.Metrics[name]
	if !ok {
		return metricCell{Text: "—", Class: "none"}
	}
	c := metricCell{Text: FormatValue(name, r.Value), CI: FormatInterval(name, r), Note: "n=" + itoa(r.N)}
	if r.N == 0 && lookupMetric(name).unit == unitRate {
		// A rate over no cases is undefined, whatever value it carries.
		c.Text, c.CI, c.Class = "n/a", "", "none"
	}
	if harness.MustBeZero(name) && r.Value > 0 {
		c.Class = "bad"
	}
	return c
}

// deltaCell prints head - base: from the paired comparison (its interval,
// McNemar p and symbol) when one covers this group, else as a plain
// difference of the two summaries.
func (in *Input) deltaCell(group, name, base, head string, gb, gh *harness.Group) metricCell {
	cell := metricCell{Delta: true, Text: "—", Class: "none"}
	if m, ok := in.pairedMetric(group, name, base, head); ok {
		if m.BaseN == 0 || m.HeadN == 0 {
			cell.Note = "no cases"
			return cell
		}
		cell.Text = FormatDelta(name, m.Delta)
		if m.Interval.Replicates > 0 {
			cell.CI = formatDeltaInterval(name, m.Interval.Lo, m.Interval.Hi)
		}
		cell.Note = formatP(m.P)
		if m.Test == stats.TestBootstrap {
			// denominators differ: the interval, not McNemar, judged it
			cell.Note = "bootstrap"
		}
		var warns []string
		for _, w := range m.Warnings {
			warns = append(warns, w.Message)
		}
		cell.Warn = strings.Join(warns, "\n")
		switch m.Symbol {
		case "+":
			cell.Class = "better"
		case "-":
			cell.Class = "worse"
		case "*":
			cell.Class, cell.Sym = "changed", "*"
		default:
			cell.Class, cell.Sym = "same", "~"
		}
		return cell
	}
	if gb == nil || gh == nil {
		return cell
	}
	info := lookupMetric(name)
	rb, okb := gb.Metrics[name]
	rh, okh := gh.Metrics[name]
	if !okb || !okh || (info.unit == unitRate && (rb.N == 0 || rh.N == 0)) {
		return cell
	}
	d := rh.Value - rb.Value
	cell.Text = FormatDelta(name, d)
	if cell.Text == FormatDelta(name, 0) {
		d = 0 // a change too small to print is no change to colour
	}
	cell.Class = "plain " + directionClass(info.dir, d)
	cell.Note = "unpaired"
	return cell
}

// pairedMetric finds the comparison's figures for a group and metric;
// comparisons cover "all" and suite groups, not tags.
func (in *Input) pairedMetric(group, name, base, head string) (compare.Metric, bool) {
	c := in.comparison(base, head)
	if c == nil {
		return compare.Metric{}, false
	}
	g, ok := c.Group(group)
	if !ok {
		return compare.Metric{}, false
	}
	return g.Metric(name)
}

// directionClass says whether a change of d is an improvement.
func directionClass(dir direction, d float64) string {
	switch {
	case math.Abs(d) < 1e-12 || dir == neutral:
		return "flat"
	case (d > 0) == (dir == higherBetter):
		return "better"
	}
	return "worse"
}

func itoa(n int) string { return strconv.Itoa(n) }
