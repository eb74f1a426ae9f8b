package builtin

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/internal/jsonstr"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

// judged runs the judge over all of reg's skills (or the named ones).
func judged(reg *registry.Registry, text string, only ...string) (verdict, router.JudgeResponse) {
	cands := reg.Skills
	if len(only) > 0 {
		cands = nil
		for _, name := range only {
			cands = append(cands, skillNamed(reg, name))
		}
	}
	resp, err := NewJudge(reg).Judge(context.Background(), router.JudgeRequest{Text: text, Now: testNow, Candidates: cands})
	Expect(err).NotTo(HaveOccurred())
	var v verdict
	Expect(json.Unmarshal([]byte(resp.Raw), &v)).To(Succeed(), resp.Raw)
	return v, resp
}

// scoreOf is a skill's calibrated score in a response.
func scoreOf(resp router.JudgeResponse, skill string) float64 {
	for _, c := range resp.Scores {
		if c.Skill == skill {
			return c.Score
		}
	}
	Fail("no score for " + skill)
	return 0
}

var _ = Describe("judge", func() {
	It("is named builtin", func() {
		Expect(NewJudge(testRegistry()).Name()).To(Equal("builtin"))
	})

	DescribeTable("picks the skill a clear request asks for",
		func(text, want string) {
			v, _ := judged(testRegistry(), text)
			Expect(v.Skill).To(Equal(want), "reason: %s", v.Reason)
		},
		Entry(nil, "华南大区上个月已支付的订单有多少", "query_orders_by_region", Label("lang:zh")),
		Entry(nil, "华南可用区上周有哪些警告级别的告警", "query_alerts_by_zone", Label("lang:zh")),
		Entry(nil, "how many orders did the north china region get last week?", "query_orders_by_region", Label("lang:en")),
		Entry(nil, "which alerts fired in the east zone yesterday?", "query_alerts_by_zone", Label("lang:en")),
		Entry(nil, "grep the logs of inventory-service for OutOfMemoryError", "search_logs", Label("lang:en")),
		Entry(nil, "看看 order-service 上周的 warn 日志", "search_logs", Label("lang:zh")),
		Entry(nil, "show the memory usage of search-api", "get_service_metrics", Label("lang:en")),
		Entry(nil, "gateway 今天的错误率是多少", "get_service_metrics", Label("lang:zh")),
		Entry(nil, "把 payment-api 扩到 6 个副本", "scale_service", Label("lang:zh")),
		Entry(nil, "bounce the gateway in staging", "restart_service", Label("lang:en")),
		Entry(nil, "refund 50 on ORD-20261103, the customer was overcharged", "refund_order", Label("lang:en")),
		Entry(nil, "purge the cdn cache for /images/banner/*", "purge_cdn_cache", Label("lang:en")),
		Entry(nil, "给 li.na 发个短信说我晚点到", "send_notification", Label("lang:zh")),
	)

	It("tells get from refund among the skills an order id triggers", func() {
		get, _ := judged(testRegistry(), "客户问 ORD-10293847 到哪了，帮忙看下物流", "get_order", "refund_order")
		refund, _ := judged(testRegistry(), "ORD-10293847 退 30 元运费", "get_order", "refund_order")
		Expect(get.Skill).To(Equal("get_order"))
		Expect(refund.Skill).To(Equal("refund_order"))
		Expect(refund.Params).To(Equal(map[string]any{"order_id": "ORD-10293847", "amount": 30.0}))
	})

	It("tells the confusable pair apart on the same region words", func() {
		orders, _ := judged(testRegistry(), "华东区上周的订单", "query_orders_by_region", "query_alerts_by_zone")
		alerts, _ := judged(testRegistry(), "华东区上周的告警", "query_orders_by_region", "query_alerts_by_zone")
		Expect(orders.Skill).To(Equal("query_orders_by_region"))
		Expect(alerts.Skill).To(Equal("query_alerts_by_zone"))
	})

	It("judges only among the candidates it is given", func() {
		v, resp := judged(testRegistry(), "华东区上周已发货的订单", "search_logs", "get_service_metrics")
		Expect(v.Skill).To(BeElementOf("search_logs", "get_service_metrics", router.NoneChoice))
		Expect(resp.Scores).To(HaveLen(2))
	})

	It("declines requests unrelated to every skill: none, or a candidate most likely wrong", func() {
		for _, text := range []string{"今天上海天气怎么样？", "write me a poem about the sea", "红烧肉怎么做才好吃"} {
			v, _ := judged(testRegistry(), text)
			if v.Skill == router.NoneChoice {
				Expect(v.Confidence).To(BeNumerically(">=", 0.5), "none is the likely answer: %s", text)
				continue
			}
			Expect(v.Confidence).To(BeNumerically("<", 0.3), "%s -> %s (%s)", text, v.Skill, v.Reason)
		}
	})

	It("answers none for a request a bare tool does not serve, and keeps one it does", func() {
		tool := &registry.Skill{Name: "convert_length", Description: "Convert a length from one unit to another.",
			ParamsSchema: map[string]any{"type": "object", "required": []any{"value", "from_unit", "to_unit"}, "properties": map[string]any{
				"value":     map[string]any{"type": "number", "description": "The length to convert."},
				"from_unit": map[string]any{"type": "string", "description": "The unit to convert from, e.g. 'inch'."},
				"to_unit":   map[string]any{"type": "string", "description": "The unit to convert to, e.g. 'cm'."},
			}}}
		reg := &registry.Registry{Skills: []*registry.Skill{tool}}
		off, _ := judged(reg, "who painted the ceiling of the chapel?")
		Expect(off.Skill).To(Equal(router.NoneChoice), off.Reason)
		on, _ := judged(reg, "convert a length of 12 inches to centimeters")
		Expect(on.Skill).To(Equal("convert_length"), on.Reason)
	})

	It("is more confident on a clear request than on a vague one", func() {
		clear, _ := judged(testRegistry(), "看看华东区上周已发货的订单")
		vague, _ := judged(testRegistry(), "华东那边怎么样")
		Expect(clear.Skill).To(Equal("query_orders_by_region"))
		vagueConf := vague.Confidence
		if vague.Skill == router.NoneChoice {
			vagueConf = 1 - vagueConf
		}
		Expect(clear.Confidence).To(BeNumerically(">", vagueConf+0.2))
		Expect(clear.Confidence).To(BeNumerically(">=", 0.85), "a request that repeats an example should execute")
	})

	It("pushes a request away from a skill whose counter_examples it resembles", func() {
		const text = "华南区的销售额汇总一下"
		before := testRegistry()
		v1, r1 := judged(before, text, "query_orders_by_region", "query_alerts_by_zone")

		after := testRegistry()
		orders := skillNamed(after, "query_orders_by_region")
		orders.CounterExamples = append(orders.CounterExamples, "销售额汇总")
		v2, r2 := judged(after, text, "query_orders_by_region", "query_alerts_by_zone")

		Expect(v1.Skill).To(Equal("query_orders_by_region"))
		Expect(scoreOf(r2, "query_orders_by_region")).To(BeNumerically("<", scoreOf(r1, "query_orders_by_region")-0.2))
		Expect(v2.Skill).NotTo(Equal("query_orders_by_region"))
	})

	It("follows a when_not_to_use line that names another skill", func() {
		reg := testRegistry()
		logs := skillNamed(reg, "search_logs")
		logs.WhenNotToUse = append(logs.WhenNotToUse, "用户问机房容量水位 (use get_service_metrics)")
		_, withHint := judged(reg, "机房容量水位怎么样", "search_logs", "get_service_metrics")
		_, without := judged(testRegistry(), "机房容量水位怎么样", "search_logs", "get_service_metrics")
		Expect(scoreOf(withHint, "get_service_metrics")).To(BeNumerically(">", scoreOf(without, "get_service_metrics")))
	})

	It("changes its decision when a description is edited", func() {
		const text = "看一下 gateway 的吞吐量"
		pair := []string{"search_logs", "get_service_metrics"}
		first := testRegistry()
		skillNamed(first, "get_service_metrics").Description = "查看服务的吞吐量、CPU、内存和延迟。Show a service's throughput, cpu, memory or latency."
		v1, _ := judged(first, text, pair...)

		second := testRegistry()
		skillNamed(second, "get_service_metrics").Description = "查看服务的 CPU 和内存。Show a service's cpu or memory."
		skillNamed(second, "search_logs").Description = "查看服务的吞吐量和日志。Show a service's throughput and logs."
		v2, _ := judged(second, text, pair...)

		Expect(v1.Skill).To(Equal("get_service_metrics"))
		Expect(v2.Skill).To(Equal("search_logs"))
	})

	It("answers in the contract's shape with the params the text states", func() {
		v, resp := judged(testRegistry(), "看看华东区上周已发货的订单")
		var raw map[string]any
		Expect(json.Unmarshal([]byte(resp.Raw), &raw)).To(Succeed())
		Expect(raw).To(HaveKey("skill"))
		Expect(raw).To(HaveKey("params"))
		Expect(raw["confidence"]).To(BeNumerically(">=", 0))
		Expect(raw["confidence"]).To(BeNumerically("<=", 1))
		Expect(v.Params).To(Equal(map[string]any{"region": "east", "status": "shipped", "start": "2026-11-23", "end": "2026-11-29"}))
		Expect(v.Reason).To(ContainSubstring("query_orders_by_region"))
	})

	It("ranks every candidate once, best first, ties by name", func() {
		v, resp := judged(testRegistry(), "restart search-api in staging please")
		Expect(resp.Scores).To(HaveLen(len(testSkills())))
		names := make([]string, len(resp.Scores))
		for i, c := range resp.Scores {
			names[i] = c.Skill
			Expect(c.Score).To(BeNumerically(">=", 0))
			Expect(c.Score).To(BeNumerically("<=", 1))
		}
		Expect(slices.Compact(slices.Sorted(slices.Values(names)))).To(HaveLen(len(names)))
		Expect(slices.IsSortedFunc(resp.Scores, func(a, b router.Candidate) int {
			if a.Score != b.Score {
				if a.Score > b.Score {
					return -1
				}
				return 1
			}
			return strings.Compare(a.Skill, b.Skill)
		})).To(BeTrue())
		Expect(resp.Scores[0].Skill).To(Equal(v.Skill))
		Expect(resp.Scores[0].Score).To(Equal(v.Confidence))
	})

	It("gives the same answer every time", func() {
		_, a := judged(testRegistry(), "看看 order-service 上周的 warn 日志")
		_, b := judged(testRegistry(), "看看 order-service 上周的 warn 日志")
		Expect(a).To(Equal(b))
	})

	It("judges candidates its registry does not hold (per-request tools)", func() {
		tools := []*registry.Skill{
			{Name: "get_weather", Description: "Get the weather forecast for a city.", Examples: []registry.Example{{Input: "weather in Paris tomorrow"}}},
			{Name: "book_flight", Description: "Book a flight between two cities.", Examples: []registry.Example{{Input: "fly me from Paris to Rome"}}},
		}
		resp, err := NewJudge(testRegistry()).Judge(context.Background(), router.JudgeRequest{Text: "what's the weather in Berlin", Candidates: tools})
		Expect(err).NotTo(HaveOccurred())
		var v verdict
		Expect(json.Unmarshal([]byte(resp.Raw), &v)).To(Succeed())
		Expect(v.Skill).To(Equal("get_weather"))
	})

	It("gives the same answers when called concurrently", func() {
		reg := testRegistry()
		j := NewJudge(reg)
		want := map[string]string{}
		for _, text := range benchRequests {
			resp, err := j.Judge(context.Background(), router.JudgeRequest{Text: text, Now: testNow, Candidates: reg.Skills})
			Expect(err).NotTo(HaveOccurred())
			want[text] = resp.Raw
		}
		var wg sync.WaitGroup
		got := make([][]string, 8)
		for w := range got {
			wg.Go(func() {
				defer GinkgoRecover()
				for k := range 40 {
					text := benchRequests[(w+k)%len(benchRequests)]
					resp, err := j.Judge(context.Background(), router.JudgeRequest{Text: text, Now: testNow, Candidates: reg.Skills})
					Expect(err).NotTo(HaveOccurred())
					if resp.Raw != want[text] {
						got[w] = append(got[w], text)
					}
				}
			})
		}
		wg.Wait()
		for _, diffs := range got {
			Expect(diffs).To(BeEmpty())
		}
	})

	It("answers none when there are no candidates", func() {
		resp, err := NewJudge(testRegistry()).Judge(context.Background(), router.JudgeRequest{Text: "hi"})
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Raw).To(ContainSubstring(`"skill":"none"`))
	})

	It("stops on a cancelled context", func() {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := NewJudge(testRegistry()).Judge(ctx, router.JudgeRequest{Text: "hi", Candidates: testSkills()})
		Expect(err).To(MatchError(context.Canceled))
	})
})

var _ = Describe("numbers JSON cannot hold", func() {
	It("are left out of params (and asked for), never failing the decision", func() {
		skills, err := registry.ParseSkills("tools.yaml", []byte(`skills:
  - name: set_motor
    description: Set the motor's speed and gear ratio.
    side_effect: read
    counter_examples: [what is the motor's temperature]
    params_schema:
      type: object
      properties:
        speed: {type: number, description: speed in metres per second}
        ratio: {type: number, description: gear ratio}
        limits: {type: object, properties: {x1: {type: number}, x2: {type: number}}}
`))
		Expect(err).NotTo(HaveOccurred())
		reg, err := registry.New(skills)
		Expect(err).NotTo(HaveOccurred())
		for _, text := range []string{"set the motor speed to 1e400 m/s", "set motor ratio NaN and speed Inf", "set motor limits x1=NaN x2=Inf", "set motor speed between -1e400 and 1e400 m/s"} {
			resp, err := NewJudge(reg).Judge(context.Background(), router.JudgeRequest{Text: text, Now: testNow, Candidates: reg.Skills})
			Expect(err).NotTo(HaveOccurred(), text)
			var v verdict
			Expect(json.Unmarshal([]byte(resp.Raw), &v)).To(Succeed(), text)
			for k, p := range v.Params {
				if f, ok := p.(float64); ok {
					Expect(math.IsInf(f, 0) || math.IsNaN(f)).To(BeFalse(), "%s: %s", text, k)
				}
			}
		}
	})
})

var _ = Describe("the answer handed over as a value", func() {
	It("holds the params as decoding its JSON gives them, and the JSON holds them as extracted", func() {
		// A made-up request with an integer param: the value the router
		// reads must be what parsing Raw gives (float64), Raw must be the
		// extracted params' own JSON.
		reg := testRegistry()
		text := "scale checkout-api in staging to 12 replicas"
		v, resp := judged(reg, text)
		Expect(v.Skill).To(Equal("scale_service"), resp.Raw)
		value, ok := resp.Value.(*router.Verdict)
		Expect(ok).To(BeTrue())
		var doc struct {
			Params map[string]any `json:"params"`
		}
		Expect(json.Unmarshal([]byte(resp.Raw), &doc)).To(Succeed())
		Expect(value.Params).To(Equal(doc.Params))
		Expect(value.Params).To(HaveKeyWithValue("replicas", 12.0))
		extracted := ExtractParams(skillNamed(reg, "scale_service"), text, testNow)
		Expect(extracted).To(HaveKeyWithValue("replicas", 12))
		want, err := json.Marshal(extracted)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Raw).To(ContainSubstring(`"params":` + string(want)))
	})

	It("turns ints into float64 at any depth, copying lists, and leaves ints past 2^53 and non-finite numbers as before", func() {
		shared := []any{1, "a"}
		nested := map[string]any{"n": -7, "x": math.Inf(1)}
		params := map[string]any{
			"small": 3, "big": 1<<53 + 1, "edge": -(1 << 53), "list": shared, "obj": nested,
			"nan": math.NaN(), "bad_list": []any{2, math.NaN()}, "s": "text", "f": 2.5,
		}
		settleParams(params)
		Expect(params).To(Equal(map[string]any{
			"small": 3.0, "big": 1<<53 + 1, "edge": -float64(1 << 53), "list": []any{1.0, "a"},
			"obj": map[string]any{"n": -7.0}, "s": "text", "f": 2.5,
		}))
		Expect(shared).To(Equal([]any{1, "a"}), "a list is copied, not changed")
		for _, n := range []int{0, 1, -1, 12, 1 << 40, 1 << 53, -(1 << 53)} {
			asInt, err := json.Marshal(n)
			Expect(err).NotTo(HaveOccurred())
			asFloat, err := json.Marshal(float64(n))
			Expect(err).NotTo(HaveOccurred())
			Expect(asFloat).To(Equal(asInt), "%d is written the same either way", n)
		}
	})
})

var _ = Describe("a reason's quote of the closest registry text", func() {
	It("is made once per text, as quoting the text shortened makes it", func() {
		reg := testRegistry()
		j := newJudge(reg, defaultTopK)
		req := router.JudgeRequest{Text: "把预发的 payment-api 扩到 6 个副本", Now: testNow, Candidates: reg.Skills}
		first, err := j.Judge(context.Background(), req)
		Expect(err).NotTo(HaveOccurred())
		Expect(first.Raw).To(ContainSubstring("closest registry text"))
		// The fit is shared with other specs' judges of this registry:
		// every text quoted so far is there, this request's among them.
		inRaw := 0
		for t := range j.fit.quoted {
			if q := j.fit.quoted[t].Load(); q != nil {
				Expect(q.plain).To(Equal(string(appendQuotedClip(nil, j.fit.texts[t].text, reasonClip))))
				Expect(q.json).To(Equal(strings.TrimSuffix(strings.TrimPrefix(string(jsonstr.Append(nil, q.plain)), `"`), `"`)))
				if strings.Contains(first.Raw, "closest registry text "+q.json+" (cos") {
					inRaw++
				}
			}
		}
		Expect(inRaw).To(Equal(1))
		again, err := j.Judge(context.Background(), req)
		Expect(err).NotTo(HaveOccurred())
		Expect(again.Raw).To(Equal(first.Raw))
	})
})
