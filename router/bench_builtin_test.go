package router_test

import (
	"os"
	"sync/atomic"
	"testing"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/builtin"
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
	return builtinRouter(b, v)
}

// builtinRouter is a router for v with the builtin models.
func builtinRouter(b *testing.B, v *registry.Version) *router.Router {
	b.Helper()
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

// newSeed numbers the registries BenchmarkNew150 fits, across -count runs
// of one process too: a repeated seed would be an in-memory cache hit.
var newSeed atomic.Uint64

// BenchmarkNew150 builds a router, builtin models and recall index
// included, for 150 skills with 100 examples each. Target: ≤ 2 s. Every
// iteration gets a registry with new texts, since the builtin models cache
// their fit by content and a cache hit would measure nothing.
func BenchmarkNew150(b *testing.B) { benchNew(b, 150, 100) }

// benchNew fits a new made-up registry of skills × examples every
// iteration.
func benchNew(b *testing.B, skills, examples int) {
	f, err := models.Factory(models.Builtin, models.Builtin)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		v := syntheticVersionSeed(skills, examples, newSeed.Add(1)+100)
		b.StartTimer()
		if _, err := router.New(v, f); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNew1000 is BenchmarkNew150 for 1,000 skills of 10 examples:
// a large tool registry with few examples per tool. No target of its own;
// it shows how fitting grows past CLINC150's size, where every pair of
// the registry's texts is scored once.
func BenchmarkNew1000(b *testing.B) { benchNew(b, 1000, 10) }

// BenchmarkNew150Cached is BenchmarkNew150 for a registry whose fit is in
// the disk cache (a temporary directory): the second run of the same
// version. The fit held in memory is dropped every iteration, so each one
// reads the entry back. Target: < 200 ms.
func BenchmarkNew150Cached(b *testing.B) {
	f, err := models.Factory(models.Builtin, models.Builtin)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(builtin.SetCacheDir(b.TempDir()))
	b.Cleanup(builtin.DropFitsInMemory)
	v := syntheticVersionSeed(150, 100, 99)
	if _, err := router.New(v, f); err != nil { // fits and stores
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		builtin.DropFitsInMemory()
		b.StartTimer()
		if _, err := router.New(v, f); err != nil {
			b.Fatal(err)
		}
	}
}
