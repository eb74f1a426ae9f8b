package calibrate_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/harness/calibrate"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

var _ = Describe("the band sweep", func() {
	var (
		reg     *registry.Registry
		records []calibrate.Record
	)

	// Six crafted cases; the expected counts below are worked out by hand
	// from their confidences.
	BeforeEach(func() {
		reg = testRegistry()
		add := func(c *harness.Case, d router.Decision) {
			records = append(records, calibrate.NewRecord(c, d, reg))
		}
		records = nil
		add(kase("right-read-0.90", harness.Expect{Action: router.Execute, Skill: orders}), judged(reg, orders, 0.90))
		add(kase("wrong-read-0.80", harness.Expect{Action: router.Execute, Skill: orders}), judged(reg, alerts, 0.80, alerts, orders))
		add(kase("should-refuse-0.70", harness.Expect{Action: router.Refuse}), judged(reg, orders, 0.70))
		add(kase("should-clarify-0.65", harness.Expect{Action: router.Clarify, Candidates: []string{orders, alerts}}), judged(reg, alerts, 0.65, alerts, orders))
		add(kase("right-write-0.95", harness.Expect{Action: router.Confirm, Skill: refund, Gate: registry.GateIrreversible}), judged(reg, refund, 0.95))
		add(kase("none-refuses", harness.Expect{Action: router.Refuse}), none(0.9))
	})

	at := func(points []calibrate.Point, execute, clarify float64) calibrate.Point {
		for _, p := range points {
			if p.Execute == execute && p.Clarify == clarify {
				return p
			}
		}
		Fail("no grid point at the given bands")
		return calibrate.Point{}
	}

	It("records what the bands need from each decision", func() {
		Expect(records[0].Banded).To(BeTrue())
		Expect(records[0].Confidence).To(Equal(0.90))
		Expect(records[0].SideEffect).To(Equal(registry.Read))
		Expect(records[4].SideEffect).To(Equal(registry.Write))
		Expect(records[5].Banded).To(BeFalse(), "a none answer refuses at any bands")
		Expect(records[5].JudgeChoice).To(Equal(router.NoneChoice))
		Expect(records[1].JudgeChoice).To(Equal(alerts))
		Expect(records[3].Outcomes[1].Offer).To(Equal([]string{alerts, orders}), "a clarify offers the top 2")
	})

	It("counts hand-computed rates at execute 0.85, clarify 0.60", func() {
		p := at(calibrate.Sweep(records), 0.85, 0.60)
		// act: 0.90 read, 0.95 write; clarify: 0.80, 0.70, 0.65; refuse: none.
		Expect(p.Counts).To(Equal(calibrate.Counts{
			N: 6, Acts: 2, WrongExec: 0, Clarifications: 3, Refusals: 1,
			Correct:     4, // the two acts, the wanted clarify, the none refusal
			ActExpected: 3, ActCorrect: 2, RefuseExpected: 2, RefuseRecalled: 1,
		}))
		Expect(p.Accuracy()).To(BeNumerically("~", 4.0/6, 1e-12))
		Expect(p.ClarificationRate()).To(Equal(0.5))
	})

	It("counts hand-computed rates at execute 0.75, clarify 0.75", func() {
		p := at(calibrate.Sweep(records), 0.75, 0.75)
		// act: 0.90, 0.80 (wrong skill), 0.95; refuse: 0.70, 0.65, none.
		Expect(p.Counts).To(Equal(calibrate.Counts{
			N: 6, Acts: 3, WrongExec: 1, Clarifications: 0, Refusals: 3,
			Correct:     4, // 0.90, 0.95, and both expected refusals
			ActExpected: 3, ActCorrect: 2, RefuseExpected: 2, RefuseRecalled: 2,
		}))
		Expect(p.WrongExecRate()).To(BeNumerically("~", 1.0/6, 1e-12))
	})

	It("counts every acting mistake as a wrong execution when everything acts", func() {
		p := at(calibrate.Sweep(records), 0, 0)
		// wrong skill, acting on a refusal, acting on a clarify.
		Expect(p.WrongExec).To(Equal(3))
		Expect(p.Acts).To(Equal(5))
		Expect(p.Correct).To(Equal(3))
	})

	It("sweeps the whole grid with clarify <= execute", func() {
		points := calibrate.Sweep(records)
		Expect(points).To(HaveLen(101 * 102 / 2))
		for _, p := range points {
			Expect(p.Clarify).To(BeNumerically("<=", p.Execute))
		}
		Expect(points[0].Execute).To(Equal(0.0))
		Expect(points[len(points)-1].Execute).To(Equal(1.0))
	})

	It("treats a confidence exactly on a threshold as the router does (>= acts)", func() {
		p := at(calibrate.Sweep(records), 0.90, 0.60)
		Expect(p.Acts).To(Equal(2), "0.90 acts at execute 0.90")
		p = at(calibrate.Sweep(records), 0.91, 0.60)
		Expect(p.Acts).To(Equal(1), "only 0.95 acts at execute 0.91")
	})

	It("picks, per execute, the clarify with the best accuracy, then the fewest clarifications", func() {
		curve := calibrate.Curve(calibrate.Sweep(records))
		Expect(curve).To(HaveLen(101))
		p := curve[85]
		Expect(p.Execute).To(Equal(0.85))
		// Below 0.85: 0.80 (expects execute), 0.70 (expects refuse), 0.65
		// (expects clarify). clarify <= 0.65: 4 right, 3 clarifications;
		// (0.65, 0.70]: 3 right; (0.70, 0.80]: 4 right, 1 clarification;
		// (0.80, 0.85]: 4 right, none; the highest of those is 0.85.
		Expect(p.Correct).To(Equal(4))
		Expect(p.Clarifications).To(Equal(0))
		Expect(p.Clarify).To(Equal(0.85))
		Expect(at(calibrate.Sweep(records), 0.85, 0.60).Correct).To(Equal(4), "a tie on accuracy, broken by clarifications")
	})

	It("applies per-side-effect bands as the router looks them up", func() {
		b := registry.Bands{Execute: 0.85, Clarify: 0.6, SideEffects: map[registry.SideEffect]registry.Band{registry.Write: {Execute: 0.97}}}
		Expect(records[4].At(b).Action).To(Equal(router.Clarify), "0.95 < write's 0.97")
		Expect(records[0].At(b).Action).To(Equal(router.Execute))
		Expect(records[5].At(b).Action).To(Equal(router.Refuse))
	})
})

var _ = Describe("params demotion", func() {
	It("turns an acting band into clarify on schema errors and refuse on permission, never below the bands", func() {
		reg := testRegistry()
		schema := judged(reg, orders, 0.95)
		schema.Action = router.Clarify
		schema.Candidates = schema.Candidates[:1]
		schema.Errors = []router.Error{{Category: router.CatParams, Layer: router.LayerSchema, Path: "/region", Message: "missing region"}}
		r := calibrate.NewRecord(kase("missing-region", harness.Expect{Action: router.Clarify, Skill: orders}), schema, reg)
		Expect(r.Demotion).To(Equal(router.Clarify))
		Expect(r.At(registry.Bands{Execute: 0.9, Clarify: 0.5}).Action).To(Equal(router.Clarify))
		Expect(r.At(registry.Bands{Execute: 0.99, Clarify: 0.99}).Action).To(Equal(router.Refuse))
		Expect(r.Outcomes[0].Correct).To(BeTrue())

		perm := judged(reg, refund, 0.99)
		perm.Action, perm.Gate = router.Refuse, ""
		perm.Errors = []router.Error{{Category: router.CatParams, Layer: router.LayerPermission, Path: "/env", Message: "needs ops:prod"}}
		r = calibrate.NewRecord(kase("prod", harness.Expect{Action: router.Refuse}), perm, reg)
		Expect(r.Demotion).To(Equal(router.Refuse))
		Expect(r.At(registry.Bands{Execute: 0.9, Clarify: 0.5}).Action).To(Equal(router.Refuse))
		Expect(r.At(registry.Bands{Execute: 0.995, Clarify: 0.5}).Action).To(Equal(router.Clarify), "below execute the params are never checked")
		Expect(r.At(registry.Bands{Execute: 0.995, Clarify: 0.5}).Correct).To(BeFalse())
	})
})

var _ = Describe("Band", func() {
	It("is the router's stage-4 rule", func() {
		Expect(calibrate.Band(0.85, registry.Read, 0.85, 0.6)).To(Equal(router.Execute))
		Expect(calibrate.Band(0.85, registry.Send, 0.85, 0.6)).To(Equal(router.Confirm))
		Expect(calibrate.Band(0.8499, registry.Read, 0.85, 0.6)).To(Equal(router.Clarify))
		Expect(calibrate.Band(0.6, registry.Delete, 0.85, 0.6)).To(Equal(router.Clarify))
		Expect(calibrate.Band(0.5999, registry.Write, 0.85, 0.6)).To(Equal(router.Refuse))
		Expect(calibrate.Band(0, registry.Read, 0, 0)).To(Equal(router.Execute), "zero bands always act")
	})
})
