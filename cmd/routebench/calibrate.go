package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/spf13/cobra"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/harness/calibrate"
	"github.com/routebench/routebench/internal/exitcode"
	"github.com/routebench/routebench/internal/outdir"
	"github.com/routebench/routebench/router/models"
)

func init() { subcommands = append(subcommands, newCalibrateCmd) }

// calibrateOptions are `routebench calibrate`'s flags.
type calibrateOptions struct {
	version          string
	suites           []string
	fitSuites        []string
	evalSuites       []string
	holdout          float64
	maxWrongExec     float64
	minRefusalRecall float64
	plot             string
	jsonOut          string
	judge            string
	embedder         string
	concurrency      int
	wide             bool
}

func newCalibrateCmd() *cobra.Command {
	var o calibrateOptions
	cmd := &cobra.Command{
		Use:   "calibrate --version DIR (--suites PATHS [--holdout F] | --fit-suites PATHS --eval-suites PATHS) [--max-wrong-exec 0.02] [--plot F.svg] [--json F]",
		Short: "Sweep confidence bands on labelled cases and recommend bands per side-effect class",
		Long: `Route every labelled case once, then re-derive each case's decision for every
band pair of the grid 0.00..1.00 (step 0.01, clarify <= execute) exactly as the
router's bands would, and print the trade-off between wrong executions,
clarifications and refusals.

Bands are recommended per side-effect class (read; write/delete/send pooled)
on the fit split: the lowest execute threshold whose wrong-execution rate over
the class's cases has a 95% Wilson upper bound <= --max-wrong-exec, and the
clarify threshold with the best decision accuracy at that execute. They are
then reported on the eval split, which they were not fitted on. When a class
has too few cases to meet the bound, its bands are shown as "not certified"
and no version.yaml snippet is printed. The split is
--holdout FRACTION of the cases (by a hash of the case id, default 0.5) or
the given --fit-suites and --eval-suites.

The judge's calibration (ECE over 10 bins, Brier) is reported before and
after Platt scaling fitted on the fit split. --min-refusal-recall R also
picks the one-band operating point with the best in-scope accuracy whose
refusal recall is >= R (CLINC150's out-of-scope recall).

Exit codes: 0 done, 2 bad flags, version or suite files, 3 a provider failed
beyond its retry (the report is still printed).

Examples:
  routebench calibrate --version fixtures/ops/prompts/v2 --suites suites/ops
  routebench calibrate --version fixtures/ops/prompts/v2 --suites suites/ops --max-wrong-exec 0.05 --plot bands.svg --json bands.json
  routebench calibrate --version /tmp/clinc/version --suites /tmp/clinc/suites --min-refusal-recall 0.491`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return calibrateCommand(cmd, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.version, "version", "", "prompt version directory or git:REV:DIR (required)")
	f.StringSliceVar(&o.suites, "suites", nil, "suite files or directories, split by --holdout")
	f.StringSliceVar(&o.fitSuites, "fit-suites", nil, "suite files or directories to fit the bands on (with --eval-suites, instead of --suites)")
	f.StringSliceVar(&o.evalSuites, "eval-suites", nil, "suite files or directories to report the fitted bands on")
	f.Float64Var(&o.holdout, "holdout", 0.5, "fraction of --suites' cases held out for the report, chosen by case id hash")
	f.Float64Var(&o.maxWrongExec, "max-wrong-exec", 0.02, "target maximum wrong-execution rate")
	f.Float64Var(&o.minRefusalRecall, "min-refusal-recall", 0, "also choose the operating point with the best in-scope accuracy at this refusal recall")
	f.StringVar(&o.plot, "plot", "", "write the trade-off and reliability plots to this SVG file")
	f.StringVar(&o.jsonOut, "json", "", "write the full report (grid, curves, records) as JSON to this file")
	f.StringVar(&o.judge, "judge", "", "override the version's judge (builtin, openai:MODEL, anthropic:MODEL)")
	f.StringVar(&o.embedder, "embedder", "", "override the version's embedder (builtin, openai:MODEL, ollama:MODEL)")
	f.IntVar(&o.concurrency, "concurrency", 0, "cases routed at once (default: one per CPU)")
	f.BoolVar(&o.wide, "wide", false, "print intervals and whole lines, whatever the terminal width")
	return withProviderFlags(cmd)
}

// checkCalibrateFlags reports every flag problem as a usage error.
func checkCalibrateFlags(o calibrateOptions) error {
	var problems []string
	if strings.TrimSpace(o.version) == "" {
		problems = append(problems, "--version is required, e.g. --version fixtures/ops/prompts/v2")
	}
	split := len(o.fitSuites) > 0 || len(o.evalSuites) > 0
	switch {
	case split && len(o.suites) > 0:
		problems = append(problems, "give either --suites (split by --holdout) or --fit-suites with --eval-suites, not both")
	case split && (len(o.fitSuites) == 0 || len(o.evalSuites) == 0):
		problems = append(problems, "--fit-suites and --eval-suites go together; give both")
	case !split && len(o.suites) == 0:
		problems = append(problems, "no cases: give --suites PATHS, or --fit-suites and --eval-suites")
	}
	if !(o.holdout > 0 && o.holdout < 1) {
		problems = append(problems, fmt.Sprintf("--holdout must be between 0 and 1 (exclusive), got %g", o.holdout))
	}
	if !(o.maxWrongExec > 0 && o.maxWrongExec < 1) {
		problems = append(problems, fmt.Sprintf("--max-wrong-exec must be between 0 and 1 (exclusive), got %g", o.maxWrongExec))
	}
	if !(o.minRefusalRecall >= 0 && o.minRefusalRecall <= 1) {
		problems = append(problems, fmt.Sprintf("--min-refusal-recall must be between 0 and 1, got %g", o.minRefusalRecall))
	}
	if o.concurrency < 0 {
		problems = append(problems, fmt.Sprintf("--concurrency must be >= 0, got %d", o.concurrency))
	}
	if len(problems) > 0 {
		return exitcode.Usagef("calibrate: %s", strings.Join(problems, "; "))
	}
	return nil
}

func calibrateCommand(cmd *cobra.Command, o calibrateOptions) error {
	if err := checkCalibrateFlags(o); err != nil {
		return err
	}
	vs, err := loadVersions([]string{o.version})
	if err != nil {
		return exitcode.Usagef("calibrate: load version %s:\n%v", o.version, err)
	}
	// Workflows are routable: the bands are calibrated over them too.
	v, err := harness.RoutingVersion(vs[0])
	if err != nil {
		return exitcode.Usagef("calibrate: %v", err)
	}
	if o.judge != "" || o.embedder != "" {
		if _, err := models.Factory(orBuiltin(o.judge), orBuiltin(o.embedder)); err != nil {
			return exitcode.Usagef("calibrate: %v", err)
		}
	}
	split := calibrate.Split{Method: "holdout", Holdout: o.holdout}
	paths := o.suites
	if len(o.fitSuites) > 0 {
		split = calibrate.Split{Method: "suites", FitSuites: o.fitSuites, EvalSuites: o.evalSuites}
		paths = append(append([]string{}, o.fitSuites...), o.evalSuites...)
	}
	cases, err := harness.LoadSuites(paths, v.Registry)
	if err != nil {
		return exitcode.With(exitcode.Usage, fmt.Errorf("calibrate: %w", err))
	}
	cases = routingLabelled(cases)
	var evalIDs map[string]bool
	if split.Method == "suites" {
		evalCases, err := harness.LoadSuites(o.evalSuites, v.Registry)
		if err != nil {
			return exitcode.With(exitcode.Usage, fmt.Errorf("calibrate: %w", err))
		}
		evalIDs = map[string]bool{}
		for _, c := range evalCases {
			evalIDs[c.ID] = true
		}
	}

	ctx, stop := signal.NotifyContext(commandContext(cmd), os.Interrupt)
	defer stop()
	records, err := calibrate.Collect(ctx, calibrate.CollectConfig{
		Version:     v,
		Cases:       cases,
		NewRouter:   routerFactory(o.judge, o.embedder, nil),
		Concurrency: o.concurrency,
	})
	if err != nil {
		return exitcode.With(exitcode.RunError, fmt.Errorf("calibrate: %w", err))
	}
	var fit, eval []calibrate.Record
	if evalIDs != nil {
		for _, r := range records {
			if evalIDs[r.Case] {
				eval = append(eval, r)
			} else {
				fit = append(fit, r)
			}
		}
	} else {
		fit, eval = calibrate.Holdout(records, o.holdout)
	}
	if len(fit) == 0 || len(eval) == 0 {
		return exitcode.Usagef("calibrate: %d cases split into %d to fit and %d to evaluate; both need cases (more cases, or another --holdout)", len(records), len(fit), len(eval))
	}
	judge, embedder := v.Router.Judge, v.Router.Embedder
	if o.judge != "" {
		judge = o.judge
	}
	if o.embedder != "" {
		embedder = o.embedder
	}
	rep := calibrate.Analyze(fit, eval, calibrate.Options{
		Version:          v.ID(),
		Judge:            orBuiltin(judge),
		Embedder:         orBuiltin(embedder),
		MaxWrongExec:     o.maxWrongExec,
		MinRefusalRecall: o.minRefusalRecall,
		Current:          v.Router.Bands,
		Split:            split,
	})

	if err := rep.WriteTextWidth(cmd.OutOrStdout(), textWidth(cmd.OutOrStdout(), o.wide)); err != nil {
		return err
	}
	if o.plot != "" {
		if err := outdir.WriteFile(o.plot, rep.WriteSVG); err != nil {
			return fmt.Errorf("calibrate: --plot: %w", err)
		}
	}
	if o.jsonOut != "" {
		if err := outdir.WriteFile(o.jsonOut, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", " ")
			return enc.Encode(rep)
		}); err != nil {
			return fmt.Errorf("calibrate: --json: %w", err)
		}
	}
	if rep.ProviderErrors > 0 {
		return exitcode.With(exitcode.RunError, fmt.Errorf("calibrate: %d cases failed at the model provider", rep.ProviderErrors))
	}
	return nil
}

// routingLabelled drops workflow cases that expect no routing action: they
// label what the engine does, not a decision the bands could get right.
// Conversations are dropped too: a later turn's decision depends on the
// earlier decisions, which change with the bands being swept.
func routingLabelled(cases []harness.Case) []harness.Case {
	out := cases[:0:0]
	for _, c := range cases {
		if c.IsConversation() {
			continue
		}
		if c.Workflow == nil || c.Expect.Action != "" {
			out = append(out, c)
		}
	}
	return out
}
