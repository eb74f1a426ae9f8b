package harness_test

import (
	"math"
	"reflect"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
)

var _ = Describe("sharing expected params between loaded cases", func() {
	type params = map[string]harness.ParamMatcher

	DescribeTable("shares two maps exactly when they are the same value",
		func(a, b params, shared bool) {
			Expect(harness.ParamsShared(a, b)).To(Equal(shared))
			if shared {
				Expect(reflect.DeepEqual(a, b)).To(BeTrue())
			}
		},
		Entry("equal literals", params{"region": eq("east"), "n": eq(2.0)}, params{"n": eq(2.0), "region": eq("east")}, true),
		Entry("equal nested values", params{"o": eq(map[string]any{"a": []any{"x", 1.0, true, nil}})}, params{"o": eq(map[string]any{"a": []any{"x", 1.0, true, nil}})}, true),
		Entry("equal matchers", params{"s": {AnyOf: []any{"a", "b"}, Optional: true}, "r": {Regex: "^x"}, "z": {Absent: true}},
			params{"s": {AnyOf: []any{"a", "b"}, Optional: true}, "r": {Regex: "^x"}, "z": {Absent: true}}, true),
		Entry("a number and its text", params{"n": eq(1.0)}, params{"n": eq("1")}, false),
		Entry("empty text and null", params{"n": eq("")}, params{"n": eq(nil)}, false),
		Entry("true and its text", params{"n": eq(true)}, params{"n": eq("true")}, false),
		Entry("zero and minus zero", params{"n": eq(0.0)}, params{"n": eq(math.Copysign(0, -1))}, false),
		Entry("another name", params{"a": eq("x")}, params{"b": eq("x")}, false),
		Entry("a name and value that run together", params{"ab": eq("c")}, params{"a": eq("bc")}, false),
		Entry("two params against one", params{"a": eq("x"), "b": eq("y")}, params{"a": eq("x")}, false),
		Entry("a list and its items apart", params{"a": eq([]any{"x", "y"})}, params{"a": eq([]any{"x,y"})}, false),
		Entry("a list and a mapping", params{"a": eq([]any{})}, params{"a": eq(map[string]any{})}, false),
		Entry("mapping keys that differ", params{"a": eq(map[string]any{"k": "v"})}, params{"a": eq(map[string]any{"kv": ""})}, false),
		Entry("any_of with and without optional", params{"s": {AnyOf: []any{"a"}, Optional: true}}, params{"s": {AnyOf: []any{"a"}}}, false),
		Entry("an empty any_of and none", params{"s": {AnyOf: []any{}, Optional: true}}, params{"s": {Optional: true}}, false),
		Entry("a literal and any_of of it", params{"s": eq("a")}, params{"s": {AnyOf: []any{"a"}}}, false),
		Entry("another regex", params{"r": {Regex: "^x"}}, params{"r": {Regex: "^y"}}, false),
		Entry("absent and a literal", params{"z": {Absent: true}}, params{"z": eq(nil)}, false),
		Entry("values of a type not spelled out, equal", params{"i": eq(int64(3))}, params{"i": eq(int64(3))}, true),
		Entry("values of a type not spelled out, and a number", params{"i": eq(int64(3))}, params{"i": eq(3.0)}, false),
	)
})
