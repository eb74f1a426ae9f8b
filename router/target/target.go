// Package target is both ends of DESIGN §13's wire: a Router that sends
// each request to another router — an HTTP service (`--target
// http://host/route`) or a long-lived process per worker (`--target
// exec:CMD`) — and reads its Decision, and a Server that exposes
// routebench's own router the same way (`routebench serve`).
//
// A target's answer is held to the Decision format: anything else (not
// JSON, an unknown action, a missing field, a skill the request did not
// offer) becomes action error with a schema_error, never a refusal; a
// target that does not answer at all (down, 5xx after the retry, a crashed
// process, a timeout) is a provider_error. The harness then scores the
// decision as it scores its own router's, policy from the case's caller
// whatever the target claims.
package target

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/providers"
	"github.com/routebench/routebench/router/registry"
)

// Stage is the Decision.Stage of a decision the target adapter made
// itself (the target failed) and the trace step saying who answered.
const Stage = router.StageTarget

// RuleNotADecision is the Rule of the schema_error for an answer that is
// not a Decision; a skill outside the request's skills gets
// router.RuleInvalidSkill, as a judge naming a non-candidate does.
const RuleNotADecision = "not_a_decision"

// ModelPrefix starts Decision.Model of every decision a target answered,
// followed by the target as given ("target:http://127.0.0.1:8080/route"),
// so results and reports say what was scored.
const ModelPrefix = "target:"

// Environment variables an exec target is started with, so a router that
// reads prompt files can find the version under test.
const (
	EnvVersion    = "ROUTEBENCH_VERSION"     // the version id, e.g. v2@3f9a1c2e
	EnvVersionDir = "ROUTEBENCH_VERSION_DIR" // its directory, or git:REV:DIR
)

// VersionHeader is the HTTP header naming the version under test.
const VersionHeader = "Routebench-Version"

// DefaultMaxAnswerBytes bounds an answer read from a target, as provider
// answers are bounded.
const DefaultMaxAnswerBytes = providers.DefaultMaxResponseBytes

// maxRawInTrace bounds the unusable answer kept in the trace for people
// to read.
const maxRawInTrace = 4 << 10

// Spec is a parsed `--target`: an http(s) URL or exec:CMD.
type Spec struct {
	// URL is set for an HTTP target, Command for an exec one.
	URL     string
	Command string
	raw     string
}

// String is the target as given.
func (s Spec) String() string { return s.raw }

// IsExec reports whether the target is a process.
func (s Spec) IsExec() bool { return s.Command != "" }

// ParseSpec reads `--target`: http://HOST[:PORT]/PATH, https://…, or
// exec:CMD (run with sh -c).
func ParseSpec(s string) (Spec, error) {
	s = strings.TrimSpace(s)
	if cmd, ok := strings.CutPrefix(s, "exec:"); ok {
		if strings.TrimSpace(cmd) == "" {
			return Spec{}, errors.New(`target "exec:" names no command; write exec:CMD, e.g. exec:python3 fixtures/targets/keyword_router.py`)
		}
		return Spec{Command: cmd, raw: s}, nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Spec{}, fmt.Errorf("target %q: want http://HOST/route, https://HOST/route or exec:CMD", s)
	}
	if u.User != nil {
		return Spec{}, fmt.Errorf("target %q: credentials in the URL would be written into results and cassettes; leave them out", redactURL(u))
	}
	for name := range u.Query() {
		if credentialParam.MatchString(name) {
			return Spec{}, fmt.Errorf("target %q: query parameter %s looks like a credential, which would be written into results and cassettes; have the target read it from its own environment", redactURL(u), name)
		}
	}
	// Results, traces and messages show the URL with its query values
	// masked; only requests carry them.
	return Spec{URL: u.String(), raw: redactURL(u)}, nil
}

// credentialParam matches query parameter names that carry secrets.
var credentialParam = regexp.MustCompile(`(?i)(key|token|secret|passw|auth|signature|^sig$|credential|session)`)

// redactURL is u without credentials and with every query value masked.
func redactURL(u *url.URL) string {
	c := *u
	c.User = nil
	if c.RawQuery != "" {
		var masked []string
		for _, name := range slices.Sorted(maps.Keys(c.Query())) {
			masked = append(masked, url.QueryEscape(name)+"=***")
		}
		c.RawQuery = strings.Join(masked, "&")
	}
	return c.String()
}

// Options configure a target Router.
type Options struct {
	// Gateway is the HTTP stack of an HTTP target: cassettes, limits,
	// retry, redaction. Required for HTTP targets.
	Gateway *providers.Gateway
	// Timeout bounds one exchange with an exec target's process (default
	// 60s); an HTTP target's attempts are bounded by the gateway's.
	Timeout time.Duration
	// Concurrency and RPM bound an exec target as a provider is bounded:
	// processes at once and requests a minute (0 = unlimited).
	Concurrency, RPM int
	// MaxAnswerBytes bounds one answer (default DefaultMaxAnswerBytes).
	MaxAnswerBytes int64
}

func (o Options) defaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = 60 * time.Second
	}
	if o.MaxAnswerBytes <= 0 {
		o.MaxAnswerBytes = DefaultMaxAnswerBytes
	}
	return o
}

// transport sends one encoded request and returns the raw answer; diag is
// what else there is to say when the answer proves unusable (an exec
// process's stderr during the case, that it was restarted), for error
// messages; note says how the answer came (replayed).
type transport interface {
	exchange(ctx context.Context, req router.Request, body []byte) (answer []byte, note, diag string, err error)
	close() error
}

// Router routes through a target for one prompt version. Route is safe
// for concurrent use; Close stops an exec target's processes.
type Router struct {
	spec Spec
	v    *registry.Version
	t    transport
}

// New builds the router for v: the version under test, whose id every
// decision carries and whose registry (the routing registry, workflows
// included) a decision's skills must come from when the request brings
// no tools of its own.
func New(spec Spec, v *registry.Version, o Options) (*Router, error) {
	if v == nil || v.Registry == nil {
		return nil, errors.New("target: version has no registry")
	}
	o = o.defaults()
	r := &Router{spec: spec, v: v}
	switch {
	case spec.IsExec():
		r.t = newExecTarget(spec, v, o)
	case spec.URL != "":
		if o.Gateway == nil {
			return nil, errors.New("target: an HTTP target needs the provider gateway (cassettes, limits, retry)")
		}
		r.t = newHTTPTarget(spec, v, o)
	default:
		return nil, errors.New("target: empty spec; parse it with ParseSpec")
	}
	return r, nil
}

// Close ends what the target keeps running (an exec target's processes:
// stdin closed, then killed if they linger).
func (r *Router) Close() error { return r.t.close() }

// Route sends the request and reads the answer. The error is only for a
// cancelled context; every failure of the target is a Decision with
// action error.
func (r *Router) Route(ctx context.Context, req router.Request) (router.Decision, error) {
	start := time.Now()
	if err := ctx.Err(); err != nil {
		return router.Decision{}, err
	}
	body, err := router.EncodeRequest(req)
	if err != nil {
		return router.Decision{}, err
	}
	answer, note, diag, err := r.t.exchange(ctx, req, body)
	if ctxErr := ctx.Err(); ctxErr != nil {
		return router.Decision{}, ctxErr
	}
	var d router.Decision
	if err != nil {
		d = r.failed(router.Error{Category: router.CatProviderError, Message: fmt.Sprintf("target %s: %v", r.spec, err)}, "", note)
	} else {
		d = r.read(answer, req, note, diag)
	}
	d.LatencyUS = max(1, time.Since(start).Microseconds())
	return d, nil
}

// read holds an answer to the Decision format and to the skills the
// request offered, and stamps it with the version under test.
func (r *Router) read(answer []byte, req router.Request, note, diag string) router.Decision {
	withDiag := func(msg string) string {
		if diag != "" {
			msg += "; " + diag
		}
		return msg
	}
	d, err := router.DecodeDecision(answer)
	if err != nil {
		var we *router.WireError
		path := ""
		if errors.As(err, &we) {
			path = we.Field
		}
		return r.failed(router.Error{Category: router.CatSchemaError, Rule: RuleNotADecision, Path: path,
			Message: withDiag(fmt.Sprintf("target %s answered something that is not a Decision: %v", r.spec, err))}, string(answer), note)
	}
	reg, whose := r.v.Registry, "version "+r.v.ID()+"'s skills"
	if req.Tools != nil {
		reg, whose = req.Tools, "the request's tools"
	}
	for _, name := range namedSkills(d) {
		if reg.Skill(name) == nil {
			hint := ""
			if s := registry.Suggest(name, reg.Names()); s != "" {
				hint = fmt.Sprintf(" (did it mean %s?)", s)
			}
			return r.failed(router.Error{Category: router.CatSchemaError, Rule: router.RuleInvalidSkill, Path: "skill",
				Message: fmt.Sprintf("target %s named skill %q, which is not among %s%s", r.spec, name, whose, hint)}, string(answer), note)
		}
	}
	said := ""
	if d.Version != "" && d.Version != r.v.ID() {
		said = fmt.Sprintf("; it calls itself version %q", d.Version)
	}
	if d.Model != "" {
		said += fmt.Sprintf("; its model %q", d.Model)
	}
	step := router.TraceStep{Stage: Stage, Provider: r.spec.String(), Note: "answered by " + r.spec.String() + note + said}
	d.Trace = append([]router.TraceStep{step}, d.Trace...)
	if d.Stage == "" {
		d.Stage = Stage
	}
	d.Version = r.v.ID()
	d.Model = ModelPrefix + r.spec.String()
	return d
}

// namedSkills are the skills a decision puts forward: the one it names
// and the candidates it offers.
func namedSkills(d router.Decision) []string {
	var out []string
	if d.Skill != "" {
		out = append(out, d.Skill)
	}
	for _, c := range d.Candidates {
		if !slices.Contains(out, c.Skill) {
			out = append(out, c.Skill)
		}
	}
	return out
}

// failed is the decision for a target that did not give a usable answer:
// action error, never a refusal.
func (r *Router) failed(e router.Error, raw, note string) router.Decision {
	step := router.TraceStep{Stage: Stage, Provider: r.spec.String(), Raw: bounded(raw, maxRawInTrace),
		Errors: []router.Error{e}, Note: "asked " + r.spec.String() + note}
	return router.Decision{
		Action:     router.Fail,
		Params:     map[string]any{},
		Stage:      Stage,
		Candidates: []router.Candidate{},
		Errors:     []router.Error{e},
		Message:    e.Message,
		Trace:      []router.TraceStep{step},
		Version:    r.v.ID(),
		Model:      ModelPrefix + r.spec.String(),
	}
}

// bounded cuts s to at most n bytes on a rune boundary, saying so.
func bounded(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d bytes in all)", len(s))
}
