package router_test

import (
	"context"
	"fmt"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

// valid params for one skill of each side effect.
var bandSkills = map[registry.SideEffect]struct {
	skill, text string
	params      map[string]any
}{
	registry.Read:   {"query_orders_by_region", "华东区上周的订单", ordersEast},
	registry.Write:  {"restart_service", "restart payment-api in staging", map[string]any{"service": "payment-api", "env": "staging"}},
	registry.Delete: {"purge_cdn_cache", "purge the cdn cache for /static", map[string]any{"path": "/static"}},
	registry.Send:   {"send_notification", "send an sms to bob", map[string]any{"channel": "sms", "to": "bob", "message": "done"}},
}

var _ = Describe("stage 4: bands and gates", func() {
	decide := func(se registry.SideEffect, conf float64) router.Decision {
		b := bandSkills[se]
		r, _ := fixture(&scriptJudge{name: "fake", answer: always(b.skill, conf, b.params)})
		return route(r, b.text)
	}

	acting := map[registry.SideEffect]router.Action{
		registry.Read: router.Execute, registry.Write: router.Confirm, registry.Delete: router.Confirm, registry.Send: router.Confirm,
	}
	thresholds := map[registry.SideEffect]float64{registry.Read: 0.85, registry.Write: 0.92, registry.Delete: 0.95, registry.Send: 0.92}

	var entries []TableEntry
	for _, se := range []registry.SideEffect{registry.Read, registry.Write, registry.Delete, registry.Send} {
		exec := thresholds[se]
		entries = append(entries,
			Entry(fmt.Sprintf("%s exactly at execute %.2f", se, exec), se, exec, acting[se]),
			Entry(fmt.Sprintf("%s just below execute", se), se, exec-1e-9, router.Clarify),
			Entry(fmt.Sprintf("%s exactly at clarify 0.60", se), se, 0.60, router.Clarify),
			Entry(fmt.Sprintf("%s just below clarify", se), se, 0.60-1e-9, router.Refuse),
			Entry(fmt.Sprintf("%s at 1.0", se), se, 1.0, acting[se]),
			Entry(fmt.Sprintf("%s at 0", se), se, 0.0, router.Refuse),
		)
	}
	DescribeTable("pick the action from confidence and side effect", func(se registry.SideEffect, conf float64, want router.Action) {
		d := decide(se, conf)
		Expect(d.Action).To(Equal(want), "trace: %+v", d.Trace)
		Expect(d.Confidence).To(Equal(conf))
		if want == router.Confirm {
			Expect(d.Gate).NotTo(BeEmpty())
		} else {
			Expect(d.Gate).To(BeEmpty())
		}
		if want == router.Refuse {
			Expect(d.Message).To(ContainSubstring("I can help with:"))
			Expect(d.Skill).To(BeEmpty())
		}
	}, entries)

	It("uses the side-effect band's own clarify threshold when one is set", func() {
		b := bandSkills[registry.Write]
		v := opsVersion()
		v.Router.Bands.SideEffects[registry.Write] = registry.Band{Execute: 0.92, Clarify: 0.8}
		r, err := router.New(v, (&fixedFactory{judge: &scriptJudge{name: "fake", answer: always(b.skill, 0.75, b.params)}}).build)
		Expect(err).NotTo(HaveOccurred())
		Expect(route(r, b.text).Action).To(Equal(router.Refuse))
	})

	It("clarifies with the top 2 candidates and a question naming them", func() {
		j := &scriptJudge{name: "fake", answer: func(router.JudgeRequest, int) (router.JudgeResponse, error) {
			resp := answer("query_orders_by_region", 0.7, map[string]any{"region": "east"})
			resp.Scores = []router.Candidate{{Skill: "query_alerts_by_zone", Score: 0.65}, {Skill: "query_orders_by_region", Score: 0.7}, {Skill: "get_order", Score: 0.1}}
			return resp, nil
		}}
		r, _ := fixture(j)
		d := route(r, "华东区最近怎么样")
		Expect(d.Action).To(Equal(router.Clarify))
		Expect(d.Skill).To(Equal("query_orders_by_region"))
		Expect(d.Candidates).To(Equal([]router.Candidate{{Skill: "query_orders_by_region", Score: 0.7}, {Skill: "query_alerts_by_zone", Score: 0.65}}))
		Expect(d.Message).To(And(ContainSubstring("query_orders_by_region"), ContainSubstring("query_alerts_by_zone"), ContainSubstring("?")))
		Expect(stages(d)).NotTo(ContainElement("params"), "params are only validated for acting decisions")
	})

	It("falls back to recall's ranking for the clarify offer when the judge gives no scores", func() {
		r, _ := fixture(&scriptJudge{name: "fake", answer: always("query_alerts_by_zone", 0.7, nil)})
		d := route(r, "华东区最近的告警情况")
		Expect(d.Action).To(Equal(router.Clarify))
		Expect(d.Candidates).To(HaveLen(2))
		Expect(d.Candidates).To(Equal(step(d, "recall").Scores[:2]))
	})

	DescribeTable("side effects confirm with the skill's gate, normal when none is declared",
		func(skill, text string, params map[string]any, gate registry.Gate) {
			r, _ := fixture(&scriptJudge{name: "fake", answer: always(skill, 0.99, params)})
			d := route(r, text)
			Expect(d.Action).To(Equal(router.Confirm))
			Expect(d.Gate).To(Equal(gate))
			Expect(d.Skill).To(Equal(skill))
			Expect(d.Message).To(ContainSubstring(string(gate)))
		},
		Entry("irreversible", "refund_order", "refund ORD-20261103 20 yuan", map[string]any{"order_id": "ORD-20261103", "amount": 20}, registry.GateIrreversible),
		Entry("batch", "purge_cdn_cache", "purge the cdn cache for /static", map[string]any{"path": "/static"}, registry.GateBatch),
		Entry("normal", "send_notification", "send an sms to bob", map[string]any{"channel": "sms", "to": "bob", "message": "hi"}, registry.GateNormal),
		Entry("undeclared -> normal", "create_ticket", "open a ticket about the checkout bug", map[string]any{"title": "checkout bug"}, registry.GateNormal),
	)
})

var _ = Describe("stage 5: params", func() {
	orders := func(params map[string]any, judge string) (router.Decision, *scriptJudge) {
		j := &scriptJudge{name: judge, answer: always("query_orders_by_region", 0.9, params)}
		r, _ := fixture(j)
		return route(r, "华东区的订单"), j
	}

	It("executes valid params as given", func() {
		d, _ := orders(ordersEast, "fake")
		Expect(d.Action).To(Equal(router.Execute))
		Expect(d.Params).To(Equal(ordersEast))
		Expect(d.Errors).To(BeEmpty())
		Expect(step(d, "params").Note).To(Equal("params valid"))
	})

	It("asks for exactly the missing required fields, at their paths, never guessing dates", func() {
		d, _ := orders(map[string]any{"region": "east"}, "builtin")
		Expect(d.Action).To(Equal(router.Clarify))
		Expect(d.Skill).To(Equal("query_orders_by_region"))
		Expect(d.Errors).To(ConsistOf(
			router.Error{Category: router.CatParams, Layer: router.LayerSchema, Path: "/start", Rule: "required", Message: "start is required"},
			router.Error{Category: router.CatParams, Layer: router.LayerSchema, Path: "/end", Rule: "required", Message: "end is required"},
		))
		Expect(d.Message).To(ContainSubstring("please give start and end ("))
		Expect(d.Params).To(Equal(map[string]any{"region": "east"}))
	})

	DescribeTable("reports schema failures per field with the keyword",
		func(params map[string]any, path, rule string) {
			d, _ := orders(params, "builtin")
			Expect(d.Action).To(Equal(router.Clarify))
			Expect(d.Errors).To(ContainElement(And(HaveField("Layer", router.LayerSchema), HaveField("Path", path), HaveField("Rule", rule))))
			Expect(d.Message).To(ContainSubstring(path[1:]))
		},
		Entry("enum", map[string]any{"region": "mars", "start": "2026-11-01", "end": "2026-11-02"}, "/region", "enum"),
		Entry("type", map[string]any{"region": "east", "start": 20261101, "end": "2026-11-02"}, "/start", "type"),
		Entry("format", map[string]any{"region": "east", "start": "yesterday", "end": "2026-11-02"}, "/start", "format"),
		Entry("unknown param", map[string]any{"region": "east", "start": "2026-11-01", "end": "2026-11-02", "color": "red"}, "/color", "additionalProperties"),
	)

	It("treats a null param as absent", func() {
		d, _ := orders(map[string]any{"region": "east", "start": "2026-11-01", "end": "2026-11-02", "status": nil}, "builtin")
		Expect(d.Action).To(Equal(router.Execute))
		Expect(d.Params).NotTo(HaveKey("status"))
	})

	It("checks business rules and asks for every field the failed rule reads", func() {
		d, _ := orders(map[string]any{"region": "east", "start": "2026-11-29", "end": "2026-11-01"}, "builtin")
		Expect(d.Action).To(Equal(router.Clarify))
		Expect(d.Errors).To(ConsistOf(router.Error{Category: router.CatParams, Layer: router.LayerRule, Path: "/start",
			Rule: "date(params.start) <= date(params.end)", Message: "start must not be after end"}))
		Expect(d.Message).To(ContainSubstring("start and end"))
	})

	It("checks a second rule independently", func() {
		d, _ := orders(map[string]any{"region": "east", "start": "2026-01-01", "end": "2026-11-01"}, "builtin")
		Expect(d.Errors).To(ConsistOf(HaveField("Message", "a query spans at most 90 days")))
	})

	It("skips a rule whose params are missing or already failed the schema", func() {
		d, _ := orders(map[string]any{"region": "east", "start": "not-a-date"}, "builtin")
		for _, e := range d.Errors {
			Expect(e.Layer).To(Equal(router.LayerSchema))
		}
	})

	It("reports a rule that fails at run time as a rule error", func() {
		r, _ := fixture(&scriptJudge{name: "builtin", answer: always("check_date", 0.9, map[string]any{"day": "soon"})})
		d := route(r, "check the date")
		Expect(d.Action).To(Equal(router.Clarify))
		Expect(d.Errors).To(ConsistOf(And(HaveField("Layer", router.LayerRule), HaveField("Path", "/day"), HaveField("Message", ContainSubstring("could not be checked")))))
	})

	It("checks number rules with integers and floats alike", func() {
		r, _ := fixture(&scriptJudge{name: "builtin", answer: always("refund_order", 0.99, map[string]any{"order_id": "ORD-20261103", "amount": 6000})})
		d := route(r, "refund ORD-20261103 6000")
		Expect(d.Action).To(Equal(router.Clarify))
		Expect(d.Errors).To(ConsistOf(HaveField("Message", "refunds above 5000 are not allowed here")))
	})

	It("refuses when a param value needs a scope the caller lacks (x-permission)", func() {
		r, _ := fixture(&scriptJudge{name: "openai:x", answer: always("restart_service", 0.99, map[string]any{"service": "payment-api", "env": "prod"})})
		d := route(r, "restart payment-api in prod", "ops:write")
		Expect(d.Action).To(Equal(router.Refuse))
		Expect(d.Skill).To(Equal("restart_service"))
		Expect(d.Errors).To(ConsistOf(router.Error{Category: router.CatParams, Layer: router.LayerPermission, Path: "/env", Rule: "x-permission",
			Message: "env=prod needs scope ops:prod, which the caller lacks"}))
		Expect(d.Message).To(ContainSubstring("ops:prod"))
	})

	It("lets a caller holding the value's scope through to the gate", func() {
		r, _ := fixture(&scriptJudge{name: "fake", answer: always("restart_service", 0.99, map[string]any{"service": "payment-api", "env": "prod"})})
		d := route(r, "restart payment-api in prod", "ops:write", "ops:prod")
		Expect(d.Action).To(Equal(router.Confirm))
		Expect(d.Gate).To(Equal(registry.GateNormal))
	})

	Describe("repair with a model judge", func() {
		It("sends the structured params errors back once and acts on the fixed params", func() {
			j := &scriptJudge{name: "openai:x", answer: sequence(
				rawAnswer("query_orders_by_region", 0.9, map[string]any{"region": "east"}),
				rawAnswer("query_orders_by_region", 0.9, ordersEast))}
			r, _ := fixture(j)
			d := route(r, "华东区上周的订单")
			Expect(d.Action).To(Equal(router.Execute))
			Expect(d.Params).To(Equal(ordersEast))
			calls := j.Calls()
			Expect(calls).To(HaveLen(2))
			Expect(calls[1].Repair.Errors).To(ConsistOf(HaveField("Path", "/start"), HaveField("Path", "/end")))
			Expect(calls[1].Repair.Raw).To(ContainSubstring(`"region":"east"`))
		})

		It("clarifies when the repaired params still fail, after exactly one repair", func() {
			j := &scriptJudge{name: "openai:x", answer: always("query_orders_by_region", 0.9, map[string]any{"region": "east"})}
			r, _ := fixture(j)
			d := route(r, "华东区的订单")
			Expect(d.Action).To(Equal(router.Clarify))
			Expect(j.Calls()).To(HaveLen(2))
		})

		It("does not take a repair that switches skill", func() {
			j := &scriptJudge{name: "openai:x", answer: sequence(
				rawAnswer("query_orders_by_region", 0.9, map[string]any{"region": "east"}),
				rawAnswer("query_alerts_by_zone", 0.9, map[string]any{"zone": "east", "start": "2026-11-23", "end": "2026-11-29"}))}
			r, _ := fixture(j)
			d := route(r, "华东区的订单")
			Expect(d.Action).To(Equal(router.Clarify))
			Expect(d.Skill).To(Equal("query_orders_by_region"))
		})

		It("keeps the first answer when the params repair names a non-candidate, and counts that output as an invalid_skill", func() {
			j := &scriptJudge{name: "openai:x", answer: sequence(
				rawAnswer("query_orders_by_region", 0.9, map[string]any{"region": "east"}),
				rawAnswer("export_everything", 0.9, ordersEast))}
			r, _ := fixture(j)
			d := route(r, "华东区的订单")
			Expect(d.Action).To(Equal(router.Clarify))
			Expect(d.Skill).To(Equal("query_orders_by_region"))
			var flagged []int
			for _, t := range d.Trace {
				if t.Stage == "judge" && slices.ContainsFunc(t.Errors, router.IsInvalidSkill) {
					flagged = append(flagged, t.Attempt)
				}
			}
			Expect(flagged).To(Equal([]int{2}), "only the repair's output named a non-candidate")
		})

		It("spends at most one repair per decision: none left after a contract repair", func() {
			j := &scriptJudge{name: "openai:x", answer: sequence("oops", rawAnswer("query_orders_by_region", 0.9, map[string]any{"region": "east"}), rawAnswer("query_orders_by_region", 0.9, ordersEast))}
			r, _ := fixture(j)
			d := route(r, "华东区的订单")
			Expect(d.Action).To(Equal(router.Clarify))
			Expect(j.Calls()).To(HaveLen(2))
		})

		It("does not ask a model to repair a permission failure", func() {
			j := &scriptJudge{name: "openai:x", answer: always("restart_service", 0.99, map[string]any{"service": "api", "env": "prod"})}
			r, _ := fixture(j)
			Expect(route(r, "restart api in prod", "ops:write").Action).To(Equal(router.Refuse))
			Expect(j.Calls()).To(HaveLen(1))
		})

		It("records a provider failure during the params repair as provider_error", func() {
			j := &scriptJudge{name: "openai:x", answer: func(_ router.JudgeRequest, call int) (router.JudgeResponse, error) {
				if call == 1 {
					return answer("query_orders_by_region", 0.9, map[string]any{"region": "east"}), nil
				}
				return failing("timeout")(router.JudgeRequest{}, call)
			}}
			r, _ := fixture(j)
			d := route(r, "华东区的订单")
			Expect(d.Action).To(Equal(router.Fail))
			Expect(d.Errors).To(ConsistOf(HaveField("Category", router.CatProviderError)))
		})
	})
})

var _ = Describe("per-request tools", func() {
	toolsRegistry := func() *registry.Registry {
		weather := build(skillSpec{name: "get_weather", se: registry.Read, desc: "Get the weather for a city.",
			schema: `{"type": "object", "required": ["city"], "properties": {"city": {"type": "string"}}}`, examples: []string{"weather in Paris"}})
		reg, err := registry.New([]*registry.Skill{weather})
		Expect(err).NotTo(HaveOccurred())
		return reg
	}

	It("routes over the request's own skill set, fitted once and cached by pointer", func() {
		j := &scriptJudge{name: "fake", answer: always("get_weather", 0.9, map[string]any{"city": "Paris"})}
		f := &fixedFactory{judge: j}
		r, err := router.New(opsVersion(), f.build)
		Expect(err).NotTo(HaveOccurred())
		tools := toolsRegistry()
		for range 3 {
			d, err := r.Route(context.Background(), router.Request{Text: "weather in Paris", Tools: tools, Now: now})
			Expect(err).NotTo(HaveOccurred())
			Expect(d.Action).To(Equal(router.Execute))
			Expect(d.Skill).To(Equal("get_weather"))
			Expect(step(d, "recall").Top).To(Equal([]string{"get_weather"}))
		}
		Expect(f.built()).To(Equal(2), "once for the version, once for the tools")
		for _, c := range j.Calls() {
			Expect(names(c.Candidates)).To(Equal([]string{"get_weather"}))
		}
	})

	It("never lets the version's own skills answer a tools request", func() {
		j := &scriptJudge{name: "fake", answer: always("query_orders_by_region", 0.99, ordersEast)}
		r, _ := fixture(j)
		d, err := r.Route(context.Background(), router.Request{Text: "华东区的订单", Tools: toolsRegistry(), Caller: router.Caller{Scopes: allScopes}})
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Action).To(Equal(router.Fail))
		Expect(d.Errors).To(ConsistOf(HaveField("Rule", router.RuleInvalidSkill)))
	})

	It("is safe under concurrent requests for new tool sets", func() {
		j := &scriptJudge{name: "fake", answer: always("get_weather", 0.9, map[string]any{"city": "Paris"})}
		f := &fixedFactory{judge: j}
		r, err := router.New(opsVersion(), f.build)
		Expect(err).NotTo(HaveOccurred())
		tools := toolsRegistry()
		done := make(chan router.Decision, 16)
		for range 16 {
			go func() {
				defer GinkgoRecover()
				d, err := r.Route(context.Background(), router.Request{Text: "weather in Paris", Tools: tools})
				Expect(err).NotTo(HaveOccurred())
				done <- d
			}()
		}
		for range 16 {
			Expect((<-done).Skill).To(Equal("get_weather"))
		}
		Expect(f.built()).To(Equal(2))
	})
})
