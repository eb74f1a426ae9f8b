package main

import (
	"fmt"
	"sync"

	"github.com/spf13/pflag"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/internal/exitcode"
	"github.com/routebench/routebench/router/models"
	"github.com/routebench/routebench/router/registry"
	"github.com/routebench/routebench/router/target"
)

// targetHelp is --target's line in run, gate, route and replay.
const targetHelp = "score another router instead of routebench's own: http://HOST/route (POST the request JSON) or exec:CMD (one JSON line in, one out, per worker process); see DESIGN §13"

// targetLong is the paragraph about --target in those commands' help.
const targetLong = `--target http://HOST/route or exec:CMD routes every request through another
router (DESIGN §13) instead of routebench's own: each case becomes the request
JSON (id, text, caller, now, tools when the case has its own, turns with the
earlier turns' decisions), and the answer must be a Decision. It is scored as
routebench's router is: policy from the case's caller whatever the target
claims; an answer that is not a Decision, or names a skill the request did not
offer, is action error (schema_error), never a refusal; a target that does not
answer (down, 5xx after the one retry, a crashed process, --timeout) is a
provider_error (exit 3). HTTP targets get the provider limits, retry and
cassettes; exec targets run one process per worker, started with
ROUTEBENCH_VERSION and ROUTEBENCH_VERSION_DIR set. --judge and --embedder do not
apply.`

func addTargetFlag(f *pflag.FlagSet, dst *string) {
	f.StringVar(dst, "target", "", targetHelp)
}

// targets builds a command's target routers, one per version, and closes
// them (an exec target's processes) when the command ends.
type targets struct {
	spec target.Spec

	mu   sync.Mutex
	open []*target.Router
}

// parseTarget reads --target; "" means routebench's own router (nil).
// With a target, --judge and --embedder would silently do nothing, so
// they are usage errors.
func parseTarget(spec, judge, embedder string) (*targets, error) {
	if spec == "" {
		return nil, nil
	}
	s, err := target.ParseSpec(spec)
	if err != nil {
		return nil, exitcode.Usagef("--target: %v", err)
	}
	if judge != "" || embedder != "" {
		return nil, exitcode.Usagef("--target %s routes with the target's own models: drop --judge and --embedder", s)
	}
	return &targets{spec: s}, nil
}

// router builds the target router for one version, with the provider
// options (--timeout, --provider-concurrency, --rpm, --cassettes) the
// command configured.
func (t *targets) router(v *registry.Version) (*target.Router, error) {
	g, err := models.ProviderGateway()
	if err != nil {
		return nil, err
	}
	o := g.Options()
	r, err := target.New(t.spec, v, target.Options{Gateway: g, Timeout: o.Timeout, Concurrency: o.Concurrency, RPM: o.RPM, MaxAnswerBytes: o.MaxResponseBytes})
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	t.open = append(t.open, r)
	t.mu.Unlock()
	return r, nil
}

// factory is RunConfig.NewRouter for the target.
func (t *targets) factory() func(v *registry.Version) (harness.Router, error) {
	return func(v *registry.Version) (harness.Router, error) {
		r, err := t.router(v)
		if err != nil {
			return nil, fmt.Errorf("target %s: %w", t.spec, err)
		}
		return r, nil
	}
}

// Close stops every target router built; nil-safe.
func (t *targets) Close() {
	if t == nil {
		return
	}
	t.mu.Lock()
	open := t.open
	t.open = nil
	t.mu.Unlock()
	for _, r := range open {
		_ = r.Close()
	}
}

// failedAt names what a provider_error decision failed at: the model
// provider, or the router under test when --target is given.
func failedAt(target string) string {
	if target != "" {
		return "target"
	}
	return "model provider"
}
