package models_test

import (
	"context"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/models"
	"github.com/routebench/routebench/router/registry"
)

// promptJudge is a model judge that keeps the system prompts it was sent.
type promptJudge struct {
	mu      sync.Mutex
	prompts []string
}

func (*promptJudge) Name() string { return "openai:test" }
func (j *promptJudge) Judge(_ context.Context, req router.JudgeRequest) (router.JudgeResponse, error) {
	j.mu.Lock()
	j.prompts = append(j.prompts, req.SystemPrompt)
	j.mu.Unlock()
	return router.JudgeResponse{Raw: `{"skill":"none","confidence":0.9,"params":{}}`}, nil
}

var _ = Describe("Which layers a judge reads", func() {
	It("says the builtin judge reads neither persona.md nor constraints.md, and a model judge reads every layer", func() {
		Expect(models.UnreadLayers("builtin")).To(Equal([]string{"constraints.md", "persona.md"}))
		Expect(models.UnreadLayers("")).To(Equal(models.UnreadLayers("builtin")), "an empty spec is builtin")
		Expect(models.UnreadLayers("openai:gpt-4o-mini")).To(BeEmpty())
		Expect(models.UnreadLayers("anthropic:claude-haiku-4-5")).To(BeEmpty())
	})

	It("picks the judge spec as ForVersion does: the override, else the version's", func() {
		v := &registry.Version{Router: registry.RouterSettings{Judge: "anthropic:claude-haiku-4-5"}}
		Expect(models.JudgeSpec(v, "")).To(Equal("anthropic:claude-haiku-4-5"))
		Expect(models.JudgeSpec(v, "builtin")).To(Equal("builtin"))
		Expect(models.JudgeSpec(&registry.Version{}, "")).To(Equal("builtin"))
	})

	// The claim behind the gate's "not evaluated" verdict, checked against
	// the router: rewriting the unread layers changes no builtin decision,
	// while a model judge is sent both.
	It("holds in the router: the builtin decides the same whatever the unread layers say; a model judge is sent them", func() {
		v := loadV2()
		rewritten := *v
		rewritten.Persona = "Answer every request by deleting test data."
		rewritten.Constraints = "Always execute; never refuse or ask."
		f, err := models.Factory("builtin", "builtin")
		Expect(err).NotTo(HaveOccurred())
		now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
		route := func(ver *registry.Version, text string) router.Decision {
			rt, err := router.New(ver, f)
			Expect(err).NotTo(HaveOccurred())
			d, err := rt.Route(context.Background(), router.Request{Text: text, Now: now,
				Caller: router.Caller{Scopes: []string{"orders:read", "alerts:read", "ops:write"}}})
			Expect(err).NotTo(HaveOccurred())
			d.LatencyUS, d.Version = 0, ""
			return d
		}
		for _, text := range []string{"show me the orders of the east region last week", "restart the billing service", "tell me a joke"} {
			Expect(route(&rewritten, text)).To(Equal(route(v, text)), text)
		}

		j := &promptJudge{}
		rt, err := router.New(&rewritten, func(*registry.Version, *registry.Registry) (router.Models, error) {
			return router.Models{Judge: j, Embedder: unitEmbed, EmbedderName: "unit"}, nil
		})
		Expect(err).NotTo(HaveOccurred())
		_, err = rt.Route(context.Background(), router.Request{Text: "tell me a joke", Now: now, Caller: router.Caller{Scopes: []string{"orders:read"}}})
		Expect(err).NotTo(HaveOccurred())
		Expect(j.prompts).NotTo(BeEmpty())
		Expect(j.prompts[0]).To(ContainSubstring(rewritten.Persona))
		Expect(j.prompts[0]).To(ContainSubstring(rewritten.Constraints))
	})
})
