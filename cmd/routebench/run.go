package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"sync"
	"testing/fstest"
	"time"

	"github.com/spf13/cobra"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/harness/compare"
	"github.com/routebench/routebench/harness/stats"
	"github.com/routebench/routebench/internal/exitcode"
	"github.com/routebench/routebench/internal/outdir"
	"github.com/routebench/routebench/reports"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/models"
	"github.com/routebench/routebench/router/registry"
)

func init() { subcommands = append(subcommands, newRunCmd) }

// runOptions are `routebench run`'s flags.
type runOptions struct {
	config      string
	versions    []string
	suites      []string
	labelFilter string
	out         string
	concurrency int
	resume      bool
	shard       string
	judge       string
	embedder    string
	cpuProfile  string
	memProfile  string
	history     string
	wide        bool
	target      string
}

func newRunCmd() *cobra.Command {
	var o runOptions
	cmd := &cobra.Command{
		Use:   "run [--config F] [--versions a,b] [--suites ...] [--label-filter EXPR] [--out DIR]",
		Short: "Run case suites against prompt versions and score them",
		Long: `Run every case of the suites under every prompt version, then write
DIR/results.jsonl (one line per version x case, in that order), summary.json,
report.html, junit.xml and summary.md, and print a table of the key metrics
with 95% Wilson intervals. Versions and suites default to routebench.yaml's.

--label-filter selects (version, case) pairs with Ginkgo's label syntax over
the labels suite:X, version:NAME, skill:X (expected skill), lang:zh|en and the
case's tags; id:CASE_ID (or id:"CASE ID" for ids with spaces or & | ! , ( ))
selects a case by its exact id. --shard i/n runs a deterministic part of the cases; join the
parts with "routebench merge". Ctrl-C stops after writing every finished case;
--resume then runs only what is missing.

One run writes DIR at a time (DIR/.routebench.lock); outputs are replaced
whole, and summary.json records the sha256 of the results.jsonl it was
scored from. DIR/plan.json records the run's plan, so merge can check shards.

Each run (not a shard) appends its headline metrics to --history (default
.routebench/history.jsonl); report.html draws their trend over the last 20
runs and "routebench history" prints it. A history that cannot be written is
a warning, not a failed run.

` + targetLong + `

Exit codes: 0 done, 2 bad flags, config or suite files, a label filter that
selects nothing, DIR in use by another routebench, or a bad results.jsonl to
resume from (nothing written), 3 a provider failed beyond its retry (results
are still written).

Examples:
  routebench run
  routebench run --versions fixtures/ops/prompts/v2,fixtures/ops/prompts/v3 --out out/v3
  routebench run --label-filter 'suite:adversarial && lang:zh'
  routebench run --label-filter 'id:refund-partial-003 || id:"ask (twice)"'
  routebench run --shard 1/4 --out out/s1 && routebench merge out/s1 out/s2 out/s3 out/s4 -o out/all
  routebench run --versions fixtures/ops/prompts/v2 --suites suites/ops --target 'exec:python3 fixtures/targets/keyword_router.py' --out out/py`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runCommand(cmd, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.config, "config", "", "config file (default routebench.yaml when present)")
	f.StringSliceVar(&o.versions, "versions", nil, "prompt version directories or git:REV:DIR, comma-separated (default: the config's)")
	f.StringSliceVar(&o.suites, "suites", nil, "suite files or directories (default: the config's)")
	f.StringVar(&o.labelFilter, "label-filter", "", "Ginkgo label filter over suite:, version:, skill:, lang:, tags and id:CASE_ID")
	f.StringVar(&o.out, "out", "out", "output directory")
	f.IntVar(&o.concurrency, "concurrency", 0, "cases routed at once (default: one per CPU)")
	f.BoolVar(&o.resume, "resume", false, "keep the results already in --out and run only the missing ones")
	f.StringVar(&o.shard, "shard", "", "run shard i of n (i/n, 1-based)")
	f.StringVar(&o.judge, "judge", "", "override every version's judge (builtin, openai:MODEL, anthropic:MODEL)")
	f.StringVar(&o.embedder, "embedder", "", "override every version's embedder (builtin, openai:MODEL, ollama:MODEL)")
	f.BoolVar(&o.wide, "wide", false, "print the table with 95% intervals, whatever the terminal width")
	addTargetFlag(f, &o.target)
	// Profiling hooks for the load benchmark (see harness/cmd/gencases).
	f.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile to this file")
	f.StringVar(&o.memProfile, "memprofile", "", "write the heap profile of the peak live heap to this file")
	addHistoryFlag(f, &o.history)
	_ = f.MarkHidden("cpuprofile")
	_ = f.MarkHidden("memprofile")
	return withProviderFlags(cmd)
}

// runPlan is everything a run needs, validated before anything is written.
type runPlan struct {
	config   *harness.Config
	versions []*registry.Version
	// cases are held, or read again for each version when there are many
	// (harness.OpenSuites).
	cases   harness.CaseSource
	include func(v *registry.Version, c *harness.Case) bool
	shard   harness.Shard
	// suitePaths are recorded in plan.json for replay.
	suitePaths []string
	// targets is --target's, nil for routebench's own router.
	targets *targets
}

func runCommand(cmd *cobra.Command, o runOptions) error {
	if o.cpuProfile != "" {
		f, err := os.Create(o.cpuProfile)
		if err != nil {
			return exitcode.Usagef("run: --cpuprofile: %v", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return exitcode.Usagef("run: --cpuprofile: %v", err)
		}
		defer pprof.StopCPUProfile()
	}
	stderr := cmd.ErrOrStderr()
	var heap *peakProfiler
	if o.memProfile != "" {
		heap = startPeakProfile(o.memProfile)
		defer heap.finish(stderr)
	}
	prog := newProgress(stderr)
	plan, err := prepareRun(o, prog.phase)
	if err != nil {
		return err
	}
	lock, err := lockOutput(o.out)
	if err != nil {
		return err
	}
	defer lock.Release()
	if o.resume && fileExists(filepath.Join(o.out, harness.SummaryFile)) {
		// A summary left beside other results (a run killed after
		// truncating them) is reported, never reused.
		if ok, why, err := harness.SummaryMatches(o.out); err == nil && !ok {
			fmt.Fprintf(stderr, "note: %s; it is rewritten when the run ends\n", why)
		}
	}
	// Results are about to change: outputs scored from the old ones must
	// not outlive them, or a killed run leaves a summary that lies.
	if err := removeOutputs(o.out); err != nil {
		return exitcode.With(exitcode.RunError, err)
	}
	// The first Ctrl-C stops routing and lets every finished case be
	// written; a second one kills the process as usual.
	ctx, stop := signal.NotifyContext(commandContext(cmd), os.Interrupt)
	defer stop()
	interrupted := ctx.Done() // read here: ctx is replaced below
	go func() {
		<-interrupted
		stop()
	}()
	newRouter := runRouters(o.judge, o.embedder, prog.build)
	if plan.targets != nil {
		newRouter = plan.targets.factory()
		defer plan.targets.Close()
	}
	// A context of its own: the goroutine above reads ctx.
	runCtx, newRouter := withBudget(ctx, newRouter)
	cfg := harness.RunConfig{
		Versions:    plan.versions,
		Source:      plan.cases,
		SuitePaths:  plan.suitePaths,
		NewRouter:   newRouter,
		Include:     plan.include,
		Shard:       plan.shard,
		Concurrency: o.concurrency,
		OutDir:      o.out,
		Resume:      o.resume,
	}
	cfg.Progress = prog.update
	heap.enter("route")
	outcome, scored, runErr := runScoring(runCtx, cfg)
	// What is left reads results.jsonl, not the cases: let them go.
	plan.cases, cfg.Source = nil, nil
	prog.finish()
	if outcome != nil {
		for _, n := range outcome.Notes {
			fmt.Fprintf(stderr, "note: %s\n", n)
		}
	}
	if runErr != nil {
		if err := budgetStop(runCtx); err != nil {
			return err
		}
		var bad *harness.ResultsError
		if errors.As(runErr, &bad) {
			// The results file to resume from is bad input, not a failed run.
			return exitcode.With(exitcode.Usage, fmt.Errorf("%w; fix the line, or run without --resume to start over", runErr))
		}
		return exitcode.With(exitcode.RunError, runErr)
	}
	// A shard's metrics are a part of the run's, not a run to follow; a
	// run with provider failures measured the provider, not the prompt.
	history := func(s harness.Summary) *harness.Trend { return recordHistory(stderr, o.history, harness.HistoryRun, s) }
	if plan.shard.Count > 1 || outcome.ProviderErrors > 0 {
		history = nil
	}
	prog.phase("scoring %s results and writing reports", thousands(outcome.Done))
	heap.enter("score")
	stopPacing := paceGCUnderPeak()
	defer stopPacing()
	if err := writeRunOutputs(cmd.OutOrStdout(), o.out, outcome, scored, versionMetas(plan.versions), o.wide, history); err != nil {
		return exitcode.With(exitcode.RunError, err)
	}
	if outcome.Resumed > 0 {
		fmt.Fprintf(stderr, "resumed: kept %d results, ran %d\n", outcome.Resumed, outcome.Ran)
	}
	prog.done(o.out, append([]string{harness.ResultsFile}, derivedOutputs...)...)
	if outcome.ProviderErrors > 0 {
		return exitcode.With(exitcode.RunError, fmt.Errorf("%d decisions failed at the %s (action error, provider_error); see %s", outcome.ProviderErrors, failedAt(o.target), filepath.Join(o.out, harness.ResultsFile)))
	}
	return nil
}

// lockOutput takes dir's lock for this process; another routebench
// writing there is a usage error (exit 2) naming its pid, and so is a
// folder that cannot be created or written.
func lockOutput(dir string) (*outdir.Lock, error) {
	lock, err := outdir.Acquire(dir)
	var busy *outdir.BusyError
	var unusable *outdir.UnusableError
	if errors.As(err, &busy) || errors.As(err, &unusable) {
		return nil, exitcode.With(exitcode.Usage, err)
	}
	if err != nil {
		return nil, exitcode.With(exitcode.RunError, err)
	}
	return lock, nil
}

// derivedOutputs are scored or rendered from results.jsonl; summary.json
// first, since it is what vouches for the others.
var derivedOutputs = []string{harness.SummaryFile, "report.html", "junit.xml", "summary.md"}

// removeOutputs deletes dir's derived outputs before its results change.
func removeOutputs(dir string) error {
	for _, name := range derivedOutputs {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove stale %s: %w", name, err)
		}
	}
	return nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func commandContext(cmd *cobra.Command) context.Context {
	if ctx := cmd.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}

// prepareRun reads the config, versions and suites and checks every flag;
// any problem is a usage error (exit 2) and nothing is written.
func prepareRun(o runOptions, phase func(format string, args ...any)) (*runPlan, error) {
	plan := &runPlan{}
	cfgPath := o.config
	if cfgPath == "" {
		if _, err := os.Stat(harness.DefaultConfigFile); err == nil {
			cfgPath = harness.DefaultConfigFile
		}
	}
	if cfgPath != "" {
		cfg, err := harness.LoadConfig(cfgPath)
		if err != nil {
			return nil, exitcode.With(exitcode.Usage, err)
		}
		plan.config = cfg
	} else {
		plan.config = &harness.Config{}
	}
	versionSpecs, suitePaths := plan.config.Versions, plan.config.Suites
	if len(o.versions) > 0 {
		versionSpecs = o.versions
	}
	if len(o.suites) > 0 {
		suitePaths = o.suites
	}
	if len(versionSpecs) == 0 || len(suitePaths) == 0 {
		return nil, exitcode.Usagef("run: no versions or no suites: give --versions and --suites, or a routebench.yaml listing them")
	}
	var err error
	plan.suitePaths = suitePaths
	if plan.targets, err = parseTarget(o.target, o.judge, o.embedder); err != nil {
		return nil, err
	}
	if o.concurrency < 0 {
		return nil, exitcode.Usagef("run: --concurrency must be >= 0, got %d", o.concurrency)
	}
	shard, err := harness.ParseShard(o.shard)
	if err != nil {
		return nil, exitcode.Usagef("run: --shard: %v", err)
	}
	plan.shard = shard
	if o.labelFilter != "" {
		match, err := harness.CaseFilter(o.labelFilter)
		if err != nil {
			return nil, exitcode.Usagef("run: --label-filter %q: %v", o.labelFilter, err)
		}
		plan.include = func(v *registry.Version, c *harness.Case) bool {
			return match(v.Name, c)
		}
	}
	phase("loading %d versions and %d suite paths", len(versionSpecs), len(suitePaths))
	if plan.versions, err = loadVersions(versionSpecs); err != nil {
		return nil, exitcode.With(exitcode.Usage, err)
	}
	regs, err := harness.RoutingRegistries(plan.versions)
	if err != nil {
		return nil, exitcode.With(exitcode.Usage, err)
	}
	if plan.cases, err = harness.OpenSuites(suitePaths, regs...); err != nil {
		return nil, exitcode.With(exitcode.Usage, err)
	}
	if plan.include != nil {
		if err := checkFilterMatches(o.labelFilter, plan.versions, plan.cases, plan.include); err != nil {
			return nil, err
		}
	}
	if o.judge != "" || o.embedder != "" {
		// Check the override now, so a typo is a usage error, not a run error.
		if _, err := models.Factory(orBuiltin(o.judge), orBuiltin(o.embedder)); err != nil {
			return nil, exitcode.With(exitcode.Usage, err)
		}
	}
	return plan, nil
}

// checkFilterMatches fails a label filter that selects no (version, case)
// of the whole run (every shard): running nothing and passing would hide
// a typo. Shards are left out, since one shard may rightly be empty.
func checkFilterMatches(expr string, versions []*registry.Version, cases harness.CaseSource, include func(*registry.Version, *harness.Case) bool) error {
	seen := map[string]bool{}
	var existing []string
	for _, v := range versions {
		matched := errors.New("matched")
		err := cases.Each(func(_ int, c *harness.Case) error {
			if include(v, c) {
				return matched
			}
			for _, l := range append(harness.Labels(v.Name, c), "id:"+c.ID) {
				if !seen[l] {
					seen[l] = true
					existing = append(existing, l)
				}
			}
			return nil
		})
		if err == matched {
			return nil
		}
		if err != nil {
			return exitcode.With(exitcode.Usage, err)
		}
	}
	return exitcode.With(exitcode.Usage, fmt.Errorf("run: %w", harness.NoMatchError(expr, len(versions)*cases.Len(), existing)))
}

func orBuiltin(spec string) string {
	if spec == "" {
		return models.Builtin
	}
	return spec
}

// runRouters is the router factory run uses: routerFactory, which specs
// wrap to give every decision a latency of its own request's, so two runs
// of the same cases write the same bytes.
var runRouters = routerFactory

// routerFactory builds each version's router with the models its
// version.yaml names, or the overrides; report (may be nil) hears each
// build step.
func routerFactory(judge, embedder string, report func(router.BuildPhase)) func(v *registry.Version) (harness.Router, error) {
	return func(v *registry.Version) (harness.Router, error) {
		factory, err := models.ForVersion(v, judge, embedder)
		if err != nil {
			return nil, err
		}
		return router.NewReporting(v, factory, report)
	}
}

// loadVersions loads prompt versions given as directories or as
// git:REV:DIR (DIR as of revision REV, read with git show). Every
// version's problems are reported together.
func loadVersions(specs []string) ([]*registry.Version, error) {
	var out []*registry.Version
	var problems []error
	seen := map[string]string{}
	for _, spec := range specs {
		var v *registry.Version
		var err error
		if strings.HasPrefix(spec, "git:") {
			v, err = loadGitVersion(spec)
		} else {
			v, err = registry.Load(spec)
		}
		if err != nil {
			problems = append(problems, err)
			continue
		}
		// workflows.yaml is checked against the version's skills here, so
		// every command that loads versions refuses a bad one (exit 2).
		if _, err := harness.LoadWorkflows(v); err != nil {
			problems = append(problems, err)
			continue
		}
		if prev, dup := seen[v.Name]; dup {
			problems = append(problems, fmt.Errorf("%s: version name %q is also the name of %s; results name versions by directory name, so give them distinct names", spec, v.Name, prev))
			continue
		}
		seen[v.Name] = spec
		out = append(out, v)
	}
	if len(problems) > 0 {
		return nil, errors.Join(problems...)
	}
	return out, nil
}

func loadGitVersion(spec string) (*registry.Version, error) {
	rest := strings.TrimPrefix(spec, "git:")
	i := strings.LastIndex(rest, ":")
	if i <= 0 || i == len(rest)-1 {
		return nil, fmt.Errorf("%s: want git:REV:DIR, e.g. git:origin/main:fixtures/ops/prompts/v2", spec)
	}
	rev, dir := rest[:i], path.Clean(filepath.ToSlash(rest[i+1:]))
	fsys := gitVersionFiles("", rev, dir)
	if len(fsys) > 0 {
		fsys[dir] = &fstest.MapFile{Mode: 0o755 | os.ModeDir}
	}
	return registry.LoadFS(fsys, dir, spec)
}

// planVersionMetas are versionMetas from a plan record: what the run that
// wrote it knew of its versions (a plan of an older routebench has no
// descriptions).
func planVersionMetas(pvs []harness.PlanVersion) []reports.VersionMeta {
	out := make([]reports.VersionMeta, len(pvs))
	for i, v := range pvs {
		out[i] = planVersionMeta(v)
	}
	return out
}

// planVersionMeta is one version of planVersionMetas.
func planVersionMeta(v harness.PlanVersion) reports.VersionMeta {
	return reports.VersionMeta{ID: v.ID, Name: harness.VersionName(v.ID), Fingerprint: v.Fingerprint, Dir: v.Dir, Description: v.Description}
}

// versionMetas are the report header's version lines.
func versionMetas(vs []*registry.Version) []reports.VersionMeta {
	out := make([]reports.VersionMeta, len(vs))
	for i, v := range vs {
		out[i] = reports.VersionMeta{ID: v.ID(), Name: v.Name, Fingerprint: v.Fingerprint, Dir: v.Dir, Description: v.Description}
	}
	return out
}

// runScoring runs cfg with its results scored as they are written, so
// that only the writing is left when routing ends (writeRunOutputs).
// Scoring while routing keeps the scorers' state beside the cases and the
// routers, so a suite set too large to hold (a *harness.SuiteSet, read
// again as it is walked) is scored after routing instead: a large run's
// peak memory is then the larger of the two phases, not their sum (a
// million cases scored live peaked 36 MB higher, over issue 15's 300 MB).
func runScoring(ctx context.Context, cfg harness.RunConfig) (*harness.RunOutcome, *scoring, error) {
	if _, streamed := cfg.Source.(*harness.SuiteSet); streamed {
		outcome, err := harness.Run(ctx, cfg)
		return outcome, nil, err
	}
	sc := newScoring()
	cfg.Written = sc.add
	outcome, err := harness.Run(ctx, cfg)
	sc.finish()
	return outcome, sc, err
}

// writeRunOutputs writes a finished run's outputs (see writeOutputs) from
// what runScoring scored while it ran, or, for a run that kept earlier
// results (--resume; outcome.Stream is nil) or was not scored live
// (scored is nil), from results.jsonl.
func writeRunOutputs(stdout io.Writer, dir string, outcome *harness.RunOutcome, scored *scoring, versions []reports.VersionMeta, wide bool,
	history func(harness.Summary) *harness.Trend) error {
	if outcome.Stream == nil || scored == nil {
		return writeOutputs(stdout, dir, versions, wide, history)
	}
	return writeScored(stdout, dir, outcome.Stream, scored, versions, wide, history)
}

// writeOutputs writes the reports and summary.json beside results.jsonl
// and prints the metric table. versions may be nil (merge knows only what
// the results say). summary.json comes last and records the digest of
// results.jsonl: when it is there, every output beside it is complete and
// was made from exactly those results. history, when not nil, records the
// summary and returns the trend report.html draws.
// wide prints the table with its intervals instead of fitting it to stdout.
//
// Everything is read from DIR/results.jsonl as a stream (a few passes, one
// result at a time), so memory holds counters, compact per-case records
// and one case of the report at a time, never every result with its trace.
func writeOutputs(stdout io.Writer, dir string, versions []reports.VersionMeta, wide bool,
	history func(harness.Summary) *harness.Trend) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write outputs: %w", err)
	}
	path := filepath.Join(dir, harness.ResultsFile)
	// One pass feeds every reader that needs each result and digests the
	// file for summary.json. After it the stream knows where each line
	// is, and the writers read back only the lines they show.
	rs := harness.NewFileStream(path)
	rs.DigestWhileReading()
	sc := newScoring()
	if err := readInto(rs, sc.inTwo); err != nil {
		return err
	}
	return writeScored(stdout, dir, rs, sc, versions, wide, history)
}

// writeScored writes the outputs of the results rs holds, sc having been
// handed every one of them in order (by writeOutputs' pass over the file,
// or by the run as it wrote them); rs has been read to its end with its
// digest taken.
func writeScored(stdout io.Writer, dir string, rs *harness.FileStream, sc *scoring, versions []reports.VersionMeta, wide bool,
	history func(harness.Summary) *harness.Trend) error {
	digest, ok := rs.Digest()
	if !ok {
		return fmt.Errorf("digest results: %s was not read to its end", rs.Path)
	}
	summary := sc.scorer.Summary()
	summary.Results = &digest
	collected := sc.collected
	// junit.xml needs only the results, so it is written while the
	// rest is prepared: on a large run the outputs are seconds of work.
	junit := make(chan error, 1)
	go func() {
		junit <- outdir.WriteFile(filepath.Join(dir, "junit.xml"), func(w io.Writer) error {
			return reports.WriteJUnitCollected(w, rs, collected)
		})
	}()
	var trend *harness.Trend
	if history != nil {
		trend = history(summary)
	}
	if err := writeReports(dir, rs, collected, sc.series, summary, versions, junit, trend); err != nil {
		return err
	}
	if err := harness.WriteSummaryFile(filepath.Join(dir, harness.SummaryFile), summary); err != nil {
		return err
	}
	if wide {
		return harness.WriteTable(stdout, summary)
	}
	return harness.WriteCompactTable(stdout, summary, outputWidth(stdout))
}

// scoring is what every result is handed to, once, in results.jsonl's
// order: the scores, the paired comparison's compact records and the
// reports' counts. It is fed by a pass over the file (writeOutputs) or by
// a run as it writes each line (harness.RunConfig.Written): the same
// readers of the same values, so the same outputs.
type scoring struct {
	scorer    *harness.Scorer
	series    *compare.SeriesCollector
	collected *reports.Collector
	*inTwo
}

func newScoring() *scoring {
	sc := &scoring{scorer: harness.NewScorer(), series: compare.NewSeriesCollector(nil), collected: reports.NewCollector()}
	sc.inTwo = startInTwo(func(i int, r *harness.Result) {
		sc.scorer.Add(r)
		sc.series.AddScored(i, r, sc.scorer.DecisionIndicators())
	}, sc.collected.Add)
	return sc
}

// inTwo hands each result to first on the caller's goroutine and to
// second on another, in order on each: the reports' views cost as much as
// scoring and pairing together, so a pass takes less time on two cores.
// Both only read a result, and each result is a value of its own. Results
// cross in batches (one hand-over a result cost more than it saved), and
// at most a few batches wait between the two, so memory stays flat in
// results.
type inTwo struct {
	first func(int, *harness.Result)
	feed  chan []inTwoItem
	done  chan struct{}
	batch []inTwoItem
}

type inTwoItem struct {
	i int
	r *harness.Result
}

func startInTwo(first, second func(int, *harness.Result)) *inTwo {
	feed := make(chan []inTwoItem, 4)
	t := &inTwo{first: first, feed: feed, done: make(chan struct{}), batch: make([]inTwoItem, 0, collectBatch)}
	go func() {
		defer close(t.done)
		for batch := range feed {
			for _, it := range batch {
				second(it.i, it.r)
			}
		}
	}()
	return t
}

// add hands on the result at position i.
func (t *inTwo) add(i int, r *harness.Result) {
	t.first(i, r)
	if t.batch = append(t.batch, inTwoItem{i, r}); len(t.batch) == collectBatch {
		t.feed <- t.batch
		t.batch = make([]inTwoItem, 0, collectBatch)
	}
}

// finish hands on what is left and returns once second has had every
// result; later calls do nothing.
func (t *inTwo) finish() {
	if t.feed == nil {
		return
	}
	if len(t.batch) > 0 {
		t.feed <- t.batch
		t.batch = nil
	}
	close(t.feed)
	t.feed = nil
	<-t.done
}

// readInto hands every result of rs to t (first on the reading goroutine,
// which decodes) and finishes t, also when rs stops at a bad line.
func readInto(rs harness.ResultStream, t *inTwo) error {
	err := rs.Each(func(i int, r *harness.Result) error {
		t.add(i, r)
		return nil
	})
	t.finish()
	return err
}

// collectBatch is how many results an inTwo hands over at a time. When
// the first reader outruns the second, every batch the feed holds waits
// with its results alive: at 64 a batch, about 320 decoded results, 10 MB
// of a 10,000 x 3 run's peak; at 16 the peak is back and the hand-overs
// cost no CPU that shows.
const collectBatch = 16

// writeReports is the single place the run and merge commands render
// reports (package reports): report.html, junit.xml, summary.md. junit
// delivers the result of writing junit.xml, started by the caller. rs has
// been read once into collected and series.
func writeReports(dir string, rs harness.ResultStream, collected *reports.Collector, series *compare.SeriesCollector,
	summary harness.Summary, versions []reports.VersionMeta, junit <-chan error, trend *harness.Trend) error {
	// Paired like `routebench report` on the same results, so a run's own
	// report tests its deltas instead of printing plain differences.
	paired, err := series.Series(rs, stats.DefaultThresholds)
	if err != nil {
		return errors.Join(err, <-junit)
	}
	meta := collected.Meta()
	if len(versions) > 0 {
		meta.Versions = versions
	}
	meta.Title = "routebench run"
	meta.GeneratedAt = time.Now().UTC()
	meta.Commit = gitCommit()
	in := reports.Input{Meta: meta, Stream: rs, Collected: collected, Summary: summary, Comparisons: paired.Comparisons, Trend: trend}
	writers := []struct {
		name  string
		write func(io.Writer) error
	}{
		{"report.html", func(w io.Writer) error { return reports.WriteHTML(w, in) }},
		{"summary.md", func(w io.Writer) error { return reports.WriteMarkdown(w, in) }},
	}
	// The writers only read their inputs (the stream, once indexed, reads
	// lines by position without changing), so they run side by side: on a
	// large run the reports are a good part of the wall time.
	errs := make([]error, len(writers))
	var wg sync.WaitGroup
	for i, wr := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = outdir.WriteFile(filepath.Join(dir, wr.name), wr.write)
		}()
	}
	wg.Wait()
	// Errors in the order the files were always reported: html, junit, md.
	return errors.Join(errs[0], <-junit, errs[1])
}

// gitCommit is the working tree's commit for the report header, "" outside git.
func gitCommit() string {
	out, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
