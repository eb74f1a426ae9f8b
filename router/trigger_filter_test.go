package router

import (
	"regexp"

	g "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router/registry"
)

func skillWithTriggers(name string, patterns ...string) *registry.Skill {
	s := &registry.Skill{Name: name}
	for _, p := range patterns {
		s.Triggers = append(s.Triggers, &registry.Trigger{Pattern: p, Re: regexp.MustCompile(p)})
	}
	return s
}

// The literal prefilter may only skip texts no trigger matches.
var _ = g.Describe("trigger prefilter", func() {
	g.It("keeps a literal every match needs", func() {
		f := newTriggerFilter([]*registry.Skill{
			skillWithTriggers("lookup", `(?i)\bORB-\d{5}\b`),
			skillWithTriggers("cancel", `(?i)(cancel|取消).{0,20}\bORB-\d{5}\b|\bORB-\d{5}\b.{0,20}(cancel|取消)`),
			skillWithTriggers("exact", `WH-[0-9]+`),
		})
		Expect(f.needles).To(ConsistOf(needle{s: "orb-", fold: true}, needle{s: "WH-"}))
	})

	g.It("gives up on a trigger without a literal it can check exactly", func() {
		Expect(triggerNeedles([]*registry.Skill{skillWithTriggers("a", `\d{4}\s\d{2}`)})).To(BeNil())
		// k folds to the Kelvin sign, which an ASCII search would miss.
		Expect(triggerNeedles([]*registry.Skill{skillWithTriggers("a", `(?i)k\d+`)})).To(BeNil())
		Expect(triggerNeedles([]*registry.Skill{skillWithTriggers("a", `(?i)tick-\d+`)})).To(ConsistOf(needle{s: "tic", fold: true}))
		Expect(triggerNeedles([]*registry.Skill{skillWithTriggers("a", `(?i)tckt-\d+`)})).To(ConsistOf(needle{s: "tc", fold: true}))
		Expect(triggerNeedles([]*registry.Skill{skillWithTriggers("a", `(?:orb)?\d+`)})).To(BeNil())
	})

	g.It("answers as trying every trigger does", func() {
		skills := []*registry.Skill{
			skillWithTriggers("lookup", `(?i)\bORB-\d{5}\b`),
			skillWithTriggers("cancel", `(?i)(cancel|取消).{0,20}\bORB-\d{5}\b`),
			skillWithTriggers("kelvin", `(?i)\bdock \d+`),
		}
		f := newTriggerFilter(skills)
		Expect(f.needles).NotTo(BeNil())
		for _, text := range []string{"where is orb-12345", "Where is ORB-12345?", "取消 ORB-12345", "orb 12345",
			"DOCK 7", "doc 7", "do\u212a 7", "dock-7", "nothing here", "PkG-1234", ""} {
			Expect(f.mayMatch(text)).To(Equal(len(matchTriggers(skills, text)) > 0), text)
		}
	})
})
