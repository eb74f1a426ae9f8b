package router_test

import (
	"os"
	"testing"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/models"
	"github.com/routebench/routebench/router/registry"
)

// BenchmarkRoute is one decision on the v2 demo registry with the builtin
// models, the default configuration. Target: < 200 µs per decision.
func BenchmarkRoute(b *testing.B) {
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
	benchRoute(b, r)
}

// BenchmarkNew150 builds a router, builtin models and recall index
// included, for 150 skills with 100 examples each. Target: < 3 s.
func BenchmarkNew150(b *testing.B) {
	v := syntheticVersion(150, 100)
	f, err := models.Factory(models.Builtin, models.Builtin)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := router.New(v, f); err != nil {
			b.Fatal(err)
		}
	}
}
