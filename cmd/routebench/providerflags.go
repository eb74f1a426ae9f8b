package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/internal/exitcode"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/models"
	"github.com/routebench/routebench/router/providers"
	"github.com/routebench/routebench/router/registry"
)

// providerFlags configure model providers for the commands that call one
// (route, run, gate, calibrate, replay); the others do not show them, so
// their help lists only what changes what they do. They start from the ROUTEBENCH_*
// environment (providers.OptionsFromEnv); a flag given overrides it. They
// matter only for openai:/anthropic:/ollama: models; builtin ignores them.
type providerFlags struct {
	cassettes   string
	cassetteDir string
	baseURL     string
	rpm         int
	concurrency int
	timeout     time.Duration
	prices      string
	toolsOff    bool
	maxCost     float64
}

// budget is the --max-cost budget of this process, nil when unlimited.
var budget *providers.Budget

// withProviderFlags adds the provider flags to cmd, a command that routes
// through a model, and configures the providers before it runs.
func withProviderFlags(cmd *cobra.Command) *cobra.Command {
	p := &providerFlags{}
	f := cmd.Flags()
	f.StringVar(&p.cassettes, "cassettes", "", "model exchanges: off, replay (offline, a missing entry is an error), record, auto (default $ROUTEBENCH_CASSETTES or off)")
	f.StringVar(&p.cassetteDir, "cassette-dir", "", "cassette store (default "+providers.DefaultCassetteDir+")")
	f.StringVar(&p.baseURL, "base-url", "", "base URL of every provider, e.g. http://localhost:11434/v1 (default $OPENAI_BASE_URL, $ANTHROPIC_BASE_URL, $OLLAMA_HOST)")
	f.IntVar(&p.rpm, "rpm", 0, "requests per minute per provider (0: unlimited)")
	f.IntVar(&p.concurrency, "provider-concurrency", 0, "requests in flight per provider (0: unlimited)")
	f.DurationVar(&p.timeout, "timeout", 0, "one provider attempt, body included (default 60s)")
	f.StringVar(&p.prices, "prices", "", "USD per 1M tokens, model=in/out,... (adds to the default table)")
	f.BoolVar(&p.toolsOff, "judge-tools-off", false, "ask model judges for JSON following the contract schema instead of tool calls")
	f.Float64Var(&p.maxCost, "max-cost", 0, "stop the run cleanly before model calls would cost more than this many USD (0: no limit)")
	prev := cmd.PreRunE
	cmd.PreRunE = func(cmd *cobra.Command, args []string) error {
		if err := p.configure(cmd); err != nil {
			return err
		}
		if prev != nil {
			return prev(cmd, args)
		}
		return nil
	}
	return cmd
}

// configure builds the provider options and hands them to router/models,
// which every provider model built afterwards uses.
func (p *providerFlags) configure(cmd *cobra.Command) error {
	o, err := providers.OptionsFromEnv()
	if err != nil {
		return exitcode.Usagef("provider settings: %v", err)
	}
	set := func(name string) bool { return cmd.Flags().Changed(name) }
	if set("cassettes") {
		if o.Cassettes, err = providers.ParseCassetteMode(p.cassettes); err != nil {
			return exitcode.Usagef("--cassettes: %v", err)
		}
	} else if cmd.Name() == "replay" {
		// A replay runs offline unless told otherwise, whatever the
		// environment says for runs.
		o.Cassettes = providers.CassettesReplay
	}
	if set("cassette-dir") {
		o.CassetteDir = p.cassetteDir
	}
	if set("base-url") {
		o.BaseURL = p.baseURL
	}
	if set("rpm") {
		o.RPM = p.rpm
	}
	if set("provider-concurrency") {
		o.Concurrency = p.concurrency
	}
	if set("timeout") {
		o.Timeout = p.timeout
	}
	if set("prices") {
		extra, err := providers.ParsePrices(p.prices)
		if err != nil {
			return exitcode.Usagef("--prices: %v", err)
		}
		o.Prices = o.Prices.With(extra)
	}
	if set("judge-tools-off") {
		o.ToolsOff = p.toolsOff
	}
	if p.maxCost < 0 {
		return exitcode.Usagef("--max-cost %v: want a positive number of USD, or 0 for no limit", p.maxCost)
	}
	budget = nil
	if p.maxCost > 0 {
		budget = providers.NewBudget(p.maxCost)
		o.Budget = budget
	}
	if _, err := models.ConfigureProviders(o); err != nil {
		return exitcode.Usagef("provider settings: %v", err)
	}
	return nil
}

// budgetedRouter stops a run cleanly before the --max-cost budget could be
// exceeded: it cancels the run instead of routing one more case, so every
// finished case is kept and --resume with a larger budget goes on.
type budgetedRouter struct {
	inner harness.Router
	stop  context.CancelCauseFunc
}

func (b budgetedRouter) Route(ctx context.Context, req router.Request) (router.Decision, error) {
	if err := budget.Check(); err != nil {
		b.stop(err)
		return router.Decision{}, context.Cause(ctx)
	}
	return b.inner.Route(ctx, req)
}

// withBudget wraps a router factory so every router checks the budget.
func withBudget(ctx context.Context, newRouter func(v *registry.Version) (harness.Router, error)) (context.Context, func(v *registry.Version) (harness.Router, error)) {
	if budget == nil {
		return ctx, newRouter
	}
	ctx, stop := context.WithCancelCause(ctx)
	return ctx, func(v *registry.Version) (harness.Router, error) {
		r, err := newRouter(v)
		if err != nil {
			return nil, err
		}
		return budgetedRouter{inner: r, stop: stop}, nil
	}
}

// budgetStop explains a run that the budget stopped, or returns nil.
func budgetStop(ctx context.Context) error {
	if cause := context.Cause(ctx); errors.Is(cause, providers.ErrBudgetExceeded) {
		return exitcode.With(exitcode.RunError, fmt.Errorf("stopped before exceeding --max-cost: %w; finished cases are in results.jsonl, rerun with --resume and a larger --max-cost", cause))
	}
	return nil
}
