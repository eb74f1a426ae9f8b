package gate

import (
	"fmt"
	"io"
	"strings"

	"github.com/routebench/routebench/harness/stats"
)

// WriteMarkdown renders verdicts for a CI step summary or a pull-request
// comment: the outcome first, one row per version, then every check of the
// versions that failed.
func WriteMarkdown(w io.Writer, verdicts []Verdict) error {
	var b strings.Builder
	switch Overall(verdicts) {
	case OutcomePass:
		b.WriteString("## routebench gate: ✅ passed\n\n")
	case OutcomeNotEvaluated:
		b.WriteString("## routebench gate: ⚠️ NOT EVALUATED\n\n")
	default:
		b.WriteString("## routebench gate: ❌ failed\n\n")
	}
	b.WriteString("| version | base | thresholds | regression rules | broken cases | verdict |\n|---|---|---:|---:|---:|---|\n")
	for _, v := range verdicts {
		base := "—"
		if v.Base != "" {
			base = "`" + mdCode(v.Base) + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %d/%d held | %d/%d held | %d | %s |\n", mdCode(v.Head), base,
			held(v.Thresholds), len(v.Thresholds), heldRules(v.Regressions), len(v.Regressions), v.BrokenTotal, outcomeMark(v))
	}
	for _, v := range verdicts {
		fmt.Fprintf(&b, "\n### `%s`\n\n", mdCode(v.Head))
		if note := v.UntestedNote(); note != "" {
			label := "**NOT EVALUATED**"
			if !v.NotEvaluated {
				label = "⚠️ **warning**"
			}
			fmt.Fprintf(&b, "> %s: %s (%s)\n\n", label, mdText(note), mdText(v.UntestedHint()))
		}
		if len(v.Thresholds) > 0 {
			b.WriteString("| threshold | value | n | |\n|---|---:|---:|---|\n")
			for _, t := range v.Thresholds {
				value, n := "not measured", "0"
				if t.Measured {
					value, n = formatValue(t.Kind, t.Value, t.N), fmt.Sprint(t.N)
					value = strings.SplitN(value, " ", 2)[0]
				}
				fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", mdCode(t.Text), value, n, mark(t.Pass))
			}
			b.WriteString("\n")
		}
		if len(v.Regressions) > 0 {
			b.WriteString("| regression rule | base | head | worse by | max | worse/better cases | McNemar p / bootstrap | |\n|---|---:|---:|---:|---:|---:|---:|---|\n")
			for _, r := range v.Regressions {
				if !r.Measured {
					fmt.Fprintf(&b, "| `%s` | — | — | not measured: no case counted | %g | — | — | %s |\n", r.Metric, r.MaxDrop, mark(r.Pass))
					continue
				}
				evidence := formatP(r.P)
				if r.Test == stats.TestBootstrap {
					evidence = "bootstrap " + r.IntervalText()
				}
				fmt.Fprintf(&b, "| `%s` | %.3f | %.3f | %+.3f | %g | %d/%d | %s | %s |\n", r.Metric, r.Base, r.Head,
					r.Drop, r.MaxDrop, r.Worse, r.Better, evidence, mark(r.Pass))
			}
			b.WriteString("\n")
		}
		if !v.Pass {
			b.WriteString("```\n" + strings.ReplaceAll(v.Message(), "```", "'''") + "```\n")
		}
		for _, n := range v.Notes {
			b.WriteString("\n> " + mdText(n) + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func held(ts []ThresholdResult) int {
	n := 0
	for _, t := range ts {
		if t.Pass {
			n++
		}
	}
	return n
}

func heldRules(rs []RuleResult) int {
	n := 0
	for _, r := range rs {
		if r.Pass {
			n++
		}
	}
	return n
}

// outcomeMark is a verdict's cell: a not-evaluated version is no failure
// of the checks, and no pass either.
func outcomeMark(v Verdict) string {
	if v.Outcome() == OutcomeNotEvaluated {
		return "⚠️ not evaluated"
	}
	return mark(v.Pass)
}

// mdText keeps text from opening markup of its own, or a line of its own.
func mdText(s string) string {
	return strings.NewReplacer("`", "'", "|", "\\|", "*", "\\*", "_", "\\_", "<", "&lt;", "\r", " ", "\n", " ").Replace(s)
}

func mark(pass bool) string {
	if pass {
		return "✅"
	}
	return "❌"
}

// mdCode keeps a threshold's text or a version's name (a directory name
// anyone can choose) inside its code span, table cell and line.
func mdCode(s string) string {
	return strings.NewReplacer("`", "'", "|", "\\|", "\r", " ", "\n", " ").Replace(s)
}
