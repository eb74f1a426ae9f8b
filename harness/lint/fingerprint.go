package lint

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/builtin"
	"github.com/routebench/routebench/router/registry"
)

// probeNow anchors relative dates in the probe request; any fixed time does.
var probeNow = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

// fingerprint routes one example through the version with the builtin
// models (lint never calls a provider) and checks that the decision names
// the version by ID, since every result, trace and report is keyed by it.
func (c *checker) fingerprint(ctx context.Context) {
	v := c.v
	at := registry.Pos{File: v.Dir}
	r, err := newProbeRouter(v)
	if err != nil {
		c.add(Error, CheckFingerprint, nil, at, fmt.Sprintf("cannot build a router for %s to check its traces: %v", v.ID(), err))
		return
	}
	d, err := r.Route(ctx, probeRequest(v.Registry))
	if err != nil {
		c.add(Error, CheckFingerprint, nil, at, fmt.Sprintf("routing a probe request through %s failed: %v", v.ID(), err))
		return
	}
	if d.Version != v.ID() {
		c.add(Error, CheckFingerprint, nil, at, fmt.Sprintf(
			"a decision routed by %s carries version %q; every decision and trace must name the version as %s (name@fingerprint) so results can be told apart",
			v.ID(), d.Version, v.ID()))
	}
}

// prober routes one request; *router.Router is one.
type prober interface {
	Route(ctx context.Context, req router.Request) (router.Decision, error)
}

// newProbeRouter builds the router the fingerprint check asks; tests swap
// it for one that forgets the version.
var newProbeRouter = func(v *registry.Version) (prober, error) {
	return router.New(v, builtin.Models)
}

// probeRequest is the first example of the registry (or a skill's
// description when none has examples) from a caller holding every scope,
// so policy keeps every skill.
func probeRequest(reg *registry.Registry) router.Request {
	var scopes []string
	text := ""
	for _, s := range reg.Skills {
		for _, sc := range s.PermissionScope {
			if !slices.Contains(scopes, sc) {
				scopes = append(scopes, sc)
			}
		}
		if text == "" && len(s.Examples) > 0 {
			text = s.Examples[0].Input
		}
	}
	if text == "" && len(reg.Skills) > 0 {
		text = reg.Skills[0].Description
	}
	return router.Request{Text: text, Caller: router.Caller{Scopes: scopes}, Now: probeNow}
}
