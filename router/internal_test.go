package router

import (
	"fmt"
	"unsafe"

	g "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router/registry"
)

var _ = g.Describe("internals", func() {
	g.It("keeps a decision's room within the 2,048-byte allocation size class", func() {
		// One byte more and every Route allocates 2,304 bytes for it.
		Expect(int(unsafe.Sizeof(decisionRoom{}))).To(BeNumerically("<=", 2048))
	})

	g.It("re-checks the skill's own permission_scope as defence in depth", func() {
		s := &registry.Skill{Name: "delete_test_data", PermissionScope: []string{"data:delete", "ops:write"}}
		errs := permissionErrors(s, map[string]any{}, scopeSet(Caller{Scopes: []string{" ops:write "}}))
		Expect(errs).To(ConsistOf(Error{Category: CatParams, Layer: LayerPermission, Rule: "permission_scope",
			Message: "delete_test_data needs scope data:delete, which the caller lacks"}))
	})

	g.DescribeTable("strips one markdown fence", func(in, out string) {
		Expect(stripFence(in)).To(Equal(out))
	},
		g.Entry("json tag", "```json\n{\"a\":1}\n```", `{"a":1}`),
		g.Entry("no tag", "```\n{\"a\":1}\n```", `{"a":1}`),
		g.Entry("one line", "```{\"a\":1}```", `{"a":1}`),
		g.Entry("none", ` {"a":1} `, `{"a":1}`),
	)

	g.It("escapes JSON pointer tokens", func() {
		Expect(pointer([]string{"a/b", "c~d"})).To(Equal("/a~1b/c~0d"))
		Expect(topField("/a~1b/0")).To(Equal("a/b"))
		Expect(pointer(nil)).To(BeEmpty())
	})

	g.It("joins names for messages", func() {
		Expect(joinNames([]string{"a"})).To(Equal("a"))
		Expect(joinNames([]string{"a", "b", "c"})).To(Equal("a, b and c"))
	})

	g.It("resolves none case-insensitively only when no candidate is named so", func() {
		_, out, note := resolveSkill("None", nil)
		Expect(out).To(Equal(choiceNone))
		Expect(note).To(ContainSubstring(`"None"`))
	})

	g.It("refuses to repair a name that folds onto two candidates", func() {
		a, b := &registry.Skill{Name: "Get_Order"}, &registry.Skill{Name: "get_order"}
		_, out, note := resolveSkill("GET_ORDER", []*registry.Skill{a, b})
		Expect(out).To(Equal(choiceInvalid))
		Expect(note).To(ContainSubstring("several"))
	})
})

var _ = g.Describe("held scopes", func() {
	g.It("trims each scope without touching the caller's list", func() {
		scopes := []string{"a:read", " b:write "}
		h := scopeSet(Caller{Scopes: scopes})
		Expect(h.has("b:write")).To(BeTrue())
		Expect(h.has(" b:write ")).To(BeFalse())
		Expect(scopes[1]).To(Equal(" b:write "))
	})
	g.It("answers the same for a long list, kept as a map", func() {
		var scopes []string
		for i := range 40 {
			scopes = append(scopes, string(rune('a'+i%26))+":"+string(rune('a'+i/26)))
		}
		h := scopeSet(Caller{Scopes: scopes})
		Expect(h.set).NotTo(BeNil())
		for _, s := range scopes {
			Expect(h.has(s)).To(BeTrue())
		}
		Expect(h.has("z:z")).To(BeFalse())
	})
})

var _ = g.Describe("the bands note", func() {
	g.DescribeTable("reads as the formatted note", func(se registry.SideEffect, execute, clarify float64, a Action) {
		Expect(bandsNote(se, execute, clarify, a)).To(Equal(fmt.Sprintf("%s skill: execute at >= %g, clarify at >= %g -> %s", se, execute, clarify, a)))
	},
		g.Entry("usual", registry.Read, 0.7, 0.4, Execute),
		g.Entry("whole and tiny numbers", registry.Delete, 1.0, 1e-7, Refuse),
		g.Entry("large", registry.Send, 123456789.0, 0.0001, Clarify),
	)
})
