package workflow_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/routebench/routebench/router/registry"
	"github.com/routebench/routebench/workflow"
)

// FuzzParseWorkflows feeds any bytes to the workflows.yaml loader: it never
// panics; it either names every problem with the file (and a line when the
// problem is inside the text), or returns workflows whose order covers
// every node and whose skill view compiles.
func FuzzParseWorkflows(f *testing.F) {
	f.Add(benchFlow)
	f.Add(withHead(`      - {id: a, tool: list_widgets, params: {shelf: "{{params.shelf}}"}}`,
		`      - {id: b, tool: file_report, after: [a], params: {title: "{{a.count}}"}}`))
	f.Add(withHead(`      - {id: a, tool: list_widgets, after: [b], params: {shelf: x}}`,
		`      - {id: b, tool: list_widgets, after: [a], params: {shelf: y}}`))
	f.Add(withHead(`      - {id: d, decision: {on: "{{params.tone}}", cases: {calm: e, loud: e}}}`,
		`      - {id: e, confirm: {message: go?, timeout: 5m}}`))
	f.Add([]byte("workflows:\n  - &a {name: x, nodes: [*a]}\n"))
	f.Add([]byte("workflows: []\n---\nworkflows: []\n"))
	skills, err := registry.ParseSkills("skills.yaml", []byte(testSkills))
	if err != nil {
		f.Fatal(err)
	}
	reg, err := registry.New(skills)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		set, err := workflow.Parse("workflows.yaml", data, reg)
		if err != nil {
			var le *registry.LoadError
			if !errors.As(err, &le) {
				t.Fatalf("error %v is not a *registry.LoadError", err)
			}
			for _, p := range le.Problems {
				if p.Pos.File != "workflows.yaml" {
					t.Fatalf("problem %q names file %q", p.Message, p.Pos.File)
				}
				if strings.ContainsAny(p.Message, "\n") && p.Pos.Line == 0 {
					t.Fatalf("problem without a line spans lines: %q", p.Message)
				}
			}
			return
		}
		for _, w := range set.Workflows {
			if got, want := len(w.Order()), len(w.Nodes); got != want {
				t.Fatalf("workflow %s: order has %d nodes of %d", w.Name, got, want)
			}
			if sk := w.AsSkill(); sk == nil || sk.Name != w.Name {
				t.Fatalf("workflow %s: skill view %+v", w.Name, sk)
			}
		}
	})
}
