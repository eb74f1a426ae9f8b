package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// BenchmarkRunWorkflowCases is issue 9's scale check: the demo's workflow
// suites copied 11 times (1,067 cases, ids made unique) under v2 and v3,
// routed by the builtin models and run through the engine against the
// simulated tools, with every output written. One op is one whole run.
//
//	go test ./cmd/routebench -run '^$' -bench RunWorkflowCases -benchtime 3x
func BenchmarkRunWorkflowCases(b *testing.B) {
	const copies = 11
	dir := b.TempDir()
	suites := filepath.Join(dir, "suites")
	if err := os.MkdirAll(suites, 0o755); err != nil {
		b.Fatal(err)
	}
	caseID := regexp.MustCompile(`(?m)^  - id: (\S+)$`)
	for _, kind := range []string{"normal", "boundary", "adversarial"} {
		data, err := os.ReadFile(filepath.Join("../../suites/ops-workflows", kind+".yaml"))
		if err != nil {
			b.Fatal(err)
		}
		head, cases, ok := cutCases(data)
		if !ok {
			b.Fatalf("%s.yaml has no cases: block", kind)
		}
		out := append([]byte{}, head...)
		for i := range copies {
			out = append(out, caseID.ReplaceAll(cases, []byte(fmt.Sprintf("  - id: ${1}-copy%d", i)))...)
		}
		if err := os.WriteFile(filepath.Join(suites, kind+".yaml"), out, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	v2, _ := filepath.Abs("../../fixtures/ops/prompts/v2")
	v3, _ := filepath.Abs("../../fixtures/ops/prompts/v3")
	config := filepath.Join(dir, "routebench.yaml")
	if err := os.WriteFile(config, []byte(fmt.Sprintf("versions: [%s, %s]\nsuites: [%s]\n", v2, v3, suites)), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if code, _, stderr := runCLI("run", "--config", config, "--out", filepath.Join(dir, fmt.Sprintf("out%d", i))); code != 0 {
			b.Fatalf("run: exit %d\n%s", code, stderr)
		}
	}
}

// cutCases splits a suite file at its `cases:` line.
func cutCases(data []byte) (head, cases []byte, ok bool) {
	loc := regexp.MustCompile(`(?m)^cases:\n`).FindIndex(data)
	if loc == nil {
		return nil, nil, false
	}
	return data[:loc[1]], data[loc[1]:], true
}
