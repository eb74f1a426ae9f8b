package router_test

import (
	"context"
	"math"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

// angleEmbed puts every text that says "alpha" on one axis and every text
// that says "beta" on another; "probe D" is the unit vector between them
// whose cosine to beta exceeds its cosine to alpha by D. Recall then
// scores alpha and beta exactly, so a spec can place a request on either
// side of askedMargin (0.05).
func angleEmbed(_ context.Context, text string) ([]float32, error) {
	switch {
	case strings.HasPrefix(text, "probe "):
		d, err := strconv.ParseFloat(strings.TrimPrefix(text, "probe "), 64)
		if err != nil {
			return nil, err
		}
		// sin t - cos t = sqrt(2) sin(t - 45 degrees)
		t := math.Pi/4 + math.Asin(d/math.Sqrt2)
		return []float32{float32(math.Cos(t)), float32(math.Sin(t)), 0}, nil
	case strings.Contains(strings.ToLower(text), "alpha"):
		return []float32{1, 0, 0}, nil
	case strings.Contains(strings.ToLower(text), "beta"):
		return []float32{0, 1, 0}, nil
	}
	return []float32{0, 0, 1}, nil
}

var _ = Describe("how far above the best allowed skill a dropped skill must score", func() {
	decide := func(text string) router.Decision {
		GinkgoHelper()
		alpha := build(skillSpec{name: "alpha_tool", se: registry.Read, desc: "Alpha readings.", examples: []string{"alpha please"},
			schema: `{"type": "object"}`})
		beta := build(skillSpec{name: "beta_tool", se: registry.Read, desc: "Beta readings.", examples: []string{"beta please"},
			schema: `{"type": "object"}`})
		j := &scriptJudge{name: "fake", answer: always("none", 0.9, nil)}
		factory := func(*registry.Version, *registry.Registry) (router.Models, error) {
			return router.Models{Judge: j, Embedder: angleEmbed, EmbedderName: "angle"}, nil
		}
		r, err := router.New(versionOf([]*registry.Skill{alpha, beta}), factory)
		Expect(err).NotTo(HaveOccurred())
		d, err := r.Route(context.Background(), router.Request{Text: text, Caller: router.Caller{Disabled: []string{"beta_tool"}}, Now: now})
		Expect(err).NotTo(HaveOccurred())
		return d
	}

	It("counts the request as asking for the dropped skill 0.07 above, not 0.03 above", func() {
		above := decide("probe 0.07")
		Expect(stages(above)).To(ContainElement("diagnosis"))
		Expect(above.Message).To(ContainSubstring("beta_tool is disabled"))

		below := decide("probe 0.03")
		Expect(below.Action).To(Equal(router.Refuse))
		Expect(stages(below)).NotTo(ContainElement("diagnosis"))
		Expect(below.Message).NotTo(ContainSubstring("beta_tool"))
	})
})
