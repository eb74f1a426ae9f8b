package reports_test

import (
	"os"
	"regexp"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/chromedp/chromedp"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/reports"
)

// trendHistory is a made-up history of 25 runs of v1 and v2; v1 stops
// being run after run 22, and the last run adds conversations.
func trendHistory() []harness.HistoryEntry {
	var out []harness.HistoryEntry
	at := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	for i := range 25 {
		s := harness.Summary{}
		for vi, name := range []string{"v1", "v2"} {
			if name == "v1" && i >= 22 {
				continue
			}
			acc := 0.80 + float64(vi)*0.05 + float64(i%5)/100
			m := map[string]harness.Rate{
				harness.DecisionAccuracy:   {Value: acc, Lo: floatp(acc - 0.04), Hi: floatp(acc + 0.03), N: 200},
				harness.WrongExecutionRate: {Value: 0.04, N: 200},
				harness.RefusalRecall:      {Value: 0.95, N: 40},
				harness.PolicyViolations:   {Value: float64(i % 3), N: 200},
			}
			if i == 24 {
				m[harness.ConversationSuccessRate] = harness.Rate{Value: 0.6, N: 10}
			}
			s.Versions = append(s.Versions, harness.VersionSummary{Name: name, Version: name + "@0000000" + itoa(vi),
				Groups: map[string]harness.Group{"all": {N: 200, Metrics: m}}})
		}
		out = append(out, harness.NewHistoryEntry(harness.HistoryRun, at.Add(time.Duration(i)*time.Hour), "abcdef0123456789", s))
	}
	return out
}

var _ = Describe("report trend chart", func() {
	trendOf := func(entries []harness.HistoryEntry) *harness.Trend {
		last := entries[len(entries)-20:]
		t := harness.NewTrend(last, len(entries), 20)
		return &t
	}

	It("draws one chart per headline metric over the last 20 runs, a line per version", func() {
		in := fixtureInput(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC), false)
		in.Trend = trendOf(trendHistory())
		page := renderHTML(in)

		start := strings.Index(page, `<section id="trend">`)
		Expect(start).To(BeNumerically(">", 0))
		section := page[start : start+strings.Index(page[start:], "</section>")]
		Expect(section).To(ContainSubstring("runs #6–#25 of 25"))
		Expect(regexp.MustCompile(`<figcaption>([a-z_]+)</figcaption>`).FindAllStringSubmatch(section, -1)).To(Equal([][]string{
			{"<figcaption>decision_accuracy</figcaption>", "decision_accuracy"},
			{"<figcaption>wrong_execution_rate</figcaption>", "wrong_execution_rate"},
			{"<figcaption>refusal_recall</figcaption>", "refusal_recall"},
			{"<figcaption>policy_violations</figcaption>", "policy_violations"},
			{"<figcaption>conversation_success_rate</figcaption>", "conversation_success_rate"},
		}))
		// decision_accuracy: v1 in runs 6-22 (17 points), v2 in 6-25 (20).
		acc := section[:strings.Index(section, "<figcaption>decision_accuracy")]
		Expect(strings.Count(acc, "<polyline")).To(Equal(2))
		Expect(strings.Count(acc, "<circle")).To(Equal(37))
		Expect(acc).To(ContainSubstring("v2@00000001 · run #25 (run, 2026-11-02T09:00:00Z, commit abcdef012345): decision_accuracy 0.890 [0.850, 0.920], n=200"))
		Expect(acc).To(ContainSubstring(">#6</text>"))
		Expect(acc).To(ContainSubstring(">0.80</text>"))
		Expect(page).To(ContainSubstring(`<a href="#trend">trend</a>`))
	})

	It("gives the same bytes for the same history and no trend section without one", func() {
		now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
		with := func() string {
			in := fixtureInput(now, false)
			in.Trend = trendOf(trendHistory())
			return renderHTML(in)
		}
		Expect(with()).To(Equal(with()))

		plain := renderHTML(fixtureInput(now, false))
		Expect(plain).NotTo(ContainSubstring(`id="trend"`))
		Expect(plain).NotTo(ContainSubstring(`href="#trend"`))
		var empty reports.Input = fixtureInput(now, false)
		empty.Trend = &harness.Trend{}
		Expect(renderHTML(empty)).NotTo(ContainSubstring(`id="trend"`))
	})
})

var _ = Describe("the report's trend chart in Chromium", Ordered, func() {
	It("draws a visible line per version in each headline metric's chart", func() {
		in := fixtureInput(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC), true)
		entries := trendHistory()
		t := harness.NewTrend(entries[len(entries)-20:], len(entries), 20)
		in.Trend = &t
		path := writeReportFile(in)
		ctx, _, stop := openInChromium(GinkgoT(), path, 1280, 900)
		defer stop()

		Expect(evalIn[int](ctx, `document.querySelectorAll("#trend svg").length`)).To(Equal(5))
		// Every line is laid out with a real extent: not collapsed, not off the plot.
		widths := evalIn[[]float64](ctx, `[...document.querySelectorAll("#trend svg")][0].querySelectorAll("polyline").length > 0 ?
			[...document.querySelectorAll("#trend polyline")].map(p => p.getBBox().width) : []`)
		Expect(widths).To(HaveLen(9)) // v1 and v2 in four charts, v2 alone in conversation_success_rate
		for _, w := range widths[:8] {
			Expect(w).To(BeNumerically(">", 250))
		}
		if shot := os.Getenv("ROUTEBENCH_TREND_SHOT"); shot != "" {
			png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS("#trend")))
			Expect(err).NotTo(HaveOccurred())
			Expect(os.WriteFile(shot, png, 0o644)).To(Succeed())
		}
	})
})
