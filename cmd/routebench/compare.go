package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/harness/compare"
	"github.com/routebench/routebench/harness/stats"
	"github.com/routebench/routebench/internal/exitcode"
	"github.com/routebench/routebench/internal/outdir"
	"github.com/routebench/routebench/reports"
)

func init() { subcommands = append(subcommands, newCompareCmd) }

type compareOptions struct {
	html, json               string
	alpha                    float64
	baseVersion, headVersion string
	maxFlips                 int
	wide                     bool
}

func newCompareCmd() *cobra.Command {
	o := compareOptions{alpha: stats.DefaultThresholds.Alpha}
	cmd := &cobra.Command{
		Use:   "compare OLD.jsonl [NEW.jsonl] [--html F] [--alpha A]",
		Short: "Paired comparison of two versions' results, case by case",
		Long: `Pair the results of two versions by case id (and case hash: a case edited
between the runs is left out, with a warning) and print, for every rate
metric over all cases and per suite: both values with their n, the delta
with a paired bootstrap interval, McNemar's exact test on the discordant
cases (b: hit under OLD, miss under NEW; c: the reverse) and a symbol:
~ no significant change at --alpha, + better, - worse, * changed (a metric
with no better direction, such as clarification_rate). Then the broken cases
(passed under OLD, fail under NEW, adversarial first) and the fixed ones.

OLD and NEW are results.jsonl files or run directories holding one. Each must
hold one version, or name one with --base-version/--head-version (a name
such as v2 or a full id such as v2@3f9a1c2e); both may then be the same file.

Given one results file (or the same one twice) holding more than two
versions and neither flag, compare prints the series: each later version
against the base (the first) and, from the third on, against the previous
one. One file holding exactly two versions compares the second with the
first.

Exit codes: 0 compared, 2 bad flags or unreadable results.

Examples:
  routebench compare out/v1/results.jsonl out/v2/results.jsonl
  routebench compare out/run out/run --base-version v1 --head-version v2 --html compare.html
  routebench compare old.jsonl new.jsonl --alpha 0.01 --json comparison.json
  routebench compare out/run`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			args, done, err := spoolPipes(args)
			defer done()
			if err != nil {
				return exitcode.With(exitcode.Usage, fmt.Errorf("compare: %w", err))
			}
			if len(args) == 1 {
				return compareCommand(cmd.OutOrStdout(), args[0], "", o)
			}
			return compareCommand(cmd.OutOrStdout(), args[0], args[1], o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.html, "html", "", "also write an HTML report of the comparison to this file")
	f.StringVar(&o.json, "json", "", "also write the comparison as JSON to this file")
	f.Float64Var(&o.alpha, "alpha", o.alpha, "significance level of McNemar's exact test")
	f.StringVar(&o.baseVersion, "base-version", "", "version to take from OLD, when it holds several")
	f.StringVar(&o.headVersion, "head-version", "", "version to take from NEW, when it holds several")
	f.IntVar(&o.maxFlips, "max-flips", 20, "flipped cases to list per direction (0: all)")
	f.BoolVar(&o.wide, "wide", false, "print intervals and whole lines, whatever the terminal width")
	return cmd
}

func compareCommand(stdout io.Writer, oldPath, newPath string, o compareOptions) error {
	th := stats.DefaultThresholds
	th.Alpha = o.alpha
	if err := th.Validate(); err != nil {
		return exitcode.Usagef("compare: --%v", err)
	}
	if o.maxFlips < 0 {
		return exitcode.Usagef("compare: --max-flips must be >= 0, got %d", o.maxFlips)
	}
	if o.baseVersion == "" && o.headVersion == "" && (newPath == "" || filepath.Clean(newPath) == filepath.Clean(oldPath)) {
		done, err := compareSeries(stdout, oldPath, newPath == "", th, o)
		if done || err != nil {
			return err
		}
	}
	if newPath == "" {
		// One file, both versions named: "both may then be the same file".
		newPath = oldPath
	}
	// Both sides are read before either error is reported, so a missing
	// --base-version and --head-version are asked for at once.
	base, baseErr := readVersion(oldPath, o.baseVersion, "--base-version")
	head, headErr := readVersion(newPath, o.headVersion, "--head-version")
	if err := joinVersionErrors(baseErr, headErr); err != nil {
		return err
	}
	c, err := compare.PairedStreams(base, head, th)
	if err != nil {
		return exitcode.With(exitcode.Usage, fmt.Errorf("compare: %w", err))
	}
	if err := compare.WriteText(stdout, c, compare.TextOptions{MaxFlips: o.maxFlips, Width: textWidth(stdout, o.wide)}); err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	if o.json != "" {
		if err := writeComparisonJSON(o.json, c); err != nil {
			return err
		}
	}
	if o.html != "" {
		if err := writeComparisonHTML(o.html, base, head, c); err != nil {
			return err
		}
	}
	return nil
}

// compareSeries handles one results file with no version named: more than
// two versions print as a series (each against the base and the previous
// one); exactly two, given once, compare the second with the first. It
// says whether it handled the file; otherwise the pair path goes on (and
// asks for the versions it needs).
func compareSeries(stdout io.Writer, path string, single bool, th stats.Thresholds, o compareOptions) (bool, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, harness.ResultsFile)
	}
	// Read as a stream: compact records per result, never the results.
	s, err := compare.PairedSeriesStream(harness.NewFileStream(path), th)
	if err != nil {
		return true, exitcode.With(exitcode.Usage, fmt.Errorf("compare: %w", err))
	}
	switch {
	case len(s.Versions) == 2 && single:
		o.baseVersion, o.headVersion = s.Versions[0], s.Versions[1]
		return true, compareCommand(stdout, path, path, o)
	case len(s.Versions) <= 2:
		if single {
			return true, exitcode.Usagef("compare: %s holds %d version; give a second results file to compare with", path, len(s.Versions))
		}
		return false, nil
	}
	if o.html != "" {
		return true, exitcode.Usagef("compare: --html takes one pair: %s holds %d versions; name them with --base-version and --head-version", path, len(s.Versions))
	}
	var text strings.Builder
	if err := compare.WriteSeriesText(&text, s); err != nil {
		return true, fmt.Errorf("compare: %w", err)
	}
	writeWrapped(stdout, text.String(), textWidth(stdout, o.wide))
	if o.json != "" {
		if err := writeJSONValue(o.json, s); err != nil {
			return true, err
		}
	}
	return true, nil
}

// readVersion opens a results file (or a run directory's results.jsonl)
// as a stream of one version's results: the one named, or the only one.
// It reads the file once, for its versions (and to check every line).
func readVersion(path, want, flag string) (harness.ResultStream, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, harness.ResultsFile)
	}
	results := harness.NewFileStream(path)
	ids, err := streamVersions(results)
	if err != nil {
		return nil, exitcode.With(exitcode.Usage, fmt.Errorf("compare: %w", err))
	}
	switch {
	case len(ids) == 0:
		return nil, exitcode.Usagef("compare: %s holds no results", path)
	case want == "" && len(ids) > 1:
		return nil, &unnamedVersionError{path: path, ids: ids, flags: []string{flag}}
	case want == "":
		return results, nil
	}
	var matched []string
	for _, id := range ids {
		if id == want || harness.VersionName(id) == want {
			matched = append(matched, id)
		}
	}
	switch len(matched) {
	case 0:
		return nil, exitcode.Usagef("compare: %s %s: %s holds %s", flag, want, path, strings.Join(ids, ", "))
	case 1:
	default:
		return nil, exitcode.Usagef("compare: %s %s matches %s in %s: give the full id", flag, want, strings.Join(matched, ", "), path)
	}
	return harness.Select(results, func(r *harness.Result) bool { return r.Version == matched[0] }), nil
}

// unnamedVersionError: a results file holds several versions and the flag
// that picks one was not given.
type unnamedVersionError struct {
	path  string
	ids   []string
	flags []string
}

func (e *unnamedVersionError) Error() string {
	return fmt.Sprintf("compare: %s holds %d versions (%s): name one with %s", e.path, len(e.ids), strings.Join(e.ids, ", "), strings.Join(e.flags, " and one with "))
}

// joinVersionErrors reports both sides' problems together as a usage
// error; the same file missing both flags is said once.
func joinVersionErrors(base, head error) error {
	if base == nil && head == nil {
		return nil
	}
	var b, h *unnamedVersionError
	if errors.As(base, &b) && errors.As(head, &h) && b.path == h.path {
		return exitcode.With(exitcode.Usage, &unnamedVersionError{path: b.path, ids: b.ids, flags: []string{"--base-version", "--head-version"}})
	}
	var errs []error
	for _, err := range []error{base, head} {
		if errors.As(err, new(*unnamedVersionError)) {
			err = exitcode.With(exitcode.Usage, err)
		}
		// The same file given twice fails the same way twice: say it once.
		if err != nil && (len(errs) == 0 || errs[0].Error() != err.Error()) {
			errs = append(errs, err)
		}
	}
	if len(errs) == 1 {
		return errs[0]
	}
	// errors.Join keeps the first usage code attached (exit 2).
	return exitcode.With(exitcode.Usage, errors.Join(errs...))
}

func writeComparisonJSON(path string, c compare.Comparison) error { return writeJSONValue(path, c) }

// writeJSONValue writes a comparison or a series as indented JSON.
func writeJSONValue(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("compare: encode %s: %w", path, err)
	}
	if err := outdir.WriteFile(path, func(w io.Writer) error { _, err := w.Write(append(data, '\n')); return err }); err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	return nil
}

// writeComparisonHTML renders the two versions' results with the paired
// comparison through package reports (base first: reports take the first
// version as the base of every delta).
func writeComparisonHTML(path string, base, head harness.ResultStream, c compare.Comparison) error {
	results := harness.Concat(base, head)
	scorer := harness.NewScorer()
	collected := reports.NewCollector()
	if err := results.Each(func(i int, r *harness.Result) error {
		scorer.Add(r)
		collected.Add(i, r)
		return nil
	}); err != nil {
		return exitcode.With(exitcode.Usage, fmt.Errorf("compare: %w", err))
	}
	meta := collected.Meta()
	meta.Title = fmt.Sprintf("routebench compare %s → %s", c.Base, c.Head)
	meta.GeneratedAt = time.Now().UTC()
	in := reports.Input{Meta: meta, Stream: results, Collected: collected, Summary: scorer.Summary(), Comparisons: []compare.Comparison{c}}
	return outdir.WriteFile(path, func(w io.Writer) error { return reports.WriteHTML(w, in) })
}
