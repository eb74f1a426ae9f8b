package router

import (
	"math"
	"strings"

	g "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// A judge's decoded value must lead to exactly what parsing its Raw would:
// the same verdict and the same errors.
var _ = g.Describe("a verdict handed over as a value", func() {
	contract := func() *jsonschema.Schema {
		c := jsonschema.NewCompiler()
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(`{"type":"object","properties":{"skill":{"type":"string","minLength":1},"confidence":{"type":"number","minimum":0,"maximum":1},"params":{"type":"object"}},"required":["skill","confidence","params"],"additionalProperties":false}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(c.AddResource("mem://contract.json", doc)).To(Succeed())
		return c.MustCompile("mem://contract.json")
	}

	g.DescribeTable("gives what parsing Raw gives", func(raw string, value any) {
		c := contract()
		wantV, wantErrs := parseVerdict(raw, c)
		q := newQuickSchema(c)
		Expect(q).NotTo(BeNil())
		gotV, gotErrs := responseVerdict(JudgeResponse{Raw: raw, Value: value}, c, q)
		Expect(gotV).To(Equal(wantV))
		// jsonschema reports an object's problems in map order, so only
		// the set of errors is the same from run to run.
		Expect(gotErrs).To(ConsistOf(wantErrs))
	},
		g.Entry("a good answer", `{"skill":"restart_service","confidence":0.9,"params":{"service":"api","n":3,"tags":["a"]}}`,
			map[string]any{"skill": "restart_service", "confidence": 0.9, "params": map[string]any{"service": "api", "n": 3.0, "tags": []any{"a"}}}),
		g.Entry("a contract breach", `{"skill":"","confidence":1.5,"params":{},"extra":true}`,
			map[string]any{"skill": "", "confidence": 1.5, "params": map[string]any{}, "extra": true}),
		g.Entry("null params", `{"skill":"none","confidence":1,"params":null}`,
			map[string]any{"skill": "none", "confidence": 1.0, "params": nil}),
	)

	g.DescribeTable("is not used unless it is what JSON decodes to", func(v any) {
		Expect(isDecodedJSON(v)).To(BeFalse())
	},
		g.Entry("an int", map[string]any{"n": 3}),
		g.Entry("a nil map, which encodes as null", map[string]any{"params": map[string]any(nil)}),
		g.Entry("a nil list", []any(nil)),
		g.Entry("invalid UTF-8, which encoding replaces", map[string]any{"s": "\xff"}),
		g.Entry("NaN", math.NaN()),
		g.Entry("a []string", []string{"a"}),
	)

	g.It("falls back to Raw when the value is not decoded JSON", func() {
		raw := `{"skill":"a","confidence":0.5,"params":{"n":3}}`
		v, errs := responseVerdict(JudgeResponse{Raw: raw, Value: map[string]any{"skill": "b", "confidence": 0.5, "params": map[string]any{"n": 3}}}, contract(), nil)
		Expect(errs).To(BeEmpty())
		Expect(v.Skill).To(Equal("a"))
		Expect(v.Params).To(Equal(map[string]any{"n": 3.0}))
	})
})
