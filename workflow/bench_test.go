package workflow_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/routebench/routebench/router/registry"
	"github.com/routebench/routebench/workflow"
)

// benchFlow has 10 nodes: 5 reads (3 in parallel, 2 reading their
// outputs), a decision, 3 side effects in a chain and an aggregate.
var benchFlow = lines(
	"workflows:",
	"  - name: bench",
	"    description: ten nodes",
	"    params_schema: {type: object, required: [shelf], properties: {shelf: {type: string}}}",
	"    nodes:",
	`      - {id: w1, tool: list_widgets, params: {shelf: "{{params.shelf}}"}}`,
	`      - {id: w2, tool: list_widgets, params: {shelf: "{{params.shelf}}-b"}}`,
	`      - {id: g1, tool: get_gauge, params: {name: "{{params.shelf}}"}}`,
	`      - {id: g2, tool: get_gauge, params: {name: "{{w1.items[0].sku}}"}}`,
	`      - {id: g3, tool: get_gauge, params: {name: "{{w2.items[2].sku}}"}}`,
	`      - {id: d, decision: {on: "{{g1.state}}", cases: {hot: r1, calm: all}}}`,
	`      - {id: r1, tool: file_report, after: [d, g1, g2, g3, w1], params: {title: "{{w1.count}} at {{g2.value}}"}}`,
	`      - {id: p1, tool: ping_team, after: [r1], params: {to: ops, text: "{{r1.report_id}}"}}`,
	`      - {id: p2, tool: ping_team, after: [p1], params: {to: leads, text: "{{r1.report_id}} {{g3.value}}"}}`,
	`      - {id: all, aggregate: [w1, w2], rule: concat}`,
)

func BenchmarkRunTenNodes(b *testing.B) {
	skills, err := registry.ParseSkills("skills.yaml", []byte(testSkills))
	if err != nil {
		b.Fatal(err)
	}
	reg, err := registry.New(skills)
	if err != nil {
		b.Fatal(err)
	}
	set, err := workflow.Parse("bench.yaml", benchFlow, reg)
	if err != nil {
		b.Fatal(err)
	}
	w := set.Workflows[0]
	script := workflow.SimScript{
		"list_widgets": {{OK: items(20)}},
		"get_gauge":    {{OK: map[string]any{"value": 7, "state": "hot"}}},
		"file_report":  {{OK: map[string]any{"report_id": "RPT-1"}}},
		"ping_team":    {{OK: map[string]any{"sent": true}}},
	}
	in := workflow.RunInput{Workflow: w, Params: map[string]any{"shelf": "A1"}, Caller: workflow.Caller{Scopes: allScopes},
		Confirmer: workflow.NewScriptedConfirmer(workflow.ConfirmResponse{Answer: workflow.Yes})}
	clock := workflow.NewManualClock(epoch)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		e := &workflow.Engine{Tools: workflow.NewSimTools(script), Clock: clock}
		in.ID = "bench-" + strconv.Itoa(i)
		o, err := e.Run(context.Background(), in)
		if err != nil || o.Outcome != workflow.Completed {
			b.Fatalf("run: %v %+v", err, o)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(w.Nodes)), "ns/node")
}
