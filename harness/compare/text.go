package compare

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/routebench/routebench/harness/stats"
	"github.com/routebench/routebench/internal/textwrap"
)

// TextOptions choose what WriteText shows.
type TextOptions struct {
	// Groups limits the tables to these group names; empty shows all.
	Groups []string
	// AllMetrics shows metrics whose both denominators are empty too.
	AllMetrics bool
	// MaxFlips caps each flipped-case list; 0 shows all.
	MaxFlips int
	// OmitBroken leaves out the broken cases, for a caller that lists
	// them itself (the gate's failed verdict).
	OmitBroken bool
	// Width, when > 0, fits the text to that many columns for a terminal:
	// tables without the interval column, long lines wrapped, flipped
	// cases on two lines with the input cut. 0 shows everything (--wide).
	Width int
}

// WriteText renders c as plain aligned tables for a terminal: a header, one
// table per group with its warnings, then the fixed and broken cases. It
// formats only; every figure comes from c.
func WriteText(w io.Writer, c Comparison, opt TextOptions) error {
	p := &printer{w: w, width: opt.Width}
	p.f("base %s  head %s  paired %d cases\n", c.Base, c.Head, c.Paired)
	th := c.Thresholds
	p.wrapped(fmt.Sprintf("McNemar exact test at alpha %g; paired bootstrap %g%% interval, %d resamples, seed %d",
		th.Alpha, 100*th.Confidence, th.Resamples, th.Seed), "  ")
	p.wrapped("test: mcnemar where both versions count the same cases, else bootstrap (significant if 0 is outside)", "  ")
	p.wrapped("b/c: cases that went hit -> miss / miss -> hit; ~ no significant change, + better, - worse, * changed (no better direction)", "  ")
	if opt.Width > 0 {
		p.f("intervals: --wide\n")
	}
	for _, w := range c.Warnings {
		p.wrapped("warning: "+w.Message, "  ")
	}
	for _, g := range c.Groups {
		if len(opt.Groups) > 0 && !slices.Contains(opt.Groups, g.Name) {
			continue
		}
		p.f("\n%s (%d cases)\n", g.Name, g.N)
		writeTable(p, g, th.Confidence, opt)
	}
	if !opt.OmitBroken {
		writeFlips(p, "broken", "passed under base, fail under head", c.Broken, opt.MaxFlips)
	}
	writeFlips(p, "fixed", "failed under base, pass under head", c.Fixed, opt.MaxFlips)
	return p.err
}

func writeTable(p *printer, g Group, confidence float64, opt TextOptions) {
	var table bytes.Buffer
	tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
	compact := opt.Width > 0
	if compact {
		fmt.Fprintf(tw, "metric\tbase\thead\tdelta\tb/c\ttest\tp\t\n")
	} else {
		fmt.Fprintf(tw, "metric\tbase\thead\tdelta\t%g%% interval\tb/c\ttest\tp\t\n", 100*confidence)
	}
	var notes []string
	for _, m := range g.Metrics {
		if m.BaseN == 0 && m.HeadN == 0 && !opt.AllMetrics {
			continue
		}
		interval := "-"
		if m.Interval.Replicates > 0 {
			interval = fmt.Sprintf("[%+.3f, %+.3f]", m.Interval.Lo, m.Interval.Hi)
		}
		p := "-" // the bootstrap claims no p-value
		if m.Test == stats.TestMcNemar {
			p = pvalue(m.P)
		}
		if compact {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%+.3f\t%d/%d\t%s\t%s\t%s\n", m.Name,
				rate(m.Base, m.BaseN), rate(m.Head, m.HeadN), m.Delta, m.B, m.C, m.Test, p, m.Symbol)
		} else {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%+.3f\t%s\t%d/%d\t%s\t%s\t%s\n", m.Name,
				rate(m.Base, m.BaseN), rate(m.Head, m.HeadN), m.Delta, interval, m.B, m.C, m.Test, p, m.Symbol)
		}
		for _, w := range m.Warnings {
			notes = append(notes, fmt.Sprintf("  %s: %s", m.Name, w.Message))
		}
	}
	tw.Flush() // writes to memory: cannot fail
	trimLines(p, table.Bytes())
	for _, n := range notes {
		p.wrapped(n, "    ")
	}
}

func writeFlips(p *printer, title, meaning string, flips []Flip, limit int) {
	p.f("\n%s: %d (%s)\n", title, len(flips), meaning)
	shown := flips
	if limit > 0 && len(shown) > limit {
		shown = shown[:limit]
	}
	if p.width > 0 {
		// At terminal width one row per flip would run to 300 columns:
		// the case and expectation, then the change and the input, cut.
		for _, f := range shown {
			p.wrapped(fmt.Sprintf("  %s  %s  expect %s", f.Suite, f.Case, decided(f.Expect, f.ExpectSkill)), "    ")
			change := "    " + side(f.Base) + " -> " + side(f.Head)
			p.f("%s\n", textwrap.Truncate(change+"  "+strconv.Quote(f.Input), p.width))
		}
		if len(shown) < len(flips) {
			p.f("  ... and %d more\n", len(flips)-len(shown))
		}
		return
	}
	var table bytes.Buffer
	tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
	for _, f := range shown {
		fmt.Fprintf(tw, "  %s\t%s\texpect %s\t%s -> %s\t%q\n", f.Suite, f.Case,
			decided(f.Expect, f.ExpectSkill), side(f.Base), side(f.Head), f.Input)
	}
	tw.Flush()
	trimLines(p, table.Bytes())
	if len(shown) < len(flips) {
		p.f("  ... and %d more\n", len(flips)-len(shown))
	}
}

// side shows a decision and its failure: "confirm delete_test_data (missed_refusal)".
func side(s Side) string {
	out := decided(s.Action, s.Skill)
	if s.Failure != "" {
		out += " (" + s.Failure + ")"
	}
	return out
}

func decided[A ~string](action A, skill string) string {
	if skill == "" || action == "refuse" {
		return string(action)
	}
	return string(action) + " " + skill
}

func rate(v float64, n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f (%d)", v, n)
}

// pvalue keeps three decimals; tiny p-values are shown as a bound, since
// their digits mean nothing to a reader.
func pvalue(p float64) string {
	if p < 0.001 {
		return "<0.001"
	}
	return fmt.Sprintf("%.3f", p)
}

// trimLines writes text without the trailing blanks tabwriter leaves in
// columns that are empty on a row.
func trimLines(p *printer, text []byte) {
	for line := range bytes.Lines(text) {
		p.Write(append(bytes.TrimRight(line, " \n"), '\n'))
	}
}

// printer remembers the first write error so rendering code stays linear.
type printer struct {
	w     io.Writer
	err   error
	width int // > 0: wrap long lines to this many columns
}

// wrapped writes s as one line, or wrapped to the width with later lines
// starting with indent.
func (p *printer) wrapped(s, indent string) {
	lead := s[:len(s)-len(strings.TrimLeft(s, " "))]
	for _, line := range textwrap.Wrap(strings.TrimLeft(s, " "), p.width, lead, indent) {
		p.f("%s\n", line)
	}
}

func (p *printer) Write(b []byte) (int, error) {
	if p.err != nil {
		return 0, p.err
	}
	n, err := p.w.Write(b)
	p.err = err
	return n, err
}

func (p *printer) f(format string, args ...any) {
	fmt.Fprintf(p, format, args...)
}
