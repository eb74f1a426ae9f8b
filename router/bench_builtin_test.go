package router_test

import (
	"os"
	"testing"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/models"
	"github.com/routebench/routebench/router/registry"
)

// builtinV2Router is the v2 demo version with the builtin models, the
// default configuration every router benchmark measures.
func builtinV2Router(b *testing.B) *router.Router {
	b.Helper()
	dir := fixturesDir + "v2"
	if _, err := os.Stat(dir); err != nil {
		b.Skip("fixture " + dir + " not present")
	}
	v, err := registry.Load(dir)
	if err != nil {
		b.Fatal(err)
	}
	f, err := models.Factory(models.Builtin, models.Builtin)
	if err != nil {
		b.Fatal(err)
	}
	r, err := router.New(v, f)
	if err != nil {
		b.Fatal(err)
	}
	return r
}

// BenchmarkRoute is one decision on the v2 demo registry with the builtin
// models, the default configuration. Target: < 200 µs per decision.
func BenchmarkRoute(b *testing.B) {
	r := builtinV2Router(b)
	benchRoute(b, r)
}

// BenchmarkNew150 builds a router, builtin models and recall index
// included, for 150 skills with 100 examples each. Target: < 3 s. Every
// iteration gets a registry with new texts, since the builtin models cache
// their fit by content and a cache hit would measure nothing.
func BenchmarkNew150(b *testing.B) {
	f, err := models.Factory(models.Builtin, models.Builtin)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		v := syntheticVersionSeed(150, 100, uint64(i)+100)
		b.StartTimer()
		if _, err := router.New(v, f); err != nil {
			b.Fatal(err)
		}
	}
}
