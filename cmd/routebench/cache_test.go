package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/routebench/routebench/internal/exitcode"
	"github.com/routebench/routebench/router/builtin"
)

// The command, not the builtin package, reads ROUTEBENCH_CACHE; with it
// set, routing a version writes a fit entry there.
func TestCacheFromEnvTurnsOnTheFitCache(t *testing.T) {
	dir := t.TempDir()
	t.Cleanup(builtin.SetCacheDir(""))
	t.Setenv("ROUTEBENCH_CACHE", "off")
	cacheFromEnv()
	if got := builtin.CacheDir(); got != "" {
		t.Fatalf("off: cache dir %q", got)
	}
	t.Setenv("ROUTEBENCH_CACHE", dir)
	cacheFromEnv()
	if got := builtin.CacheDir(); got != dir {
		t.Fatalf("cache dir %q, want %q", got, dir)
	}
	if code, _, errOut := routeCLI(t, "--version", v2, "--now", "2026-11-30T10:00:00+08:00", "restart the payment service"); code != exitcode.Pass {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	entries, _ := filepath.Glob(filepath.Join(dir, "*.fit"))
	if len(entries) == 0 {
		list, _ := os.ReadDir(dir)
		t.Fatalf("no fit entry written in %s (holds %v)", dir, list)
	}
}
