package target_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
	"github.com/routebench/routebench/router/target"
)

// decided is what the equivalence spec compares of a decision.
func decided(d router.Decision) string {
	params, err := json.Marshal(d.Params)
	Expect(err).NotTo(HaveOccurred())
	return fmt.Sprintf("action=%s skill=%s params=%s confidence=%v gate=%s", d.Action, d.Skill, params, d.Confidence, d.Gate)
}

var _ = Describe("--target pointed at routebench serve", func() {
	It("decides every demo case and turn exactly as the router in process (suites/ops and suites/ops-workflows under v2)", func() {
		v, err := registry.Load(opsV2)
		Expect(err).NotTo(HaveOccurred())
		vw, err := harness.PrepareWorkflows(v)
		Expect(err).NotTo(HaveOccurred())
		cases, err := harness.LoadSuites([]string{"../../suites/ops", "../../suites/ops-workflows"}, vw.Routing)
		Expect(err).NotTo(HaveOccurred())
		Expect(len(cases)).To(BeNumerically(">", 300))

		s := &target.Server{Router: builtinV2(), Version: routingV2()}
		srv := httptest.NewServer(s.Handler())
		DeferCleanup(srv.Close)
		remote := newTarget(srv.URL+"/route", target.Options{})
		local := builtinV2()

		turns, withTools, workflows := 0, 0, 0
		for i := range cases {
			c := &cases[i]
			want, _, err := harness.EvaluateCase(bg(), local, v, vw, c, i)
			Expect(err).NotTo(HaveOccurred())
			got, _, err := harness.EvaluateCase(bg(), remote, v, vw, c, i)
			Expect(err).NotTo(HaveOccurred())
			Expect(got.Decision.Model).To(HavePrefix("target:"), c.ID)
			Expect(decided(got.Decision)).To(Equal(decided(want.Decision)), "case %s", c.ID)
			Expect(got.Turns).To(HaveLen(len(want.Turns)), c.ID)
			for k := range want.Turns {
				Expect(decided(got.Turns[k].Decision)).To(Equal(decided(want.Turns[k].Decision)), "case %s turn %d", c.ID, k+1)
				turns++
			}
			Expect(got.Pass).To(Equal(want.Pass), c.ID)
			Expect(got.Failure).To(Equal(want.Failure), c.ID)
			if want.Workflow != nil {
				Expect(got.Workflow.Outcome).To(Equal(want.Workflow.Outcome), c.ID)
				workflows++
			}
			if c.Tools != nil {
				withTools++
			}
		}
		AddReportEntry("compared", fmt.Sprintf("%d cases, %d conversation turns, %d with their own tools, %d workflow runs", len(cases), turns, withTools, workflows))
		Expect(turns).To(BeNumerically(">", 0))
		Expect(withTools).To(BeNumerically(">", 0))
		Expect(workflows).To(BeNumerically(">", 0))
	})
})
