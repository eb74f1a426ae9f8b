package registry_test

import (
	"encoding/json"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router/registry"
)

// now is the suites' default: Monday 2026-11-30, 10:00 in +08:00.
var now = time.Date(2026, 11, 30, 10, 0, 0, 0, time.FixedZone("CST", 8*3600))

func mustRule(expr string) *registry.Rule {
	GinkgoHelper()
	r, err := registry.NewRule(expr, "")
	Expect(err).NotTo(HaveOccurred())
	return r
}

var _ = Describe("Rule.Eval", func() {
	DescribeTable("evaluates date rules",
		func(expr string, params map[string]any, want bool) {
			ok, err := mustRule(expr).Eval(params, now)
			Expect(err).NotTo(HaveOccurred())
			Expect(ok).To(Equal(want))
		},
		Entry("start before end", "date(params.start) <= date(params.end)",
			map[string]any{"start": "2026-11-23", "end": "2026-11-29"}, true),
		Entry("start after end", "date(params.start) <= date(params.end)",
			map[string]any{"start": "2026-11-30", "end": "2026-11-29"}, false),
		Entry("90 days is allowed", "days_between(params.start, params.end) <= 90",
			map[string]any{"start": "2026-09-01", "end": "2026-11-30"}, true),
		Entry("91 days is not", "days_between(params.start, params.end) <= 90",
			map[string]any{"start": "2026-08-31", "end": "2026-11-30"}, false),
		Entry("days_between is b - a", "days_between(params.start, params.end) == -6",
			map[string]any{"start": "2026-11-29", "end": "2026-11-23"}, true),
		Entry("now counts as its calendar day in its own zone (02:00 UTC is still the 30th in +08:00)",
			"days_between(params.start, now) == 7", map[string]any{"start": "2026-11-23"}, true),
		Entry("timestamp and timestamp", "days_between(date(params.start), now) == 29",
			map[string]any{"start": "2026-11-01"}, true),
		Entry("timestamp then string", "days_between(now, params.end) == 1",
			map[string]any{"end": "2026-12-01"}, true),
		Entry("dates compare with now", "date(params.end) <= now",
			map[string]any{"end": "2026-11-30"}, true),
		Entry("double params compare with int literals", "params.amount > 0 && params.amount <= 5000",
			map[string]any{"amount": 120.0}, true),
		Entry("json.Number params work too", "params.amount <= 5000",
			map[string]any{"amount": json.Number("5000.5")}, false),
		Entry("nested json.Number", "params.items[0] == 2",
			map[string]any{"items": []any{json.Number("2")}}, true),
		Entry("int params", "params.replicas <= 50", map[string]any{"replicas": 51}, false),
		Entry("has() guards an absent param", "!has(params.end) || date(params.end) <= now", map[string]any{}, true),
	)

	It("computes days_between across a late-evening now", func() {
		late := time.Date(2026, 11, 30, 7, 0, 0, 0, time.FixedZone("CST", 8*3600)) // 23:00 UTC on the 29th
		ok, err := mustRule("days_between(params.start, now) == 7").Eval(map[string]any{"start": "2026-11-23"}, late)
		Expect(err).NotTo(HaveOccurred())
		Expect(ok).To(BeTrue())
	})

	DescribeTable("returns run-time errors",
		func(expr string, params map[string]any, fragment string) {
			_, err := mustRule(expr).Eval(params, now)
			Expect(err).To(MatchError(ContainSubstring(fragment)))
			Expect(err).To(MatchError(ContainSubstring(expr)), "the error names the rule")
		},
		Entry("a date that does not parse", "date(params.start) <= now", map[string]any{"start": "last week"}, `"last week" is not a YYYY-MM-DD date`),
		Entry("days_between on a bad date", "days_between(params.start, params.end) <= 90",
			map[string]any{"start": "2026-11-01", "end": "11/30"}, `"11/30" is not a YYYY-MM-DD date`),
		Entry("a missing param", "params.amount > 0", map[string]any{}, "no such key"),
		Entry("a param of the wrong type", "params.amount > 0", map[string]any{"amount": "lots"}, "no such overload"),
		Entry("date on a number", "date(params.start) <= now", map[string]any{"start": 3.0}, "no such overload"),
	)

	It("is safe for concurrent use", func() {
		r := mustRule("days_between(params.start, params.end) <= 90")
		var wg sync.WaitGroup
		errs := make(chan error, 64)
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range 200 {
					end := "2026-11-30"
					if (i+j)%2 == 0 {
						end = "2027-11-30"
					}
					ok, err := r.Eval(map[string]any{"start": "2026-11-01", "end": end}, now)
					if err != nil {
						errs <- err
						return
					}
					if ok == ((i+j)%2 == 0) {
						errs <- errWrong
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		Expect(errs).To(BeEmpty())
	})

	It("errors instead of panicking on a rule built without NewRule", func() {
		_, err := (&registry.Rule{Expr: "true"}).Eval(nil, now)
		Expect(err).To(MatchError(ContainSubstring("not compiled")))
	})
})

var errWrong = &wrongResult{}

type wrongResult struct{}

func (*wrongResult) Error() string { return "wrong result" }

var _ = Describe("NewRule", func() {
	It("lists the params it reads from selections and index expressions", func() {
		r := mustRule(`params.b > 1 && params["a"] == "x" && params.c.d == 1`)
		Expect(r.Reads).To(Equal([]string{"a", "b", "c"}))
		Expect(r.Message).To(Equal(`must satisfy params.b > 1 && params["a"] == "x" && params.c.d == 1`))
	})

	It("keeps the given message", func() {
		r, err := registry.NewRule("params.n > 0", "n must be positive")
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Message).To(Equal("n must be positive"))
	})

	It("rejects non-boolean and non-compiling rules", func() {
		_, err := registry.NewRule("params.n + 1", "")
		Expect(err).To(MatchError(ContainSubstring("not bool")))
		_, err = registry.NewRule("nope(params.n)", "")
		Expect(err).To(MatchError(ContainSubstring("undeclared reference to 'nope'")))
	})
})

var _ = Describe("Bands.For", func() {
	b := registry.Bands{Execute: 0.85, Clarify: 0.60, SideEffects: map[registry.SideEffect]registry.Band{
		registry.Write:  {Execute: 0.92},
		registry.Delete: {Execute: 0.95, Clarify: 0.70},
	}}
	DescribeTable("picks the side effect's band, inheriting what it leaves out",
		func(se registry.SideEffect, exec, clar float64) {
			e, c := b.For(se)
			Expect(e).To(Equal(exec))
			Expect(c).To(Equal(clar))
		},
		Entry("read uses the defaults", registry.Read, 0.85, 0.60),
		Entry("write overrides execute only", registry.Write, 0.92, 0.60),
		Entry("delete overrides both", registry.Delete, 0.95, 0.70),
		Entry("send has no band of its own", registry.Send, 0.85, 0.60),
	)

	It("comes from version.yaml", func() {
		v, err := registry.Load("testdata/v1")
		Expect(err).NotTo(HaveOccurred())
		e, c := v.Router.Bands.For(registry.Delete)
		Expect([]float64{e, c}).To(Equal([]float64{0.95, 0.70}))
		e, c = v.Router.Bands.For(registry.Write)
		Expect([]float64{e, c}).To(Equal([]float64{0.92, 0.55}))
	})
})
