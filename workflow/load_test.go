package workflow_test

import (
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router/registry"
	"github.com/routebench/routebench/workflow"
)

// head is lines 1-6 of most loader specs: a valid workflow start.
var head = []string{
	"workflows:",
	"  - name: restock",
	"    description: Restock a shelf.",
	"    params_schema: {type: object, required: [shelf], properties: {shelf: {type: string}, tone: {enum: [calm, loud]}}}",
	"    permission_scope: w:read",
	"    nodes:",
}

func withHead(ls ...string) []byte { return lines(append(append([]string{}, head...), ls...)...) }

// fanOutDefs writes $defs d0 ... dn in flow style, each an anyOf of two
// $refs to the next: validating one value would walk 2^n ways.
func fanOutDefs(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "d%d: {anyOf: [{$ref: '#/$defs/d%d'}, {$ref: '#/$defs/d%d'}]}, ", i, i+1, i+1)
	}
	fmt.Fprintf(&b, "d%d: {type: integer}", n)
	return b.String()
}

var _ = Describe("Parse", func() {
	var reg *registry.Registry
	BeforeEach(func() { reg = testRegistry() })

	It("reads a workflow, its order and its skill view", func() {
		w := mustParse(reg, withHead(
			`      - {id: report, tool: file_report, after: [gauge, widgets], params: {title: "{{widgets.count}} on {{params.shelf}}"}}`,
			`      - {id: widgets, tool: list_widgets, params: {shelf: "{{params.shelf}}"}}`,
			`      - {id: gauge, tool: get_gauge, params: {name: "{{widgets.items[0].sku}}"}}`,
			`      - {id: ping, tool: ping_team, after: [report], params: {to: ops, text: "{{report.report_id}}"}}`,
		))
		var order []string
		for _, n := range w.Order() {
			order = append(order, n.ID)
		}
		Expect(order).To(Equal([]string{"widgets", "gauge", "report", "ping"}))
		sk := w.AsSkill()
		Expect(sk.Name).To(Equal("restock"))
		Expect(sk.SideEffect).To(Equal(registry.Write), "write outranks send")
		Expect(sk.Confirm).To(Equal(registry.GateNormal))
		Expect(sk.PermissionScope).To(Equal([]string{"w:read", "r:write", "g:read", "t:send"}))
		Expect(sk.Steps).To(Equal([]string{"list_widgets", "get_gauge", "file_report", "ping_team"}), "plan order, not declaration order")
		Expect(sk.Schema.Validate(map[string]any{"shelf": "A"})).To(Succeed())
		Expect(sk.Schema.Validate(map[string]any{})).NotTo(Succeed())
	})

	It("reports every problem at once, sorted by line", func() {
		_, err := workflow.Parse("workflows.yaml", withHead(
			`      - {id: a, tool: list_widgts, params: {shelf: x}}`,
			`      - {id: b, tool: get_gauge, params: {name: "{{nope.value}}"}}`,
			`      - {id: c, confirm: {message: ok, timeout: forever}}`,
		), reg)
		ls := problemLines(err)
		Expect(ls).To(HaveLen(3))
		Expect(ls[0]).To(HavePrefix("workflows.yaml:7: "))
		Expect(ls[1]).To(HavePrefix("workflows.yaml:8: "))
		Expect(ls[2]).To(HavePrefix("workflows.yaml:9: "))
	})

	DescribeTable("rejects, naming file:line, the field and what to do",
		func(doc []byte, prefix string, fragments ...string) {
			set, err := workflow.Parse("workflows.yaml", doc, reg)
			Expect(set).To(BeNil())
			expectProblem(problemLines(err), prefix, fragments...)
		},
		Entry("YAML syntax", lines("workflows:", "  - name: [x"), "workflows.yaml:2:", "is not valid YAML"),
		Entry("params_schema whose $refs fan out at every level", lines("workflows:", "  - name: a", "    description: d",
			"    params_schema: {type: object, properties: {zz: {$ref: '#/$defs/d0'}}, $defs: {"+fanOutDefs(30)+"}}",
			`    nodes: [{id: p, tool: get_gauge, params: {name: n}}]`),
			"workflows.yaml:4: workflows[0].params_schema.properties.zz:", "is too costly to validate"),
		Entry("unknown workflow field", lines("workflows:", "  - name: a", "    descripton: x", "    nodes: []"),
			"workflows.yaml:3: workflows[0].descripton:", "unknown field", "did you mean description?"),
		Entry("unknown node field", withHead(`      - {id: a, tool: list_widgets, parms: {shelf: x}}`),
			"workflows.yaml:7: workflows[0].nodes[0].parms:", "did you mean params?"),
		Entry("duplicate workflow name", lines(
			"workflows:",
			"  - {name: w, description: x, nodes: [{id: a, tool: get_gauge, params: {name: n}}]}",
			"  - {name: w, description: y, nodes: [{id: a, tool: get_gauge, params: {name: n}}]}"),
			"workflows.yaml:3: workflows[1].name:", "duplicate workflow name", "first at line 2"),
		Entry("workflow named like a skill", lines(
			"workflows:",
			"  - {name: get_gauge, description: x, nodes: [{id: a, tool: get_gauge, params: {name: n}}]}"),
			"workflows.yaml:2: workflows[0].name:", "is also a skill"),
		Entry("duplicate node id", withHead(
			`      - {id: a, tool: get_gauge, params: {name: n}}`,
			`      - {id: a, tool: get_gauge, params: {name: m}}`),
			"workflows.yaml:8: workflows[0].nodes[1].id:", "duplicate node id", "first at line 7"),
		Entry("unknown skill", withHead(`      - {id: a, tool: get_guage, params: {name: n}}`),
			"workflows.yaml:7: workflows[0].nodes[0].tool:", "unknown skill", "did you mean get_gauge?"),
		Entry("param the skill lacks", withHead(`      - {id: a, tool: get_gauge, params: {name: n, nmae: m}}`),
			"workflows.yaml:7: workflows[0].nodes[0].params.nmae:", "is not a param of get_gauge"),
		Entry("required param not mapped", withHead(`      - {id: a, tool: get_gauge}`),
			"workflows.yaml:7: workflows[0].nodes[0].params.name:", "is missing", "requires name"),
		Entry("literal param failing the skill schema", withHead(`      - {id: a, tool: list_widgets, params: {shelf: s, colour: green}}`),
			"workflows.yaml:7: workflows[0].nodes[0].params.colour:", "fails list_widgets's schema"),
		Entry("reference to an unknown node", withHead(`      - {id: a, tool: get_gauge, params: {name: "{{gauges.value}}"}}`),
			"workflows.yaml:7: workflows[0].nodes[0].params.name:", `"gauges" is neither params nor a node`),
		Entry("reference to an unknown param", withHead(`      - {id: a, tool: get_gauge, params: {name: "{{params.shelff}}"}}`),
			"workflows.yaml:7: workflows[0].nodes[0].params.name:", "not a workflow param", "did you mean params.shelf?"),
		Entry("reference to an unknown output", withHead(
			`      - {id: g, tool: get_gauge, params: {name: n}}`,
			`      - {id: a, tool: get_gauge, params: {name: "{{g.valeu}}"}}`),
			"workflows.yaml:8: workflows[0].nodes[1].params.name:", `has no output "valeu"`, "did you mean value?"),
		Entry("reference past the context budget", withHead(
			`      - {id: w, tool: list_widgets, params: {shelf: s}}`,
			`      - {id: a, tool: get_gauge, params: {name: "{{w.items[3].sku}}"}}`),
			"workflows.yaml:8: workflows[0].nodes[1].params.name:", "only the first 3 items"),
		Entry("a cycle, named", withHead(
			`      - {id: a, tool: get_gauge, after: [c], params: {name: n}}`,
			`      - {id: b, tool: get_gauge, params: {name: "{{a.value}}"}}`,
			`      - {id: c, tool: get_gauge, after: [b], params: {name: n}}`),
			"workflows.yaml:7: workflows[0].nodes[0]:", "cycle: a → b → c → a"),
		Entry("after naming a missing node", withHead(`      - {id: a, tool: get_gauge, after: [ghost], params: {name: n}}`),
			"workflows.yaml:7: workflows[0].nodes[0].after:", `"ghost" is not a node`),
		Entry("decision case leading nowhere", withHead(
			`      - {id: g, tool: get_gauge, params: {name: n}}`,
			`      - {id: d, decision: {on: "{{g.state}}", cases: {calm: nowhere}}}`),
			"workflows.yaml:8: workflows[0].nodes[1].decision.cases.calm:", `"nowhere" is not a node`),
		Entry("decision on free text", withHead(
			`      - {id: g, tool: get_gauge, params: {name: n}}`,
			`      - {id: d, decision: {on: "is it bad?", cases: {yes: g}}}`),
			"workflows.yaml:8: workflows[0].nodes[1].decision.on:", "not one reference", "never on free text"),
		Entry("decision cases as a list", withHead(
			`      - {id: g, tool: get_gauge, params: {name: n}}`,
			`      - {id: d, decision: {on: "{{g.state}}", cases: [hot, calm]}}`),
			"workflows.yaml:8: workflows[0].nodes[1].decision.cases:", "finite enum"),
		Entry("decision case as a pattern", withHead(
			`      - {id: g, tool: get_gauge, params: {name: n}}`,
			`      - {id: e, tool: get_gauge, params: {name: m}}`,
			`      - {id: d, decision: {on: "{{g.state}}", cases: {"ho*": e}}}`),
			"workflows.yaml:9: workflows[0].nodes[2].decision.cases.ho*:", "not a literal value"),
		Entry("decision on a value no enum limits", withHead(
			`      - {id: g, tool: get_gauge, params: {name: n}}`,
			`      - {id: e, tool: get_gauge, params: {name: m}}`,
			`      - {id: d, decision: {on: "{{g.value}}", cases: {"9": e}}}`),
			"workflows.yaml:9: workflows[0].nodes[2].decision.on:", "{{g.value}} is not limited to an enum", "add enum"),
		Entry("decision case its output's enum lacks", withHead(
			`      - {id: g, tool: get_gauge, params: {name: n}}`,
			`      - {id: e, tool: get_gauge, params: {name: m}}`,
			`      - {id: d, decision: {on: "{{g.state}}", cases: {hot: e,`,
			`          hto: e}}}`),
			"workflows.yaml:10: workflows[0].nodes[2].decision.cases.hto:", `"hto" is not a value {{g.state}} can take`, "did you mean hot?", "[calm, warm, hot]"),
		Entry("decision case a param's enum lacks", withHead(
			`      - {id: e, tool: get_gauge, params: {name: m}}`,
			`      - {id: d, decision: {on: "{{params.tone}}", cases: {quiet: e}}}`),
			"workflows.yaml:8: workflows[0].nodes[1].decision.cases.quiet:", "[calm, loud]"),
		Entry("decision case an item's enum lacks", withHead(
			`      - {id: w, tool: list_widgets, params: {shelf: a}}`,
			`      - {id: e, tool: get_gauge, params: {name: m}}`,
			`      - {id: d, decision: {on: "{{w.items[0].size}}", cases: {xl: e}}}`),
			"workflows.yaml:9: workflows[0].nodes[2].decision.cases.xl:", "[s, m, l]"),
		Entry("nested output its result schema does not declare", withHead(
			`      - {id: w, tool: list_widgets, params: {shelf: a}}`,
			`      - {id: g, tool: get_gauge, params: {name: "{{w.items[0].skew}}"}}`),
			"workflows.yaml:8: workflows[0].nodes[1].params.name:", `"skew" is not a property at w.items[0]`, "did you mean sku?"),
		Entry("confirm timeout not a duration", withHead(`      - {id: c, confirm: {message: "go", timeout: soon}}`),
			"workflows.yaml:7: workflows[0].nodes[0].confirm.timeout:", "is not a duration"),
		Entry("confirm timeout of zero", withHead(`      - {id: c, confirm: {message: "go", timeout: 0s}}`),
			"workflows.yaml:7: workflows[0].nodes[0].confirm.timeout:", "more than zero"),
		Entry("confirm timeout too long", withHead(`      - {id: c, confirm: {message: "go", timeout: 72h}}`),
			"workflows.yaml:7: workflows[0].nodes[0].confirm.timeout:", "over the limit"),
		Entry("aggregate rule unknown", withHead(
			`      - {id: g, tool: get_gauge, params: {name: n}}`,
			`      - {id: s, aggregate: [g], rule: first_nonempty}`),
			"workflows.yaml:8: workflows[0].nodes[1].rule:", "did you mean first_non_empty?"),
		Entry("two kinds in one node", withHead(`      - {id: a, tool: get_gauge, confirm: "go", params: {name: n}}`),
			"workflows.yaml:7: workflows[0].nodes[0]:", "tool and confirm"),
		Entry("side effects without a fixed order", withHead(
			`      - {id: r, tool: file_report, params: {title: t}}`,
			`      - {id: p, tool: ping_team, params: {to: a, text: b}}`),
			"workflows.yaml:8: workflows[0].nodes[1]:", "no fixed order", "add after: [r] to p"),
		Entry("a write not ordered after what it reads", withHead(
			`      - {id: g, tool: get_gauge, params: {name: n}}`,
			`      - {id: r, tool: file_report, params: {title: "{{g.value}}"}}`),
			"workflows.yaml:8: workflows[0].nodes[1].after:", `reads "g" but is not ordered after it`),
		Entry("example param the workflow lacks", lines(
			"workflows:",
			"  - name: w",
			"    description: x",
			"    params_schema: {type: object, properties: {shelf: {type: string}}}",
			"    examples: [{input: hi, params: {shelve: A}}]",
			"    nodes: [{id: a, tool: get_gauge, params: {name: n}}]"),
			"workflows.yaml:5: workflows[0].examples[0].params.shelve:", "did you mean shelf?"),
	)

	It("accepts a decision on a value whose schema it cannot know, or a boolean, or through an open object", func() {
		reg, err := registry.New(append(mustSkills(testSkills), mustSkills(`skills:
  - name: probe
    description: Probe a shelf.
    side_effect: read
    permission_scope: [w:read]
    params_schema: {type: object, properties: {shelf: {type: string}}}
    result_schema:
      type: object
      properties:
        full: {type: boolean}
        tags: {type: object, properties: {a: {type: string}}, additionalProperties: {type: string}}
`)...))
		Expect(err).NotTo(HaveOccurred())
		w := mustParse(reg, withHead(
			`      - {id: v, tool: peek_vault}`,
			`      - {id: p, tool: probe, params: {shelf: a}}`,
			`      - {id: e, tool: get_gauge, params: {name: "{{p.tags.anything}}"}}`,
			`      - {id: d1, decision: {on: "{{v.colour}}", cases: {red: e}}}`,
			`      - {id: d2, decision: {on: "{{p.full}}", cases: {"true": f}}}`,
			`      - {id: f, tool: get_gauge, params: {name: n}}`,
		))
		Expect(w.Node("d1").CaseOrder).To(Equal([]string{"red"}), "peek_vault declares no result_schema")
		Expect(w.Node("d2").CaseOrder).To(Equal([]string{"true"}))
	})

	It("stops one anchor reused from node to node, each within the count alone", func() {
		ls := append([]string{}, head...)
		ls = append(ls, "      - {id: n0, tool: get_gauge, params: &big {name: ["+strings.TrimSuffix(strings.Repeat("v, ", 5000), ", ")+"]}}")
		for i := 1; i < 40; i++ {
			ls = append(ls, fmt.Sprintf("      - {id: n%d, tool: get_gauge, params: *big}", i))
		}
		_, err := workflow.Parse("workflows.yaml", lines(ls...), reg)
		expectProblem(problemLines(err), "workflows.yaml:27: workflows[0].nodes[20].params:", "*big makes this file's aliases hold more than 100000 values")
	})

	It("accepts a decision whose cases lead to nodes ordered after it", func() {
		w := mustParse(reg, withHead(
			`      - {id: g, tool: get_gauge, params: {name: n}}`,
			`      - {id: d, decision: {on: "{{g.state}}", cases: {calm: r, hot: s}}}`,
			`      - {id: r, tool: file_report, params: {title: "{{g.value}}"}}`,
			`      - {id: s, aggregate: [g], rule: first_non_empty}`,
		))
		Expect(w.Node("d").CaseOrder).To(Equal([]string{"calm", "hot"}))
	})
})
