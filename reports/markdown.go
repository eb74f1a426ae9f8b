package reports

import (
	"fmt"
	"io"
	"strings"
)

// Limits that keep summary.md inside a pull-request comment (65,536
// characters) even for big runs.
const (
	mdFlipRows   = 10
	mdInputRunes = 80
)

// WriteMarkdown writes summary.md for a CI step summary or a pull-request
// comment: the versions, key metrics with intervals, deltas against the
// first version with significance, failure categories and the top
// flipped cases. Text from cases is escaped for Markdown and HTML.
func WriteMarkdown(w io.Writer, in Input) error {
	var b strings.Builder
	d, err := digestOf(&in)
	if err != nil {
		return fmt.Errorf("read results for summary.md: %w", err)
	}
	versions := in.versionOrder()
	title := in.Meta.Title
	if title == "" {
		title = "routebench"
	}
	b.WriteString("## " + mdEscape(title) + "\n\n")

	b.WriteString("| version | fingerprint | passed |\n|---|---|---|\n")
	for i, id := range versions {
		h := in.versionHead(i, id, d.version(id))
		name := "`" + mdCode(id) + "`"
		if h.Role != "" {
			name += " (" + h.Role + ")"
		}
		b.WriteString("| " + name + " | `" + mdCode(h.Fingerprint) + "` | " +
			itoa(h.Passed) + " / " + itoa(h.Cases) + " |\n")
	}
	var facts []string
	if len(in.Meta.Models) > 0 {
		facts = append(facts, "models: "+mdEscape(strings.Join(in.Meta.Models, ", ")))
	}
	if in.Meta.Commit != "" {
		facts = append(facts, "commit `"+mdCode(in.Meta.Commit)+"`")
	}
	if len(facts) > 0 {
		b.WriteString("\n" + strings.Join(facts, " · ") + "\n")
	}

	if len(in.Summary.Versions) > 0 {
		for _, vd := range verdicts(versions, in.metricTable("all", versions, false), &in) {
			writeVerdict(&b, vd)
		}
		t := in.metricTable("all", versions, true)
		b.WriteString("\n### Key metrics (all cases)\n\n")
		b.WriteString("| metric |")
		for _, c := range t.Columns {
			b.WriteString(" " + mdEscape(c.Label) + " |")
		}
		b.WriteString("\n|---|" + strings.Repeat("---:|", len(t.Columns)) + "\n")
		paired := len(in.Comparisons) > 0
		for _, row := range t.Rows {
			b.WriteString("| " + mdEscape(row.Label) + " |")
			for _, c := range row.Cells {
				b.WriteString(" " + mdCell(c, paired) + " |")
			}
			b.WriteString("\n")
		}
		b.WriteString("\nRates: value [95% interval] n. Δ: minus the base version; " +
			"✅ better, ❌ worse")
		if len(in.Comparisons) > 0 {
			b.WriteString(" (significant in the paired test); `~` within noise; " +
				"metrics without a test (calibration, latency, cost) show plain differences")
		} else {
			b.WriteString(" (plain differences, not tested for significance)")
		}
		b.WriteString(".\n")
	}

	ft := in.failures(versions, d)
	if len(ft.Rows) > 0 {
		b.WriteString("\n### Failure categories\n\n| category |")
		for _, v := range ft.Versions {
			b.WriteString(" " + mdEscape(v) + " |")
		}
		b.WriteString("\n|---|" + strings.Repeat("---:|", len(ft.Versions)) + "\n")
		for _, row := range ft.Rows {
			b.WriteString("| " + mdEscape(row.Category) + " |")
			for _, c := range row.Cells {
				b.WriteString(" " + itoa(c.Count) + " |")
			}
			b.WriteString("\n")
		}
	}

	for _, fs := range in.flipSets(versions, d, mdFlipRows) {
		fmt.Fprintf(&b, "\n### %s → %s: %d broken, %d fixed\n", mdEscape(fs.Base), mdEscape(fs.Head),
			fs.BrokenN, fs.FixedN)
		for _, warn := range fs.Warnings {
			b.WriteString("\n> ⚠️ " + mdEscape(warn) + "\n")
		}
		writeFlips(&b, "Broken", fs.Broken, fs.BrokenN, true)
		writeFlips(&b, "Fixed", fs.Fixed, fs.FixedN, false)
	}
	// Names only: the diffs are in report.html, and a pull request shows
	// its own.
	if lines := changedFiles(in.Changes); len(lines) > 0 {
		b.WriteString("\n### Prompt files changed\n\n")
		for _, l := range lines {
			b.WriteString("- " + mdEscape(l) + "\n")
		}
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write summary.md: %w", err)
	}
	return nil
}

// writeVerdict is the one paragraph a reviewer reads first.
func writeVerdict(b *strings.Builder, vd verdict) {
	qual := ""
	if vd.Paired {
		qual = " (significant)"
	}
	list := func(items []string) string {
		if len(items) == 0 {
			return "none"
		}
		return mdEscape(strings.Join(items, "; "))
	}
	fmt.Fprintf(b, "\n**%s vs %s**: better%s: %s. Worse%s: %s.", mdEscape(vd.Head), mdEscape(vd.Base),
		qual, list(vd.Better), qual, list(vd.Worse))
	if len(vd.Untested) > 0 {
		b.WriteString(" Not tested: " + list(vd.Untested) + ".")
	}
	if !vd.Paired {
		b.WriteString(" These are plain differences: no paired comparison was given, so none is tested for significance.")
	}
	b.WriteString("\n")
}

// writeFlips lists shown, the first of all flips one way.
func writeFlips(b *strings.Builder, title string, shown []flip, all int, broken bool) {
	if len(shown) == 0 {
		return
	}
	fmt.Fprintf(b, "\n**%s** (%d of %d shown)\n\n| case | suite | failure | input |\n|---|---|---|---|\n",
		title, len(shown), all)
	for _, f := range shown {
		failure := f.HeadFailure
		if !broken {
			failure = f.BaseFailure + " (before)"
		}
		b.WriteString("| `" + mdCode(f.Case) + "` | " + mdEscape(f.Suite) + " | " + mdEscape(failure) +
			" | " + mdEscape(truncateRunes(f.Input, mdInputRunes)) + " |\n")
	}
}

// mdCell prints a metric cell; with a paired comparison, only tested
// changes earn a ✅ or ❌.
func mdCell(c metricCell, paired bool) string {
	if c.Class == "none" {
		return mdEscape(c.Text)
	}
	parts := []string{c.Text}
	if c.Sym != "" {
		parts = append(parts, c.Sym)
	}
	if c.CI != "" {
		parts = append(parts, c.CI)
	}
	if c.Note != "" && c.Note != "unpaired" {
		parts = append(parts, c.Note)
	}
	s := mdEscape(strings.Join(parts, " "))
	if paired && strings.HasPrefix(c.Class, "plain") {
		return s
	}
	switch {
	case strings.HasSuffix(c.Class, "better"):
		s += " ✅"
	case strings.HasSuffix(c.Class, "worse"), c.Class == "bad":
		s += " ❌"
	}
	return s
}

// mdEscaper neutralises text for a Markdown table cell: HTML is shown as
// text, Markdown syntax is escaped, and newlines cannot end the row.
var mdEscaper = strings.NewReplacer(
	"&", "&amp;", "<", "&lt;", ">", "&gt;",
	"\\", "\\\\", "|", "\\|", "`", "\\`", "*", "\\*", "_", "\\_",
	"[", "\\[", "]", "\\]", "#", "\\#", "~", "\\~", "!", "\\!",
	"\r\n", " ", "\n", " ", "\r", " ",
)

func mdEscape(s string) string { return mdEscaper.Replace(s) }

// mdCode makes s safe inside a `code span`: backticks and newlines cannot
// be escaped there, so they are replaced.
func mdCode(s string) string {
	return strings.NewReplacer("`", "'", "\n", " ", "\r", " ", "|", "\\|").Replace(s)
}
