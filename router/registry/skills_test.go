package registry_test

import (
	"errors"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"go.yaml.in/yaml/v3"

	"github.com/routebench/routebench/router/registry"
)

// doc joins lines so that line N of the YAML is lines[N-1]: specs can name
// the line they expect a problem on without counting.
func doc(lines ...string) []byte { return []byte(strings.Join(lines, "\n") + "\n") }

// header is lines 1-4 of most specs: a valid minimal skill.
var header = []string{
	"skills:",
	"  - name: get_order",
	"    description: Look up one order.",
	"    side_effect: read",
}

func withHeader(lines ...string) []byte {
	return doc(append(append([]string{}, header...), lines...)...)
}

// problemLines returns the error's lines, failing the spec when it is not a *LoadError.
func problemLines(err error) []string {
	GinkgoHelper()
	var le *registry.LoadError
	Expect(errors.As(err, &le)).To(BeTrue(), "want a *LoadError, got %v", err)
	Expect(le.Problems).NotTo(BeEmpty())
	return strings.Split(le.Error(), "\n")
}

// haveProblem matches error lines containing one that starts with prefix
// ("file:line: field:") and contains every fragment.
func expectProblem(lines []string, prefix string, fragments ...string) {
	GinkgoHelper()
	for _, l := range lines {
		if !strings.HasPrefix(l, prefix+" ") {
			continue
		}
		all := true
		for _, f := range fragments {
			all = all && strings.Contains(l, f)
		}
		if all {
			return
		}
	}
	Fail("no problem starting with " + prefix + " containing " + strings.Join(fragments, " & ") + " in:\n" + strings.Join(lines, "\n"))
}

var _ = Describe("ParseSkills", func() {
	It("parses a minimal skill and fills defaults", func() {
		skills, err := registry.ParseSkills("skills.yaml", withHeader(
			"  - name: create_ticket",
			"    description: Open a ticket.",
			"    side_effect: write",
		))
		Expect(err).NotTo(HaveOccurred())
		Expect(skills).To(HaveLen(2))
		Expect(skills[0].Pos).To(Equal(registry.Pos{File: "skills.yaml", Line: 2}))
		Expect(skills[0].Confirm).To(BeEmpty(), "read skills have no gate")
		Expect(skills[1].Confirm).To(Equal(registry.GateNormal), "a side effect without confirm gets the normal gate")
		Expect(skills[0].ParamsSchema).To(HaveKeyWithValue("type", "object"))
		Expect(skills[0].Schema.Validate(map[string]any{})).To(Succeed())
		Expect(skills[0].PropSchemas).To(BeEmpty())
	})

	It("accepts a bare list of skills", func() {
		skills, err := registry.ParseSkills("tools.yaml", doc(
			"- name: ping",
			"  description: Is it alive?",
			"  side_effect: read",
		))
		Expect(err).NotTo(HaveOccurred())
		Expect(skills[0].Name).To(Equal("ping"))
	})

	It("reads unquoted dates in example params as date strings", func() {
		skills, err := registry.ParseSkills("skills.yaml", withHeader(
			"    params_schema:",
			"      type: object",
			"      properties:",
			"        start: {type: string, format: date}",
			"        n: {type: integer}",
			"    examples:",
			"      - input: since the third",
			"        params: {start: 2026-11-03, n: 4}",
		))
		Expect(err).NotTo(HaveOccurred())
		Expect(skills[0].Examples[0].Params).To(Equal(map[string]any{"start": "2026-11-03", "n": 4.0}))
		Expect(skills[0].Examples[0].Pos.Line).To(Equal(11))
	})

	It("reports every problem at once, sorted by line", func() {
		_, err := registry.ParseSkills("skills.yaml", withHeader(
			"    side_effect_: read",
			"  - name: bad name",
			"    description: x",
			"    side_effect: sometimes",
		))
		lines := problemLines(err)
		Expect(lines).To(HaveLen(3))
		Expect(lines[0]).To(HavePrefix("skills.yaml:5: "))
		Expect(lines[1]).To(HavePrefix("skills.yaml:6: "))
		Expect(lines[2]).To(HavePrefix("skills.yaml:8: "))
	})

	DescribeTable("reports each kind of problem with file:line and field",
		func(data []byte, prefix string, fragments ...string) {
			skills, err := registry.ParseSkills("skills.yaml", data)
			Expect(skills).To(BeNil())
			expectProblem(problemLines(err), prefix, fragments...)
		},
		Entry("YAML syntax", doc("skills:", "  - name: a", "    description: [x", "    side_effect: read"),
			"skills.yaml:3:", "is not valid YAML"),
		Entry("no skills key", doc("skill:", "  - name: a"),
			"skills.yaml:1: skill:", "unknown field", "did you mean skills?"),
		Entry("empty skills list", doc("skills: []"),
			"skills.yaml:1: skills:", "is empty"),
		Entry("unknown skill field", withHeader("    when_to_usee: [x]"),
			"skills.yaml:5: skills[0].when_to_usee:", "unknown field", "did you mean when_to_use?"),
		Entry("unknown rule field", withHeader("    rules:", "      - expr: params.x > 1", "        mesage: too small"),
			"skills.yaml:7: skills[0].rules[0].mesage:", "unknown field", "did you mean message?"),
		Entry("unknown example field", withHeader("    examples:", "      - text: hello"),
			"skills.yaml:6: skills[0].examples[0].text:", "unknown field"),
		Entry("unknown cost field", withHeader("    cost: {latency: 3}"),
			"skills.yaml:5: skills[0].cost.latency:", "unknown field", "did you mean latency_ms?"),
		Entry("duplicate key", withHeader("    description: again"),
			"skills.yaml:5: skills[0].description:", "duplicate key (first at line 3)"),
		Entry("missing name", doc("skills:", "  - description: x", "    side_effect: read"),
			"skills.yaml:2: skills[0].name:", "is missing"),
		Entry("missing description", doc("skills:", "  - name: a", "    side_effect: read"),
			"skills.yaml:2: skills[0].description:", "is missing"),
		Entry("missing side_effect", doc("skills:", "  - name: a", "    description: x"),
			"skills.yaml:2: skills[0].side_effect:", "is missing"),
		Entry("empty description", doc("skills:", "  - name: a", "    description:", "    side_effect: read"),
			"skills.yaml:3: skills[0].description:", "is empty"),
		Entry("string where a list is expected", withHeader("    when_not_to_use: alerts"),
			"skills.yaml:5: skills[0].when_not_to_use:", "must be a list of strings"),
		Entry("list where a string is expected", doc("skills:", "  - name: a", "    description: [x]", "    side_effect: read"),
			"skills.yaml:3: skills[0].description:", "must be a string, got a list"),
		Entry("mapping where a list is expected", withHeader("    rules: {expr: x}"),
			"skills.yaml:5: skills[0].rules:", "must be a list"),
		Entry("text where a number is expected", withHeader("    cost: {latency_ms: fast}"),
			"skills.yaml:5: skills[0].cost.latency_ms:", "must be a whole number"),
		Entry("negative cost", withHeader("    cost: {quota: -1}"),
			"skills.yaml:5: skills[0].cost.quota:", "is negative"),
		Entry("duplicate skill names, naming both lines",
			withHeader("  - name: get_order", "    description: again", "    side_effect: read"),
			"skills.yaml:5: skills[1].name:", `duplicate skill name "get_order"`, "skills[0] at line 2"),
		Entry("invalid name", doc("skills:", "  - name: get order!", "    description: x", "    side_effect: read"),
			"skills.yaml:2: skills[0].name:", "letters, digits, _ . -"),
		Entry("reserved name none", doc("skills:", "  - name: none", "    description: x", "    side_effect: read"),
			"skills.yaml:2: skills[0].name:", "reserved"),
		Entry("bad side_effect", doc("skills:", "  - name: a", "    description: x", "    side_effect: mutate"),
			"skills.yaml:4: skills[0].side_effect:", `"mutate" is not a side effect`, "read, write, delete or send"),
		Entry("bad confirm", withHeader("    confirm: twice"),
			"skills.yaml:5: skills[0].confirm:", `"twice" is not a gate`, "normal, batch or irreversible"),
		Entry("params_schema that does not compile",
			withHeader("    params_schema:", "      type: object", "      properties:", "        n: {type: integr}"),
			"skills.yaml:8: skills[0].params_schema.properties.n.type:", "does not compile", "JSON Schema 2020-12"),
		Entry("params_schema pattern with lookahead",
			withHeader("    params_schema:", "      type: object", "      properties:", "        id: {type: string, pattern: '^(?!X)'}"),
			"skills.yaml:8: skills[0].params_schema.properties.id.pattern:", "does not compile", "lookahead"),
		Entry("params_schema of type array",
			withHeader("    params_schema:", "      type: array"),
			"skills.yaml:6: skills[0].params_schema.type:", "must be object"),
		Entry("params_schema without type",
			withHeader("    params_schema:", "      properties: {}"),
			"skills.yaml:6: skills[0].params_schema.type:", "must be object"),
		Entry("params_schema that is not a mapping", withHeader("    params_schema: [a]"),
			"skills.yaml:5: skills[0].params_schema:", "must be a JSON Schema object"),
		Entry("required param not in properties",
			withHeader("    params_schema:", "      type: object", "      required: [region]", "      properties: {zone: {type: string}}"),
			"skills.yaml:7: skills[0].params_schema.required[0]:", `"region" is required but not in properties`),
		Entry("x-synonyms key that is not an enum value",
			withHeader("    params_schema:", "      type: object", "      properties:",
				"        region:", "          type: string", "          enum: [east, west]", "          x-synonyms:", "            eastt: [华东]"),
			"skills.yaml:12: skills[0].params_schema.properties.region.x-synonyms.eastt:", "not one of the enum values [east, west]", "did you mean east?"),
		Entry("x-synonyms without enum",
			withHeader("    params_schema:", "      type: object", "      properties:", "        region: {type: string, x-synonyms: {east: [华东]}}"),
			"skills.yaml:8: skills[0].params_schema.properties.region.x-synonyms:", "needs an enum"),
		Entry("x-permission that is not a mapping of lists",
			withHeader("    params_schema:", "      type: object", "      properties:", "        env: {type: string, enum: [prod], x-permission: {prod: ops:prod}}"),
			"skills.yaml:8: skills[0].params_schema.properties.env.x-permission.prod:", "list of non-empty strings"),
		Entry("rule that does not compile",
			withHeader("    rules:", "      - expr: parms.x > 1"),
			"skills.yaml:6: skills[0].rules[0].expr:", "does not compile", "undeclared reference to 'parms'", "did you mean", "params"),
		Entry("rule calling an unknown function",
			withHeader("    rules:", "      - expr: day_between(params.a, params.b) < 3"),
			"skills.yaml:6: skills[0].rules[0].expr:", "does not compile", "day_between"),
		Entry("rule that is not boolean",
			withHeader("    rules:", "      - expr: days_between(params.a, params.b)"),
			"skills.yaml:6: skills[0].rules[0].expr:", "is of type int, not bool"),
		Entry("rule of dynamic type",
			withHeader("    rules:", "      - expr: params.enabled"),
			"skills.yaml:6: skills[0].rules[0].expr:", "not bool"),
		Entry("rule without expr",
			withHeader("    rules:", "      - message: no expression"),
			"skills.yaml:6: skills[0].rules[0].expr:", "is missing"),
		Entry("trigger with lookbehind",
			withHeader(`    triggers: ['(?<=order )ORD-\d+']`),
			"skills.yaml:5: skills[0].triggers[0]:", "does not compile", "RE2", "lookbehind"),
		Entry("trigger that is not a regex",
			withHeader("    triggers:", `      - 'ORD-(\d+'`),
			"skills.yaml:6: skills[0].triggers[0]:", "does not compile", "missing closing )"),
		Entry("example without input",
			withHeader("    examples:", "      - params: {}"),
			"skills.yaml:6: skills[0].examples[0].input:", "is missing"),
		Entry("example param the schema does not define",
			withHeader("    params_schema:", "      type: object", "      properties:", "        order_id: {type: string}",
				"    examples:", "      - input: find ORD-1", "        params: {orderid: ORD-1}"),
			"skills.yaml:11: skills[0].examples[0].params.orderid:", "not defined in params_schema.properties", "did you mean order_id?"),
		Entry("example param value failing its property schema",
			withHeader("    params_schema:", "      type: object", "      properties:", `        order_id: {type: string, pattern: '^ORD-\d{8}$'}`,
				"    examples:", "      - input: find ORD-1", "        params:", "          order_id: ORD-1"),
			"skills.yaml:12: skills[0].examples[0].params.order_id:", `value "ORD-1" fails its schema`, "does not match pattern"),
		Entry("example date that is not a date",
			withHeader("    params_schema:", "      type: object", "      properties:", "        start: {type: string, format: date}",
				"    examples:", "      - input: since last week", "        params: {start: last week}"),
			"skills.yaml:11: skills[0].examples[0].params.start:", "is not valid date"),
		Entry("rule false on an example that has every param it reads",
			withHeader("    params_schema:", "      type: object", "      properties:",
				"        start: {type: string, format: date}", "        end: {type: string, format: date}",
				"    rules:", "      - expr: date(params.start) <= date(params.end)", "        message: start must not be after end",
				"    examples:", "      - input: from the 5th to the 3rd", "        params: {start: 2026-11-05, end: 2026-11-03}"),
			"skills.yaml:15: skills[0].examples[0].params:", "breaks rules[0] (line 11", "start must not be after end"),
		Entry("rule that fails to evaluate on an example",
			withHeader("    params_schema:", "      type: object", "      properties:",
				"        start: {type: string}", "        end: {type: string}",
				"    rules:", "      - expr: days_between(params.start, params.end) <= 90",
				"    examples:", "      - input: from soon to later", "        params: {start: soon, end: later}"),
			"skills.yaml:14: skills[0].examples[0].params:", "cannot be evaluated", `"soon" is not a YYYY-MM-DD date`),
		Entry("non-JSON value in params_schema",
			withHeader("    params_schema:", "      type: object", "      properties:", "        n: {type: number, maximum: .inf}"),
			"skills.yaml:8: skills[0].params_schema.properties.n.maximum:", "not a number JSON can hold"),
	)

	It("checks a rule on an example only when every param it reads is present", func() {
		skills, err := registry.ParseSkills("skills.yaml", withHeader(
			"    params_schema:",
			"      type: object",
			"      properties:",
			"        start: {type: string, format: date}",
			"        end: {type: string, format: date}",
			"    rules:",
			"      - expr: date(params.start) <= date(params.end)",
			"      - expr: '!has(params.end) || params.end != \"2000-01-01\"'",
			"    examples:",
			"      - input: orders since the 5th",
			"        params: {start: 2026-11-05}",
		))
		Expect(err).NotTo(HaveOccurred())
		Expect(skills[0].Rules[0].Reads).To(Equal([]string{"end", "start"}))
		Expect(skills[0].Rules[1].Reads).To(Equal([]string{"end"}), "has() is a presence test, the != is the read")
	})

	It("does not check rules that read now on examples", func() {
		_, err := registry.ParseSkills("skills.yaml", withHeader(
			"    params_schema:",
			"      type: object",
			"      properties:",
			"        start: {type: string, format: date}",
			"    rules:",
			"      - expr: date(params.start) > now",
			"    examples:",
			"      - input: since 2001",
			"        params: {start: 2001-01-01}",
		))
		Expect(err).NotTo(HaveOccurred())
	})
})

var _ = Describe("ParseSkillsNode", func() {
	It("keeps the lines of the embedding file", func() {
		var n yaml.Node
		Expect(yaml.Unmarshal(doc("cases: []", "tools:", "  - name: t", "    description: x", "    side_effect: sideways"), &n)).To(Succeed())
		tools := n.Content[0].Content[3]
		_, err := registry.ParseSkillsNode("case.yaml", tools)
		expectProblem(problemLines(err), "case.yaml:5: skills[0].side_effect:", "sideways")
	})
})

var _ = Describe("New", func() {
	It("indexes skills by name in order", func() {
		skills, err := registry.ParseSkills("skills.yaml", withHeader("  - name: refund_order", "    description: x", "    side_effect: write"))
		Expect(err).NotTo(HaveOccurred())
		reg, err := registry.New(skills)
		Expect(err).NotTo(HaveOccurred())
		Expect(reg.Names()).To(Equal([]string{"get_order", "refund_order"}))
		Expect(reg.Skill("refund_order")).To(BeIdenticalTo(skills[1]))
		Expect(reg.Skill("missing")).To(BeNil())
	})

	It("rejects duplicate and empty names", func() {
		a := &registry.Skill{Name: "a", Pos: registry.Pos{File: "x.yaml", Line: 3}}
		b := &registry.Skill{Name: "a", Pos: registry.Pos{File: "y.yaml", Line: 7}}
		_, err := registry.New([]*registry.Skill{a, b, {}})
		lines := problemLines(err)
		expectProblem(lines, "y.yaml:7: skills[1].name:", `duplicate skill name "a"`, "x.yaml:3")
		expectProblem(lines, "registry: skills[2]:", "has no name")
	})
})
