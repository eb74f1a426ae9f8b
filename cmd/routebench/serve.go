package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/internal/exitcode"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/models"
	"github.com/routebench/routebench/router/target"
)

func init() { subcommands = append(subcommands, newServeCmd) }

type serveOptions struct {
	version         string
	addr            string
	judge, embedder string
	maxRequest      int64
}

func newServeCmd() *cobra.Command {
	var o serveOptions
	cmd := &cobra.Command{
		Use:   "serve --version DIR [--addr 127.0.0.1:8080] [--judge X] [--embedder Y]",
		Short: "Serve a prompt version's router over HTTP: POST /route, request JSON in, Decision JSON out",
		Long: `Serve the router of one prompt version (its workflows routable beside its
skills) with the wire formats of DESIGN §13, so the router that was tested
is the router that runs, and so "--target http://HOST/route" can score it:

  POST /route    the request JSON {id, text, caller: {scopes, disabled}, now,
                 tools, turns} in, a Decision out (200)
  GET  /healthz  {"status": "ok"}
  GET  /version  the version id, name, fingerprint, directory, judge, embedder

Errors are JSON, {"error": {"code", "message", "field"}}: 400 invalid_request
(not JSON, an unknown or missing field, a bad value: the field is named), 405
method_not_allowed, 404 not_found, 413 request_too_large (over
--max-request-bytes). Requests are served concurrently; per-request tools are
loaded once and kept (the 128 most recent). The address actually listened on
is printed first ("listening on http://127.0.0.1:PORT"), so --addr
127.0.0.1:0 picks a free port. SIGINT or SIGTERM stops taking connections and
lets the requests in flight finish (up to 30s).

--judge, --embedder and the provider flags work as for route.

Exit codes: 0 stopped by a signal; 2 bad flags, a version that does not
load, or models that cannot be configured (an unknown judge, a missing API
key); 3 the router could not be built or the address cannot be listened on.

Examples:
  routebench serve --version fixtures/ops/prompts/v2
  routebench serve --version fixtures/ops/prompts/v2 --addr 127.0.0.1:0
  curl -s localhost:8080/route -d '{"id":"r1","text":"restart payment-api in prod","caller":{"scopes":["ops:write"],"disabled":[]}}'
  routebench run --versions fixtures/ops/prompts/v2 --suites suites/ops --target http://127.0.0.1:8080/route`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(commandContext(cmd), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return serveCommand(ctx, cmd, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.version, "version", "", "prompt version directory or git:REV:DIR (required)")
	f.StringVar(&o.addr, "addr", "127.0.0.1:8080", "address to listen on; port 0 picks a free one")
	f.StringVar(&o.judge, "judge", "", "judge model, overriding the version's (builtin, openai:<model>, anthropic:<model>)")
	f.StringVar(&o.embedder, "embedder", "", "embedding model, overriding the version's (builtin, openai:<model>, ollama:<model>)")
	f.Int64Var(&o.maxRequest, "max-request-bytes", target.DefaultMaxRequestBytes, "largest request body read; a larger one is answered 413")
	return withProviderFlags(cmd)
}

// serveCommand builds the router and serves it until ctx ends.
func serveCommand(ctx context.Context, cmd *cobra.Command, o serveOptions) error {
	if strings.TrimSpace(o.version) == "" {
		return exitcode.Usagef("serve: --version is required, e.g. --version fixtures/ops/prompts/v2")
	}
	if o.maxRequest <= 0 {
		return exitcode.Usagef("serve: --max-request-bytes must be > 0, got %d", o.maxRequest)
	}
	vs, err := loadVersions([]string{o.version})
	if err != nil {
		return exitcode.Usagef("serve: load version %s:\n%v", o.version, err)
	}
	v, err := harness.RoutingVersion(vs[0])
	if err != nil {
		return exitcode.Usagef("serve: %v", err)
	}
	factory, err := models.ForVersion(v, o.judge, o.embedder)
	if err != nil {
		return exitcode.Usagef("serve: %v", err)
	}
	r, err := router.New(v, factory)
	if err != nil {
		return exitcode.With(exitcode.RunError, fmt.Errorf("serve: %w", err))
	}
	l, err := net.Listen("tcp", o.addr)
	if err != nil {
		return exitcode.With(exitcode.RunError, fmt.Errorf("serve: listen on %s: %w", o.addr, err))
	}
	s := &target.Server{Router: r, Version: v, MaxRequestBytes: o.maxRequest,
		Judge: models.JudgeSpec(v, o.judge), Embedder: embedderSpec(v.Router.Embedder, o.embedder)}
	fmt.Fprintf(cmd.OutOrStdout(), "listening on http://%s (version %s; POST /route, GET /healthz, GET /version)\n", l.Addr(), v.ID())
	if err := target.Serve(ctx, l, s.Handler()); err != nil {
		return exitcode.With(exitcode.RunError, err)
	}
	fmt.Fprintln(cmd.ErrOrStderr(), "serve: stopped")
	return nil
}

// embedderSpec is the embedder a version routes with: the override, else
// its own, else builtin.
func embedderSpec(own, override string) string {
	if s := strings.TrimSpace(override); s != "" {
		return s
	}
	if own == "" {
		return models.Builtin
	}
	return own
}
