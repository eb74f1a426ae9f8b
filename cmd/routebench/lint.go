package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/harness/lint"
	"github.com/routebench/routebench/internal/exitcode"
)

func init() { subcommands = append(subcommands, newLintCmd) }

// lintOptions are `routebench lint`'s flags.
type lintOptions struct {
	config        string
	versions      []string
	suites        []string
	maxSimilarity float64
	json          bool
	wide          bool
}

func newLintCmd() *cobra.Command {
	var o lintOptions
	cmd := &cobra.Command{
		Use:   "lint [--config F] [--versions a,b] [--suites ...] [--max-similarity 0.9] [--json]",
		Short: "Check prompt versions and suites against the registry checklist",
		Long: `Check every configured prompt version and the suites against the registry
checklist (DESIGN §10) and print one line per finding:

  file:line: severity: check: message

Checks: load (the version's files have problems; it never runs),
when_not_to_use and counter_examples (at least one each), examples (2-3
advised), confirm_gate (every write/delete/send skill writes its gate),
near_duplicate (two skills' description + when_to_use closer than
--max-similarity in builtin embedding space, the classic cause of
misrouting), description_fit (a description reads closer to another skill's
examples than to its own), trigger_precision (a trigger matches other
skills' examples or its own counter_examples), coverage (every skill in
normal, boundary and adversarial cases, as expected skill, clarify candidate
or never-list), failure_path (every side-effect skill in a case expecting
refuse or clarify), confusable_pair (skills offered together as clarify
candidates name each other in when_not_to_use), suite_skill and suite_load
(the suites name skills a version lacks, or do not load), fingerprint (a
routed decision carries the version's name@fingerprint). Lint uses the
builtin models only; it never calls a provider.

Exit codes: 0 no errors (warnings allowed), 1 lint failed (an error
finding), 2 bad flags or config, or a version or suite path that does not
exist.

Examples:
  routebench lint
  routebench lint --versions fixtures/ops/prompts/v3 --json
  routebench lint --versions git:origin/main:fixtures/ops/prompts/v2 --suites suites/ops
  routebench lint --max-similarity 0.8`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return lintCommand(cmd, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.config, "config", "", "config file (default routebench.yaml when present)")
	f.StringSliceVar(&o.versions, "versions", nil, "prompt version directories or git:REV:DIR, comma-separated (default: the config's)")
	f.StringSliceVar(&o.suites, "suites", nil, "suite files or directories (default: the config's; none skips the suite checks)")
	f.Float64Var(&o.maxSimilarity, "max-similarity", lint.DefaultMaxSimilarity, "cosine above which two skills' descriptions are near-duplicates, in (0, 1]")
	f.BoolVar(&o.json, "json", false, "print the findings as JSON")
	f.BoolVar(&o.wide, "wide", false, "one line per finding, whatever the terminal width (for grep)")
	return cmd
}

func lintCommand(cmd *cobra.Command, o lintOptions) error {
	if o.maxSimilarity <= 0 || o.maxSimilarity > 1 {
		return exitcode.Usagef("lint: --max-similarity must be in (0, 1], got %g", o.maxSimilarity)
	}
	versions, suites, err := lintInputs(o)
	if err != nil {
		return err
	}
	var targets []lint.Target
	for _, spec := range versions {
		t, err := lintTarget(spec)
		if err != nil {
			return err
		}
		targets = append(targets, t)
	}
	in := lint.Input{Targets: targets}
	if len(suites) > 0 {
		in.Cases, in.SuiteFindings = lint.LoadSuites(suites, targets)
	} else {
		fmt.Fprintln(cmd.ErrOrStderr(), "lint: no suites given; coverage, failure_path and confusable_pair are not checked")
	}
	report := lint.Lint(commandContext(cmd), in, lint.Options{MaxSimilarity: o.maxSimilarity})
	width := textWidth(cmd.OutOrStdout(), o.wide)
	write := func(w io.Writer, r lint.Report) error { return lint.WriteTextWidth(w, r, width) }
	if o.json {
		write = lint.WriteJSON
	}
	if err := write(cmd.OutOrStdout(), report); err != nil {
		return exitcode.With(exitcode.RunError, fmt.Errorf("lint: write findings: %w", err))
	}
	if n := report.Count(lint.Error); n > 0 {
		return exitcode.With(exitcode.GateFailed, fmt.Errorf("lint failed: %d error%s, %d warning%s",
			n, pluralS(n), report.Count(lint.Warning), pluralS(report.Count(lint.Warning))))
	}
	return nil
}

// lintInputs resolves the versions and suites from the flags and the
// config; a missing path is a usage error (exit 2), unlike a version
// whose files have problems, which lint reports as findings.
func lintInputs(o lintOptions) (versions, suites []string, err error) {
	cfgPath := o.config
	if cfgPath == "" {
		if _, err := os.Stat(harness.DefaultConfigFile); err == nil {
			cfgPath = harness.DefaultConfigFile
		}
	}
	cfg := &harness.Config{}
	if cfgPath != "" {
		if cfg, err = harness.LoadConfig(cfgPath); err != nil {
			return nil, nil, exitcode.With(exitcode.Usage, fmt.Errorf("lint: %w", err))
		}
	}
	versions, suites = cfg.Versions, cfg.Suites
	if len(o.versions) > 0 {
		versions = o.versions
	}
	if len(o.suites) > 0 {
		suites = o.suites
	}
	if len(versions) == 0 {
		return nil, nil, exitcode.Usagef("lint: no versions: give --versions, or a routebench.yaml listing them")
	}
	var missing []string
	for _, v := range versions {
		if strings.HasPrefix(v, "git:") {
			continue
		}
		if info, err := os.Stat(v); err != nil || !info.IsDir() {
			missing = append(missing, fmt.Sprintf("version %s is not a directory", v))
		}
	}
	for _, s := range suites {
		if _, err := os.Stat(s); err != nil {
			missing = append(missing, fmt.Sprintf("suite path %s does not exist", s))
		}
	}
	if len(missing) > 0 {
		return nil, nil, exitcode.Usagef("lint: %s; check --versions, --suites or the config", strings.Join(missing, "; "))
	}
	return versions, suites, nil
}

// lintTarget loads one version spec. A git revision that does not resolve
// is a usage error; problems in the version's files become findings.
func lintTarget(spec string) (lint.Target, error) {
	if !strings.HasPrefix(spec, "git:") {
		return lint.LoadDir(spec), nil
	}
	rest := strings.TrimPrefix(spec, "git:")
	i := strings.LastIndex(rest, ":")
	if i <= 0 || i == len(rest)-1 {
		return lint.Target{}, exitcode.Usagef("lint: %s: want git:REV:DIR, e.g. git:origin/main:fixtures/ops/prompts/v2", spec)
	}
	rev, dir := rest[:i], path.Clean(filepath.ToSlash(rest[i+1:]))
	if err := exec.Command("git", "rev-parse", "--verify", "--quiet", rev+"^{commit}").Run(); err != nil {
		return lint.Target{}, exitcode.Usagef("lint: %s: git revision %q does not resolve here", spec, rev)
	}
	if err := exec.Command("git", "cat-file", "-e", rev+":"+dir).Run(); err != nil {
		return lint.Target{}, exitcode.Usagef("lint: %s: %s does not exist at %s", spec, dir, rev)
	}
	t := lint.Target{Spec: spec}
	t.Version, t.Err = loadGitVersion(spec)
	if data, err := exec.Command("git", "show", rev+":"+path.Join(dir, "skills.yaml")).Output(); err == nil {
		t.RawSkills = data
	}
	return t, nil
}

func pluralS(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
