package router_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

// A made-up greenhouse domain: watering (which points to the moisture
// reading in its when_not_to_use), a moisture reading, hedge pruning and a
// seed order with a trigger.
func greenhouseSkills() []*registry.Skill {
	water := build(skillSpec{
		name: "water_plants", se: registry.Write, scope: []string{"garden:write"},
		desc:     "Water the plants in one greenhouse bed.",
		when:     []string{"the gardener asks to water a bed of tomatoes or herbs"},
		schema:   `{"type": "object", "required": ["bed"], "properties": {"bed": {"type": "string"}}}`,
		examples: []string{"water the tomato bed now", "give the herb bed some water"},
	})
	water.WhenNotToUse = []string{"the gardener only wants to know how dry a bed is (use read_moisture)"}
	moisture := build(skillSpec{
		name: "read_moisture", se: registry.Read, scope: []string{"garden:read"},
		desc:     "Read the soil moisture sensor of one bed.",
		schema:   `{"type": "object", "required": ["bed"], "properties": {"bed": {"type": "string"}}}`,
		examples: []string{"how dry is the soil in the pepper bed", "moisture reading for bed seven"},
	})
	prune := build(skillSpec{
		name: "prune_hedges", se: registry.Write, scope: []string{"garden:write"},
		desc:     "Trim the hedges along a path.",
		schema:   `{"type": "object", "required": ["path"], "properties": {"path": {"type": "string"}}}`,
		examples: []string{"trim the hedges along the north path"},
	})
	seeds := build(skillSpec{
		name: "order_seeds", se: registry.Send, scope: []string{"garden:buy"},
		desc:     "Order seed packets from the supplier by catalogue number.",
		schema:   `{"type": "object", "required": ["sku"], "properties": {"sku": {"type": "string", "pattern": "^SEED-\\d{4}$"}}}`,
		triggers: []*registry.Trigger{trigger(`\bSEED-\d{4}\b`)},
		examples: []string{"order packet SEED-0042 from the supplier"},
	})
	seeds.WhenNotToUse = []string{"the gardener wants the hedges cut back (use prune_hedges)"}
	return []*registry.Skill{water, moisture, prune, seeds}
}

var gardenScopes = []string{"garden:read", "garden:write", "garden:buy"}

var _ = Describe("a skill policy dropped, clearly asked for", func() {
	var j *scriptJudge
	decide := func(answer func(router.JudgeRequest, int) (router.JudgeResponse, error), text string, caller router.Caller) router.Decision {
		GinkgoHelper()
		j = &scriptJudge{name: "fake", answer: answer}
		r, err := router.New(versionOf(greenhouseSkills()), (&fixedFactory{judge: j}).build)
		Expect(err).NotTo(HaveOccurred())
		d, err := r.Route(context.Background(), router.Request{Text: text, Caller: caller, Now: now})
		Expect(err).NotTo(HaveOccurred())
		return d
	}
	judged := func() []string {
		var out []string
		for _, c := range j.Calls() {
			out = append(out, names(c.Candidates)...)
		}
		return out
	}
	disabledWater := router.Caller{Scopes: gardenScopes, Disabled: []string{"water_plants"}}

	It("refuses naming the disabled skill and offers the alternative its when_not_to_use points to, never the capability list", func() {
		d := decide(always("none", 0.9, nil), "water the tomato bed now", disabledWater)
		Expect(d.Action).To(Equal(router.Refuse))
		Expect(d.Skill).To(BeEmpty())
		Expect(d.Message).To(ContainSubstring("water_plants is disabled for this caller"))
		Expect(d.Message).To(ContainSubstring("read_moisture is available to you"))
		Expect(d.Message).NotTo(ContainSubstring("I can help with"))
		Expect(judged()).NotTo(ContainElement("water_plants"), "the disabled skill never reaches the judge")
		Expect(step(d, "diagnosis").Choice).To(Equal("water_plants"))
		for _, c := range d.Candidates {
			Expect(c.Skill).NotTo(Equal("water_plants"))
		}
	})

	It("offers the allowed skill the judge chose above the clarify band, and does not act on it", func() {
		d := decide(always("prune_hedges", 0.7, map[string]any{"path": "north"}), "water the tomato bed now", disabledWater)
		Expect(d.Action).To(Equal(router.Refuse))
		Expect(d.Message).To(And(ContainSubstring("water_plants is disabled"), ContainSubstring("prune_hedges is available to you")))
	})

	It("refuses instead of acting on a near-miss skill the judge was sure of", func() {
		d := decide(always("prune_hedges", 0.99, map[string]any{"path": "north"}), "give the herb bed some water", disabledWater)
		Expect(d.Action).To(Equal(router.Refuse))
		Expect(d.Gate).To(BeEmpty())
		Expect(d.Message).To(ContainSubstring("water_plants is disabled"))
	})

	It("offers nothing when no allowed skill covers the request", func() {
		// without garden:write the skill its when_not_to_use points to is not allowed either
		caller := router.Caller{Scopes: []string{"garden:read", "garden:buy"}, Disabled: []string{"order_seeds"}}
		d := decide(always("none", 0.9, nil), "order packet SEED-0042 from the supplier", caller)
		Expect(d.Action).To(Equal(router.Refuse))
		Expect(d.Message).To(HavePrefix("order_seeds is disabled for this caller, so nothing was run."))
		Expect(d.Message).NotTo(ContainSubstring("available to you"))
		Expect(step(d, "rules").Matched).To(BeEmpty(), "a dropped skill's trigger is never matched as a candidate")
		Expect(step(d, "diagnosis").Note).To(ContainSubstring("matches its trigger"))
		Expect(judged()).NotTo(ContainElement("order_seeds"))
	})

	It("does not offer a when_not_to_use alternative that recall does not find for this request", func() {
		caller := router.Caller{Scopes: gardenScopes, Disabled: []string{"order_seeds"}}
		d := decide(always("none", 0.9, nil), "order packet SEED-0042 from supplier", caller)
		Expect(d.Action).To(Equal(router.Refuse))
		Expect(d.Message).To(ContainSubstring("order_seeds is disabled"))
		Expect(d.Message).NotTo(ContainSubstring("prune_hedges"))
	})

	It("says a skill outside the caller's scopes is not permitted, naming the scope", func() {
		d := decide(always("none", 0.9, nil), "water the tomato bed now", router.Caller{Scopes: []string{"garden:read"}})
		Expect(d.Action).To(Equal(router.Refuse))
		Expect(d.Message).To(ContainSubstring("water_plants is not permitted for this caller (it needs scope garden:write)"))
		Expect(d.Message).To(ContainSubstring("read_moisture is available to you"))
		Expect(judged()).NotTo(ContainElement("water_plants"))
	})

	It("names the skill after the policy sentence when the caller has no skill left at all", func() {
		d := decide(always("none", 0.9, nil), "water the tomato bed now", router.Caller{Scopes: []string{"orchard:read"}})
		Expect(d.Action).To(Equal(router.Refuse))
		Expect(d.Message).To(And(ContainSubstring("No skill is available to you"), ContainSubstring("water_plants is not permitted")))
		Expect(j.Calls()).To(BeEmpty())
	})

	It("leaves the decision alone when the request is about an allowed skill", func() {
		d := decide(always("read_moisture", 0.95, map[string]any{"bed": "pepper"}), "how dry is the soil in the pepper bed", disabledWater)
		Expect(d.Action).To(Equal(router.Execute))
		Expect(d.Skill).To(Equal("read_moisture"))
		Expect(stages(d)).NotTo(ContainElement("diagnosis"))
	})

	It("leaves a none answer as the capability boundary when no dropped skill stands out", func() {
		d := decide(always("none", 0.9, nil), "what time does the cafeteria open", disabledWater)
		Expect(d.Action).To(Equal(router.Refuse))
		Expect(d.Message).To(ContainSubstring("I can help with"))
		Expect(d.Message).NotTo(ContainSubstring("water_plants"))
	})
})
