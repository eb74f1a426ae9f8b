package harness

import (
	"fmt"
	"io"
	"strings"

	"github.com/routebench/routebench/internal/textwrap"
)

// compactColumns are the run table's columns at terminal width: short
// titles, each explained in the legend under the table, values without
// intervals (WriteTable, --wide, has both).
var compactColumns = []struct{ metric, title string }{
	{DecisionAccuracy, "decide"},
	{SkillAccuracy, "skill"},
	{WrongExecutionRate, "wrong"},
	{RefusalRecall, "ref_r"},
	{RefusalPrecision, "ref_p"},
	{ClarifyRecall, "clar_r"},
	{ParamErrorRate, "param"},
	{SchemaPassRate, "schema"},
	{PolicyViolations, "policy"},
	{LatencyP95, "p95ms"},
}

var compactWorkflowColumns = []struct{ metric, title string }{
	{TaskSuccessRate, "task"},
	{CallSequenceAccuracy, "seq"},
	{IllegalRetries, "retry"},
	{DuplicateSideEffects, "dup"},
	{UnverifiedClaims, "unver"},
	{WriteOrderViolations, "order"},
	{ConfirmationMisses, "c_miss"},
	{SilentFailures, "silent"},
	{DoomLoopsStopped, "doom"},
	{ResumeSkippedNodes, "resume"},
}

// WriteCompactTable prints the run table so no line is wider than width
// columns: one heading line per version, its groups under it, values
// only. Columns that still do not fit are left out from the right, and
// the table says which. Details are in WriteTable (--wide).
func WriteCompactTable(w io.Writer, s Summary, width int) error {
	var b strings.Builder
	main := textTable{head: []string{"group", "n"}}
	for _, c := range compactColumns {
		main.head = append(main.head, c.title)
	}
	flows := textTable{head: []string{"group", "flows"}}
	for _, c := range compactWorkflowColumns {
		flows.head = append(flows.head, c.title)
	}
	convs := textTable{head: []string{"group", "convs", "turns", "conv_ok", "turn_acc"}}
	for _, v := range s.Versions {
		ms, fs, cs := tableSection{title: v.Version}, tableSection{title: v.Version}, tableSection{title: v.Version}
		for _, name := range tableGroups(v) {
			g := v.Groups[name]
			group := strings.TrimPrefix(name, "suite:")
			row := []string{group, fmt.Sprint(g.N)}
			for _, c := range compactColumns {
				row = append(row, compactMetric(c.metric, g.Metrics))
			}
			ms.rows = append(ms.rows, row)
			if r, ok := g.Metrics[TaskSuccessRate]; ok {
				row := []string{group, fmt.Sprint(r.N)}
				for _, c := range compactWorkflowColumns {
					row = append(row, compactMetric(c.metric, g.Metrics))
				}
				fs.rows = append(fs.rows, row)
			}
			if conv, ok := g.Metrics[ConversationSuccessRate]; ok {
				cs.rows = append(cs.rows, []string{group, fmt.Sprint(conv.N), fmt.Sprint(g.Metrics[TurnAccuracy].N),
					compactMetric(ConversationSuccessRate, g.Metrics), compactMetric(TurnAccuracy, g.Metrics)})
			}
		}
		main.sections = append(main.sections, ms)
		if len(fs.rows) > 0 {
			flows.sections = append(flows.sections, fs)
		}
		if len(cs.rows) > 0 {
			convs.sections = append(convs.sections, cs)
		}
	}
	legend := "decide decision_accuracy, skill skill_accuracy, wrong wrong_execution_rate, ref_r/ref_p refusal_recall/precision, clar_r clarify_recall, param param_error_rate, schema schema_pass_rate, policy policy_violations, p95ms latency_p95 (ms)"
	main.render(&b, width)
	writeWrapped(&b, legend, width)
	if len(flows.sections) > 0 {
		b.WriteString("\n")
		flows.render(&b, width)
		writeWrapped(&b, "workflows: task task_success_rate, seq call_sequence_accuracy, retry illegal_retries, dup duplicate_side_effects, unver unverified_claims, order write_order_violations, c_miss confirmation_misses, silent silent_failures, doom doom_loops_stopped, resume resume_skipped_nodes", width)
	}
	if len(convs.sections) > 0 {
		b.WriteString("\n")
		convs.render(&b, width)
		writeWrapped(&b, "conversations: conv_ok conversation_success_rate, turn_acc turn_accuracy", width)
	}
	b.WriteString("\n")
	for _, v := range s.Versions {
		all := v.Groups[GroupAll]
		writeWrapped(&b, fmt.Sprintf("mix %s: %s (target 5:3:2)", v.Version, formatMix(all.Mix, all.N)), width)
	}
	writeWrapped(&b, "rates: value; --wide adds 95% Wilson intervals; - = no case in the denominator", width)
	_, err := io.WriteString(w, b.String())
	return err
}

func compactMetric(name string, ms map[string]Rate) string {
	r, ok := ms[name]
	if !ok || r.N == 0 {
		return "-"
	}
	info, _ := LookupMetric(name)
	switch info.Kind {
	case KindRate:
		return fmt.Sprintf("%.3f", r.Value)
	case KindCount:
		return fmt.Sprintf("%.0f", r.Value)
	default:
		return fmt.Sprintf("%.1f", r.Value)
	}
}

func writeWrapped(b *strings.Builder, s string, width int) {
	for _, line := range textwrap.Wrap(s, width, "", "  ") {
		b.WriteString(line)
		b.WriteString("\n")
	}
}

// textTable is a table under a header, in sections each headed by one
// line (a version); the first column is left-aligned, the others are
// numbers, right-aligned.
type textTable struct {
	head     []string
	sections []tableSection
}

type tableSection struct {
	title string
	rows  [][]string
}

// render writes t in at most width columns (0: no limit), leaving out
// columns from the right while a line would be wider, and saying so.
func (t textTable) render(b *strings.Builder, width int) {
	const indent, gap = 2, 2
	widths := make([]int, len(t.head))
	for i, h := range t.head {
		widths[i] = textwrap.Width(h)
	}
	for _, s := range t.sections {
		for _, row := range s.rows {
			for i, cell := range row {
				widths[i] = max(widths[i], textwrap.Width(cell))
			}
		}
	}
	cols := len(t.head)
	total := func(n int) int {
		sum := indent
		for i := range n {
			if i > 0 {
				sum += gap
			}
			sum += widths[i]
		}
		return sum
	}
	for width > 0 && cols > 2 && total(cols) > width {
		cols--
	}
	line := func(cells []string) {
		b.WriteString(strings.Repeat(" ", indent))
		for i := range cols {
			if i > 0 {
				b.WriteString(strings.Repeat(" ", gap))
			}
			if i == 0 {
				if cols == 1 {
					b.WriteString(cells[i])
				} else {
					b.WriteString(textwrap.Pad(cells[i], widths[i]))
				}
				continue
			}
			b.WriteString(textwrap.PadLeft(cells[i], widths[i]))
		}
		b.WriteString("\n")
	}
	line(t.head)
	for _, s := range t.sections {
		b.WriteString(s.title)
		b.WriteString("\n")
		for _, row := range s.rows {
			line(row)
		}
	}
	if cols < len(t.head) {
		writeWrapped(b, fmt.Sprintf("left out to fit %d columns: %s (--wide shows every column)", width, strings.Join(t.head[cols:], ", ")), width)
	}
}
