package router_test

import (
	"context"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/models"
	"github.com/routebench/routebench/router/registry"
)

// The default configuration end to end: the demo versions with the builtin
// models. Accuracy is the harness's business; these specs pin what must
// hold whatever the models answer, plus a few unambiguous requests.
var _ = Describe("builtin models on the ops demo", func() {
	var r *router.Router
	var v *registry.Version
	BeforeEach(func() {
		v = loadFixture("v2")
		f, err := models.Factory(models.Builtin, models.Builtin)
		Expect(err).NotTo(HaveOccurred())
		r, err = router.New(v, f)
		Expect(err).NotTo(HaveOccurred())
	})

	It("executes a clear read request with its extracted params", func() {
		d := route(r, "查一下华东大区上周已发货的订单", suiteScopes...)
		Expect(d.Action).To(Equal(router.Execute))
		Expect(d.Skill).To(Equal("query_orders_by_region"))
		Expect(d.Params).To(Equal(map[string]any{"region": "east", "status": "shipped", "start": "2026-11-23", "end": "2026-11-29"}))
		Expect(d.Model).To(Equal("builtin"))
		Expect(stages(d)).To(Equal([]string{"policy", "rules", "recall", "judge", "bands", "params"}))
	})

	It("decides an order id by rule and takes the id from the builtin extractor", func() {
		d := route(r, "ORD-20261103 到哪了", "orders:read")
		Expect(d.Stage).To(Equal("rules"))
		Expect(d.Action).To(Equal(router.Execute), "%+v", d)
		Expect(d.Params).To(HaveKeyWithValue("order_id", "ORD-20261103"))
	})

	It("gives identical decisions for identical requests", func() {
		a := route(r, "华东区最近怎么样", suiteScopes...)
		b := route(r, "华东区最近怎么样", suiteScopes...)
		a.LatencyUS, b.LatencyUS = 0, 0
		Expect(a).To(Equal(b))
	})

	It("holds the policy invariants over every case of the ops suites", func() {
		cases, err := harness.LoadSuites([]string{"../suites/ops"}, v.Registry)
		if err != nil {
			Skip("suites/ops does not load: " + err.Error())
		}
		Expect(len(cases)).To(BeNumerically(">", 100))
		acted := 0
		for _, c := range cases {
			now, _ := time.Parse(time.RFC3339, c.Now)
			d, err := r.Route(context.Background(), router.Request{Text: c.Input, Caller: c.Caller, Now: now, Tools: c.Tools})
			Expect(err).NotTo(HaveOccurred())
			if !d.Action.Acts() {
				continue
			}
			acted++
			reg := v.Registry
			if c.Tools != nil {
				reg = c.Tools
			}
			s := reg.Skill(d.Skill)
			Expect(s).NotTo(BeNil(), c.ID)
			Expect(c.Caller.Disabled).NotTo(ContainElement(d.Skill), c.ID)
			for _, need := range s.PermissionScope {
				Expect(c.Caller.Scopes).To(ContainElement(need), c.ID)
			}
			if s.SideEffect.Acts() {
				Expect(d.Action).To(Equal(router.Confirm), c.ID)
				Expect(d.Gate).NotTo(BeEmpty(), c.ID)
			}
		}
		Expect(acted).To(BeNumerically(">", 50))
	})

	// The builtin models keep per-request work in pools and remember the
	// last texts they read (regexp matches, features); concurrent requests
	// must get exactly the decisions they get one at a time (run with
	// -race to check the sharing too).
	It("decides the ops suites' requests the same routed at once as one at a time", func() {
		cases, err := harness.LoadSuites([]string{"../suites/ops"}, v.Registry)
		if err != nil {
			Skip("suites/ops does not load: " + err.Error())
		}
		var reqs []router.Request
		for _, c := range cases {
			if len(c.Turns) == 0 {
				now, _ := time.Parse(time.RFC3339, c.Now)
				reqs = append(reqs, router.Request{Text: c.Input, Caller: c.Caller, Now: now, Tools: c.Tools})
			}
		}
		decide := func(req router.Request) router.Decision {
			d, err := r.Route(context.Background(), req)
			Expect(err).NotTo(HaveOccurred())
			d.LatencyUS = 0
			return d
		}
		want := make([]router.Decision, len(reqs))
		for i, req := range reqs {
			want[i] = decide(req)
		}
		got := make([]router.Decision, len(reqs))
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Go(func() {
				defer GinkgoRecover()
				for i := w; i < len(reqs); i += 4 {
					got[i] = decide(reqs[i])
				}
			})
		}
		wg.Wait()
		for i := range reqs {
			Expect(got[i]).To(Equal(want[i]), reqs[i].Text)
		}
	})
})
