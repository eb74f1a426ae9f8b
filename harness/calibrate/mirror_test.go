package calibrate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/harness/calibrate"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/models"
	"github.com/routebench/routebench/router/registry"
)

// newRouter builds a version's router with its own (builtin) models.
func newRouter(v *registry.Version) (harness.Router, error) {
	factory, err := models.ForVersion(v, "", "")
	if err != nil {
		return nil, err
	}
	return router.New(v, factory)
}

func loadDemo(dir string) (*registry.Version, []harness.Case) {
	v, err := registry.Load(dir)
	Expect(err).NotTo(HaveOccurred())
	cases, err := harness.LoadSuites([]string{"../../suites/ops"}, v.Registry)
	Expect(err).NotTo(HaveOccurred())
	Expect(len(cases)).To(BeNumerically(">=", 100))
	return v, cases
}

func collect(v *registry.Version, cases []harness.Case, concurrency int) []calibrate.Record {
	recs, err := calibrate.Collect(context.Background(), calibrate.CollectConfig{
		Version: v, Cases: cases, NewRouter: newRouter, Concurrency: concurrency,
	})
	Expect(err).NotTo(HaveOccurred())
	Expect(recs).To(HaveLen(len(cases)))
	return recs
}

var _ = Describe("the offline mirror of the router's bands, on the ops demo", Ordered, func() {
	for _, dir := range []string{"../../fixtures/ops/prompts/v2", "../../fixtures/ops/prompts/v1"} {
		It("re-derives every decision the router makes at "+dir+"'s own bands", func() {
			v, cases := loadDemo(dir)
			records := collect(v, cases, 0)
			rt, err := newRouter(v)
			Expect(err).NotTo(HaveOccurred())
			banded, demoted, clarified := 0, 0, 0
			for i := range cases {
				c := &cases[i]
				req := router.Request{Text: c.Input, Caller: c.Caller, Tools: c.Tools}
				if c.Now != "" {
					req.Now, err = time.Parse(time.RFC3339, c.Now)
					Expect(err).NotTo(HaveOccurred())
				}
				d, err := rt.Route(context.Background(), req)
				Expect(err).NotTo(HaveOccurred())
				got := records[i].At(v.Router.Bands)
				Expect(got.Action).To(Equal(d.Action), "case %s: %s", c.ID, harness.DescribeDecision(d))
				Expect(got.Skill).To(Equal(d.Skill), "case %s", c.ID)
				Expect(got.Gate).To(Equal(d.Gate), "case %s", c.ID)
				if d.Action == router.Clarify {
					clarified++
					var offer []string
					for _, cand := range d.Candidates {
						offer = append(offer, cand.Skill)
					}
					Expect(got.Offer).To(Equal(offer), "case %s", c.ID)
				}
				reg := v.Registry
				if c.Tools != nil {
					reg = c.Tools
				}
				verdict := harness.Check(c, d, reg)
				ind := harness.Indicators(harness.Result{Expect: c.Expect, Decision: d, Failure: verdict.Failure})
				Expect(got.WrongExec).To(Equal(ind[harness.WrongExecutionRate]), "case %s", c.ID)
				Expect(got.Correct).To(Equal(ind[harness.DecisionAccuracy]), "case %s", c.ID)
				if records[i].Banded {
					banded++
				}
				if records[i].Demotion != "" {
					demoted++
				}
			}
			// The agreement must cover every band region and demotion.
			Expect(banded).To(BeNumerically(">", len(cases)/2))
			Expect(demoted).To(BeNumerically(">", 0))
			Expect(clarified).To(BeNumerically(">", 0))
		})
	}

	It("is deterministic: the same records at any concurrency, the same report bytes", func() {
		v, cases := loadDemo("../../fixtures/ops/prompts/v2")
		one, four := collect(v, cases, 1), collect(v, cases, 4)
		Expect(four).To(Equal(one))
		render := func(recs []calibrate.Record) (string, string, string) {
			fit, eval := calibrate.Holdout(recs, 0.5)
			rep := calibrate.Analyze(fit, eval, calibrate.Options{
				Version: v.ID(), Judge: "builtin", Embedder: "builtin", MaxWrongExec: 0.02,
				MinRefusalRecall: 0.5, Current: v.Router.Bands, Split: calibrate.Split{Method: "holdout", Holdout: 0.5},
			})
			var text, svg bytes.Buffer
			Expect(rep.WriteText(&text)).To(Succeed())
			Expect(rep.WriteSVG(&svg)).To(Succeed())
			js, err := json.Marshal(rep)
			Expect(err).NotTo(HaveOccurred())
			return text.String(), svg.String(), string(js)
		}
		t1, s1, j1 := render(one)
		t2, s2, j2 := render(four)
		Expect(t2).To(Equal(t1))
		Expect(s2).To(Equal(s1))
		Expect(j2).To(Equal(j1))
		// 135 fit cases cannot certify 0.02: the bands are shown, not recommended.
		Expect(t1).To(ContainSubstring("Fitted bands, per side-effect class: NOT CERTIFIED"))
		Expect(t1).To(ContainSubstring("Held-out check"))
	})
})
