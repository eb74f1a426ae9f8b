package harness_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
)

var _ = Describe("MatchParams", func() {
	kinds := func(ms []harness.ParamMismatch) []string {
		out := []string{}
		for _, m := range ms {
			out = append(out, m.Param+":"+m.Kind)
		}
		return out
	}

	It("is a subset match: params the case does not name may be anything", func() {
		want := map[string]harness.ParamMatcher{"region": eq("east")}
		Expect(harness.MatchParams(want, map[string]any{"region": "east", "start": "2026-11-23"})).To(BeEmpty())
	})

	It("compares numbers numerically whatever their Go type", func() {
		want := map[string]harness.ParamMatcher{"replicas": eq(float64(5)), "amount": eq(3)}
		Expect(harness.MatchParams(want, map[string]any{"replicas": 5, "amount": json.Number("3.0")})).To(BeEmpty())
		Expect(kinds(harness.MatchParams(want, map[string]any{"replicas": 6.0, "amount": 3}))).To(Equal([]string{"replicas:value"}))
	})

	It("classifies missing, unexpected, type and value (BFCL's taxonomy)", func() {
		want := map[string]harness.ParamMatcher{
			"a": eq("x"), "b": {Absent: true}, "c": eq(float64(1)), "d": eq("east"),
		}
		got := map[string]any{"b": "set", "c": "1", "d": "west"}
		Expect(kinds(harness.MatchParams(want, got))).To(Equal([]string{"a:missing", "b:unexpected", "c:type", "d:value"}))
	})

	It("treats a null param as absent", func() {
		want := map[string]harness.ParamMatcher{"status": {Absent: true}, "region": eq("east")}
		Expect(kinds(harness.MatchParams(want, map[string]any{"status": nil, "region": nil}))).To(Equal([]string{"region:missing"}))
	})

	It("matches any_of and regex", func() {
		want := map[string]harness.ParamMatcher{
			"env":   {AnyOf: []any{"staging", "prod"}},
			"order": {Regex: `^ORD-\d{8}$`},
		}
		Expect(harness.MatchParams(want, map[string]any{"env": "prod", "order": "ORD-12345678"})).To(BeEmpty())
		Expect(kinds(harness.MatchParams(want, map[string]any{"env": "dev", "order": 12}))).To(Equal([]string{"env:value", "order:type"}))
		Expect(kinds(harness.MatchParams(want, map[string]any{"env": 3, "order": "ORD-1"}))).To(Equal([]string{"env:type", "order:value"}))
	})

	It("lets an optional any_of or regex param be left out, but not be wrong", func() {
		want := map[string]harness.ParamMatcher{"unit": {AnyOf: []any{"celsius"}, Optional: true}}
		Expect(harness.MatchParams(want, map[string]any{})).To(BeEmpty())
		Expect(harness.MatchParams(want, map[string]any{"unit": "celsius"})).To(BeEmpty())
		Expect(kinds(harness.MatchParams(want, map[string]any{"unit": "kelvin"}))).To(Equal([]string{"unit:value"}))
		Expect(want["unit"].String()).To(Equal(`{any_of: ["celsius"], optional: true}`))
	})

	It("matches literal objects as a subset and lists element by element", func() {
		want := map[string]harness.ParamMatcher{"filter": eq(map[string]any{"k": float64(1)}), "ids": eq([]any{"a", "b"})}
		Expect(harness.MatchParams(want, map[string]any{"filter": map[string]any{"k": 1, "extra": true}, "ids": []any{"a", "b"}})).To(BeEmpty())
		Expect(kinds(harness.MatchParams(want, map[string]any{"filter": map[string]any{"k": 2}, "ids": []any{"b", "a"}}))).To(Equal([]string{"filter:value", "ids:value"}))
	})

	It("prints mismatches a person can act on", func() {
		ms := harness.MatchParams(map[string]harness.ParamMatcher{"zone": eq("east")}, map[string]any{"zone": "west"})
		Expect(ms).To(HaveLen(1))
		Expect(ms[0].String()).To(Equal(`zone: want "east", got "west" (value)`))
	})
})
