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

// A *Verdict must lead to exactly what its document (VerdictDoc) leads to,
// whatever the contract: the quick path reads it as it is only when the
// document would pass.
var _ = g.Describe("a verdict handed over as a *Verdict", func() {
	compile := func(schema string) *jsonschema.Schema {
		c := jsonschema.NewCompiler()
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(schema))
		Expect(err).NotTo(HaveOccurred())
		Expect(c.AddResource("mem://contract.json", doc)).To(Succeed())
		return c.MustCompile("mem://contract.json")
	}
	contracts := []string{
		`{"type":"object","properties":{"skill":{"type":"string","minLength":1},"confidence":{"type":"number","minimum":0,"maximum":1},"params":{"type":"object"}},"required":["skill","confidence","params"],"additionalProperties":false}`,
		`{"type":"object","properties":{"skill":{"type":"string","enum":["a","none"]},"confidence":{"type":"number","exclusiveMaximum":0.75},"params":{"type":"object","required":["n"]},"reason":{"type":"string","maxLength":5}},"required":["reason"]}`,
		`{"type":"object","properties":{"skill":{"type":"string","pattern":"^[a-z_]+$"},"confidence":{"type":"integer"},"params":{"type":["object","null"]}},"additionalProperties":{"type":"string"}}`,
		`{"type":"object","properties":{"skill":{"type":"string","format":"email"},"params":false}}`,
		`{"type":"object","properties":{"skill":{"type":"string"}},"additionalProperties":false}`,
		`{"type":"object","properties":{"skill":{"type":"string","not":{"const":"b"}}}}`, // not quick: always in full
		`true`,
	}
	verdicts := []Verdict{
		{Skill: "a", Confidence: 0.9, Params: map[string]any{"n": 3.0}},
		{Skill: "a", Confidence: 0.9, Params: map[string]any{"n": 3.0}, Reason: "fits"},
		{Skill: "a", Confidence: 0.5, Params: map[string]any{"n": 3.0}, Reason: "fits"},
		{Skill: "a", Confidence: 0.5, Params: map[string]any{"n": 3.0}},
		{Skill: "a", Confidence: 1, Params: map[string]any{"n": 3.0}, Reason: "fits best"},
		{Skill: "none", Confidence: 1, Params: nil, Reason: "no"},
		{Skill: " b ", Confidence: 0, Params: map[string]any{}},
		{Skill: "", Confidence: 0.5, Params: map[string]any{"n": "x"}},
		{Skill: "a@b.example", Confidence: 1.5, Params: map[string]any{}},
		{Skill: "Big", Confidence: -0.1, Params: map[string]any{"n": []any{1.0}}},
	}

	g.It("gives the verdict and errors its document gives, contract after contract", func() {
		quick := 0
		for _, schema := range contracts {
			c := compile(schema)
			q := newQuickSchema(c)
			if q != nil {
				quick++
			}
			for _, v := range verdicts {
				wantV, wantErrs := responseVerdict(JudgeResponse{Value: v.VerdictDoc()}, c, q)
				gotV, gotErrs := responseVerdict(JudgeResponse{Value: &v}, c, q)
				Expect(gotV).To(Equal(wantV), "%s %+v", schema, v)
				Expect(gotErrs).To(ConsistOf(wantErrs), "%s %+v", schema, v)
				if q != nil {
					Expect(q.validVerdict(&v)).To(Equal(q.valid(v.VerdictDoc())), "%s %+v", schema, v)
				}
			}
		}
		// All but the one meant not to be are quick: the spec must not pass
		// by leaving every contract to the full validator.
		Expect(quick).To(Equal(len(contracts) - 1))
	})

	g.It("falls back to Raw when it is not what JSON decodes to", func() {
		raw := `{"skill":"a","confidence":0.5,"params":{"n":3}}`
		for _, v := range []*Verdict{{Skill: "\xff", Confidence: 0.5}, {Skill: "b", Confidence: math.NaN()}, {Skill: "b", Params: map[string]any{"n": 3}}} {
			got, errs := responseVerdict(JudgeResponse{Raw: raw, Value: v}, nil, nil)
			Expect(errs).To(BeEmpty())
			Expect(got.Skill).To(Equal("a"))
		}
	})
})
