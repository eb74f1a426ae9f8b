package router

import (
	"strings"

	g "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

var _ = g.Describe("schema errors", func() {
	g.It("come in the same order every time, by where they are", func() {
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(`{"type": "object", "properties": {
			"alpha": {"type": "integer"}, "bravo": {"type": "integer"}, "charlie": {"type": "integer"},
			"delta": {"type": "integer"}, "echo": {"type": "integer"}, "foxtrot": {"type": "integer"},
			"golf": {"type": "integer"}, "hotel": {"type": "integer"}}}`))
		Expect(err).NotTo(HaveOccurred())
		c := jsonschema.NewCompiler()
		Expect(c.AddResource("s.json", doc)).To(Succeed())
		sch, err := c.Compile("s.json")
		Expect(err).NotTo(HaveOccurred())
		value := map[string]any{"hotel": "x", "alpha": "x", "echo": "x", "charlie": "x", "golf": "x", "bravo": "x", "delta": "x", "foxtrot": "x"}
		var first []string
		for range 40 { // map order differs from one validation to the next
			var paths []string
			for _, e := range schemaErrors(sch.Validate(value), CatParams, LayerSchema) {
				paths = append(paths, e.Path)
			}
			if first == nil {
				first = paths
			}
			Expect(paths).To(Equal(first))
		}
		Expect(first).To(Equal([]string{"/alpha", "/bravo", "/charlie", "/delta", "/echo", "/foxtrot", "/golf", "/hotel"}))
	})
})
