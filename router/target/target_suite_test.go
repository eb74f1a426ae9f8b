package target_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/internal/specrun"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/models"
	"github.com/routebench/routebench/router/providers"
	"github.com/routebench/routebench/router/registry"
	"github.com/routebench/routebench/router/target"
)

// The HTTP specs run against local httptest servers that speak DESIGN
// §13's wire format (the request JSON in, a Decision out); the exec specs
// run small sh scripts and the Python example of fixtures/targets.

func TestTarget(t *testing.T) {
	RegisterFailHandler(Fail)
	specrun.RunSpecs(t, "Target Suite")
}

const (
	opsV2     = "../../fixtures/ops/prompts/v2"
	pyExample = "../../fixtures/targets/keyword_router.py"
)

var (
	v2Once sync.Once
	v2     *registry.Version
)

// routingV2 is the ops demo's v2 with its workflows routable, as the
// harness gives it to a router.
func routingV2() *registry.Version {
	v2Once.Do(func() {
		v, err := registry.Load(opsV2)
		Expect(err).NotTo(HaveOccurred())
		v2, err = harness.RoutingVersion(v)
		Expect(err).NotTo(HaveOccurred())
	})
	return v2
}

// builtinV2 is routebench's own router for v2 with the builtin models.
func builtinV2() *router.Router {
	v := routingV2()
	factory, err := models.ForVersion(v, "", "")
	Expect(err).NotTo(HaveOccurred())
	r, err := router.New(v, factory)
	Expect(err).NotTo(HaveOccurred())
	return r
}

// gatewayOpts are fast provider options for specs: short timeouts and
// backoff, cassettes off unless a spec sets them.
func gatewayOpts() providers.Options {
	return providers.Options{Timeout: 2 * time.Second, RetryBackoff: 5 * time.Millisecond, RetryCap: 5 * time.Second, Cassettes: providers.CassettesOff}
}

func newGateway(o providers.Options) *providers.Gateway {
	g, err := providers.New(o)
	Expect(err).NotTo(HaveOccurred())
	return g
}

// newTarget builds a target router for v2 and closes it after the spec.
func newTarget(spec string, o target.Options) *target.Router {
	s, err := target.ParseSpec(spec)
	Expect(err).NotTo(HaveOccurred())
	if o.Gateway == nil {
		o.Gateway = newGateway(gatewayOpts())
	}
	r, err := target.New(s, routingV2(), o)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(r.Close)
	return r
}

// ask routes one made-up request and fails the spec on a routing error
// (only a cancelled context gives one).
func ask(r harness.Router, text string, scopes ...string) router.Decision {
	d, err := r.Route(context.Background(), router.Request{ID: "spec-" + text, Text: text, Caller: router.Caller{Scopes: scopes},
		Now: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)})
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	return d
}

// script writes an sh script and returns the exec: spec running it.
func script(body string) string {
	path := filepath.Join(GinkgoT().TempDir(), "target.sh")
	Expect(os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755)).To(Succeed())
	return "exec:sh " + path
}

// needPython skips a spec when python3 is missing; .ci/run installs it.
func needPython() {
	if _, err := exec.LookPath("python3"); err != nil {
		Skip("python3 is not installed (apt-get install -y python3; .ci/run does): the Python example target cannot run")
	}
}

// firstError is the decision's first error, for messages.
func firstError(d router.Decision) router.Error {
	ExpectWithOffset(1, d.Errors).NotTo(BeEmpty(), "decision %+v has no error", d)
	return d.Errors[0]
}

func describe(d router.Decision) string {
	return fmt.Sprintf("%s %s %v (%v)", d.Action, d.Skill, d.Params, d.Errors)
}

func bg() context.Context { return context.Background() }

// toolsOf loads a made-up skills.yaml list as a case's own tools.
func toolsOf(yamlText string) *registry.Registry {
	skills, err := registry.ParseSkills("tools.yaml", []byte(yamlText))
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	reg, err := registry.New(skills)
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	return reg
}
