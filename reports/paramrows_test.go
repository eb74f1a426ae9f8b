package reports_test

import (
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/reports"
)

var _ = Describe("Param-error layer rows", func() {
	// A summary from another tool (or an older routebench) can carry the
	// layer breakdown without param_error_rate itself.
	summaryWithout := func(parent bool) harness.Summary {
		metrics := map[string]harness.Rate{
			harness.WrongExecutionRate: {Value: 0.1, N: 10},
			harness.ParamErrorSchema:   {Value: 0.25, N: 4},
		}
		if parent {
			metrics[harness.ParamErrorRate] = harness.Rate{Value: 0.5, N: 4}
		}
		return harness.Summary{Versions: []harness.VersionSummary{{Name: "v1", Version: "v1@00000001",
			Groups: map[string]harness.Group{"all": {N: 10, Metrics: metrics}}}}}
	}
	row := func(html string) string {
		GinkgoHelper()
		m := regexp.MustCompile(`<tr data-metric="param_error_schema"[^>]*>\s*<th[^>]*>[^<]*`).FindString(html)
		Expect(m).NotTo(BeEmpty())
		return m
	}

	It("are not drawn as a breakdown of wrong execution rate when param_error_rate is absent", func() {
		html := renderHTML(reports.Input{Summary: summaryWithout(false)})
		r := row(html)
		Expect(r).NotTo(ContainSubstring(`class="sub"`))
		Expect(r).To(ContainSubstring("param error: schema layer"))
		var md strings.Builder
		Expect(reports.WriteMarkdown(&md, reports.Input{Summary: summaryWithout(false)})).To(Succeed())
		Expect(md.String()).NotTo(ContainSubstring("… schema layer"))
	})

	It("stay a breakdown under param_error_rate when it is there", func() {
		r := row(renderHTML(reports.Input{Summary: summaryWithout(true)}))
		Expect(r).To(ContainSubstring(`class="sub"`))
		Expect(r).To(ContainSubstring("… schema layer"))
	})
})
