package reports_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	stdhtml "html"
	"math"
	"regexp"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/harness/compare"
	"github.com/routebench/routebench/harness/stats"
	"github.com/routebench/routebench/reports"
)

func renderHTML(in reports.Input) string {
	GinkgoHelper()
	var b bytes.Buffer
	Expect(reports.WriteHTML(&b, in)).To(Succeed())
	return b.String()
}

// caseDataOf extracts and decodes the embedded case data.
func caseDataOf(html string) map[string]any {
	GinkgoHelper()
	m := regexp.MustCompile(`(?s)<script type="application/json" id="case-data">(.*?)</script>`).FindStringSubmatch(html)
	Expect(m).To(HaveLen(2), "case data block")
	var data map[string]any
	Expect(json.Unmarshal([]byte(m[1]), &data)).To(Succeed())
	return data
}

var _ = Describe("WriteHTML", func() {
	t1 := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	t2 := time.Date(2027, 1, 2, 3, 4, 5, 0, time.UTC)

	It("writes the same bytes for the same input, apart from the timestamp", func() {
		a := renderHTML(fixtureInput(t1, true))
		b := renderHTML(fixtureInput(t2, true))
		Expect(a).NotTo(Equal(b))
		Expect(strings.Replace(b, "2027-01-02T03:04:05Z", "2026-11-30T10:00:00Z", 1)).To(Equal(a))
	})

	It("does not depend on the order results arrive in", func() {
		in := fixtureInput(t1, true)
		want := renderHTML(in)
		// Reverse each version's results, keeping v1's first so the base
		// stays the base.
		var v1s, v2s []harness.Result
		for _, r := range in.Results {
			if r.Version == v1 {
				v1s = append([]harness.Result{r}, v1s...)
			} else {
				v2s = append([]harness.Result{r}, v2s...)
			}
		}
		in.Results = append(v1s, v2s...)
		in.Summary = harness.Score(in.Results)
		in.Comparisons = []compare.Comparison{compare.Paired(v1s, v2s, stats.DefaultThresholds)}
		Expect(renderHTML(in)).To(Equal(want))
	})

	It("escapes every text from cases, models and the run header", func() {
		in := fixtureInput(t1, true)
		hostile := `<script>alert(1)</script>"'&</title>`
		in.Meta.Title = hostile
		in.Meta.Commit = hostile
		in.Meta.Models = []string{hostile}
		in.Meta.Versions[0].Dir = hostile
		in.Meta.Versions[0].Description = hostile
		in.Results[0].Tags = append(in.Results[0].Tags, hostile)
		in.Results[0].Decision.Message = hostile
		html := renderHTML(in)
		Expect(html).NotTo(ContainSubstring("<script>alert"))
		Expect(html).NotTo(ContainSubstring("<script>window"))
		Expect(html).NotTo(ContainSubstring(`<img src=x`))
		Expect(html).To(ContainSubstring("&lt;script&gt;alert(1)&lt;/script&gt;"))
		// Exactly two script elements: the data block and the report's code.
		Expect(strings.Count(html, "<script")).To(Equal(2))
		Expect(strings.Count(html, "</script")).To(Equal(2))
		// The case data holds the text unchanged once decoded.
		data := caseDataOf(html)
		Expect(data["s"]).To(ContainElement(hostile))
		found := false
		for _, c := range data["c"].([]any) {
			if c.(map[string]any)["in"] == scriptInput {
				found = true
			}
		}
		Expect(found).To(BeTrue(), "the <script> input survives as data")
	})

	It("allows only its own script by hash and no network at all", func() {
		html := renderHTML(fixtureInput(t1, false))
		csp := regexp.MustCompile(`http-equiv="Content-Security-Policy" content="([^"]*)"`).FindStringSubmatch(html)
		Expect(csp).To(HaveLen(2))
		policy := stdhtml.UnescapeString(csp[1]) // as the browser reads the attribute
		Expect(policy).To(HavePrefix("default-src 'none'; script-src 'sha256-"))
		script := html[strings.LastIndex(html, "<script>")+len("<script>") : strings.LastIndex(html, "</script>")]
		sum := sha256.Sum256([]byte(script))
		Expect(policy).To(ContainSubstring("sha256-" + base64.StdEncoding.EncodeToString(sum[:])))
		// The only URL is the SVG namespace, which is a name, not a request.
		urls := regexp.MustCompile(`(?i)(https?:)?//[a-z0-9.-]+\.[a-z]{2,}[^\s"'<]*`).FindAllString(html, -1)
		for _, u := range urls {
			Expect(u).To(Equal("http://www.w3.org/2000/svg"))
		}
		Expect(html).NotTo(MatchRegexp(`(?i)\s(src|href)="(https?:)?//`))
	})

	It("shows every section a lead reads", func() {
		html := renderHTML(fixtureInput(t1, true))
		for _, id := range []string{"verdict", "metrics", "failures", "flips", "confusion", "calibration", "cases"} {
			Expect(html).To(ContainSubstring(`<section id="` + id + `">`))
		}
		Expect(html).To(ContainSubstring("0a1b2c3d"))                                 // fingerprints
		Expect(html).To(ContainSubstring("0123456789abcdef0123456789abcdef01234567")) // commit
		Expect(html).To(ContainSubstring("2026-11-30T10:00:00Z"))
		Expect(html).To(ContainSubstring(`<h3>v1@0a1b2c3d → v2@4e5f6a7b: 2 fixed, 1 broken</h3>`))
		Expect(strings.Count(html, "<svg")).To(Equal(3)) // two histograms, one reliability diagram
		Expect(html).To(ContainSubstring(`data-metric="decision_accuracy"`))
		Expect(html).To(MatchRegexp(`~</span>`), "paired deltas within noise carry ~")
	})

	It("cuts very long inputs with a marker and leaves the judge's prompt out", func() {
		in := fixtureInput(t1, false)
		in.Results[0].Input = strings.Repeat("日志", 3000)
		html := renderHTML(in)
		data := caseDataOf(html)
		var got string
		for _, c := range data["c"].([]any) {
			if c.(map[string]any)["id"] == in.Results[0].Case {
				got = c.(map[string]any)["in"].(string)
			}
		}
		Expect([]rune(got)).To(HaveLen(2000 + len([]rune("… [truncated, 6000 characters in all]"))))
		Expect(got).To(HaveSuffix("… [truncated, 6000 characters in all]"))
		Expect(html).NotTo(ContainSubstring("persona...")) // the prompt text
		Expect(data["s"]).To(ContainElement(ContainSubstring("prompt 57 bytes (not shown)")))
	})

	It("renders one version alone, with no deltas or flips, and survives NaN confidences", func() {
		in := fixtureInput(t1, false)
		var only []harness.Result
		for _, r := range in.Results {
			if r.Version == v1 {
				only = append(only, r)
			}
		}
		in.Results, in.Summary = only, harness.Score(only)
		// A judge bug in memory (JSON cannot carry NaN) must not break the
		// report; harness.Score is not asked to survive it here.
		only[0].Decision.Confidence = math.NaN()
		in.Meta.Versions = in.Meta.Versions[:1]
		html := renderHTML(in)
		Expect(html).NotTo(ContainSubstring(`<section id="flips">`))
		Expect(html).NotTo(ContainSubstring(`<section id="verdict">`))
		Expect(html).NotTo(ContainSubstring("Δ vs"))
		Expect(caseDataOf(html)["c"]).To(HaveLen(5))
		Expect(html).NotTo(ContainSubstring(`"n/a"`), "no NaN reaches an SVG coordinate")
	})

	It("renders plain deltas without a comparison and no versions without results", func() {
		html := renderHTML(fixtureInput(t1, false))
		Expect(html).To(ContainSubstring("plain differences"))
		Expect(html).NotTo(ContainSubstring(`<span class="sym">~</span>`))
		var b bytes.Buffer
		Expect(reports.WriteHTML(&b, reports.Input{})).To(Succeed())
		Expect(b.String()).To(ContainSubstring("No summary was given."))
	})
})
