package lint_test

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness/lint"
)

const (
	goodDir    = "testdata/good"
	thinDir    = "testdata/thin"
	brokenDir  = "testdata/broken"
	goodSuites = "testdata/good-suites"
	thinSuites = "testdata/thin-suites"
	thinSkills = "testdata/thin/skills.yaml"
)

var _ = Describe("a registry that follows the checklist", func() {
	It("has no findings at all, and lint passes", func() {
		r := lintVersions(lint.Options{}, []string{goodSuites}, goodDir)
		Expect(r.Findings).To(BeEmpty(), "%v", r.Findings)
		Expect(r.Failed()).To(BeFalse())
		Expect(r.Versions).To(HaveLen(1))
		Expect(r.Versions[0]).To(HavePrefix("good@"))
	})

	It("is still clean when its suites load through lint.LoadSuites with skill checks", func() {
		t := lint.LoadDir(goodDir)
		cases, found := lint.LoadSuites([]string{goodSuites}, []lint.Target{t})
		Expect(found).To(BeEmpty())
		Expect(cases).To(HaveLen(6))
		r := lint.Lint(context.Background(), lint.Input{Targets: []lint.Target{t}, Cases: cases}, lint.Options{})
		Expect(r.Findings).To(BeEmpty())
	})
})

var _ = Describe("each check on a crafted registry", func() {
	var r lint.Report
	BeforeEach(func() {
		r = lintVersions(lint.Options{}, []string{thinSuites}, thinDir)
	})

	one := func(check, skill string) lint.Finding {
		GinkgoHelper()
		fs := pick(r, check, skill)
		Expect(fs).To(HaveLen(1), "%s on %s: %v", check, skill, fs)
		return fs[0]
	}

	DescribeTable("the thin layers of list_invoices are warnings at the skill or field line",
		func(check string, line int, says string) {
			f := one(check, "list_invoices")
			Expect(f.Severity).To(Equal(lint.Warning))
			Expect(f.File).To(Equal(thinSkills))
			Expect(f.Line).To(Equal(line))
			Expect(f.Message).To(ContainSubstring(says))
			Expect(f.Version).To(HavePrefix("thin@"))
		},
		Entry("no when_not_to_use", lint.CheckWhenNotToUse, 3, "(use list_bills)"),
		Entry("no counter_examples", lint.CheckCounterExamples, 3, `"bills of globex please"`),
		Entry("one example", lint.CheckExamples, 8, "1 example; 2-3 advised"),
	)

	It("does not flag the layers of skills that have them", func() {
		for _, s := range []string{"list_bills", "void_invoice", "check_weather", "email_receipt"} {
			Expect(pick(r, lint.CheckWhenNotToUse, s)).To(BeEmpty(), s)
			Expect(pick(r, lint.CheckCounterExamples, s)).To(BeEmpty(), s)
			Expect(pick(r, lint.CheckExamples, s)).To(BeEmpty(), s)
		}
	})

	It("fails on a write skill whose confirm gate is left to the loader's default", func() {
		f := one(lint.CheckConfirmGate, "void_invoice")
		Expect(f.Severity).To(Equal(lint.Error))
		Expect(f.Line).To(Equal(22))
		Expect(f.Message).To(ContainSubstring("write confirm: normal, batch"))
		Expect(pick(r, lint.CheckConfirmGate, "email_receipt")).To(BeEmpty())
	})

	It("warns about a confirm gate on a read skill", func() {
		f := one(lint.CheckConfirmGate, "check_weather")
		Expect(f.Severity).To(Equal(lint.Warning))
		Expect(f.Line).To(Equal(47)) // the confirm key
	})

	It("fails on near-duplicate descriptions, naming both skills and the similarity", func() {
		f := one(lint.CheckNearDuplicate, "list_bills")
		Expect(f.Severity).To(Equal(lint.Error))
		Expect(f.Message).To(ContainSubstring("list_bills and list_invoices (line 3)"))
		Expect(f.Message).To(MatchRegexp(`cosine (1\.000|0\.99\d) > 0\.90`))
		Expect(pick(r, lint.CheckNearDuplicate, "")).To(HaveLen(1))
	})

	It("warns when a description reads like another skill's examples", func() {
		f := one(lint.CheckDescriptionFit, "check_weather")
		Expect(f.Message).To(ContainSubstring("closer to the examples of email_receipt"))
		Expect(pick(r, lint.CheckDescriptionFit, "email_receipt")).To(BeEmpty())
	})

	It("warns about a trigger that matches another skill's examples and its own counter_examples", func() {
		fs := pick(r, lint.CheckTriggerPrecise, "void_invoice")
		Expect(fs).To(HaveLen(2))
		msgs := []string{fs[0].Message, fs[1].Message}
		Expect(msgs).To(ContainElement(ContainSubstring(`also matches examples of list_invoices (1 of 1, e.g. "which invoices of acme-corp are overdue?" at line 9)`)))
		Expect(msgs).To(ContainElement(ContainSubstring(`own counter_examples "show me the invoice totals of acme-corp" (line 34); where no other skill's trigger matches too`)))
		Expect(fs[0].Line).To(Equal(29))
	})

	It("names the suite kinds a skill is missing from and where to add them", func() {
		f := one(lint.CheckCoverage, "list_bills")
		Expect(f.Message).To(ContainSubstring("no normal, boundary or adversarial case"))
		Expect(f.Message).To(ContainSubstring("testdata/thin-suites/normal.yaml, testdata/thin-suites/boundary.yaml and testdata/thin-suites/adversarial.yaml"))
		Expect(one(lint.CheckCoverage, "check_weather").Message).To(ContainSubstring("no adversarial case"))
		Expect(one(lint.CheckCoverage, "list_invoices").Message).To(ContainSubstring("no boundary case"))
	})

	It("counts a case's own tools against those tools, not the version", func() {
		Expect(pick(r, lint.CheckSuiteSkill, "ping")).To(BeEmpty())
	})

	It("warns about a side-effect skill without a refuse or clarify case", func() {
		f := one(lint.CheckFailurePath, "void_invoice")
		Expect(f.Message).To(ContainSubstring("side_effect write but no failure-path case"))
		// email_receipt is a clarify candidate; check_weather only reads.
		Expect(pick(r, lint.CheckFailurePath, "email_receipt")).To(BeEmpty())
		Expect(pick(r, lint.CheckFailurePath, "check_weather")).To(BeEmpty())
	})

	It("warns when clarify candidates do not name each other in when_not_to_use", func() {
		f := one(lint.CheckConfusablePair, "email_receipt")
		Expect(f.Message).To(ContainSubstring("does not name check_weather, though case b-vague-1 (testdata/thin-suites/boundary.yaml:"))
		Expect(pick(r, lint.CheckConfusablePair, "check_weather")).To(BeEmpty())
	})

	It("points at a case that names a skill the version lacks", func() {
		f := one(lint.CheckSuiteSkill, "refund_invoice")
		Expect(f.File).To(Equal("testdata/thin-suites/normal.yaml"))
		Expect(f.Line).To(Equal(15))
		Expect(f.Message).To(ContainSubstring("case n-refund-5 names skill refund_invoice"))
	})

	It("fails exactly on the error findings", func() {
		Expect(r.Count(lint.Error)).To(Equal(2)) // near_duplicate, confirm_gate
		Expect(r.Failed()).To(BeTrue())
	})

	It("skips the suite checks when no suites are given", func() {
		r := lintVersions(lint.Options{}, nil, thinDir)
		for _, c := range []string{lint.CheckCoverage, lint.CheckFailurePath, lint.CheckConfusablePair, lint.CheckSuiteSkill} {
			Expect(pick(r, c, "")).To(BeEmpty(), c)
		}
		Expect(pick(r, lint.CheckNearDuplicate, "")).To(HaveLen(1))
	})
})

var _ = Describe("--max-similarity", func() {
	It("decides what counts as a near-duplicate", func() {
		Expect(pick(lintVersions(lint.Options{}, nil, goodDir), lint.CheckNearDuplicate, "")).To(BeEmpty())
		r := lintVersions(lint.Options{MaxSimilarity: 0.01}, nil, goodDir)
		fs := pick(r, lint.CheckNearDuplicate, "")
		Expect(fs).NotTo(BeEmpty())
		Expect(fs[0].Message).To(ContainSubstring("> 0.01"))
	})
})

var _ = Describe("versions and suites that do not load", func() {
	It("reports the loader's problems as errors with file and line", func() {
		r := lintVersions(lint.Options{}, nil, brokenDir, goodDir)
		fs := pick(r, lint.CheckLoad, "")
		Expect(fs).To(HaveLen(1))
		Expect(fs[0].Severity).To(Equal(lint.Error))
		Expect(fs[0].Pos().String()).To(Equal("testdata/broken/skills.yaml:11"))
		Expect(fs[0].Version).To(Equal(brokenDir))
		Expect(fs[0].Message).To(ContainSubstring(`value "unpaid" fails its schema`))
		Expect(r.Versions).To(HaveLen(1), "only the versions that loaded are listed")
		Expect(r.Failed()).To(BeTrue())
	})

	It("reports suite problems as errors and skips the suite checks", func() {
		targets := []lint.Target{lint.LoadDir(goodDir)}
		cases, found := lint.LoadSuites([]string{"testdata/bad-suites"}, targets)
		Expect(cases).To(BeNil())
		Expect(found).NotTo(BeEmpty())
		Expect(found[0].Check).To(Equal(lint.CheckSuiteLoad))
		Expect(found[0].Severity).To(Equal(lint.Error))
		Expect(found[0].Pos().String()).To(Equal("testdata/bad-suites/normal.yaml:6"))
		r := lint.Lint(context.Background(), lint.Input{Targets: targets, Cases: cases, SuiteFindings: found}, lint.Options{})
		Expect(checks(r, "")).To(HaveKey(lint.CheckSuiteLoad))
		Expect(checks(r, "")).NotTo(HaveKey(lint.CheckCoverage))
		Expect(r.Failed()).To(BeTrue())
	})

	It("checks suite skill names against the registries only when every version loaded", func() {
		_, found := lint.LoadSuites([]string{thinSuites}, []lint.Target{lint.LoadDir(thinDir)})
		Expect(fmt.Sprint(found)).To(ContainSubstring("refund_invoice"))
		_, found = lint.LoadSuites([]string{thinSuites}, []lint.Target{lint.LoadDir(thinDir), lint.LoadDir(brokenDir)})
		Expect(found).To(BeEmpty())
	})
})

var _ = Describe("the fingerprint check", func() {
	It("passes when decisions name the version", func() {
		Expect(pick(lintVersions(lint.Options{}, nil, goodDir), lint.CheckFingerprint, "")).To(BeEmpty())
	})

	It("fails when a routed decision does not carry name@fingerprint", func() {
		DeferCleanup(lint.UseForgetfulRouter())
		r := lintVersions(lint.Options{}, nil, goodDir)
		fs := pick(r, lint.CheckFingerprint, "")
		Expect(fs).To(HaveLen(1))
		Expect(fs[0].Severity).To(Equal(lint.Error))
		Expect(fs[0].File).To(Equal(goodDir))
		Expect(fs[0].Message).To(ContainSubstring(`carries version "unnamed"`))
		Expect(fs[0].Message).To(ContainSubstring(r.Versions[0]))
	})
})
