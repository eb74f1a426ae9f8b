package router_test

import (
	"context"
	"testing"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/models"
	"github.com/routebench/routebench/router/registry"
)

// BenchmarkRouteCases runs the cases of the ops suites (suites/ops: single
// requests, conversations, workflows) through harness.EvaluateCase under
// the three demo versions, version by version as a run routes them: the
// routing work of a whole run, in one goroutine so that an instruction
// count of Route (callgrind) is the same from one run to the next. Cases
// with their own tools are left out: their first request fits models for
// the tools, a cost a run pays once per tool set, which would swamp a
// count of a few passes. One op is one case, all its turns.
func BenchmarkRouteCases(b *testing.B) {
	f, err := models.Factory(models.Builtin, models.Builtin)
	if err != nil {
		b.Fatal(err)
	}
	type version struct {
		v  *registry.Version
		vw *harness.VersionWorkflows
		r  *router.Router
	}
	var versions []version
	for _, name := range []string{"v1", "v2", "v3"} {
		v, err := registry.Load(fixturesDir + name)
		if err != nil {
			b.Fatal(err)
		}
		vw, err := harness.PrepareWorkflows(v)
		if err != nil {
			b.Fatal(err)
		}
		r, err := router.New(vw.RoutingVersion(v), f)
		if err != nil {
			b.Fatal(err)
		}
		versions = append(versions, version{v, vw, r})
	}
	all, err := harness.LoadSuites([]string{"../suites/ops"})
	if err != nil {
		b.Fatal(err)
	}
	var cases []harness.Case
	for _, c := range all {
		if c.Tools == nil {
			cases = append(cases, c)
		}
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		v := versions[(i/len(cases))%len(versions)]
		c := &cases[i%len(cases)]
		if _, _, err := harness.EvaluateCase(ctx, v.r, v.v, v.vw, c, i); err != nil {
			b.Fatal(err)
		}
	}
}
