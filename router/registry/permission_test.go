package registry_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router/registry"
)

var _ = Describe("ValueScopes", func() {
	s := &registry.Skill{Name: "scale_service", ParamsSchema: map[string]any{"properties": map[string]any{
		"replicas": map[string]any{"type": "integer", "x-permission": map[string]any{"3": []any{"big"}}},
		"env":      map[string]any{"type": "string", "x-permission": map[string]any{"prod": []any{"ops:prod", "ops:write"}}},
		"service":  map[string]any{"type": "string"},
	}}}

	It("compares x-permission keys with the printed value, param by param in name order", func() {
		Expect(s.ValueScopes(map[string]any{"replicas": 3.0, "env": "prod", "service": "gateway"})).To(Equal([]registry.ValueScope{
			{Param: "env", Value: "prod", Scopes: []string{"ops:prod", "ops:write"}},
			{Param: "replicas", Value: 3.0, Scopes: []string{"big"}},
		}))
	})

	It("asks nothing for values without an entry, or params left out", func() {
		Expect(s.ValueScopes(map[string]any{"env": "staging"})).To(BeEmpty())
		Expect(s.ValueScopes(map[string]any{"env": nil})).To(BeEmpty())
	})
})
