package router_test

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

// A made-up cold-storage domain: a list-param delete, a write counted by
// x-affects, an irreversible shredder and a read over a list.
func coldStorageSkills() []*registry.Skill {
	evict := build(skillSpec{
		name: "evict_cache_keys", se: registry.Delete, scope: []string{"cache:write"}, confirm: registry.GateNormal,
		desc:     "Evict cache keys from the hot tier.",
		schema:   `{"type": "object", "required": ["keys"], "properties": {"keys": {"type": "array", "items": {"type": "string"}}, "tier": {"type": "string"}}}`,
		examples: []string{"evict the keys k1 and k2"},
	})
	thaw := build(skillSpec{
		name: "thaw_crates", se: registry.Write, scope: []string{"cache:write"}, confirm: registry.GateNormal,
		desc:     "Thaw crates of frozen blobs back to the warm tier.",
		schema:   `{"type": "object", "required": ["crate_count"], "properties": {"crate_count": {"type": "integer"}, "crates": {"type": "array", "items": {"type": "string"}}, "mode": {"type": "string"}}}`,
		examples: []string{"thaw 4 crates"},
	})
	thaw.Affects = mustAffects("params.crate_count")
	shred := build(skillSpec{
		name: "shred_archive", se: registry.Delete, scope: []string{"cache:write"}, confirm: registry.GateIrreversible,
		desc:     "Shred archives for good.",
		schema:   `{"type": "object", "required": ["archives"], "properties": {"archives": {"type": "array", "items": {"type": "string"}}}}`,
		examples: []string{"shred archive AR-1"},
	})
	peek := build(skillSpec{
		name: "peek_keys", se: registry.Read, scope: []string{"cache:read"},
		desc:     "Show the values of cache keys.",
		schema:   `{"type": "object", "required": ["keys"], "properties": {"keys": {"type": "array", "items": {"type": "string"}}}}`,
		examples: []string{"show keys k1 and k2"},
	})
	return []*registry.Skill{evict, thaw, shred, peek}
}

func mustAffects(expr string) *registry.Affects {
	a, err := registry.NewAffects(expr)
	if err != nil {
		panic(err)
	}
	return a
}

func versionOf(skills []*registry.Skill) *registry.Version {
	reg, err := registry.New(skills)
	if err != nil {
		panic(err)
	}
	v := opsVersion()
	v.Registry = reg
	v.Router.TopK = len(skills) // every skill reaches the scripted judge
	return v
}

var coldScopes = []string{"cache:read", "cache:write"}

// keys makes n made-up item ids.
func keys(prefix string, n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s-%d", prefix, i+1)
	}
	return out
}

var _ = Describe("stage 4: gates that count", func() {
	decideCold := func(skill string, params map[string]any, mutate ...func(*registry.Skill)) router.Decision {
		GinkgoHelper()
		skills := coldStorageSkills()
		for _, s := range skills {
			if s.Name == skill {
				for _, m := range mutate {
					m(s)
				}
			}
		}
		r, err := router.New(versionOf(skills), (&fixedFactory{judge: &scriptJudge{name: "fake", answer: always(skill, 0.99, params)}}).build)
		Expect(err).NotTo(HaveOccurred())
		d, err := r.Route(context.Background(), router.Request{Text: "do it to these", Caller: router.Caller{Scopes: coldScopes}, Now: now})
		Expect(err).NotTo(HaveOccurred())
		return d
	}

	DescribeTable("a list param of more than 10 items takes the batch gate and says how many, with 3 samples",
		func(n int, gate registry.Gate, fragments ...string) {
			d := decideCold("evict_cache_keys", map[string]any{"keys": keys("KEY", n), "tier": "hot"})
			Expect(d.Action).To(Equal(router.Confirm), "trace: %+v", d.Trace)
			Expect(d.Gate).To(Equal(gate))
			for _, f := range fragments {
				Expect(d.Message).To(ContainSubstring(f))
			}
			Expect(step(d, "gate").Note).To(ContainSubstring(fmt.Sprintf("%d items in list param keys", n)))
		},
		Entry("exactly 10: the label stands", 10, registry.GateNormal, "(normal gate)"),
		Entry("11: batch", 11, registry.GateBatch, "this will affect 11 items (KEY-1, KEY-2, KEY-3, …)", "confirm to go on", "(batch gate)"),
		Entry("27: batch", 27, registry.GateBatch, "27 items (KEY-1, KEY-2, KEY-3, …)"),
	)

	It("says in the trace whether the label or the count chose the gate", func() {
		Expect(step(decideCold("evict_cache_keys", map[string]any{"keys": keys("K", 10)}), "gate").Note).To(HavePrefix("label:"))
		Expect(step(decideCold("evict_cache_keys", map[string]any{"keys": keys("K", 11)}), "gate").Note).To(HavePrefix("count:"))
	})

	DescribeTable("x-affects counts the call, whatever the list holds",
		func(count int, gate registry.Gate, fragment string) {
			d := decideCold("thaw_crates", map[string]any{"crate_count": count, "crates": keys("CR", 2)})
			Expect(d.Action).To(Equal(router.Confirm), "trace: %+v", d.Trace)
			Expect(d.Gate).To(Equal(gate))
			Expect(d.Message).To(ContainSubstring(fragment))
			Expect(step(d, "gate").Note).To(ContainSubstring("x-affects params.crate_count"))
		},
		Entry("exactly 10: normal", 10, registry.GateNormal, "(normal gate)"),
		Entry("11: batch, samples from the list param", 11, registry.GateBatch, "this will affect 11 items (CR-1, CR-2, …)"),
	)

	It("takes the batch gate when x-affects cannot be evaluated, and records why (fail closed)", func() {
		d := decideCold("thaw_crates", map[string]any{"crate_count": 3, "mode": "fast"}, func(s *registry.Skill) {
			s.Affects = mustAffects("int(params.mode)")
		})
		Expect(d.Action).To(Equal(router.Confirm))
		Expect(d.Gate).To(Equal(registry.GateBatch))
		Expect(d.Message).To(ContainSubstring("could not be worked out"))
		Expect(step(d, "gate").Note).To(And(ContainSubstring("count unknown"), ContainSubstring("int(params.mode)"), ContainSubstring("fail closed")))
	})

	It("overrides a normal label even when x-affects reads a param with no list at all", func() {
		d := decideCold("thaw_crates", map[string]any{"crate_count": 40})
		Expect(d.Gate).To(Equal(registry.GateBatch))
		Expect(d.Message).To(ContainSubstring("this will affect 40 items;"))
	})

	It("confirms an irreversible skill on one item with its own gate", func() {
		d := decideCold("shred_archive", map[string]any{"archives": []any{"AR-7"}})
		Expect(d.Action).To(Equal(router.Confirm), "%s %+v", d.Message, d.Trace)
		Expect(d.Gate).To(Equal(registry.GateIrreversible))
		Expect(d.Skill).To(Equal("shred_archive"))
	})

	DescribeTable("refuses an irreversible skill asked to act on more than one item, saying one at a time",
		func(n int) {
			d := decideCold("shred_archive", map[string]any{"archives": keys("AR", n)})
			Expect(d.Action).To(Equal(router.Refuse), "trace: %+v", d.Trace)
			Expect(d.Gate).To(BeEmpty())
			Expect(d.Skill).To(BeEmpty())
			Expect(d.Message).To(And(ContainSubstring("shred_archive"), ContainSubstring("one item at a time"), ContainSubstring(fmt.Sprintf("%d items", n))))
			Expect(step(d, "gate").Note).To(ContainSubstring("refused"))
		},
		Entry("2 items", 2),
		Entry("11 items: never a batch confirmation", 11),
	)

	It("refuses an irreversible skill whose count cannot be worked out", func() {
		d := decideCold("shred_archive", map[string]any{"archives": []any{"AR-1"}}, func(s *registry.Skill) {
			s.Affects = mustAffects("params.missing_param")
		})
		Expect(d.Action).To(Equal(router.Refuse))
		Expect(d.Message).To(And(ContainSubstring("one item at a time"), ContainSubstring("could not be worked out")))
	})

	It("never gates a read, however many items it reads", func() {
		d := decideCold("peek_keys", map[string]any{"keys": keys("K", 50)})
		Expect(d.Action).To(Equal(router.Execute))
		Expect(d.Gate).To(BeEmpty())
		Expect(stages(d)).NotTo(ContainElement("gate"))
	})
})
