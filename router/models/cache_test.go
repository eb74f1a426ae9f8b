package models_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/builtin"
	"github.com/routebench/routebench/router/models"
)

// routeOps routes every single-step ops case and every conversation turn
// (each turn on its own) with r and returns the decisions as JSON,
// latency zeroed: the one field that may differ between two routers of
// the same models.
func routeOps(r *router.Router, cases []harness.Case) []string {
	var out []string
	route := func(c harness.Case, text string) {
		req := router.Request{Text: text, Caller: c.Caller, ID: c.ID}
		if c.Now != "" {
			now, err := time.Parse(time.RFC3339, c.Now)
			Expect(err).NotTo(HaveOccurred(), c.ID)
			req.Now = now
		}
		d, err := r.Route(context.Background(), req)
		Expect(err).NotTo(HaveOccurred(), c.ID)
		d.LatencyUS = 0
		b, err := json.Marshal(d)
		Expect(err).NotTo(HaveOccurred())
		out = append(out, c.ID+" "+string(b))
	}
	for _, c := range cases {
		if c.Input != "" {
			route(c, c.Input)
		}
		for _, t := range c.Turns {
			route(c, t.Input)
		}
	}
	return out
}

var _ = Describe("builtin models from the disk cache", func() {
	It("decide every ops case exactly as freshly fitted ones", func() {
		v := loadV2()
		cases, err := harness.LoadSuites([]string{"../../suites/ops"}, v.Registry)
		if err != nil {
			Skip("suites/ops does not load: " + err.Error())
		}
		f, err := models.Factory(models.Builtin, models.Builtin)
		Expect(err).NotTo(HaveOccurred())
		build := func() *router.Router {
			builtin.DropFitsInMemory()
			r, err := router.New(v, f)
			Expect(err).NotTo(HaveOccurred())
			return r
		}
		DeferCleanup(builtin.DropFitsInMemory)

		DeferCleanup(builtin.SetCacheDir(""))
		fresh := routeOps(build(), cases)
		Expect(len(fresh)).To(BeNumerically(">", 200))

		dir := GinkgoT().TempDir()
		builtin.SetCacheDir(dir)
		build() // a miss: fits and stores
		entries, err := filepath.Glob(filepath.Join(dir, "*.fit"))
		Expect(err).NotTo(HaveOccurred())
		Expect(entries).NotTo(BeEmpty())
		cached := routeOps(build(), cases) // read from disk
		Expect(cached).To(Equal(fresh))
	})
})
