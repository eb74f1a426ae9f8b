package registry_test

import (
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.yaml.in/yaml/v3"

	"github.com/routebench/routebench/router/registry"
)

// defs writes $defs d0 ... d{n-1} with def(i) (which refers on to d{i+1})
// and a last d{n}, at the indentation of a params_schema's keys.
func defs(n int, def func(next string) string, last string) []string {
	out := []string{"      $defs:"}
	for i := range n {
		out = append(out, fmt.Sprintf("        d%d: %s", i, def(fmt.Sprintf(`{$ref: "#/$defs/d%d"}`, i+1))))
	}
	return append(out, fmt.Sprintf("        d%d: %s", n, last))
}

// bombSkill is a skill whose property zz (line 8) refers to #/$defs/d0,
// with the $defs from line 9 and one example giving zz the value params.
func bombSkill(defLines []string, params string) []byte {
	lines := append([]string{"    params_schema:", "      type: object", "      properties:", `        zz: {$ref: "#/$defs/d0"}`}, defLines...)
	return withHeader(append(lines, "    examples:", "      - input: check it", "        params: {zz: "+params+"}")...)
}

func nested(open, leaf, close string, n int) string {
	return strings.Repeat(open, n) + leaf + strings.Repeat(close, n)
}

// Every entry would hang loading, or the router on its first matching
// request, without the check: the validator walks each $ref afresh.
var _ = Describe("schemas whose validation would explode", func() {
	DescribeTable("are rejected at load when $refs multiply the subschemas one value visits",
		func(content []byte, prefix string, fragments ...string) {
			_, err := registry.ParseSkills("skills.yaml", content)
			expectProblem(problemLines(err), prefix, append(fragments, "is too costly to validate", "more than 10,000 subschemas")...)
		},
		Entry("anyOf of two $refs to the next definition, 40 deep (the audit's 3 KB request)",
			bombSkill(defs(40, func(r string) string { return "{anyOf: [" + r + ", " + r + "]}" }, "{type: integer}"), `"x"`),
			"skills.yaml:8: skills[0].params_schema.properties.zz:", "following its $ref to #/$defs/d0"),
		Entry("allOf of three, 12 deep, at the top of the schema",
			withHeader(append([]string{"    params_schema:", "      type: object", `      allOf: [{$ref: "#/$defs/d0"}]`},
				defs(12, func(r string) string { return "{allOf: [" + r + ", " + r + ", " + r + "]}" }, "{required: [x]}")...)...),
			"skills.yaml:7: skills[0].params_schema.allOf.0:", "following its $ref to #/$defs/d0"),
		Entry("oneOf under an array's items",
			withHeader(append([]string{"    params_schema:", "      type: object", "      properties:",
				`        ids: {type: array, items: {$ref: "#/$defs/d0"}}`},
				defs(30, func(r string) string { return "{oneOf: [" + r + ", " + r + "]}" }, "{type: string}")...)...),
			"skills.yaml:8: skills[0].params_schema.properties.ids.items:", "following its $ref to #/$defs/d0"),
		Entry("items and contains both leading on, through nested lists",
			bombSkill(defs(30, func(r string) string { return "{type: array, items: " + r + ", contains: " + r + "}" }, "{type: integer}"),
				nested("[", `"x"`, "]", 30)),
			"skills.yaml:8: skills[0].params_schema.properties.zz:", "following its $ref to #/$defs/d0"),
		Entry("a property and a pattern both matching it, through nested objects",
			bombSkill(defs(30, func(r string) string {
				return "{type: object, properties: {a: " + r + "}, patternProperties: {'^a$': " + r + "}}"
			}, "{type: integer}"), nested("{a: ", `"x"`, "}", 30)),
			"skills.yaml:8: skills[0].params_schema.properties.zz:", "following its $ref to #/$defs/d0"),
		Entry("a result_schema",
			withHeader(append([]string{"    result_schema:", `      $ref: "#/$defs/d0"`},
				defs(30, func(r string) string { return "{anyOf: [" + r + ", " + r + "]}" }, "{type: object}")...)...),
			"skills.yaml:6: skills[0].result_schema:", "following its $ref to #/$defs/d0"),
		Entry("a definition reached only through $dynamicRef",
			withHeader(append([]string{"    params_schema:", "      type: object", "      properties:",
				`        zz: {$ref: "sub"}`,
				"      $defs:",
				`        hidden: {$dynamicAnchor: m, $ref: "#/$defs/d0"}`,
				`        sub: {$id: sub, $dynamicAnchor: m, type: object, properties: {y: {$dynamicRef: "#m"}}}`},
				defs(30, func(r string) string { return "{anyOf: [" + r + ", " + r + "]}" }, "{type: integer}")[1:]...)...),
			"skills.yaml:8: skills[0].params_schema.properties.zz:", "following its $ref to #/$defs/sub"),
	)

	DescribeTable("are rejected at load when a recursion is entered twice for one part of the value",
		func(content []byte, prefix string, fragments ...string) {
			_, err := registry.ParseSkills("skills.yaml", content)
			expectProblem(problemLines(err), prefix, append(fragments, "leads into $ref recursion twice through", "each level a value nests multiplies the work")...)
		},
		Entry("anyOf of two $refs to a definition recursing through a property",
			withHeader(
				"    params_schema:",
				"      type: object",
				"      properties:",
				`        zz: {$ref: "#/$defs/d"}`,
				"      $defs:",
				`        d: {anyOf: [{$ref: "#/$defs/e"}, {$ref: "#/$defs/e"}]}`,
				`        e: {type: object, properties: {a: {$ref: "#/$defs/d"}}}`,
				"    examples:",
				"      - input: check it",
				"        params: {zz: "+nested("{a: ", "1", "}", 40)+"}",
			),
			"skills.yaml:10: skills[0].params_schema.$defs.d:", `property "a"`,
			"#/$defs/d -> #/$defs/d/anyOf/0 -> #/$defs/e -> #/$defs/e/properties/a; #/$defs/d -> #/$defs/d/anyOf/1 -> #/$defs/e -> #/$defs/e/properties/a"),
		Entry("oneOf branches that each declare the recursive property",
			withHeader(
				"    params_schema:",
				"      type: object",
				"      properties:",
				`        expr: {$ref: "#/$defs/e"}`,
				"      $defs:",
				"        e:",
				"          oneOf:",
				`            - {type: object, properties: {op: {const: and}, args: {type: array, items: {$ref: "#/$defs/e"}}}}`,
				`            - {type: object, properties: {op: {const: or}, args: {type: array, items: {$ref: "#/$defs/e"}}}}`,
				"    examples:",
				"      - input: check it",
				"        params: {expr: "+nested("{op: and, args: [", "{op: x}", "]}", 40)+"}",
			),
			"skills.yaml:11: skills[0].params_schema.$defs.e:", `property "args"`, "declare that part once"),
		Entry("items and contains of one list both recursing",
			withHeader(
				"    params_schema:",
				"      type: object",
				"      properties:",
				`        zz: {$ref: "#/$defs/n"}`,
				"      $defs:",
				`        n: {type: array, items: {$ref: "#/$defs/n"}, contains: {$ref: "#/$defs/n"}}`,
			),
			"skills.yaml:10: skills[0].params_schema.$defs.n:", "every item"),
		Entry("one property entering two recursions",
			withHeader(
				"    params_schema:",
				"      type: object",
				"      properties:",
				`        zz: {$ref: "#/$defs/d"}`,
				"      $defs:",
				`        d: {type: object, properties: {a: {allOf: [{$ref: "#/$defs/d"}, {$ref: "#/$defs/e"}]}}}`,
				`        e: {type: object, properties: {a: {$ref: "#/$defs/e"}}}`,
			),
			"skills.yaml:10: skills[0].params_schema.$defs.d.properties.a:", `property "a"`),
	)

	It("are rejected in the judge contract, at their line", func() {
		var b strings.Builder
		b.WriteString("{\n  \"type\": \"object\",\n  \"properties\": {\n    \"reason\": {\"$ref\": \"#/$defs/d0\"}\n  },\n  \"$defs\": {\n")
		for i := range 30 {
			fmt.Fprintf(&b, "    \"d%d\": {\"anyOf\": [{\"$ref\": \"#/$defs/d%d\"}, {\"$ref\": \"#/$defs/d%d\"}]},\n", i, i+1, i+1)
		}
		b.WriteString("    \"d30\": {\"type\": \"string\"}\n  }\n}\n")
		_, err := registry.LoadFS(with(validFS("v1"), "v1/contract.schema.json", b.String()), "v1", "v1")
		expectProblem(problemLines(err), "v1/contract.schema.json:4: properties.reason:", "is too costly to validate", "#/$defs/d0")
	})

	It("are rejected in a params_schema compiled for another file, as workflows.yaml's are", func() {
		src := append([]string{"      type: object", "      properties:", `        zz: {$ref: "#/$defs/d0"}`},
			defs(30, func(r string) string { return "{allOf: [" + r + ", " + r + "]}" }, "{type: integer}")...)
		var n yaml.Node
		Expect(yaml.Unmarshal([]byte(strings.Join(src, "\n")), &n)).To(Succeed())
		_, _, _, err := registry.CompileParamsSchema("workflows.yaml", "workflows[0].params_schema", n.Content[0])
		expectProblem(problemLines(err), "workflows.yaml:3: workflows[0].params_schema.properties.zz:", "is too costly to validate")
	})

	It("leave realistic schemas alone: shared $defs, recursive trees, filters and JSON values", func() {
		skills, err := registry.ParseSkills("skills.yaml", withHeader(
			"    params_schema:",
			"      type: object",
			"      properties:",
			`        billing: {$ref: "#/$defs/address"}`,
			`        shipping: {$ref: "#/$defs/address"}`,
			`        total: {$ref: "#/$defs/money"}`,
			`        lines: {type: array, items: {type: object, properties: {sku: {type: string}, price: {$ref: "#/$defs/money"}, discount: {$ref: "#/$defs/money"}}}}`,
			`        filter: {$ref: "#/$defs/filter"}`,
			`        tree: {$ref: "#/$defs/node"}`,
			`        extra: {$ref: "#/$defs/json"}`,
			"      $defs:",
			`        money: {type: object, required: [amount, currency], properties: {amount: {type: number}, currency: {enum: [EUR, USD, CNY]}}}`,
			`        address: {type: object, properties: {street: {type: string}, city: {type: string}, country: {type: string, pattern: "^[A-Z]{2}$"}}}`,
			`        condition: {type: object, required: [field], properties: {field: {type: string}, equals: {type: string}}}`,
			`        filter: {anyOf: [{$ref: "#/$defs/condition"}, {type: object, required: [and], properties: {and: {type: array, items: {$ref: "#/$defs/filter"}}}}, {type: object, required: [or], properties: {or: {type: array, items: {$ref: "#/$defs/filter"}}}}]}`,
			`        node: {type: object, properties: {name: {type: string}, left: {$ref: "#/$defs/node"}, right: {$ref: "#/$defs/node"}, parent: {anyOf: [{$ref: "#/$defs/node"}, {type: "null"}]}}}`,
			`        json: {anyOf: [{type: [string, number, boolean, "null"]}, {type: array, items: {$ref: "#/$defs/json"}}, {type: object, additionalProperties: {$ref: "#/$defs/json"}}]}`,
			"    examples:",
			"      - input: ship it",
			"        params:",
			"          total: {amount: 12.5, currency: EUR}",
			"          filter: {and: [{field: a}, {or: [{field: b, equals: c}]}]}",
			"          tree: {name: r, left: {name: l}, right: {name: x, parent: null}}",
			"          extra: {k: [1, {deep: [true, null]}]}",
		))
		Expect(err).NotTo(HaveOccurred())
		Expect(skills[0].PropSchemas["filter"].Validate(map[string]any{"and": []any{map[string]any{"nope": 1.0}}})).NotTo(Succeed())
	})
})
