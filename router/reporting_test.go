package router_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/models"
)

// Issue 11, defect 5: the run is silent while routers are built; the build
// now announces its steps, and announcing them changes no decision.
var _ = Describe("NewReporting", func() {
	It("reports fitting then indexing, and routes as New does", func() {
		v := loadFixture("v2")
		f, err := models.Factory(models.Builtin, models.Builtin)
		Expect(err).NotTo(HaveOccurred())
		var phases []router.BuildPhase
		reporting, err := router.NewReporting(v, f, func(p router.BuildPhase) { phases = append(phases, p) })
		Expect(err).NotTo(HaveOccurred())
		Expect(phases).To(HaveLen(2))
		Expect(phases[0]).To(Equal(router.BuildPhase{Version: v.ID(), Step: "fitting", Count: len(v.Registry.Skills)}))
		Expect(phases[1].Step).To(Equal("indexing"))
		Expect(phases[1].Count).To(BeNumerically(">", len(v.Registry.Skills)))

		plain, err := router.New(v, f)
		Expect(err).NotTo(HaveOccurred())
		for _, text := range []string{"查一下华东大区上周已发货的订单", "restart payment-api in prod", "ORD-20261103 到哪了"} {
			a, b := route(reporting, text, suiteScopes...), route(plain, text, suiteScopes...)
			// Traces carry timings; the decision is what must not move.
			Expect([]any{a.Action, a.Skill, a.Params, a.Confidence, a.Stage, a.Gate}).To(Equal([]any{b.Action, b.Skill, b.Params, b.Confidence, b.Stage, b.Gate}), text)
		}
		Expect(phases).To(HaveLen(2), "routing reports nothing")
	})
})
