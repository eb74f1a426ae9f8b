package harness

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
)

// tableColumns are the key metrics the run table shows, refusal beside
// acting so a router that never acts cannot look good.
var tableColumns = []struct{ metric, title string }{
	{DecisionAccuracy, "decision"},
	{SkillAccuracy, "skill"},
	{WrongExecutionRate, "wrong_exec"},
	{RefusalRecall, "refuse_rec"},
	{RefusalPrecision, "refuse_prec"},
	{ClarifyRecall, "clarify_rec"},
	{ParamErrorRate, "param_err"},
	{SchemaPassRate, "schema_ok"},
	{PolicyViolations, "policy"},
	{LatencyP95, "p95_ms"},
}

// WriteTable prints versions × key metrics for all cases and each suite,
// rates with their 95% Wilson interval, then each version's suite mix.
func WriteTable(w io.Writer, s Summary) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := []string{"version", "group", "n"}
	for _, c := range tableColumns {
		head = append(head, c.title)
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, v := range s.Versions {
		for _, name := range tableGroups(v) {
			g := v.Groups[name]
			row := []string{v.Version, name, fmt.Sprint(g.N)}
			for _, c := range tableColumns {
				row = append(row, formatMetric(c.metric, g.Metrics))
			}
			fmt.Fprintln(tw, strings.Join(row, "\t"))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := writeWorkflowTable(w, s); err != nil {
		return err
	}
	if err := writeConversationTable(w, s); err != nil {
		return err
	}
	for _, v := range s.Versions {
		all := v.Groups[GroupAll]
		fmt.Fprintf(w, "mix %s: %s (target 5:3:2)\n", v.Version, formatMix(all.Mix, all.N))
	}
	fmt.Fprintln(w, "rates: value [95% Wilson interval]; - = no case in the denominator")
	return nil
}

// workflowColumns are the workflow metrics the run table shows.
var workflowColumns = []struct{ metric, title string }{
	{TaskSuccessRate, "task_success"},
	{CallSequenceAccuracy, "call_seq"},
	{IllegalRetries, "illegal_retry"},
	{DuplicateSideEffects, "dup_effects"},
	{UnverifiedClaims, "unverified"},
	{WriteOrderViolations, "write_order"},
	{ConfirmationMisses, "confirm_miss"},
	{SilentFailures, "silent_fail"},
	{DoomLoopsStopped, "doom_stopped"},
	{ResumeSkippedNodes, "resume_skips"},
}

// writeWorkflowTable prints the workflow metrics of every group that has
// workflow cases; nothing when no version ran one.
func writeWorkflowTable(w io.Writer, s Summary) error {
	head := []string{"version", "group", "workflows"}
	for _, c := range workflowColumns {
		head = append(head, c.title)
	}
	return writeGroupsWith(w, s, TaskSuccessRate, head, func(v VersionSummary, name string, g Group) []string {
		row := []string{v.Version, name, fmt.Sprint(g.Metrics[TaskSuccessRate].N)}
		for _, c := range workflowColumns {
			row = append(row, formatMetric(c.metric, g.Metrics))
		}
		return row
	})
}

// writeConversationTable prints the conversation metrics of every group
// that has conversations; nothing when no version ran one. The decision
// columns above count each turn as a decision; these count conversations
// and their turns.
func writeConversationTable(w io.Writer, s Summary) error {
	head := []string{"version", "group", "conversations", "turns", "conv_success", "turn_acc"}
	return writeGroupsWith(w, s, ConversationSuccessRate, head, func(v VersionSummary, name string, g Group) []string {
		return []string{v.Version, name, fmt.Sprint(g.Metrics[ConversationSuccessRate].N), fmt.Sprint(g.Metrics[TurnAccuracy].N),
			formatMetric(ConversationSuccessRate, g.Metrics), formatMetric(TurnAccuracy, g.Metrics)}
	})
}

// writeGroupsWith prints head, then one row per group (of every version)
// that has the metric key; nothing when no group has it.
func writeGroupsWith(w io.Writer, s Summary, key string, head []string, row func(VersionSummary, string, Group) []string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	rows := 0
	for _, v := range s.Versions {
		for _, name := range tableGroups(v) {
			g := v.Groups[name]
			if _, ok := g.Metrics[key]; !ok {
				continue
			}
			if rows == 0 {
				fmt.Fprintln(tw, strings.Join(head, "\t"))
			}
			rows++
			fmt.Fprintln(tw, strings.Join(row(v, name, g), "\t"))
		}
	}
	return tw.Flush()
}

// tableGroups are "all" then the suites, in the order normal, boundary,
// adversarial, then any others.
func tableGroups(v VersionSummary) []string {
	out := []string{GroupAll}
	var others []string
	for name := range v.Groups {
		if strings.HasPrefix(name, "suite:") {
			others = append(others, name)
		}
	}
	rank := map[string]int{"suite:" + SuiteNormal: 0, "suite:" + SuiteBoundary: 1, "suite:" + SuiteAdversarial: 2}
	sort.Slice(others, func(i, j int) bool {
		ri, ok := rank[others[i]]
		if !ok {
			ri = 3
		}
		rj, ok := rank[others[j]]
		if !ok {
			rj = 3
		}
		if ri != rj {
			return ri < rj
		}
		return others[i] < others[j]
	})
	if _, ok := v.Groups[GroupAll]; !ok {
		return others
	}
	return append(out, others...)
}

func formatMetric(name string, ms map[string]Rate) string {
	r, ok := ms[name]
	if !ok || r.N == 0 {
		return "-"
	}
	info, _ := LookupMetric(name)
	switch info.Kind {
	case KindRate:
		if r.Lo != nil && r.Hi != nil {
			return fmt.Sprintf("%.3f [%.2f,%.2f]", r.Value, *r.Lo, *r.Hi)
		}
		return fmt.Sprintf("%.3f", r.Value)
	case KindCount:
		return fmt.Sprintf("%.0f", r.Value)
	default:
		return fmt.Sprintf("%.2f", r.Value)
	}
}

func formatMix(mix map[string]int, n int) string {
	order := []string{SuiteNormal, SuiteBoundary, SuiteAdversarial}
	for name := range mix {
		if name != SuiteNormal && name != SuiteBoundary && name != SuiteAdversarial {
			order = append(order, name)
		}
	}
	sort.Strings(order[3:])
	parts := make([]string, 0, len(order))
	for _, name := range order {
		k := mix[name]
		pct := 0.0
		if n > 0 {
			pct = 100 * float64(k) / float64(n)
		}
		parts = append(parts, fmt.Sprintf("%s %d (%.0f%%)", name, k, pct))
	}
	return strings.Join(parts, ", ")
}
