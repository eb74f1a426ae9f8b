package router_test

import (
	"os"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

// The demo prompt versions (fixtures/ops/prompts) through the pipeline with
// scripted judges: the real skill definitions' triggers, schemas, rules and
// x-permission must behave as the suites expect.

const fixturesDir = "../fixtures/ops/prompts/"

func loadFixture(name string) *registry.Version {
	dir := fixturesDir + name
	if _, err := os.Stat(dir); err != nil {
		Skip("fixture " + dir + " not present")
	}
	v, err := registry.Load(dir)
	Expect(err).NotTo(HaveOccurred())
	return v
}

var _ = Describe("the ops demo versions", func() {
	for _, name := range []string{"v1", "v2", "v3"} {
		It("builds a router for "+name+" whose recall never returns more than top_k", func() {
			v := loadFixture(name)
			j := &scriptJudge{name: "fake", answer: always("none", 0.9, nil)}
			r, err := router.New(v, (&fixedFactory{judge: j}).build)
			Expect(err).NotTo(HaveOccurred())
			d := route(r, "华东区最近的告警情况", suiteScopes...)
			Expect(step(d, "recall").Top).To(HaveLen(v.Router.TopK))
			Expect(d.Version).To(Equal(v.ID()))
		})
	}

	var v *registry.Version
	BeforeEach(func() { v = loadFixture("v2") })

	routeV2 := func(j *scriptJudge, text string, scopes ...string) router.Decision {
		r, err := router.New(v, (&fixedFactory{judge: j}).build)
		Expect(err).NotTo(HaveOccurred())
		return route(r, text, scopes...)
	}

	It("decides a bare order id by rule, and lets a refund of it reach the judge with both skills", func() {
		j := &scriptJudge{name: "fake", answer: always("get_order", 0.9, map[string]any{"order_id": "ORD-20261103"})}
		d := routeV2(j, "ORD-20261103 到哪了", suiteScopes...)
		Expect(d.Stage).To(Equal("rules"))
		Expect(step(d, "rules").Matched).To(Equal([]string{"get_order"}))
		Expect(d.Action).To(Equal(router.Execute))
		d = routeV2(j, "给 ORD-20261103 退款 20 元", suiteScopes...)
		Expect(step(d, "rules").Matched).To(ConsistOf("get_order", "refund_order"))
		Expect(d.Stage).To(Equal("judge"))
	})

	It("does not let an order id decide get_order for a refund request from a caller who cannot refund", func() {
		j := &scriptJudge{name: "fake", answer: always("none", 0.9, nil)}
		d := routeV2(j, "给 ORD-20261103 退款 20 元", "orders:read")
		Expect(step(d, "rules").Matched).To(Equal([]string{"get_order"}))
		Expect(d.Stage).To(Equal("judge"))
		Expect(d.Action).To(Equal(router.Refuse))
	})

	It("refuses a prod restart for a caller without ops:prod, and gates it for one with it", func() {
		j := &scriptJudge{name: "fake", answer: always("restart_service", 0.97, map[string]any{"service": "payment-api", "env": "prod"})}
		d := routeV2(j, "restart payment-api in prod", suiteScopes...)
		Expect(d.Action).To(Equal(router.Refuse))
		Expect(d.Errors).To(ConsistOf(HaveField("Layer", router.LayerPermission)))
		d = routeV2(j, "restart payment-api in prod", append([]string{"ops:prod"}, suiteScopes...)...)
		Expect(d.Action).To(Equal(router.Confirm))
		Expect(d.Gate).To(Equal(registry.GateNormal))
	})

	It("asks for the date range rather than guessing it", func() {
		j := &scriptJudge{name: "fake", answer: always("query_orders_by_region", 0.95, map[string]any{"region": "east"})}
		d := routeV2(j, "华东区的订单", suiteScopes...)
		Expect(d.Action).To(Equal(router.Clarify))
		Expect(d.Skill).To(Equal("query_orders_by_region"))
		Expect(d.Message).To(ContainSubstring("start and end"))
	})

	It("enforces the 90-day and 5000 rules of the fixtures", func() {
		j := &scriptJudge{name: "fake", answer: always("query_orders_by_region", 0.95, map[string]any{"region": "east", "start": "2026-01-01", "end": "2026-11-30"})}
		Expect(routeV2(j, "华东区今年的订单", suiteScopes...).Errors).To(ConsistOf(HaveField("Layer", router.LayerRule)))
		j = &scriptJudge{name: "fake", answer: always("refund_order", 0.99, map[string]any{"order_id": "ORD-20261103", "amount": 8000})}
		d := routeV2(j, "给 ORD-20261103 退款 8000 元", suiteScopes...)
		Expect(d.Action).To(Equal(router.Clarify))
		Expect(d.Errors).To(ConsistOf(And(HaveField("Layer", router.LayerRule), HaveField("Path", "/amount"))))
	})

	It("gates each side effect with the fixture's confirm", func() {
		for skill, c := range map[string]struct {
			text   string
			params map[string]any
		}{
			"refund_order":              {"给 ORD-20261103 退款 20 元", map[string]any{"order_id": "ORD-20261103", "amount": 20}},
			"purge_cdn_cache":           {"purge the cdn cache for /static", map[string]any{"path": "/static"}},
			"broadcast_incident_update": {"broadcast an update on INC-0042 to internal staff", map[string]any{"incident_id": "INC-0042", "audience": "internal"}},
		} {
			j := &scriptJudge{name: "fake", answer: always(skill, 1, c.params)}
			d := routeV2(j, c.text, suiteScopes...)
			Expect(d.Action).To(Equal(router.Confirm), skill)
			Expect(d.Gate).To(Equal(v.Registry.Skill(skill).Confirm), skill)
		}
	})
})
