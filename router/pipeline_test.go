package router_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

var now = time.Date(2026, 11, 30, 10, 0, 0, 0, time.FixedZone("CST", 8*3600))

// fixture builds a router over the ops test version with a scripted judge.
func fixture(j *scriptJudge) (*router.Router, *registry.Version) {
	v := opsVersion()
	f := &fixedFactory{judge: j}
	r, err := router.New(v, f.build)
	Expect(err).NotTo(HaveOccurred())
	return r, v
}

func route(r *router.Router, text string, scopes ...string) router.Decision {
	if len(scopes) == 0 {
		scopes = allScopes
	}
	d, err := r.Route(context.Background(), router.Request{Text: text, Caller: router.Caller{Scopes: scopes}, Now: now})
	Expect(err).NotTo(HaveOccurred())
	return d
}

func stages(d router.Decision) []string {
	var out []string
	for _, t := range d.Trace {
		out = append(out, t.Stage)
	}
	return out
}

func step(d router.Decision, stage string) router.TraceStep {
	for _, t := range d.Trace {
		if t.Stage == stage {
			return t
		}
	}
	Fail("no trace step " + stage + " in " + strings.Join(stages(d), ","))
	return router.TraceStep{}
}

var ordersEast = map[string]any{"region": "east", "start": "2026-11-23", "end": "2026-11-29"}

var _ = Describe("New", func() {
	It("refuses a version without a registry or a nil factory", func() {
		_, err := router.New(&registry.Version{Name: "x"}, (&fixedFactory{}).build)
		Expect(err).To(MatchError(ContainSubstring("no registry")))
		_, err = router.New(opsVersion(), nil)
		Expect(err).To(MatchError(ContainSubstring("no model factory")))
	})

	It("reports a factory that returns no judge", func() {
		_, err := router.New(opsVersion(), (&fixedFactory{}).build)
		Expect(err).To(MatchError(ContainSubstring("no judge")))
	})

	It("builds an index even for a single skill with one document under top_k 5", func() {
		v := opsVersion()
		reg, err := registry.New(opsSkills()[:1])
		Expect(err).NotTo(HaveOccurred())
		reg.Skills[0].WhenToUse, reg.Skills[0].Examples = nil, nil
		v.Registry, v.Router.TopK = reg, 5
		j := &scriptJudge{name: "fake", answer: always("query_orders_by_region", 0.9, ordersEast)}
		r, err := router.New(v, (&fixedFactory{judge: j}).build)
		Expect(err).NotTo(HaveOccurred())
		d := route(r, "orders in the east region")
		Expect(d.Action).To(Equal(router.Execute))
		Expect(step(d, "recall").Top).To(Equal([]string{"query_orders_by_region"}))
	})
})

var _ = Describe("Route", func() {
	Describe("input", func() {
		DescribeTable("refuses empty or blank text without calling the judge",
			func(text string) {
				j := &scriptJudge{name: "fake", answer: always("query_orders_by_region", 1, ordersEast)}
				r, _ := fixture(j)
				d := route(r, text)
				Expect(d.Action).To(Equal(router.Refuse))
				Expect(d.Stage).To(Equal("policy"))
				Expect(stages(d)).To(Equal([]string{"input"}))
				Expect(j.Calls()).To(BeEmpty())
				Expect(d.Version).To(Equal("vt@01234567"))
			},
			Entry("empty", ""), Entry("spaces", "   "), Entry("newlines and tabs", "\n\t \n"),
		)

		It("prints errors as [] and params as {} in JSON", func() {
			r, _ := fixture(&scriptJudge{name: "fake", answer: always("none", 0.9, nil)})
			b, err := json.Marshal(route(r, " "))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(b)).To(ContainSubstring(`"errors":[]`))
			Expect(string(b)).To(ContainSubstring(`"params":{}`))
			Expect(string(b)).To(ContainSubstring(`"candidates":[]`))
		})

		It("returns the context's error when it is cancelled", func() {
			r, _ := fixture(&scriptJudge{name: "fake", answer: always("query_orders_by_region", 0.9, ordersEast)})
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			_, err := r.Route(ctx, router.Request{Text: "orders in east", Caller: router.Caller{Scopes: allScopes}})
			Expect(err).To(MatchError(context.Canceled))
		})

		It("returns the context's error when it is cancelled during judgment", func() {
			ctx, cancel := context.WithCancel(context.Background())
			j := &scriptJudge{name: "fake", answer: func(router.JudgeRequest, int) (router.JudgeResponse, error) {
				cancel()
				return router.JudgeResponse{}, context.Canceled
			}}
			r, _ := fixture(j)
			_, err := r.Route(ctx, router.Request{Text: "orders in east", Caller: router.Caller{Scopes: allScopes}})
			Expect(err).To(MatchError(context.Canceled))
		})
	})

	Describe("stage 0: policy", func() {
		It("keeps only skills the caller holds every scope of, and lists the dropped ones sorted", func() {
			j := &scriptJudge{name: "fake", answer: always("query_orders_by_region", 0.9, ordersEast)}
			r, _ := fixture(j)
			d := route(r, "华东区上周的订单", "orders:read", "alerts:read")
			p := step(d, "policy")
			Expect(*p.Kept).To(Equal(3))
			Expect(p.Dropped).To(Equal([]string{"check_date", "create_ticket", "delete_test_data", "purge_cdn_cache", "refund_order", "restart_service", "send_notification"}))
			Expect(names(j.Calls()[0].Candidates)).To(ConsistOf("query_orders_by_region", "query_alerts_by_zone", "get_order"))
		})

		It("drops disabled skills even when the caller holds their scope", func() {
			j := &scriptJudge{name: "fake", answer: always("query_alerts_by_zone", 0.9, nil)}
			r, _ := fixture(j)
			d, err := r.Route(context.Background(), router.Request{Text: "华东区的告警", Now: now,
				Caller: router.Caller{Scopes: []string{"alerts:read", "orders:read"}, Disabled: []string{"query_alerts_by_zone"}}})
			Expect(err).NotTo(HaveOccurred())
			Expect(step(d, "policy").Dropped).To(ContainElement("query_alerts_by_zone"))
			Expect(names(j.Calls()[0].Candidates)).NotTo(ContainElement("query_alerts_by_zone"))
			Expect(d.Action).To(Equal(router.Fail), "naming the disabled skill is the judge's failure, not a refusal")
			Expect(d.Errors).To(ConsistOf(And(HaveField("Category", router.CatSchemaError), HaveField("Rule", router.RuleInvalidSkill))))
		})

		It("refuses at stage policy when no skill is left, without calling the judge", func() {
			j := &scriptJudge{name: "fake", answer: always("none", 1, nil)}
			r, _ := fixture(j)
			d := route(r, "restart payment-api", "nothing:here")
			Expect(d.Action).To(Equal(router.Refuse))
			Expect(d.Stage).To(Equal("policy"))
			Expect(d.Message).To(ContainSubstring("none of the 10 skills"))
			Expect(j.Calls()).To(BeEmpty())
			Expect(*step(d, "policy").Kept).To(Equal(0))
		})
	})

	Describe("stage 1: rules", func() {
		It("decides with confidence 1.0 when exactly one candidate's trigger matches; params still come from the judge", func() {
			j := &scriptJudge{name: "fake", answer: always("get_order", 0.3, map[string]any{"order_id": "ORD-20261103"})}
			r, _ := fixture(j)
			d := route(r, "where is ORD-20261103?", "orders:read")
			Expect(d.Action).To(Equal(router.Execute))
			Expect(d.Stage).To(Equal("rules"))
			Expect(d.Skill).To(Equal("get_order"))
			Expect(d.Confidence).To(Equal(1.0))
			Expect(d.Params).To(Equal(map[string]any{"order_id": "ORD-20261103"}))
			Expect(step(d, "rules").Matched).To(Equal([]string{"get_order"}))
			Expect(stages(d)).NotTo(ContainElement("recall"))
			Expect(names(j.Calls()[0].Candidates)).To(Equal([]string{"get_order"}))
			Expect(d.Candidates).To(Equal([]router.Candidate{{Skill: "get_order", Score: 1}}))
		})

		It("keeps the rule's skill when the judge answers something else, and uses its params", func() {
			j := &scriptJudge{name: "fake", answer: always("none", 0.9, nil)}
			r, _ := fixture(j)
			d := route(r, "ORD-20261103", "orders:read")
			Expect(d.Skill).To(Equal("get_order"))
			Expect(d.Action).To(Equal(router.Clarify), "order_id is missing from the params")
			Expect(d.Message).To(ContainSubstring("order_id"))
		})

		It("keeps the rule's skill when the judge names a skill it was not offered, and flags that output as invalid_skill", func() {
			j := &scriptJudge{name: "fake", answer: always("refund_order", 0.9, map[string]any{"order_id": "ORD-20261103"})}
			r, _ := fixture(j)
			d := route(r, "where is ORD-20261103?", "orders:read")
			Expect(d.Stage).To(Equal("rules"))
			Expect(d.Skill).To(Equal("get_order"))
			Expect(d.Errors).To(BeEmpty(), "the decision stands on the rule")
			var calls []router.TraceStep
			for _, t := range d.Trace {
				if t.Stage == "judge" && t.Attempt > 0 {
					calls = append(calls, t)
				}
			}
			Expect(calls).To(HaveLen(1))
			Expect(calls[0].Errors).To(ConsistOf(HaveField("Rule", router.RuleInvalidSkill)))
		})

		It("asks a judge that can extract params for the rule's skill when it answered something else", func() {
			j := extractingJudge{&scriptJudge{name: "fake", answer: always("none", 0, nil)}, map[string]any{"order_id": "ORD-20261103"}}
			r, err := router.New(opsVersion(), (&fixedFactory{judge: j}).build)
			Expect(err).NotTo(HaveOccurred())
			d := route(r, "ORD-20261103", "orders:read")
			Expect(d.Action).To(Equal(router.Execute))
			Expect(d.Params).To(Equal(map[string]any{"order_id": "ORD-20261103"}))
			Expect(d.Confidence).To(Equal(1.0))
		})

		It("passes several matched skills on as the only candidates and skips recall", func() {
			j := &scriptJudge{name: "fake", answer: always("refund_order", 0.95, map[string]any{"order_id": "ORD-20261103", "amount": 20.0})}
			r, _ := fixture(j)
			d := route(r, "退款 ORD-20261103 20 元")
			Expect(step(d, "rules").Matched).To(Equal([]string{"get_order", "refund_order"}))
			Expect(stages(d)).NotTo(ContainElement("recall"))
			Expect(names(j.Calls()[0].Candidates)).To(ConsistOf("get_order", "refund_order"))
			Expect(d.Stage).To(Equal("judge"))
			Expect(d.Action).To(Equal(router.Confirm))
			Expect(d.Gate).To(Equal(registry.GateIrreversible))
		})

		It("does not let a signal shared with a skill outside the caller's scope decide, and never offers that skill", func() {
			j := &scriptJudge{name: "fake", answer: always("refund_order", 1, map[string]any{"order_id": "ORD-20261103"})}
			r, _ := fixture(j)
			d := route(r, "refund ORD-20261103", "orders:read")
			Expect(step(d, "rules").Matched).To(Equal([]string{"get_order"}))
			Expect(step(d, "rules").Note).To(ContainSubstring("does not decide"))
			Expect(names(j.Calls()[0].Candidates)).To(Equal([]string{"get_order"}), "the out-of-scope skill is never a candidate")
			Expect(d.Stage).To(Equal("judge"))
			Expect(d.Action.Acts()).To(BeFalse(), "the judge named a skill that is not a candidate: invalid_skill")
		})

		It("lets a trigger decide when no skill outside the caller's scope shares it", func() {
			j := &scriptJudge{name: "fake", answer: always("none", 0, nil)}
			r, _ := fixture(j)
			d := route(r, "where is ORD-20261103?", "orders:read")
			Expect(d.Stage).To(Equal("rules"))
			Expect(d.Skill).To(Equal("get_order"))
		})
	})

	Describe("stage 2: recall", func() {
		It("returns top_k candidates with scores, best first, and gives the judge exactly those", func() {
			j := &scriptJudge{name: "fake", answer: always("query_alerts_by_zone", 0.9, nil)}
			r, _ := fixture(j)
			d := route(r, "any critical alerts in the east zone")
			rc := step(d, "recall")
			Expect(rc.Top).To(HaveLen(3))
			Expect(rc.Top[0]).To(Equal("query_alerts_by_zone"))
			Expect(rc.Scores[0].Score).To(BeNumerically(">", rc.Scores[1].Score))
			Expect(rc.Scores[1].Score).To(BeNumerically(">=", rc.Scores[2].Score))
			Expect(names(j.Calls()[0].Candidates)).To(Equal(rc.Top))
			Expect(j.Calls()[0].Recall).To(Equal(rc.Scores))
		})

		It("names no matched list in the rules step when no trigger matched: nil, as a results line reads it back", func() {
			j := &scriptJudge{name: "fake", answer: always("query_alerts_by_zone", 0.9, nil)}
			r, _ := fixture(j)
			d := route(r, "any critical alerts in the east zone")
			Expect(step(d, "rules").Matched).To(BeNil())
			Expect(step(d, "recall").Top).NotTo(BeEmpty())
		})

		It("hands back a decision of its own: routing more requests, side by side, leaves it as it was", func() {
			j := &scriptJudge{name: "fake", answer: always("query_alerts_by_zone", 0.9, nil)}
			r, _ := fixture(j)
			d := route(r, "any critical alerts in the east zone", "alerts:read")
			before, err := json.Marshal(d)
			Expect(err).NotTo(HaveOccurred())
			texts := []string{"where is ORD-20261103?", "purge the cdn cache for /static", "华东区上周的订单", "refund order ORD-1 please"}
			var wg sync.WaitGroup
			for w := range 4 {
				wg.Go(func() {
					defer GinkgoRecover()
					for i := range 25 {
						_, err := r.Route(context.Background(), router.Request{Text: texts[(w+i)%len(texts)], Caller: router.Caller{Scopes: allScopes}, Now: now})
						Expect(err).NotTo(HaveOccurred())
					}
				})
			}
			wg.Wait()
			Expect(json.Marshal(d)).To(MatchJSON(before))
			Expect(step(d, "policy").Dropped).NotTo(BeEmpty(), "the caller holds one scope: policy dropped skills, in the decision's own room")
		})

		It("scores a skill by its best document (an example input matches exactly)", func() {
			j := &scriptJudge{name: "fake", answer: always("none", 0.9, nil)}
			r, _ := fixture(j)
			d := route(r, "purge the cdn cache for /static")
			rc := step(d, "recall")
			Expect(rc.Scores[0]).To(Equal(router.Candidate{Skill: "purge_cdn_cache", Score: 1}))
		})

		It("never indexes the params schema", func() {
			j := &scriptJudge{name: "fake", answer: always("none", 0.9, nil)}
			r, _ := fixture(j)
			// "severity" and "exclusiveminimum" occur only in params schemas.
			d := route(r, "severity exclusiveMinimum")
			for _, c := range step(d, "recall").Scores {
				Expect(c.Score).To(BeZero(), c.Skill)
			}
		})

		It("is deterministic across repeated requests", func() {
			j := &scriptJudge{name: "fake", answer: always("none", 0.9, nil)}
			r, _ := fixture(j)
			first := step(route(r, "orders alerts tickets"), "recall")
			for range 20 {
				Expect(step(route(r, "orders alerts tickets"), "recall")).To(Equal(first))
			}
		})
	})

	Describe("stage 3: judgment", func() {
		It("records the judge's choice and confidence in the trace and fills model and version", func() {
			j := &scriptJudge{name: "fake", answer: always("query_orders_by_region", 0.91, ordersEast)}
			r, _ := fixture(j)
			d := route(r, "华东区上周的订单")
			js := step(d, "judge")
			Expect(js.Provider).To(Equal("fake"))
			Expect(js.Attempt).To(Equal(1))
			Expect(js.Choice).To(Equal("query_orders_by_region"))
			Expect(*js.Confidence).To(Equal(0.91))
			Expect(d.Model).To(Equal("fake"))
			Expect(d.Version).To(Equal("vt@01234567"))
			Expect(d.LatencyUS).To(BeNumerically(">=", 0))
			Expect(j.Calls()[0].Now).To(Equal(now))
			Expect(j.Calls()[0].Text).To(Equal("华东区上周的订单"))
		})

		It("ranks candidates by the judge's scores when it gives them, ignoring names that are not candidates", func() {
			j := &scriptJudge{name: "fake", answer: func(req router.JudgeRequest, _ int) (router.JudgeResponse, error) {
				resp := answer("query_alerts_by_zone", 0.9, map[string]any{"zone": "east", "start": "2026-11-23", "end": "2026-11-29"})
				resp.Scores = []router.Candidate{{Skill: "query_orders_by_region", Score: 0.2}, {Skill: "delete_test_data", Score: 0.99}, {Skill: "query_alerts_by_zone", Score: 0.9}}
				return resp, nil
			}}
			r, _ := fixture(j)
			d := route(r, "华东区的告警")
			Expect(d.Candidates).To(Equal([]router.Candidate{{Skill: "query_alerts_by_zone", Score: 0.9}, {Skill: "query_orders_by_region", Score: 0.2}}))
		})

		It("repairs a skill name only on a case-insensitive exact match, and notes it", func() {
			j := &scriptJudge{name: "fake", answer: always("Query_Orders_By_Region", 0.9, ordersEast)}
			r, _ := fixture(j)
			d := route(r, "华东区上周的订单")
			Expect(d.Action).To(Equal(router.Execute))
			Expect(d.Skill).To(Equal("query_orders_by_region"))
			var notes []string
			for _, t := range d.Trace {
				notes = append(notes, t.Note)
			}
			Expect(notes).To(ContainElement(`repaired "Query_Orders_By_Region" -> "query_orders_by_region"`))
		})

		DescribeTable("fails with an invalid_skill schema_error for any other unknown name, never mapping it to another skill nor refusing",
			func(choice string) {
				j := &scriptJudge{name: "fake", answer: always(choice, 0.99, ordersEast)}
				r, _ := fixture(j)
				d := route(r, "华东区上周的订单", "orders:read", "alerts:read")
				Expect(d.Action).To(Equal(router.Fail))
				Expect(d.Skill).To(BeEmpty())
				Expect(d.Params).To(BeEmpty())
				Expect(d.Errors).To(ConsistOf(And(HaveField("Category", router.CatSchemaError), HaveField("Rule", router.RuleInvalidSkill),
					HaveField("Path", "/skill"), HaveField("Message", ContainSubstring(choice)))))
				Expect(router.IsInvalidSkill(d.Errors[0])).To(BeTrue())
				call := step(d, "judge")
				Expect(call.Choice).To(Equal(choice), "the trace keeps what the judge said")
				Expect(call.Errors).To(ContainElement(HaveField("Rule", router.RuleInvalidSkill)), "the judge call's output counts as failed")
			},
			Entry("a prefix of a candidate", "query_orders"),
			Entry("a near miss", "query_order_by_region"),
			Entry("a skill outside the caller's scope", "delete_test_data"),
			Entry("an invented tool", "read_file"),
		)

		It("refuses a none answer with a capability-boundary message listing the candidates", func() {
			j := &scriptJudge{name: "fake", answer: always("none", 0.95, nil)}
			r, _ := fixture(j)
			// alerts:read too: with only orders:read, the test embedder's
			// bag of words scores this text closest to the alerts skill (on
			// "the" and "in"), which would explain a refusal as that skill
			// being out of scope.
			d := route(r, "what's the weather in Paris?", "orders:read", "alerts:read")
			Expect(d.Action).To(Equal(router.Refuse))
			Expect(d.Stage).To(Equal("judge"))
			Expect(d.Errors).To(BeEmpty())
			Expect(d.Message).To(ContainSubstring("I can help with:"))
			Expect(d.Message).To(ContainSubstring("get_order"))
			Expect(d.Message).NotTo(ContainSubstring("delete_test_data"))
		})

		It("turns a provider failure into action error with provider_error, never a refusal", func() {
			j := &scriptJudge{name: "openai:x", answer: failing("HTTP 503 after retry")}
			r, _ := fixture(j)
			d := route(r, "华东区上周的订单")
			Expect(d.Action).To(Equal(router.Fail))
			Expect(d.Errors).To(ConsistOf(And(HaveField("Category", router.CatProviderError), HaveField("Message", ContainSubstring("503")))))
			Expect(j.Calls()).To(HaveLen(1), "the provider retries; the router does not")
		})

		Describe("contract validation and repair", func() {
			valid := rawAnswer("query_orders_by_region", 0.9, ordersEast)

			It("gives a model judge one repair attempt with the raw output and the structured errors", func() {
				j := &scriptJudge{name: "openai:x", answer: sequence("Sure! The skill is query_orders_by_region.", valid)}
				r, _ := fixture(j)
				d := route(r, "华东区上周的订单")
				Expect(d.Action).To(Equal(router.Execute))
				calls := j.Calls()
				Expect(calls).To(HaveLen(2))
				Expect(calls[0].Repair).To(BeNil())
				Expect(calls[1].Repair.Raw).To(Equal("Sure! The skill is query_orders_by_region."))
				Expect(calls[1].Repair.Errors).To(ConsistOf(HaveField("Category", router.CatSchemaError)))
				var attempts []int
				for _, t := range d.Trace {
					if t.Stage == "judge" {
						attempts = append(attempts, t.Attempt)
					}
				}
				Expect(attempts).To(Equal([]int{1, 2}))
			})

			It("settles on action error with schema_error (not refuse) when the repair fails too", func() {
				j := &scriptJudge{name: "openai:x", answer: sequence("garbage", "{still garbage")}
				r, _ := fixture(j)
				d := route(r, "华东区上周的订单")
				Expect(d.Action).To(Equal(router.Fail))
				Expect(d.Errors).NotTo(BeEmpty())
				for _, e := range d.Errors {
					Expect(e.Category).To(Equal(router.CatSchemaError))
				}
				Expect(j.Calls()).To(HaveLen(2))
			})

			It("does not repair the builtin judge, which would answer the same", func() {
				j := &scriptJudge{name: "builtin", answer: sequence("garbage", valid)}
				r, _ := fixture(j)
				d := route(r, "华东区上周的订单")
				Expect(d.Action).To(Equal(router.Fail))
				Expect(j.Calls()).To(HaveLen(1))
			})

			DescribeTable("reports contract mismatches by path and keyword",
				func(raw, path, rule string) {
					j := &scriptJudge{name: "builtin", answer: sequence(raw)}
					r, _ := fixture(j)
					d := route(r, "华东区上周的订单")
					Expect(d.Action).To(Equal(router.Fail))
					Expect(d.Errors).To(ContainElement(And(HaveField("Category", router.CatSchemaError), HaveField("Path", path), HaveField("Rule", rule))))
				},
				Entry("confidence above 1", `{"skill": "get_order", "confidence": 1.5, "params": {}}`, "/confidence", "maximum"),
				Entry("confidence as a string", `{"skill": "get_order", "confidence": "high", "params": {}}`, "/confidence", "type"),
				Entry("missing skill", `{"confidence": 0.9, "params": {}}`, "/skill", "required"),
				Entry("params not an object", `{"skill": "get_order", "confidence": 0.9, "params": []}`, "/params", "type"),
				Entry("an extra field", `{"skill": "get_order", "confidence": 0.9, "params": {}, "tool": "x"}`, "/tool", "additionalProperties"),
				Entry("an array", `[1, 2]`, "", "type"),
				Entry("two JSON values", `{"skill": "get_order", "confidence": 0.9, "params": {}} {}`, "", "json"),
			)

			It("accepts JSON wrapped in a markdown code fence", func() {
				j := &scriptJudge{name: "builtin", answer: sequence("```json\n" + valid + "\n```")}
				r, _ := fixture(j)
				Expect(route(r, "华东区上周的订单").Action).To(Equal(router.Execute))
			})

			It("sums usage over attempts", func() {
				n := 0
				j := &scriptJudge{name: "openai:x", answer: func(router.JudgeRequest, int) (router.JudgeResponse, error) {
					n++
					raw := "nope"
					if n == 2 {
						raw = valid
					}
					return router.JudgeResponse{Raw: raw, Usage: &router.Usage{InputTokens: 100, OutputTokens: 10, CostUSD: 0.001}}, nil
				}}
				r, _ := fixture(j)
				d := route(r, "华东区上周的订单")
				Expect(d.Usage).To(Equal(&router.Usage{InputTokens: 200, OutputTokens: 20, CostUSD: 0.002}))
				Expect(step(d, "judge").Usage.InputTokens).To(Equal(100))
			})
		})
	})
})
