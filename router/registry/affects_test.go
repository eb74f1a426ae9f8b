package registry_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router/registry"
)

// bulkHeader is lines 1-11: a delete skill over a list of made-up keys and a
// count, so x-affects lines start at 12.
var bulkHeader = []string{
	"skills:",
	"  - name: drop_widgets",
	"    description: Drop widgets by key.",
	"    side_effect: delete",
	"    confirm: normal",
	"    params_schema:",
	"      type: object",
	"      properties:",
	"        keys: {type: array, items: {type: string}}",
	"        howmany: {type: integer}",
	"        label: {type: string}",
}

func bulk(lines ...string) []byte { return doc(append(append([]string{}, bulkHeader...), lines...)...) }

var _ = Describe("x-affects", func() {
	It("compiles a count over a list param and counts a call's items", func() {
		skills, err := registry.ParseSkills("bulk.yaml", bulk("    x-affects: size(params.keys)"))
		Expect(err).NotTo(HaveOccurred())
		a := skills[0].Affects
		Expect(a).NotTo(BeNil())
		Expect(a.Pos.Line).To(Equal(12))
		n, err := a.Count(map[string]any{"keys": []any{"w-1", "w-2", "w-3"}}, now)
		Expect(err).NotTo(HaveOccurred())
		Expect(n).To(Equal(3))
	})

	It("accepts a numeric param (dyn at load) and takes a whole JSON number at run time", func() {
		skills, err := registry.ParseSkills("bulk.yaml", bulk("    x-affects: params.howmany"))
		Expect(err).NotTo(HaveOccurred())
		n, err := skills[0].Affects.Count(map[string]any{"howmany": 27.0}, now)
		Expect(err).NotTo(HaveOccurred())
		Expect(n).To(Equal(27))
	})

	DescribeTable("a value that is not a count is an error at run time, never a guess",
		func(params map[string]any, fragment string) {
			a, err := registry.NewAffects("params.howmany")
			Expect(err).NotTo(HaveOccurred())
			_, err = a.Count(params, now)
			Expect(err).To(MatchError(ContainSubstring(fragment)))
		},
		Entry("a string", map[string]any{"howmany": "many"}, "not a count"),
		Entry("a fraction", map[string]any{"howmany": 2.5}, "not a whole number"),
		Entry("a negative number", map[string]any{"howmany": -1.0}, "not a whole number"),
		Entry("absent", map[string]any{}, "no such key"),
	)

	DescribeTable("a non-int or broken expression is a load problem at its line",
		func(line string, fragments ...string) {
			_, err := registry.ParseSkills("bulk.yaml", bulk(line))
			Expect(err).To(HaveOccurred())
			expectProblem(problemLines(err), "bulk.yaml:12: skills[0].x-affects:", fragments...)
		},
		Entry("a boolean", "    x-affects: size(params.keys) > 10", "of type bool, not int", "size(params.ids)"),
		Entry("a string", "    x-affects: params.label + 'x'", "not int"),
		Entry("a double says to wrap it in int()", "    x-affects: double(params.howmany) * 1.5", "of type double", "int(...)"),
		Entry("does not compile", "    x-affects: size(params.keys", "does not compile", "fix the CEL expression"),
		Entry("an unknown function", "    x-affects: count(params.keys)", "does not compile"),
		Entry("a param the schema does not define, with a suggestion", "    x-affects: size(params.key)", "params.key", "did you mean params.keys?"),
		Entry("empty", "    x-affects: ''", "is empty"),
		Entry("not a string", "    x-affects: [size(params.keys)]", "skills[0].x-affects"),
	)

	It("points a problem on the second line of a block scalar at that line", func() {
		_, err := registry.ParseSkills("bulk.yaml", bulk("    x-affects: |", "      size(params.keys) +", "      ) + 1"))
		Expect(err).To(HaveOccurred())
		expectProblem(problemLines(err), "bulk.yaml:14: skills[0].x-affects:", "does not compile", "column")
	})

	It("leaves a skill without x-affects with none, and accepts x-sensitive on a param", func() {
		skills, err := registry.ParseSkills("s.yaml", doc(
			"skills:",
			"  - name: set_secret",
			"    description: Store one secret.",
			"    side_effect: write",
			"    params_schema:",
			"      type: object",
			"      properties:",
			"        token: {type: string, x-sensitive: true}",
		))
		Expect(err).NotTo(HaveOccurred())
		Expect(skills[0].Affects).To(BeNil())
	})
})
