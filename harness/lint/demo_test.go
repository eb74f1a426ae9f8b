package lint_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness/lint"
)

// The ops demo: v1 is the thin registry, v2 the layered one, v3 v2 after a
// bad edit (two descriptions lost their key terms, one when_not_to_use
// line deleted). The suites are suites/ops.
var _ = Describe("the ops demo", Ordered, func() {
	const prompts = "../../fixtures/ops/prompts/"
	var r lint.Report
	BeforeAll(func() {
		var targets []lint.Target
		for _, v := range []string{"v1", "v2", "v3"} {
			targets = append(targets, lint.LoadDir(prompts+v))
		}
		cases, found := lint.LoadSuites([]string{"../../suites/ops"}, targets)
		Expect(found).To(BeEmpty())
		r = lint.Lint(context.Background(), lint.Input{Targets: targets, Cases: cases}, lint.Options{})
		Expect(r.Versions).To(HaveLen(3))
	})

	It("finds no errors in any version: gates are declared, nothing is a near-duplicate, traces carry the fingerprint", func() {
		Expect(r.Count(lint.Error)).To(BeZero(), "%v", r.Findings)
	})

	It("warns about every thin layer of v1", func() {
		v1 := checks(r, "v1@")
		Expect(v1[lint.CheckWhenNotToUse]).To(Equal(15))
		Expect(v1[lint.CheckCounterExamples]).To(Equal(15))
		Expect(v1[lint.CheckExamples]).To(Equal(15))
	})

	It("finds v2 complete: only the shared id triggers are flagged", func() {
		v2 := checks(r, "v2@")
		Expect(v2).To(HaveKey(lint.CheckTriggerPrecise))
		delete(v2, lint.CheckTriggerPrecise)
		Expect(v2).To(BeEmpty())
	})

	It("catches each part of v3's bad edit", func() {
		v3 := pickVersion(r, "v3@")
		Expect(pick(v3, lint.CheckConfusablePair, "query_orders_by_region")).To(ConsistOf(
			HaveField("Message", ContainSubstring("does not name query_alerts_by_zone"))))
		Expect(pick(v3, lint.CheckDescriptionFit, "query_alerts_by_zone")).To(HaveLen(1))
		Expect(pick(v3, lint.CheckDescriptionFit, "get_service_metrics")).To(HaveLen(1))
		Expect(pick(pickVersion(r, "v2@"), lint.CheckDescriptionFit, "")).To(BeEmpty())
	})

	It("gives the same report on every run", func() {
		again := lintVersions(lint.Options{}, []string{"../../suites/ops"}, prompts+"v1", prompts+"v2", prompts+"v3")
		Expect(again).To(Equal(r))
	})
})

func pickVersion(r lint.Report, prefix string) lint.Report {
	var out lint.Report
	for _, f := range r.Findings {
		if len(f.Version) >= len(prefix) && f.Version[:len(prefix)] == prefix {
			out.Findings = append(out.Findings, f)
		}
	}
	return out
}
