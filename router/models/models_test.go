package models_test

import (
	"context"
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/models"
	"github.com/routebench/routebench/router/registry"
)

type namedJudge struct{ name string }

func (j namedJudge) Name() string { return j.name }
func (j namedJudge) Judge(context.Context, router.JudgeRequest) (router.JudgeResponse, error) {
	return router.JudgeResponse{}, nil
}

func unitEmbed(context.Context, string) ([]float32, error) { return []float32{1, 0}, nil }

func loadV2() *registry.Version {
	v, err := registry.Load("../../fixtures/ops/prompts/v2")
	if err != nil {
		Skip("fixtures/ops/prompts/v2 does not load: " + err.Error())
	}
	return v
}

var _ = Describe("Factory", func() {
	built := 0
	BeforeEach(func() {
		built = 0
		models.RegisterJudge("testprov:", func(model string) (router.Judge, error) {
			built++
			if model == "broken" {
				return nil, errors.New("no API key in TESTPROV_API_KEY")
			}
			return namedJudge{"testprov:" + model}, nil
		})
		models.RegisterEmbedder("testprov", func(model string) (router.EmbeddingFunc, error) {
			return unitEmbed, nil
		})
	})

	It("rejects an unknown judge, listing the known ones", func() {
		_, err := models.Factory("acme:big", "builtin")
		Expect(err).To(MatchError(And(ContainSubstring(`unknown judge "acme:big"`), ContainSubstring("builtin"), ContainSubstring("testprov:<model>"))))
	})

	It("rejects an unknown embedder, and a provider without a model", func() {
		_, err := models.Factory("builtin", "acme:small")
		Expect(err).To(MatchError(ContainSubstring(`unknown embedder "acme:small"`)))
		_, err = models.Factory("testprov:", "builtin")
		Expect(err).To(MatchError(ContainSubstring("unknown judge")))
	})

	It("builds a provider model once, up front, and reports its failure", func() {
		_, err := models.Factory("testprov:broken", "builtin")
		Expect(err).To(MatchError(ContainSubstring("TESTPROV_API_KEY")))
		f, err := models.Factory("testprov:m1", "testprov:e1")
		Expect(err).NotTo(HaveOccurred())
		Expect(built).To(Equal(2))
		v := loadV2()
		for range 3 {
			m, err := f(v, v.Registry)
			Expect(err).NotTo(HaveOccurred())
			Expect(m.Judge.Name()).To(Equal("testprov:m1"))
			Expect(m.EmbedderName).To(Equal("testprov:e1"))
		}
		Expect(built).To(Equal(2))
	})

	It("fits builtin models to each registry, mixing with a provider model", func() {
		v := loadV2()
		f, err := models.Factory("builtin", "testprov:e1")
		Expect(err).NotTo(HaveOccurred())
		m, err := f(v, v.Registry)
		Expect(err).NotTo(HaveOccurred())
		Expect(m.Judge.Name()).To(Equal("builtin"))
		vec, err := m.Embedder(context.Background(), "x")
		Expect(err).NotTo(HaveOccurred())
		Expect(vec).To(Equal([]float32{1, 0}))
	})

	It("treats an empty spec as builtin", func() {
		v := loadV2()
		f, err := models.Factory("", "")
		Expect(err).NotTo(HaveOccurred())
		m, err := f(v, v.Registry)
		Expect(err).NotTo(HaveOccurred())
		Expect(m.Judge.Name()).To(Equal("builtin"))
		Expect(m.EmbedderName).To(Equal("builtin"))
	})

	It("lists known specs with builtin first", func() {
		js, es := models.Known()
		Expect(js[0]).To(Equal("builtin"))
		Expect(js).To(ContainElement("testprov:<model>"))
		Expect(es).To(ContainElement("testprov:<model>"))
	})

	Describe("ForVersion", func() {
		It("uses the version's models unless overridden", func() {
			v := &registry.Version{Router: registry.RouterSettings{Judge: "testprov:fromversion", Embedder: "builtin"}}
			f, err := models.ForVersion(v, "", "")
			Expect(err).NotTo(HaveOccurred())
			m, err := f(loadV2(), loadV2().Registry)
			Expect(err).NotTo(HaveOccurred())
			Expect(m.Judge.Name()).To(Equal("testprov:fromversion"))

			f, err = models.ForVersion(v, "testprov:override", "")
			Expect(err).NotTo(HaveOccurred())
			m, err = f(loadV2(), loadV2().Registry)
			Expect(err).NotTo(HaveOccurred())
			Expect(m.Judge.Name()).To(Equal("testprov:override"))
		})
	})
})
