package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/router/registry"
)

// The made-up registry and its cases must load as a user's would: the
// version through registry.Load, the suites checked against it.
func TestMadeUpRegistryLoads(t *testing.T) {
	out := t.TempDir()
	if err := generateRegistry(25, 7, 3, out); err != nil {
		t.Fatal(err)
	}
	v, err := registry.Load(filepath.Join(out, "version"))
	if err != nil {
		t.Fatalf("load the made-up version: %v", err)
	}
	if got := len(v.Registry.Skills); got != 7 {
		t.Fatalf("skills: got %d, want 7", got)
	}
	for _, s := range v.Registry.Skills {
		if len(s.Examples) != 3 {
			t.Fatalf("%s: %d examples, want 3", s.Name, len(s.Examples))
		}
	}
	cases, err := harness.LoadSuites([]string{filepath.Join(out, "suites")}, v.Registry)
	if err != nil {
		t.Fatalf("load the made-up suites: %v", err)
	}
	if len(cases) != 25 {
		t.Fatalf("cases: got %d, want 25", len(cases))
	}
	refusals := 0
	for _, c := range cases {
		if c.Expect.Action == "refuse" {
			refusals++
		} else if v.Registry.Skill(c.Expect.Skill) == nil {
			t.Fatalf("case %s expects %q, which the registry lacks", c.ID, c.Expect.Skill)
		}
	}
	if refusals != 25/refuseEvery {
		t.Fatalf("refusals: got %d, want %d", refusals, 25/refuseEvery)
	}
	cfg, err := harness.LoadConfig(filepath.Join(out, "routebench.yaml"))
	if err != nil {
		t.Fatalf("load routebench.yaml: %v", err)
	}
	if len(cfg.Versions) != 1 {
		t.Fatalf("config versions: %v", cfg.Versions)
	}
}

// The same arguments make the same files: timings of a registry size are
// comparable across machines and commits.
func TestMadeUpRegistryIsDeterministic(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	for _, dir := range []string{a, b} {
		if err := generateRegistry(40, 5, 2, dir); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"version/skills.yaml", "suites/synthetic-1.yaml"} {
		x, y := readFile(t, filepath.Join(a, f)), readFile(t, filepath.Join(b, f))
		if x != y {
			t.Fatalf("%s differs between two runs", f)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
