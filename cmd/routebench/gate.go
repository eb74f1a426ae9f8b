package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing/fstest"
	"time"

	"github.com/spf13/cobra"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/harness/compare"
	"github.com/routebench/routebench/harness/gate"
	"github.com/routebench/routebench/harness/stats"
	"github.com/routebench/routebench/internal/exitcode"
	"github.com/routebench/routebench/internal/inputfile"
	"github.com/routebench/routebench/internal/outdir"
	"github.com/routebench/routebench/reports"
	"github.com/routebench/routebench/router/models"
	"github.com/routebench/routebench/router/registry"
)

func init() { subcommands = append(subcommands, newGateCmd) }

type gateOptions struct {
	config                   string
	base                     string
	baseVersion, headVersion string
	out                      string
	concurrency              int
	judge, embedder          string
	history                  string
	wide                     bool
	target                   string
	targets                  *targets
}

func newGateCmd() *cobra.Command {
	var o gateOptions
	cmd := &cobra.Command{
		Use:   "gate [--config F] (--base REV | --base-version DIR --head-version DIR) [--out DIR]",
		Short: "Fail a prompt change that crosses a threshold or significantly regresses",
		Long: `Run the suites under each head version and its base version, compare them case
by case, and apply the gate of routebench.yaml:

  thresholds   "metric op value" on the head version's summary, optionally
               for one suite or tag: refusal_recall{suite:adversarial} >= 0.95
  regression   for each listed rate metric, head fails when it is worse than
               base by more than max_drop AND McNemar's exact test on the
               cases that flipped is significant at alpha. A big drop on a
               handful of flips is noise; a significant sliver is not worth
               blocking a change. Both must hold to fail.

With --base REV every version directory of the config is compared with
itself as of git revision REV (a version new since REV is checked against
the thresholds only); the suites are the working tree's, so both sides
answer the same cases. With --base-version and --head-version two
directories are compared.

DIR (--out) receives results.jsonl, summary.json, junit.xml and report.html
of the head versions, base/results.jsonl and base/summary.json, per version
compare-NAME.txt (and compare-NAME.html when it changed), gate.json (every
check) and summary.md (for $GITHUB_STEP_SUMMARY).

With --target, base and head are both routed through the target (each
request carries Routebench-Version: ID; an exec target is started with
ROUTEBENCH_VERSION and ROUTEBENCH_VERSION_DIR): the target is treated as
reading every layer, so no change is "not evaluated" (gate.json's notes say
so). A target that serves one fixed prompt answers alike for base and head,
so what the gate measures then is its thresholds.

` + targetLong + `

Exit codes: 0 the gate passed, 1 it failed, 2 bad flags, config, versions or
suites, 3 a run error (a provider failed beyond its retry).

Examples:
  routebench gate --base origin/main --out gate-out
  routebench gate --base-version fixtures/ops/prompts/v2 --head-version fixtures/ops/prompts/v3
  routebench gate --config ci/routebench.yaml --base HEAD~1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return gateCommand(cmd, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.config, "config", "", "config file (default routebench.yaml)")
	f.StringVar(&o.base, "base", "", "git revision whose versions are the base (e.g. origin/main)")
	f.StringVar(&o.baseVersion, "base-version", "", "base version directory (with --head-version)")
	f.StringVar(&o.headVersion, "head-version", "", "head version directory (with --base-version)")
	f.StringVar(&o.out, "out", "gate-out", "output directory")
	addHistoryFlag(f, &o.history)
	f.BoolVar(&o.wide, "wide", false, "print intervals and whole lines, whatever the terminal width")
	f.IntVar(&o.concurrency, "concurrency", 0, "cases routed at once (default: one per CPU)")
	f.StringVar(&o.judge, "judge", "", "override every version's judge (builtin, openai:MODEL, anthropic:MODEL)")
	f.StringVar(&o.embedder, "embedder", "", "override every version's embedder (builtin, openai:MODEL, ollama:MODEL)")
	addTargetFlag(f, &o.target)
	return withProviderFlags(cmd)
}

// versionPair is one head version and its base; base is nil when the
// version is new since the base revision.
type versionPair struct {
	head, base *registry.Version
}

// unchanged: same files, so the same decisions; the base is not re-run.
func (p versionPair) unchanged() bool {
	return p.base != nil && p.base.Fingerprint == p.head.Fingerprint
}

func gateCommand(cmd *cobra.Command, o gateOptions) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	hc, cfg, err := loadGateConfig(o)
	if err != nil {
		return err
	}
	pairs, notes, err := gateVersions(hc, cfg, o)
	if err != nil {
		return err
	}
	if len(hc.Suites) == 0 {
		return exitcode.Usagef("gate: %s lists no suites: add `suites: [suites/...]`", hc.Path)
	}
	var vs []*registry.Version
	for _, p := range pairs {
		vs = append(vs, p.head)
		if p.base != nil {
			vs = append(vs, p.base)
		}
	}
	regs, err := harness.RoutingRegistries(vs)
	if err != nil {
		return exitcode.With(exitcode.Usage, err)
	}
	cases, err := harness.LoadSuites(hc.Suites, regs...)
	if err != nil {
		return exitcode.With(exitcode.Usage, err)
	}
	if o.concurrency < 0 {
		return exitcode.Usagef("gate: --concurrency must be >= 0, got %d", o.concurrency)
	}
	if o.targets, err = parseTarget(o.target, o.judge, o.embedder); err != nil {
		return err
	}
	defer o.targets.Close()

	// One lock for the whole output tree (base/ included), taken once the
	// inputs are known good, so bad input still writes nothing.
	lock, err := lockOutput(o.out)
	if err != nil {
		return err
	}
	defer lock.Release()
	for _, dir := range []string{o.out, filepath.Join(o.out, "base")} {
		if err := removeOutputs(dir); err != nil {
			return exitcode.With(exitcode.RunError, err)
		}
	}
	if err := os.Remove(filepath.Join(o.out, "gate.json")); err != nil && !errors.Is(err, os.ErrNotExist) {
		return exitcode.With(exitcode.RunError, fmt.Errorf("gate: remove stale gate.json: %w", err))
	}

	// Head first: its outputs are what a plain `run` would write.
	var heads, bases []*registry.Version
	for _, p := range pairs {
		heads = append(heads, p.head)
		if p.base != nil && !p.unchanged() {
			bases = append(bases, p.base)
		}
	}
	headRun, err := gateRun(cmd, o, heads, cases, o.out)
	if err != nil {
		return err
	}
	baseRun := &harness.RunOutcome{}
	if len(bases) > 0 {
		if baseRun, err = gateRun(cmd, o, bases, cases, filepath.Join(o.out, "base")); err != nil {
			return err
		}
	}

	// Scored and compared from the results files as streams: compact
	// records per result, never every result with its trace.
	headResults := harness.NewFileStream(filepath.Join(o.out, harness.ResultsFile))
	var baseResults harness.ResultStream
	if len(bases) > 0 {
		baseResults = harness.NewFileStream(filepath.Join(o.out, "base", harness.ResultsFile))
	}
	headSummary, err := harness.ScoreStream(headResults)
	if err != nil {
		return exitcode.With(exitcode.RunError, fmt.Errorf("gate: %w", err))
	}
	var verdicts []gate.Verdict
	var comparisons []gateComparison
	for _, p := range pairs {
		hr := versionResults(headResults, p.head.ID())
		vs := versionSummary(headSummary, p.head.ID())
		if p.base == nil {
			v := gate.Evaluate(vs, nil, cfg)
			v.Notes = append(v.Notes, notes[p.head.ID()]...)
			verdicts = append(verdicts, v)
			continue
		}
		br := hr
		if !p.unchanged() {
			br = versionResults(baseResults, p.base.ID())
		}
		c, err := compare.PairedStreams(br, hr, stats.DefaultThresholds)
		if err != nil {
			return exitcode.With(exitcode.RunError, fmt.Errorf("gate: %w", err))
		}
		v := gate.Evaluate(vs, &c, cfg)
		v.Notes = append(v.Notes, notes[p.head.ID()]...)
		// A change the head's judge cannot read changes no decision, so
		// the paired run above cannot have tested it (DESIGN §7). A target
		// reads whatever it reads: it is taken to read every layer.
		if o.targets != nil {
			v.Notes = append(v.Notes, fmt.Sprintf("routed by target %s, taken to read every layer: no layer is reported untested", o.targets.spec))
		} else {
			judge := models.JudgeSpec(p.head, o.judge)
			v.ApplyUntested(gate.UntestedLayers(p.base, p.head, judge), judge, cfg)
		}
		verdicts = append(verdicts, v)
		comparisons = append(comparisons, gateComparison{pair: p, base: br, head: hr, cmp: c})
	}

	// The head is what this tree measures; the base is history already. A
	// run with provider failures measured the provider: not recorded.
	history := o.history
	if headRun.ProviderErrors+baseRun.ProviderErrors > 0 {
		history = ""
	}
	trend := recordHistory(stderr, history, harness.HistoryGate, headSummary)
	if err := writeGateOutputs(o.out, hc, cfg, headResults, headSummary, baseResults, pairs, comparisons, verdicts, trend); err != nil {
		return exitcode.With(exitcode.RunError, err)
	}
	for _, gc := range comparisons {
		fmt.Fprintf(stdout, "== %s\n", gc.pair.head.Name)
		// A failed verdict names the worst broken cases itself; listing them
		// here too printed each one twice.
		opt := compare.TextOptions{Groups: []string{compare.GroupAll}, MaxFlips: 5}
		for _, v := range verdicts {
			if v.Head == gc.pair.head.ID() && len(v.Broken) > 0 && v.Outcome() == gate.OutcomeFail {
				opt.OmitBroken = true
			}
		}
		opt.Width = textWidth(stdout, o.wide)
		compare.WriteText(stdout, gc.cmp, opt)
		fmt.Fprintln(stdout)
	}
	for _, v := range verdicts {
		writeWrapped(stdout, v.Message(), textWidth(stdout, o.wide))
	}
	fmt.Fprintf(stderr, "gate outputs in %s\n", o.out)

	if n := headRun.ProviderErrors + baseRun.ProviderErrors; n > 0 {
		return exitcode.With(exitcode.RunError, fmt.Errorf("gate: %d decisions failed at the %s, so the verdict cannot be trusted; see %s", n, failedAt(o.target), o.out))
	}
	if !gate.Passed(verdicts) {
		var failed []string
		for _, v := range verdicts {
			if !v.Pass {
				failed = append(failed, v.Head)
			}
		}
		what := "failed"
		if gate.Overall(verdicts) == gate.OutcomeNotEvaluated {
			what = "could not evaluate the change (verdict NOT EVALUATED)"
		}
		return exitcode.With(exitcode.GateFailed, fmt.Errorf("gate %s for %s", what, strings.Join(failed, ", ")))
	}
	return nil
}

// gateVerdicts are the verdicts as report.html shows them: the outcome
// and the lines of the terminal message.
func gateVerdicts(vs []gate.Verdict) []reports.GateVerdict {
	out := make([]reports.GateVerdict, len(vs))
	for i, v := range vs {
		var reasons []string
		for _, f := range v.Findings() {
			line := f.Text
			if f.Broken { // the page lists every one under flipped cases
				line = fmt.Sprintf("%d broken cases: listed under flipped cases", v.BrokenTotal)
			}
			if line = strings.TrimSpace(line); line != "" {
				reasons = append(reasons, line)
			}
		}
		if note := v.UntestedNote(); v.Outcome() == gate.OutcomeNotEvaluated {
			reasons = append([]string{note}, reasons...)
		}
		out[i] = reports.GateVerdict{Head: v.Head, Base: v.Base, Outcome: v.Outcome(), Reasons: reasons,
			Thresholds: v.Thresholds, Regressions: v.Regressions}
	}
	return out
}

// gateReportInput is what the gate's report.html shows (DESIGN §7): the
// verdict, then, when one version changed, the paired comparison of its
// head against its base, each labelled by its role. With no changed
// version, or several, it shows the heads (each labelled head); every
// changed version also has its own compare-NAME.html.
func gateReportInput(meta reports.Meta, headResults harness.ResultStream, headSummary harness.Summary,
	comparisons []gateComparison, verdicts []gate.Verdict) (reports.Input, error) {
	for i := range meta.Versions {
		meta.Versions[i].Role = "head"
	}
	in := reports.Input{Meta: meta, Stream: headResults, Summary: headSummary, Gate: gateVerdicts(verdicts)}
	var changed []gateComparison
	for _, gc := range comparisons {
		if !gc.pair.unchanged() {
			changed = append(changed, gc)
		}
	}
	if len(changed) != 1 {
		return in, nil
	}
	paired, err := pairReportInput(changed[0], meta)
	paired.Gate = in.Gate
	return paired, err
}

// pairReportInput is the paired report of one changed version: its base
// and head results, each version labelled by its role, under meta's title,
// time and commit.
func pairReportInput(gc gateComparison, meta reports.Meta) (reports.Input, error) {
	results := harness.Concat(gc.base, gc.head)
	meta.Versions = versionMetas([]*registry.Version{gc.pair.base, gc.pair.head})
	meta.Versions[0].Role, meta.Versions[1].Role = "base", "head"
	scorer := harness.NewScorer()
	collected := reports.NewCollector()
	err := results.Each(func(i int, r *harness.Result) error {
		scorer.Add(r)
		collected.Add(i, r)
		return nil
	})
	meta.Models = collected.Meta().Models
	return reports.Input{Meta: meta, Stream: results, Collected: collected, Summary: scorer.Summary(), Comparisons: []compare.Comparison{gc.cmp}}, err
}

// loadGateConfig reads routebench.yaml and validates its gate block before
// anything runs: a bad threshold is a config error (exit 2), not a surprise
// after a long run.
func loadGateConfig(o gateOptions) (*harness.Config, gate.Config, error) {
	if (o.base != "") == (o.baseVersion != "" || o.headVersion != "") {
		return nil, gate.Config{}, exitcode.Usagef("gate: give either --base REV or both --base-version DIR and --head-version DIR")
	}
	if o.base == "" && (o.baseVersion == "" || o.headVersion == "") {
		return nil, gate.Config{}, exitcode.Usagef("gate: --base-version and --head-version go together")
	}
	path := o.config
	if path == "" {
		path = harness.DefaultConfigFile
	}
	hc, err := harness.LoadConfig(path)
	if err != nil {
		if o.config == "" && errors.Is(err, os.ErrNotExist) {
			return nil, gate.Config{}, exitcode.Usagef("gate: no %s here: give --config F (the gate needs its suites and thresholds)", path)
		}
		return nil, gate.Config{}, exitcode.With(exitcode.Usage, err)
	}
	cfg, err := gate.FromConfig(hc)
	if err != nil {
		return nil, gate.Config{}, exitcode.With(exitcode.Usage, err)
	}
	return hc, cfg, nil
}

// gateVersions loads each head version and its base. Notes (per head id)
// say which versions had no base.
func gateVersions(hc *harness.Config, cfg gate.Config, o gateOptions) ([]versionPair, map[string][]string, error) {
	notes := map[string][]string{}
	if o.base == "" {
		vs, err := loadVersionsEach([]string{o.headVersion, o.baseVersion})
		if err != nil {
			return nil, nil, exitcode.With(exitcode.Usage, err)
		}
		return []versionPair{{head: vs[0], base: vs[1]}}, notes, nil
	}
	if len(hc.Versions) == 0 {
		return nil, nil, exitcode.Usagef("gate: %s lists no versions: add `versions: [fixtures/.../v2]`", hc.Path)
	}
	heads, err := loadVersions(hc.Versions)
	if err != nil {
		return nil, nil, exitcode.With(exitcode.Usage, err)
	}
	// The versions live in the repository whose history --base names; ask
	// git from their directory, so the config and working directory may be
	// anywhere.
	root, err := gitOutput(hc.Versions[0], "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, nil, exitcode.Usagef("gate: --base needs the versions in a git working tree: %v", err)
	}
	if _, err := gitOutput(root, "rev-parse", "--verify", "--quiet", o.base+"^{commit}"); err != nil {
		return nil, nil, exitcode.Usagef("gate: --base %s is not a commit here; fetch it first (in CI: actions/checkout with fetch-depth: 0)", o.base)
	}
	var pairs []versionPair
	var problems []error
	for i, spec := range hc.Versions {
		head := heads[i]
		if len(cfg.Versions) > 0 && !slices.Contains(cfg.Versions, spec) {
			continue // not gated (gate.versions)
		}
		if strings.HasPrefix(spec, "git:") {
			problems = append(problems, fmt.Errorf("%s: versions: %s is already a git revision; gate --base compares working-tree directories", hc.Path, spec))
			continue
		}
		rel, err := repoRelative(root, spec)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		if _, err := gitOutput(root, "cat-file", "-e", o.base+":"+rel); err != nil {
			notes[head.ID()] = append(notes[head.ID()], fmt.Sprintf("%s does not exist at %s: a new version, checked against the thresholds only", rel, o.base))
			pairs = append(pairs, versionPair{head: head})
			continue
		}
		base, err := loadGitVersionAt(root, o.base, rel)
		if err != nil {
			problems = append(problems, fmt.Errorf("base version %s at %s: %w", rel, o.base, err))
			continue
		}
		pairs = append(pairs, versionPair{head: head, base: base})
	}
	if len(problems) > 0 {
		return nil, nil, exitcode.With(exitcode.Usage, errors.Join(problems...))
	}
	return pairs, notes, nil
}

// loadVersionsEach loads directories one by one: base and head of
// --base-version/--head-version may share a name, which one run forbids.
func loadVersionsEach(dirs []string) ([]*registry.Version, error) {
	out := make([]*registry.Version, len(dirs))
	var problems []error
	for i, d := range dirs {
		vs, err := loadVersions([]string{d})
		if err != nil {
			problems = append(problems, err)
			continue
		}
		out[i] = vs[0]
	}
	return out, errors.Join(problems...)
}

// loadGitVersionAt loads dir (relative to the repository root) as of rev,
// reading each version file with git show in root, so it works whatever the
// working directory. Its display name is git:REV:DIR, as in DESIGN §3.
func loadGitVersionAt(root, rev, dir string) (*registry.Version, error) {
	fsys := gitVersionFiles(root, rev, dir)
	fsys[dir] = &fstest.MapFile{Mode: 0o755 | fs.ModeDir}
	return registry.LoadFS(fsys, dir, "git:"+rev+":"+dir)
}

// gitVersionFiles reads the files of the prompt version dir as of rev, run
// from root ("" is the working directory), each through gitShowBounded so
// `run --versions git:…` and the gate bound a blob alike. A file git does
// not have is left out; the loader names it as missing.
func gitVersionFiles(root, rev, dir string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for _, name := range append(slices.Clone(registry.VersionFiles), registry.WorkflowsFile) {
		data, err := gitShowBounded(root, rev+":"+path.Join(dir, name), inputfile.DefaultLimit)
		if err != nil {
			continue
		}
		fsys[path.Join(dir, name)] = &fstest.MapFile{Data: data, Mode: 0o644}
	}
	return fsys
}

// gitShowBounded returns the blob at rev:path, reading at most limit+1
// bytes: a file over the limit reaches the loader one byte too long, which
// it reports as too large, and a huge blob never sits in memory whole.
func gitShowBounded(root, object string, limit int64) ([]byte, error) {
	c := exec.Command("git", "show", object)
	c.Dir = root
	out, err := c.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := c.Start(); err != nil {
		return nil, err
	}
	data, readErr := io.ReadAll(io.LimitReader(out, limit+1))
	if int64(len(data)) > limit {
		_ = c.Process.Kill()
	}
	waitErr := c.Wait()
	if int64(len(data)) > limit {
		return data, nil
	}
	if readErr != nil {
		return nil, readErr
	}
	return data, waitErr
}

// repoRelative turns a version directory into its path from the
// repository root, as git revisions name it.
func repoRelative(root, dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", fmt.Errorf("version %s is outside the git repository at %s", dir, root)
	}
	return filepath.ToSlash(rel), nil
}

func gitOutput(dir string, args ...string) (string, error) {
	c := exec.Command("git", args...)
	c.Dir = dir
	out, err := c.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && len(ee.Stderr) > 0 {
			return "", fmt.Errorf("git %s: %s", strings.Join(args, " "), strings.TrimSpace(string(ee.Stderr)))
		}
		return "", fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}

// gateRun runs versions over cases into dir; a run that cannot finish is a
// run error (exit 3).
func gateRun(cmd *cobra.Command, o gateOptions, versions []*registry.Version, cases []harness.Case, dir string) (*harness.RunOutcome, error) {
	prog := newProgress(cmd.ErrOrStderr())
	newRouter := routerFactory(o.judge, o.embedder, prog.build)
	if o.targets != nil {
		newRouter = o.targets.factory()
	}
	outcome, err := harness.Run(commandContext(cmd), harness.RunConfig{
		Versions:    versions,
		Cases:       cases,
		NewRouter:   newRouter,
		Concurrency: o.concurrency,
		OutDir:      dir,
		Progress:    prog.update,
	})
	prog.finish()
	if err != nil {
		return nil, exitcode.With(exitcode.RunError, fmt.Errorf("gate: %w", err))
	}
	return outcome, nil
}

func versionResults(results harness.ResultStream, id string) harness.ResultStream {
	return harness.Select(results, func(r *harness.Result) bool { return r.Version == id })
}

func versionSummary(s harness.Summary, id string) harness.VersionSummary {
	for _, v := range s.Versions {
		if v.Version == id {
			return v
		}
	}
	return harness.VersionSummary{Version: id, Groups: map[string]harness.Group{}}
}

type gateComparison struct {
	pair       versionPair
	base, head harness.ResultStream
	cmp        compare.Comparison
}

// gateRecord is gate.json: the config as understood and every check.
type gateRecord struct {
	Format   int            `json:"format"`
	Config   string         `json:"config"`
	Gate     gate.Config    `json:"gate"`
	Pass     bool           `json:"pass"`
	Verdicts []gate.Verdict `json:"verdicts"`
}

// writeDigestedSummary writes dir's summary.json recording the
// results.jsonl beside it that s was scored from.
func writeDigestedSummary(dir string, s harness.Summary) error {
	digest, err := harness.DigestResultsFile(filepath.Join(dir, harness.ResultsFile))
	if err != nil {
		return err
	}
	s.Results = &digest
	return harness.WriteSummaryFile(filepath.Join(dir, harness.SummaryFile), s)
}

func writeGateOutputs(dir string, hc *harness.Config, cfg gate.Config, headResults harness.ResultStream, headSummary harness.Summary,
	baseResults harness.ResultStream, pairs []versionPair, comparisons []gateComparison, verdicts []gate.Verdict, trend *harness.Trend) error {
	if err := writeDigestedSummary(dir, headSummary); err != nil {
		return err
	}
	if baseResults != nil {
		baseSummary, err := harness.ScoreStream(baseResults)
		if err != nil {
			return err
		}
		if err := writeDigestedSummary(filepath.Join(dir, "base"), baseSummary); err != nil {
			return err
		}
	}
	var heads []*registry.Version
	for _, p := range pairs {
		heads = append(heads, p.head)
	}
	meta, err := reports.MetaFromStream(headResults)
	if err != nil {
		return err
	}
	meta.Versions = versionMetas(heads)
	meta.Title = "routebench gate"
	meta.GeneratedAt = time.Now().UTC()
	meta.Commit = gitCommit()
	changes := promptChanges(pairs)
	headIn, err := gateReportInput(meta, headResults, headSummary, comparisons, verdicts)
	if err != nil {
		return err
	}
	headIn.Changes = changes
	headIn.Trend = trend
	if err := outdir.WriteFile(filepath.Join(dir, "report.html"), func(w io.Writer) error { return reports.WriteHTML(w, headIn) }); err != nil {
		return err
	}
	if err := outdir.WriteFile(filepath.Join(dir, "junit.xml"), func(w io.Writer) error { return reports.WriteJUnitStream(w, headResults) }); err != nil {
		return err
	}

	var pairInputs []reports.Input
	for _, gc := range comparisons {
		name := gc.pair.head.Name
		if err := outdir.WriteFile(filepath.Join(dir, "compare-"+name+".txt"), func(w io.Writer) error {
			return compare.WriteText(w, gc.cmp, compare.TextOptions{})
		}); err != nil {
			return err
		}
		if gc.pair.unchanged() {
			continue // one version against itself: nothing for a report to show
		}
		m := meta
		m.Title = fmt.Sprintf("routebench gate: %s → %s", gc.cmp.Base, gc.cmp.Head)
		in, err := pairReportInput(gc, m)
		if err != nil {
			return err
		}
		for _, c := range changes {
			if c.Head == gc.pair.head.ID() && c.Base == gc.pair.base.ID() {
				in.Changes = append(in.Changes, c)
			}
		}
		for i, v := range verdicts {
			if v.Head == gc.pair.head.ID() {
				in.Gate = gateVerdicts(verdicts[i : i+1])
			}
		}
		pairInputs = append(pairInputs, in)
		if err := outdir.WriteFile(filepath.Join(dir, "compare-"+name+".html"), func(w io.Writer) error { return reports.WriteHTML(w, in) }); err != nil {
			return err
		}
	}

	record := gateRecord{Format: harness.FormatVersion, Config: hc.Path, Gate: cfg, Pass: gate.Passed(verdicts), Verdicts: verdicts}
	data, err := json.MarshalIndent(record, "", "  ")
	if err != nil {
		return fmt.Errorf("encode gate.json: %w", err)
	}
	if err := outdir.WriteFile(filepath.Join(dir, "gate.json"), func(w io.Writer) error { _, err := w.Write(append(data, '\n')); return err }); err != nil {
		return err
	}

	// summary.md: the verdict first, then each changed version's paired
	// report, so a pull-request reader sees why before the detail.
	return outdir.WriteFile(filepath.Join(dir, "summary.md"), func(w io.Writer) error {
		if err := gate.WriteMarkdown(w, verdicts); err != nil {
			return err
		}
		for _, in := range pairInputs {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
			if err := reports.WriteMarkdown(w, in); err != nil {
				return err
			}
		}
		if len(pairInputs) == 0 {
			return reports.WriteMarkdown(w, headIn)
		}
		return nil
	})
}
