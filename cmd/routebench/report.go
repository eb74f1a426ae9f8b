package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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

func init() { subcommands = append(subcommands, newReportCmd) }

type reportFlags struct {
	out, junit, markdown string
	title, commit, base  string
	unpaired             bool
	history              string
}

func newReportCmd() *cobra.Command {
	var f reportFlags
	cmd := &cobra.Command{
		Use:   "report RESULTS.jsonl",
		Short: "Render a self-contained HTML report (and junit.xml, summary.md) from results",
		Long: `Report reads results.jsonl (from run, merge or gate), scores it, pairs every
later version with the first one (McNemar's exact test and a bootstrap
interval on the same cases), and writes one self-contained HTML file that
opens from disk with no network. --junit and --markdown also write junit.xml
and summary.md. The first version in the file is the base of every delta,
unless --base names another.`,
		Example: `  routebench report out/results.jsonl -o report.html
  routebench report out/results.jsonl -o report.html --junit junit.xml --markdown summary.md
  routebench report merged.jsonl -o report.html --base v2 --commit "$GITHUB_SHA"
  routebench report out/results.jsonl -o report.html --history .routebench/history.jsonl`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReport(cmd.OutOrStdout(), args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.out, "out", "o", "report.html", "HTML report to write")
	fl.StringVar(&f.junit, "junit", "", "also write junit.xml here")
	fl.StringVar(&f.markdown, "markdown", "", "also write summary.md here")
	fl.StringVar(&f.title, "title", "", `report title (default "routebench report")`)
	fl.StringVar(&f.commit, "commit", os.Getenv("GITHUB_SHA"),
		"git commit the results were made at, for the header (default $GITHUB_SHA); results do not record it")
	fl.StringVar(&f.base, "base", "", `version to compare the others against, by name or ID ("v1" or "v1@0a1b2c3d"); default the first in the file`)
	fl.BoolVar(&f.unpaired, "unpaired", false, "skip the paired comparison: deltas are plain differences")
	fl.StringVar(&f.history, "history", "", "draw the trend of the last 20 runs of this history file (run and gate write "+harness.DefaultHistoryPath+")")
	return cmd
}

func runReport(stdout io.Writer, path string, f reportFlags) error {
	// The results are read as a stream, a few passes one result at a
	// time: a report of any size holds counts, not results.
	var rs harness.ResultStream = harness.NewFileStream(path)
	versions, err := streamVersions(rs)
	if err != nil {
		return exitcode.With(exitcode.Usage, err)
	}
	n, _ := rs.Len()
	if n == 0 {
		return exitcode.Usagef("%s holds no results: run `routebench run` first", path)
	}
	if err := refreshSummary(stdout, path, rs); err != nil {
		return err
	}
	if f.base != "" {
		base, err := baseVersion(versions, f.base)
		if err != nil {
			return exitcode.With(exitcode.Usage, fmt.Errorf("--base: %w", err))
		}
		rs = harness.VersionFirst(rs, base)
	}
	// One pass feeds the scores, the comparison's records and the reports'
	// counts, as for a run's own outputs.
	scorer := harness.NewScorer()
	series := compare.NewSeriesCollector(nil)
	collected := reports.NewCollector()
	if err := rs.Each(func(i int, r *harness.Result) error {
		scorer.Add(r)
		if !f.unpaired {
			series.Add(i, r)
		}
		collected.Add(i, r)
		return nil
	}); err != nil {
		return exitcode.With(exitcode.Usage, err)
	}
	meta := collected.Meta()
	meta.Versions = withPlanVersions(stdout, meta.Versions, filepath.Join(filepath.Dir(path), harness.PlanFile))
	meta.Title = f.title
	meta.Commit = f.commit
	meta.GeneratedAt = time.Now().UTC()
	in := reports.Input{Meta: meta, Stream: rs, Collected: collected, Summary: scorer.Summary()}
	if !f.unpaired {
		paired, err := series.Series(rs, stats.DefaultThresholds)
		if err != nil {
			return exitcode.With(exitcode.Usage, err)
		}
		in.Comparisons = paired.Comparisons
	}
	if f.history != "" {
		// Asked for by name, so a history that cannot be read is an error.
		entries, total, err := harness.ReadHistory(f.history, reportTrendRuns)
		if err != nil {
			return exitcode.With(exitcode.Usage, fmt.Errorf("--history: %w", err))
		}
		t := harness.NewTrend(entries, total, reportTrendRuns)
		in.Trend = &t
	}
	outputs := []struct {
		path  string
		write func(io.Writer) error
	}{
		{f.out, func(w io.Writer) error { return reports.WriteHTML(w, in) }},
		{f.junit, func(w io.Writer) error { return reports.WriteJUnitCollected(w, rs, collected) }},
		{f.markdown, func(w io.Writer) error { return reports.WriteMarkdown(w, in) }},
	}
	for _, o := range outputs {
		if o.path == "" {
			continue
		}
		if err := outdir.WriteFile(o.path, o.write); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s\n", o.path)
	}
	base := "none"
	if len(meta.Versions) > 0 {
		base = meta.Versions[0].ID
	}
	fmt.Fprintf(stdout, "%d results, %d versions, base %s\n", n, len(meta.Versions), base)
	return nil
}

// withPlanVersions names versions as the plan.json at planPath recorded
// them (full fingerprint, where loaded from, description: what results,
// which give only the ID, lack), so a run's report rendered again shows
// its versions as the run's own did. A version the plan does not hold
// with that ID and a fingerprint its ID begins is left as it is, and so
// is every one when there is no plan to read; a plan.json there that
// cannot be read is said on notes, since the report then differs from the
// run's own.
func withPlanVersions(notes io.Writer, versions []reports.VersionMeta, planPath string) []reports.VersionMeta {
	recorded, err := harness.ReadPlanVersions(planPath)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(notes, "note: the plan.json beside the results was not read (%v); versions are named as the results name them\n", err)
		}
		return versions
	}
	out := slices.Clone(versions)
	for i, v := range out {
		for _, pv := range recorded {
			if pv.ID == v.ID && strings.HasPrefix(pv.Fingerprint, v.Fingerprint) {
				out[i] = planVersionMeta(pv)
				break
			}
		}
	}
	return out
}

// streamVersions lists version IDs by first appearance; the pass also
// checks every line, so a bad file is reported before anything is written.
func streamVersions(rs harness.ResultStream) ([]string, error) {
	var ids []string
	err := rs.Each(func(_ int, r *harness.Result) error {
		if !slices.Contains(ids, r.Version) {
			ids = append(ids, r.Version)
		}
		return nil
	})
	return ids, err
}

// refreshSummary checks the summary.json beside a run's results.jsonl:
// one scored from other results (a run killed after truncating them) is
// rewritten from these results, never trusted. The report itself is
// always scored from the results, so it is right either way.
func refreshSummary(stdout io.Writer, resultsPath string, results harness.ResultStream) error {
	dir := filepath.Dir(resultsPath)
	if filepath.Base(resultsPath) != harness.ResultsFile || !fileExists(filepath.Join(dir, harness.SummaryFile)) {
		return nil
	}
	ok, why, err := harness.SummaryMatches(dir)
	if err != nil || ok {
		return err
	}
	lock, err := outdir.Acquire(dir)
	var busy *outdir.BusyError
	if errors.As(err, &busy) {
		fmt.Fprintf(stdout, "note: %s; not rewritten: %v\n", why, err)
		return nil
	}
	if err != nil {
		return exitcode.With(exitcode.RunError, err)
	}
	defer lock.Release()
	summary, err := harness.ScoreStream(results)
	if err != nil {
		return exitcode.With(exitcode.Usage, err)
	}
	digest, err := harness.DigestResultsFile(resultsPath)
	if err != nil {
		return exitcode.With(exitcode.RunError, err)
	}
	summary.Results = &digest
	if err := harness.WriteSummaryFile(filepath.Join(dir, harness.SummaryFile), summary); err != nil {
		return exitcode.With(exitcode.RunError, err)
	}
	fmt.Fprintf(stdout, "note: %s; rewrote it from the results\n", why)
	return nil
}

// baseVersion finds the version --base names, by ID or name.
func baseVersion(ids []string, base string) (string, error) {
	var match string
	for _, id := range ids {
		if id == base || harness.VersionName(id) == base {
			if match != "" {
				return "", fmt.Errorf("%q names both %s and %s: give the full ID", base, match, id)
			}
			match = id
		}
	}
	if match == "" {
		return "", fmt.Errorf("no version %q in the results (they hold %v)", base, ids)
	}
	return match, nil
}

// pairedAgainstFirst compares every later version with the first and,
// from the third version on, with the one before it (compare.PairedSeries
// with the default thresholds). Run and merge can pass its result to
// reports too, so their report.html carries tested deltas.
func pairedAgainstFirst(results []harness.Result) []compare.Comparison {
	return compare.PairedSeries(results, stats.DefaultThresholds).Comparisons
}
