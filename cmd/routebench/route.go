package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/internal/exitcode"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/models"
	"github.com/routebench/routebench/router/registry"
)

func init() { subcommands = append(subcommands, newRouteCmd) }

// routeOptions are `routebench route`'s flags.
type routeOptions struct {
	version  string
	scopes   []string
	disabled []string
	now      string
	judge    string
	embedder string
	target   string
}

func newRouteCmd() *cobra.Command {
	var o routeOptions
	cmd := &cobra.Command{
		Use:   "route --version DIR [--scopes a,b] [--disabled s,t] [--now RFC3339] [--judge X] [--embedder Y] TEXT",
		Short: "Route one request through a prompt version and print the Decision as JSON",
		Long: `Route one request through the three-stage router of a prompt version
(policy, rules, recall, judgment, bands and gates, params validation) and
print the Decision, trace included, as indented JSON.

--version is a prompt version directory, or git:REV:DIR.
--scopes are the caller's permission scopes; without the flag the caller
holds every scope any skill of the version needs, x-permission scopes such
as ops:prod included (pass --scopes "" for a caller with none). --disabled switches skills off for the caller.
--now anchors relative dates (default: the current time).
--judge and --embedder override the version's models: builtin,
openai:<model>, anthropic:<model>, ollama:<model>.
--target http://HOST/route or exec:CMD sends the request to another router
instead (DESIGN §13) and prints its answer as scored: checked against the
Decision format and the version's skills, stamped with the version id.

Exit codes: 0 a decision was printed (whatever its action), 2 bad flags,
missing text or a version that does not load, 3 the models could not be set up.

Examples:
  routebench route --version fixtures/ops/prompts/v2 "看看华东区上周已发货的订单"
  routebench route --version fixtures/ops/prompts/v2 --scopes orders:read,alerts:read --now 2026-11-30T10:00:00+08:00 "华东区最近的告警"
  routebench route --version fixtures/ops/prompts/v2 --disabled restart_service "restart payment-api in prod"
  routebench route --version fixtures/ops/prompts/v2 --target 'exec:python3 fixtures/targets/keyword_router.py' "refund ORD-12345678"`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var scopes *[]string
			if cmd.Flags().Changed("scopes") {
				scopes = &o.scopes
			}
			return routeCommand(cmd, o, scopes, strings.Join(args, " "))
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.version, "version", "", "prompt version directory or git:REV:DIR (required)")
	f.StringSliceVar(&o.scopes, "scopes", nil, "caller's permission scopes, comma-separated (default: every scope the version's skills need)")
	f.StringSliceVar(&o.disabled, "disabled", nil, "skills switched off for the caller, comma-separated")
	f.StringVar(&o.now, "now", "", "the request's time, RFC 3339, anchoring relative dates (default: now)")
	f.StringVar(&o.judge, "judge", "", "judge model, overriding the version's (builtin, openai:<model>, anthropic:<model>)")
	f.StringVar(&o.embedder, "embedder", "", "embedding model, overriding the version's (builtin, openai:<model>, ollama:<model>)")
	addTargetFlag(f, &o.target)
	return withProviderFlags(cmd)
}

// routeCommand validates the flags, routes the text and prints the decision.
// scopes is nil when --scopes was not given.
func routeCommand(cmd *cobra.Command, o routeOptions, scopes *[]string, text string) error {
	if strings.TrimSpace(o.version) == "" {
		return exitcode.Usagef("route: --version is required, e.g. --version fixtures/ops/prompts/v2")
	}
	if strings.TrimSpace(text) == "" {
		return exitcode.Usagef(`route: no request text; give it as the argument, e.g. routebench route --version %s "华东区上周的订单"`, o.version)
	}
	now := time.Now()
	if o.now != "" {
		t, err := time.Parse(time.RFC3339, o.now)
		if err != nil {
			return exitcode.Usagef("route: --now %q is not RFC 3339; write it like 2026-11-30T10:00:00+08:00", o.now)
		}
		now = t
	}
	vs, err := loadVersions([]string{o.version})
	if err != nil {
		return exitcode.Usagef("route: load version %s:\n%v", o.version, err)
	}
	// The router offers the version's workflows beside its skills.
	v, err := harness.RoutingVersion(vs[0])
	if err != nil {
		return exitcode.Usagef("route: %v", err)
	}
	caller := router.Caller{Scopes: neededScopes(v.Registry), Disabled: cleanList(o.disabled)}
	if scopes != nil {
		caller.Scopes = cleanList(*scopes)
	}
	for _, d := range caller.Disabled {
		if v.Registry.Skill(d) == nil {
			return exitcode.Usagef("route: --disabled names %q, which is not a skill of %s; its skills are %s", d, v.ID(), strings.Join(v.Registry.Names(), ", "))
		}
	}
	tg, err := parseTarget(o.target, o.judge, o.embedder)
	if err != nil {
		return err
	}
	var r harness.Router
	if tg != nil {
		defer tg.Close()
		if r, err = tg.router(v); err != nil {
			return exitcode.With(exitcode.RunError, fmt.Errorf("route: target %s: %w", tg.spec, err))
		}
	} else {
		factory, err := models.ForVersion(v, o.judge, o.embedder)
		if err != nil {
			return exitcode.Usagef("route: %v", err)
		}
		if r, err = router.New(v, factory); err != nil {
			return exitcode.With(exitcode.RunError, fmt.Errorf("route: %w", err))
		}
	}
	d, err := r.Route(commandContext(cmd), router.Request{ID: "route", Text: text, Caller: caller, Now: now})
	if err != nil {
		return exitcode.With(exitcode.RunError, fmt.Errorf("route: %w", err))
	}
	return printDecision(cmd.OutOrStdout(), d)
}

// neededScopes is every scope any skill of the registry needs, by its
// permission_scope or an x-permission on a param value: the default caller
// may do everything, so `route` shows what the router does, not what a
// permission setup hides.
func neededScopes(reg *registry.Registry) []string {
	var out []string
	add := func(sc string) {
		if sc != "" && !slices.Contains(out, sc) {
			out = append(out, sc)
		}
	}
	for _, s := range reg.Skills {
		for _, sc := range s.PermissionScope {
			add(sc)
		}
		for _, p := range s.Properties() {
			perm, _ := p["x-permission"].(map[string]any)
			for _, scopes := range perm {
				list, _ := scopes.([]any)
				for _, sc := range list {
					name, _ := sc.(string)
					add(name)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

func cleanList(xs []string) []string {
	out := []string{}
	for _, x := range xs {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// printDecision writes the decision as indented JSON, leaving < > & and
// non-ASCII text readable.
func printDecision(w io.Writer, d router.Decision) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(d); err != nil {
		return fmt.Errorf("route: write decision: %w", err)
	}
	return nil
}
