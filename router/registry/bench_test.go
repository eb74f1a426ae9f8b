package registry_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routebench/routebench/internal/cputime"
	"github.com/routebench/routebench/router/registry"
)

// writeLargeVersion writes a prompt version of skills × examples that
// exercises every load step: enum schemas with synonyms, date formats, rules
// checked on every example, triggers.
func writeLargeVersion(tb testing.TB, dir string, skills, examples int) {
	tb.Helper()
	var b strings.Builder
	b.WriteString("skills:\n")
	for i := range skills {
		fmt.Fprintf(&b, `  - name: query_thing_%03d
    description: 查询第%d类对象在指定时间段内的记录。Look up things of kind %d in a date range.
    when_to_use: ["user asks about kind %d things"]
    when_not_to_use: ["user asks about kind %d things (use query_thing_%03d)"]
    side_effect: read
    permission_scope: [things:read]
    params_schema:
      type: object
      required: [region, start, end]
      properties:
        region: {type: string, enum: [east, south, north, west], x-synonyms: {east: [华东], west: [西南, 西部]}}
        status: {type: string, enum: [paid, shipped, refunded]}
        start: {type: string, format: date}
        end: {type: string, format: date}
        limit: {type: integer, minimum: 1, maximum: 500}
    rules:
      - expr: date(params.start) <= date(params.end)
        message: start must not be after end
      - expr: days_between(params.start, params.end) <= 90
        message: a query spans at most 90 days
    triggers: ['(?i)\bTHING-%03d-\d{4}\b']
    examples:
`, i, i, i, i, i+1, (i+1)%skills, i)
		for j := range examples {
			fmt.Fprintf(&b, "      - input: show kind %d things in the east from day %d\n", i, j)
			fmt.Fprintf(&b, "        params: {region: east, status: shipped, start: 2026-11-%02d, end: 2026-11-28, limit: %d}\n", 1+j%27, 1+j)
		}
		b.WriteString("    counter_examples: [华东区最近的告警情况]\n")
	}
	files := map[string]string{
		"skills.yaml":          b.String(),
		"version.yaml":         "description: generated\n",
		"persona.md":           "persona\n",
		"constraints.md":       "constraints\n",
		"contract.schema.json": `{"type":"object","required":["skill","confidence","params"]}`,
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkLoad150 loads a registry of 150 skills with 100 examples each
// (15,000 examples, each checked against its schemas and two rules).
func BenchmarkLoad150(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "big")
	if err := os.Mkdir(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	writeLargeVersion(b, dir, 150, 100)
	// CPU time is reported beside wall time: on a shared machine it is the
	// figure that does not depend on the neighbours.
	cpu0 := cputime.Process()
	for b.Loop() {
		v, err := registry.Load(dir)
		if err != nil {
			b.Fatal(err)
		}
		if len(v.Registry.Skills) != 150 || len(v.Registry.Skills[149].Examples) != 100 {
			b.Fatalf("loaded %d skills", len(v.Registry.Skills))
		}
	}
	b.ReportMetric(float64((cputime.Process()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
}

// BenchmarkRuleEval is one date rule evaluation, as the router does per decision.
func BenchmarkRuleEval(b *testing.B) {
	r, err := registry.NewRule("date(params.start) <= date(params.end) && days_between(params.start, params.end) <= 90", "")
	if err != nil {
		b.Fatal(err)
	}
	params := map[string]any{"region": "east", "start": "2026-11-23", "end": "2026-11-29"}
	for b.Loop() {
		if ok, err := r.Eval(params, now); err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
}
