package lint

import (
	"context"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

// forgetfulRouter answers every request with a decision that names no version.
type forgetfulRouter struct{}

func (forgetfulRouter) Route(context.Context, router.Request) (router.Decision, error) {
	return router.Decision{Action: router.Refuse, Version: "unnamed"}, nil
}

// UseForgetfulRouter makes the fingerprint check route through a router
// that drops the version id, and returns a function that restores it.
func UseForgetfulRouter() (restore func()) {
	saved := newProbeRouter
	newProbeRouter = func(*registry.Version) (prober, error) { return forgetfulRouter{}, nil }
	return func() { newProbeRouter = saved }
}
