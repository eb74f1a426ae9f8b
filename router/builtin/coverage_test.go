package builtin

import (
	"github.com/routebench/routebench/router/registry"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("coverage of a request by a skill", func() {
	tool := &registry.Skill{Name: "calculateShippingCost", Description: "Price a parcel by weight and distance.",
		ParamsSchema: map[string]any{"type": "object", "required": []any{"weight", "zone"}, "properties": map[string]any{
			"weight": map[string]any{"type": "number", "description": "Parcel weight in kg."},
			"zone":   map[string]any{"type": "string", "enum": []any{"domestic", "overseas"}},
		}}}

	It("counts the name's words the request says, by stem and camelCase part", func() {
		stems := nameStems(tool.Name)
		Expect(stems).To(Equal([]string{"calcu", "shipp", "cost"}))
		Expect(nameCover(stems, "what does shipping this cost?")).To(BeNumerically("~", 2.0/3, 1e-9))
		Expect(nameCover(stems, "play some jazz")).To(BeZero())
	})

	It("counts the required params the request gives values for", func() {
		Expect(paramCover(tool, map[string]any{"weight": 2.0})).To(BeNumerically("~", 0.5, 1e-9))
		Expect(paramCover(tool, map[string]any{"weight": 2.0, "zone": "overseas"})).To(Equal(1.0))
		Expect(paramCover(&registry.Skill{Name: "ping"}, nil)).To(Equal(1.0), "nothing required: nothing missing")
	})

	It("counts the request's plain words that the skill's texts or schema use, not its names or numbers", func() {
		stems := schemaStems(tool)
		withExamples := false // the share of the request's words
		Expect(schemaCover(stems, "price of an overseas parcel", withExamples)).To(Equal(1.0))
		Expect(schemaCover(stems, "price of a Lisbon parcel weighing 3 kg", withExamples)).To(Equal(1.0), "weighing meets weight by its stem")
		Expect(schemaCover(stems, "price of a parcel of fragile glass", withExamples)).To(BeNumerically("~", 0.5, 1e-9))
		Expect(schemaCover(stems, "tell me a joke", withExamples)).To(BeZero())
		Expect(schemaCover(stems, "Lisbon?", withExamples)).To(Equal(0.5), "no plain word: no evidence either way")
	})

	It("counts a bare tool's words up to three, however much else the request says", func() {
		stems := schemaStems(tool)
		bare := true
		Expect(schemaCover(stems, "price of a parcel of fragile glass", bare)).To(BeNumerically("~", 2.0/3, 1e-9))
		Expect(schemaCover(stems, "so I was wondering, honestly, what the price of an overseas parcel might turn out being", bare)).To(Equal(1.0))
		Expect(schemaCover(stems, "tell me a joke", bare)).To(BeZero())
		Expect(schemaCover(stems, "Lisbon?", bare)).To(Equal(0.5))
	})

	It("reads a request's words once for every candidate", func() {
		text := "Price of a Lisbon parcel weighing 3 kg, by sea"
		words := appendContentStems(nil, text, lowerASCII(text))
		Expect(words).To(Equal([]string{"parce", "weigh", "sea"}), "capitalised, short, numeric and grammar words left out")
		stems := schemaStems(tool)
		for _, bare := range []bool{false, true} {
			Expect(schemaCoverOf(stems, words, bare)).To(Equal(schemaCover(stems, text, bare)))
		}
		Expect(schemaCoverOf(stems, nil, false)).To(Equal(0.5))
	})
})
