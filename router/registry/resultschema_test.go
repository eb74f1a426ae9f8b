package registry_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router/registry"
)

var _ = Describe("result_schema", func() {
	It("compiles a skill's result schema and keeps the raw value", func() {
		skills, err := registry.ParseSkills("skills.yaml", withHeader(
			"    result_schema:",
			"      type: object",
			"      required: [items]",
			"      properties: {items: {type: array}}",
		))
		Expect(err).NotTo(HaveOccurred())
		s := skills[0]
		Expect(s.ResultSchemaRaw).To(HaveKeyWithValue("type", "object"))
		Expect(s.ResultSchema).NotTo(BeNil())
		Expect(s.ResultSchema.Validate(map[string]any{"items": []any{}})).To(Succeed())
		Expect(s.ResultSchema.Validate(map[string]any{"rows": 3.0})).NotTo(Succeed())
	})

	It("leaves ResultSchema nil when the skill declares none", func() {
		skills, err := registry.ParseSkills("skills.yaml", withHeader())
		Expect(err).NotTo(HaveOccurred())
		Expect(skills[0].ResultSchema).To(BeNil())
	})

	DescribeTable("reports a bad result_schema with file:line",
		func(data []byte, prefix string, fragments ...string) {
			_, err := registry.ParseSkills("skills.yaml", data)
			expectProblem(problemLines(err), prefix, fragments...)
		},
		Entry("not a mapping", withHeader("    result_schema: [a, b]"),
			"skills.yaml:5: skills[0].result_schema:", "must be a JSON Schema object"),
		Entry("does not compile", withHeader("    result_schema:", "      type: object", "      properties: {items: {type: arrayy}}"),
			"skills.yaml:7: skills[0].result_schema.properties.items.type:", "does not compile"),
		Entry("a $ref cycle", withHeader("    result_schema:", "      $ref: '#/$defs/a'", "      $defs:", "        a: {$ref: '#/$defs/b'}", "        b: {$ref: '#/$defs/a'}"),
			"skills.yaml:8: skills[0].result_schema.$defs.a:", "$ref cycle"),
		Entry("typo in the field name", withHeader("    result_schem: {type: object}"),
			"skills.yaml:5: skills[0].result_schem:", "did you mean result_schema?"),
	)
})
