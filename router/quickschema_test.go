package router

import (
	"math"
	"strings"

	g "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

func compileSchema(src string) *jsonschema.Schema {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(src))
	Expect(err).NotTo(HaveOccurred())
	Expect(c.AddResource("mem://s.json", doc)).To(Succeed())
	return c.MustCompile("mem://s.json")
}

// quickSchema may only say "valid" where the full validator does; every
// value below is checked both ways, and its validate must give exactly
// the full validator's result.
var _ = g.Describe("quick schema checks", func() {
	const params = `{"type":"object","properties":{
		"region":{"type":"string","enum":["east","west"]},
		"replicas":{"type":"integer","minimum":1,"maximum":50},
		"ratio":{"type":"number","exclusiveMinimum":0,"maximum":0.5},
		"name":{"type":"string","minLength":2,"maxLength":4},
		"tags":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":2},
		"flag":{"type":"boolean"},
		"day":{"type":"string","format":"date"},
		"id":{"type":"string","pattern":"^ORD-[0-9]{4}$"}},
		"required":["region"],"additionalProperties":false}`

	g.DescribeTable("agree with the full validator", func(v any, wantValid bool) {
		s := compileSchema(params)
		q := newQuickSchema(s)
		Expect(q).NotTo(BeNil())
		full := s.Validate(v)
		Expect(full == nil).To(Equal(wantValid))
		if q.valid(v) {
			Expect(full).To(BeNil())
		}
		Expect(q.validate(s, v) == nil).To(Equal(wantValid))
	},
		g.Entry("all good", map[string]any{"region": "east", "replicas": 3.0, "ratio": 0.5, "name": "日本", "tags": []any{"a"}, "flag": true}, true),
		g.Entry("a date and an id", map[string]any{"region": "east", "day": "2026-02-28", "id": "ORD-1234"}, true),
		g.Entry("not a date", map[string]any{"region": "east", "day": "2026-02-30"}, false),
		g.Entry("not matching the pattern", map[string]any{"region": "east", "id": "ORD-12"}, false),
		g.Entry("missing required", map[string]any{"replicas": 3.0}, false),
		g.Entry("not in enum", map[string]any{"region": "north"}, false),
		g.Entry("not an integer", map[string]any{"region": "east", "replicas": 2.5}, false),
		g.Entry("above maximum", map[string]any{"region": "east", "replicas": 51.0}, false),
		g.Entry("at the exclusive minimum", map[string]any{"region": "east", "ratio": 0.0}, false),
		g.Entry("just above the maximum", map[string]any{"region": "east", "ratio": math.Nextafter(0.5, 1)}, false),
		g.Entry("too short in runes", map[string]any{"region": "east", "name": "日"}, false),
		g.Entry("too long in runes", map[string]any{"region": "east", "name": "日本語です"}, false),
		g.Entry("too many items", map[string]any{"region": "east", "tags": []any{"a", "b", "c"}}, false),
		g.Entry("wrong item type", map[string]any{"region": "east", "tags": []any{1.0}}, false),
		g.Entry("an unknown property", map[string]any{"region": "east", "zone": "x"}, false),
		g.Entry("not an object", []any{}, false),
		g.Entry("an int, which it leaves to the full validator", map[string]any{"region": "east", "replicas": 3}, true),
	)

	g.It("leaves schemas with other keywords to the full validator", func() {
		Expect(newQuickSchema(compileSchema(`{"type":"string","format":"regex"}`))).To(BeNil())
		Expect(newQuickSchema(compileSchema(`{"type":"array","uniqueItems":true}`))).To(BeNil())
		Expect(newQuickSchema(compileSchema(`{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"type":"string"}}}`))).To(BeNil())
		Expect(newQuickSchema(compileSchema(`{"anyOf":[{"type":"string"},{"type":"number"}]}`))).To(BeNil())
	})

	g.It("keeps only bounds a float64 compares exactly with", func() {
		// 0.1 is not a float64: jsonschema reads the value 0.1 as exactly
		// 1/10, which a float64 comparison cannot reproduce in general.
		Expect(newQuickSchema(compileSchema(`{"type":"number","maximum":0.1}`))).To(BeNil())
		q := newQuickSchema(compileSchema(`{"type":"number","maximum":0.25}`))
		Expect(q).NotTo(BeNil())
		Expect(q.valid(0.25)).To(BeTrue())
		Expect(q.valid(math.Nextafter(0.25, 1))).To(BeFalse())
	})
})

// A value that fails only by missing required params gets, from the quick
// check, the errors schemaErrors makes of the full validator's.
var _ = g.Describe("params missing and nothing else", func() {
	schemas := []string{
		`{"type":"object","properties":{"to":{"type":"string"},"channel":{"type":"string","enum":["sms","email"]},"n":{"type":"integer","minimum":1}},"required":["to","channel","n"],"additionalProperties":false}`,
		`{"type":"object","properties":{"a/b":{"type":"string"},"t~":{"type":"number"}},"required":["t~","a/b"]}`,
		`{"type":"object","properties":{"day":{"type":"string","format":"date"}},"required":["day","other"],"additionalProperties":{"type":"boolean"}}`,
	}
	values := []map[string]any{
		{}, {"channel": "sms"}, {"channel": "fax"}, {"to": "bob", "n": 0.0}, {"to": "bob", "channel": "email", "n": 2.0},
		{"extra": true}, {"extra": "x"}, {"a/b": "x"}, {"t~": 1.0}, {"day": "2026-02-30"}, {"day": "2026-02-28", "x": false},
	}

	g.It("match the full validator's, schema after schema", func() {
		quickPaths := 0
		for _, src := range schemas {
			s := compileSchema(src)
			q := newQuickSchema(s)
			Expect(q).NotTo(BeNil(), src)
			for _, v := range values {
				want := schemaErrors(s.Validate(v), CatParams, LayerSchema)
				missing, ok := q.missingOnly(v)
				if !ok {
					continue
				}
				quickPaths++
				var got []Error
				for _, m := range missing {
					got = append(got, Error{Category: CatParams, Layer: LayerSchema, Path: pointer([]string{m}), Rule: "required", Message: m + " is required"})
				}
				Expect(got).To(Equal(want), "%s %v", src, v)
			}
		}
		Expect(quickPaths).To(BeNumerically(">=", 10))
	})

	g.It("are left to the full validator when something else is wrong", func() {
		q := newQuickSchema(compileSchema(schemas[0]))
		for _, v := range []map[string]any{{"channel": "fax"}, {"n": 0.0}, {"extra": 1.0}, {"to": "a", "channel": "sms", "n": 1.0}} {
			_, ok := q.missingOnly(v)
			Expect(ok).To(BeFalse(), "%v", v)
		}
	})
})
