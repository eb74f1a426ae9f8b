package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/internal/exitcode"
)

func init() { subcommands = append(subcommands, newHistoryCmd) }

// The clock, the commit and the default path of the history; tests
// replace them so entries are deterministic and no test writes into the
// source tree.
var (
	historyNow         = time.Now
	historyCommit      = gitHead
	defaultHistoryPath = harness.DefaultHistoryPath
)

// reportTrendRuns is how many of the last runs report.html draws.
const reportTrendRuns = 20

// historyWidth is what the history text fits in, as every default view.
const historyWidth = 100

func newHistoryCmd() *cobra.Command {
	var (
		path   string
		last   int
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "history [--history FILE] [--last N] [--json]",
		Short: "Print the trend of the headline metrics over past runs",
		Long: `Every run and gate appends one line to the history file (--history, default
` + harness.DefaultHistoryPath + `): the time, the commit, and each version's ID and
headline metrics (decision_accuracy, wrong_execution_rate, refusal_recall,
policy_violations, and task_success_rate and conversation_success_rate when
the run had such cases). history prints, per version and metric, the last N
values oldest first with a sparkline and the change from the run before.

Exit codes: 0 printed, 2 no history file or a bad line in it (named file:line).

Examples:
  routebench history
  routebench history --last 20
  routebench history --history ci-history/history.jsonl --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if last < 1 {
				return exitcode.Usagef("history: --last must be >= 1, got %d", last)
			}
			// Enough runs that a version left out of the latest ones still
			// shows, without holding a long history in memory.
			entries, total, err := harness.ReadHistory(path, max(1000, last))
			if errors.Is(err, os.ErrNotExist) {
				return exitcode.Usagef("history: %s does not exist: `routebench run` and `routebench gate` write it; give --history where they wrote it", path)
			}
			if err != nil {
				return exitcode.With(exitcode.Usage, err)
			}
			t := harness.NewTrend(entries, total, last)
			if asJSON {
				b, err := json.MarshalIndent(t, "", "  ")
				if err != nil {
					return fmt.Errorf("encode history: %w", err)
				}
				_, err = cmd.OutOrStdout().Write(append(b, '\n'))
				return err
			}
			return writeHistoryText(cmd.OutOrStdout(), path, t, last)
		},
	}
	f := cmd.Flags()
	f.StringVar(&path, "history", defaultHistoryPath, "history file that run and gate append to")
	f.IntVar(&last, "last", 10, "values shown per version and metric")
	f.BoolVar(&asJSON, "json", false, "print the trend as JSON")
	return cmd
}

// addHistoryFlag is run's and gate's --history.
func addHistoryFlag(f *pflag.FlagSet, p *string) {
	f.StringVar(p, "history", defaultHistoryPath, "append this run's headline metrics to this file and draw their trend in report.html (\"\" to skip)")
}

// writeHistoryText prints each version's metrics as two lines: name,
// sparkline, last value and change; then the values, wrapped to fit.
func writeHistoryText(w io.Writer, path string, t harness.Trend, last int) error {
	var b strings.Builder
	runs := "runs"
	if t.Total == 1 {
		runs = "run"
	}
	fmt.Fprintf(&b, "%s: %d %s; the last %d values of each metric, oldest first\n", path, t.Total, runs, last)
	nameW := 0
	for _, v := range t.Versions {
		for _, m := range v.Metrics {
			nameW = max(nameW, len(m.Metric))
		}
	}
	for _, v := range t.Versions {
		fmt.Fprintf(&b, "\n%s", v.Name)
		if n := len(v.IDs); n > 0 {
			fmt.Fprintf(&b, "  %s", v.IDs[n-1])
			if n > 1 {
				fmt.Fprintf(&b, "  (%d prompt fingerprints in these runs)", n)
			}
		}
		b.WriteString("\n")
		if len(v.Metrics) == 0 {
			b.WriteString("  no headline metric measured\n")
		}
		for _, m := range v.Metrics {
			values := make([]float64, len(m.Points))
			for i, p := range m.Points {
				values[i] = p.Value
			}
			lastValue := formatHistoryValue(m.Count, values[len(values)-1])
			fmt.Fprintf(&b, "  %-*s  %s  %s  %s\n", nameW, m.Metric, sparkline(values), lastValue, formatHistoryDelta(m.Count, m.Delta))
			cells := make([]string, len(values))
			for i, v := range values {
				cells[i] = formatHistoryValue(m.Count, v)
			}
			b.WriteString(wrapCells("    ", cells, historyWidth))
		}
	}
	b.WriteString("\nrates 0-1, change from the run before in percentage points; policy_violations is a count\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func formatHistoryValue(count bool, v float64) string {
	if count {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3f", v)
}

func formatHistoryDelta(count bool, d *float64) string {
	switch {
	case d == nil:
		return "(first run)"
	case count && *d == 0:
		return "±0 vs previous"
	case count:
		return fmt.Sprintf("%+.0f vs previous", *d)
	case math.Abs(*d) < 0.0005:
		return "±0.0 pp vs previous"
	default:
		return fmt.Sprintf("%+.1f pp vs previous", *d*100)
	}
}

// sparkBlocks are the eight heights of a sparkline, lowest first.
var sparkBlocks = []rune("▁▂▃▄▅▆▇█")

// sparkline scales values between their own minimum and maximum, so a
// small change still shows; values that never change sit in the middle.
func sparkline(values []float64) string {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range values {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	out := make([]rune, len(values))
	for i, v := range values {
		level := len(sparkBlocks) / 2
		if hi-lo > 1e-12 {
			level = int(math.Round((v - lo) / (hi - lo) * float64(len(sparkBlocks)-1)))
		}
		out[i] = sparkBlocks[level]
	}
	return string(out)
}

// wrapCells joins cells with spaces after indent, starting a new line
// before one would pass width.
func wrapCells(indent string, cells []string, width int) string {
	var b strings.Builder
	line := indent
	for i, c := range cells {
		if i > 0 && len(line)+1+len(c) > width {
			b.WriteString(line + "\n")
			line = indent
		} else if i > 0 {
			line += " "
		}
		line += c
	}
	b.WriteString(line + "\n")
	return b.String()
}

// recordHistory appends s to path as a command's entry and returns the
// trend of the last runs for report.html. The history is a by-product: a
// failure to write or read it is a warning on stderr, never a failed run.
// An empty path turns it off.
func recordHistory(stderr io.Writer, path, command string, s harness.Summary) *harness.Trend {
	if path == "" {
		return nil
	}
	e := harness.NewHistoryEntry(command, historyNow(), historyCommit(), s)
	if err := harness.AppendHistory(path, e); err != nil {
		fmt.Fprintf(stderr, "warning: this %s is not in the history: %v\n", command, err)
	}
	return readTrend(stderr, path)
}

// readTrend is the trend report.html draws, nil with a warning when the
// history cannot be read.
func readTrend(stderr io.Writer, path string) *harness.Trend {
	if path == "" {
		return nil
	}
	entries, total, err := harness.ReadHistory(path, reportTrendRuns)
	if err != nil {
		fmt.Fprintf(stderr, "warning: report.html has no trend chart: %v\n", err)
		return nil
	}
	t := harness.NewTrend(entries, total, reportTrendRuns)
	return &t
}

// gitHead is the full commit of the working tree, "" outside git.
func gitHead() string {
	out, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
