package reports_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/css"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/reports"
)

// chromiumPath finds Debian's Chromium: $CHROMIUM, /usr/bin/chromium, or
// chromium on PATH; "" when there is none.
func chromiumPath() string {
	for _, p := range []string{os.Getenv("CHROMIUM"), "/usr/bin/chromium"} {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	return ""
}

// testingT is what openInChromium needs of *testing.T and GinkgoT().
type testingT interface {
	Skip(args ...any)
	Fatalf(format string, args ...any)
	TempDir() string
}

// requestLog records every URL the page asks the network for.
type requestLog struct {
	mu   sync.Mutex
	urls []string
}

func (l *requestLog) add(url string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.urls = append(l.urls, url)
}

func (l *requestLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.urls...)
}

// writeReportFile renders in as report.html in a temporary directory and
// returns its path.
func writeReportFile(in reports.Input) string {
	path := filepath.Join(GinkgoT().TempDir(), "report.html")
	f, err := os.Create(path)
	Expect(err).NotTo(HaveOccurred())
	Expect(reports.WriteHTML(f, in)).To(Succeed())
	Expect(f.Close()).To(Succeed())
	return path
}

// openInChromium starts headless Chromium with networking quietened,
// opens file://path and waits for the case table to render. It returns
// the tab's context, the log of the tab's requests, and a stop func.
func openInChromium(tb testingT, path string, width, height int) (context.Context, *requestLog, func()) {
	bin := chromiumPath()
	if bin == "" {
		tb.Skip("chromium not found: apt-get install -y chromium (or set $CHROMIUM)")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.UserDataDir(tb.TempDir()),
		chromedp.WindowSize(width, height),
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	log := &requestLog{}
	// A listener from the start sees the navigation's own request too.
	ctx, cancelTab := chromedp.NewContext(allocCtx, chromedp.WithListener(func(ev any) {
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			log.add(e.Request.URL)
		case *network.EventWebSocketCreated:
			log.add(e.URL)
		}
	}))
	stop := func() { cancelTab(); cancelAlloc() }
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+path)); err != nil {
		stop()
		tb.Fatalf("open %s in chromium: %v", path, err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelectorAll("#case-rows tr").length > 0`,
		chromedp.WithPollingTimeout(60*time.Second))); err != nil {
		stop()
		tb.Fatalf("case table never rendered: %v", err)
	}
	return ctx, log, stop
}

func evalIn[T any](ctx context.Context, js string) T {
	GinkgoHelper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	Expect(err).NotTo(HaveOccurred(), js)
	return v
}

// typeSearch clears the search box, types text key by key as a person
// would, and waits until the table shows exactly the rows of the given
// case IDs (one per version that ran them).
func typeSearch(ctx context.Context, text string, want ...string) {
	GinkgoHelper()
	evalIn[bool](ctx, `(() => { const s = document.getElementById("f-search"); s.value = "";
		s.dispatchEvent(new Event("input")); return true; })()`)
	Expect(chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS("#f-search"), text))).To(Succeed())
	// A generous bound: on a loaded machine the browser is slow, and a
	// passing search returns as soon as the rows are right.
	Eventually(func() []string {
		return evalIn[[]string](ctx, `[...document.querySelectorAll("#case-rows tr.case-row")].map(r => r.dataset.case)`)
	}).WithTimeout(60*time.Second).Should(ConsistOf(want), "rows matching %q", text)
}

var _ = Describe("the HTML report in Chromium", Ordered, func() {
	var (
		ctx     context.Context
		log     *requestLog
		summary harness.Summary
	)

	BeforeAll(func() {
		in := fixtureInput(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC), true)
		summary = in.Summary
		path := writeReportFile(in)
		var stop func()
		ctx, log, stop = openInChromium(GinkgoT(), path, 1280, 900)
		DeferCleanup(stop)
	})

	It("shows the summary's values in the metric table", func() {
		for vi, vs := range summary.Versions {
			for _, metric := range []string{harness.DecisionAccuracy, harness.RefusalRecall, harness.WrongExecutionRate, harness.PolicyViolations} {
				r := vs.Groups["all"].Metrics[metric]
				// Value cells sit at 0, 1, 3, 5, ... (deltas in between).
				col := vi
				if vi > 1 {
					col = 2*vi - 1
				}
				text := evalIn[string](ctx, `document.querySelectorAll('table.metrics[data-group="all"] tr[data-metric="`+
					metric+`"] td')[`+itoa(col)+`].textContent`)
				Expect(text).To(HavePrefix(reports.FormatValue(metric, r.Value)), "%s of %s", metric, vs.Version)
				Expect(text).To(ContainSubstring(reports.FormatInterval(metric, r)))
			}
		}
		// And the formatting is the one a reader expects: 3 of 5 cases right.
		Expect(evalIn[string](ctx, `document.querySelector('table.metrics[data-group="all"] tr[data-metric="decision_accuracy"] td').textContent`)).
			To(HavePrefix("40.0%"))
	})

	It("opens the case table on the failed cases, worst first", func() {
		evalIn[bool](ctx, `(() => { const s = document.getElementById("f-search"); s.value = "";
			s.dispatchEvent(new Event("input")); return true; })()`)
		rows := evalIn[[]string](ctx, `[...document.querySelectorAll("#case-rows tr.case-row")].map(r => r.dataset.case + " " + r.cells[1].textContent + " " + r.cells[3].textContent)`)
		Expect(rows).To(HaveLen(10))
		// Wrong executions (acting on another skill, acting where it should
		// clarify), then the other failures, then the passes.
		Expect(rows[:5]).To(Equal([]string{
			"alerts-vs-orders-002 " + v1 + " judge_wrong_skill",
			"ambiguous-004 " + v2 + " wrong_band",
			"injection-003 " + v1 + " schema_error",
			"orders-west-005 " + v1 + " false_refusal",
			"orders-west-005 " + v2 + " false_refusal",
		}))
		for _, r := range rows[5:] {
			Expect(r).To(HaveSuffix(" pass"))
		}
	})

	It("shows cases side by side, one column per version, filtered to the differences", func() {
		Expect(evalIn[[]string](ctx, `[...document.querySelectorAll("#sbs-head th")].map(th => th.textContent)`)).
			To(Equal([]string{"case", "suite", "expected", v1, v2}))
		sbs := func() []string {
			return evalIn[[]string](ctx, `[...document.querySelectorAll("#sbs-rows tr.sbs-row")].map(r => r.dataset.case)`)
		}
		// orders-east-001 passes under both; orders-west-005 fails the same way under both.
		Expect(sbs()).To(Equal([]string{"alerts-vs-orders-002", "ambiguous-004", "injection-003"}))
		Expect(evalIn[string](ctx, `document.querySelector('#sbs-rows tr[data-case="ambiguous-004"]').cells[4].textContent`)).
			To(Equal("wrong_bandexecute query_orders_by_region"))
		Expect(chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#sbs-diff")))).To(Succeed())
		Eventually(sbs).WithTimeout(10 * time.Second).Should(HaveLen(5))
		Expect(evalIn[string](ctx, `document.getElementById("sbs-count").textContent`)).To(Equal("showing 5 of 5 cases"))
		Expect(chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#sbs-diff")))).To(Succeed())
		Eventually(sbs).WithTimeout(10 * time.Second).Should(HaveLen(3))
	})

	It("narrows the visible case rows as the search filter is typed", func() {
		all := evalIn[int](ctx, `document.querySelectorAll("#case-rows tr.case-row").length`)
		Expect(all).To(Equal(10)) // 5 cases x 2 versions
		typeSearch(ctx, "告警", "alerts-vs-orders-002", "alerts-vs-orders-002")
		Expect(evalIn[string](ctx, `document.getElementById("case-count").textContent`)).To(HavePrefix("showing 2 of 2"))
	})

	It("draws Chinese case text in a CJK font from the page's stack, not as boxes", func() {
		family := evalIn[string](ctx, `getComputedStyle(document.body).fontFamily`)
		for _, f := range []string{"PingFang SC", "Microsoft YaHei", "Noto Sans CJK SC", "WenQuanYi Micro Hei"} {
			Expect(family).To(ContainSubstring(f))
		}
		out, err := exec.Command("fc-list", ":lang=zh", "family").Output()
		if err != nil || strings.TrimSpace(string(out)) == "" {
			Skip("no CJK font on this machine (apt-get install -y fonts-wqy-microhei): glyphs cannot be checked")
		}
		typeSearch(ctx, "告警", "alerts-vs-orders-002", "alerts-vs-orders-002")
		fonts, err := chromedp.Run(ctx, chromedp.QueryAfter(`#case-rows tr.case-row td.input`,
			func(ctx context.Context, t *chromedp.Target, nodes []*chromedp.Node) ([]*css.PlatformFontUsage, error) {
				res, err := cdp.Call(ctx, t, css.GetPlatformFontsForNode, css.GetPlatformFontsForNodeParams{NodeID: nodes[0].NodeID})
				if err != nil {
					return nil, err
				}
				return res.Fonts, nil
			}))
		Expect(err).NotTo(HaveOccurred())
		// The Chinese is drawn by a CJK font the page names itself, not by
		// whatever the system falls back to (on a bare Linux: boxes).
		var cjkGlyphs float64
		for _, f := range fonts {
			named := strings.Contains(family, `"`+f.FamilyName+`"`)
			if named && (strings.Contains(f.FamilyName, "Hei") || strings.Contains(f.FamilyName, "CJK") || strings.Contains(f.FamilyName, "Han") || strings.Contains(f.FamilyName, "PingFang")) {
				cjkGlyphs += f.GlyphCount
			}
		}
		Expect(cjkGlyphs).To(BeNumerically(">=", 2), "the two characters 告警: fonts %v", fonts)
	})

	It("shows a <script> input and HTML model output as text and never runs them", func() {
		typeSearch(ctx, "orders-east", "orders-east-001", "orders-east-001")
		Expect(evalIn[string](ctx, `document.querySelector("#case-rows tr.case-row td.input").textContent`)).To(Equal(scriptInput))
		Expect(evalIn[int](ctx, `document.querySelectorAll("#case-rows script, #case-rows img").length`)).To(Equal(0))

		// The schema-error case carries the raw model output with HTML in it.
		typeSearch(ctx, "injection-003", "injection-003", "injection-003")
		Expect(chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#case-rows tr.case-row`)))).To(Succeed())
		Expect(evalIn[string](ctx, `document.querySelector("#case-rows tr.detail").textContent`)).To(ContainSubstring(htmlRaw))
		Expect(evalIn[int](ctx, `document.querySelectorAll("img, b").length`)).To(Equal(0))
		detail := evalIn[string](ctx, `document.querySelector("#case-rows tr.detail").textContent`)
		Expect(detail).To(ContainSubstring("recall: ranked query_orders_by_region 0.812, query_alerts_by_zone 0.701"))
		Expect(detail).To(ContainSubstring("policy: kept 13; dropped delete_test_data, restart_service"))
		Expect(detail).To(ContainSubstring("schema_error: judge output is not JSON: <b>not json</b>"))

		Expect(evalIn[string](ctx, `typeof window.__pwned`)).To(Equal("undefined"))
		Expect(evalIn[int](ctx, `document.scripts.length`)).To(Equal(2), "only the data block and the report's own script")
	})

	It("makes no network request", func() {
		urls := log.all()
		Expect(urls).NotTo(BeEmpty(), "the listener should at least see the file:// navigation")
		for _, u := range urls {
			ok := strings.HasPrefix(u, "file:") || strings.HasPrefix(u, "data:") || strings.HasPrefix(u, "about:")
			Expect(ok).To(BeTrue(), "request to %s", u)
		}
	})
})

var _ = Describe("a gate's report.html in Chromium", Ordered, func() {
	var ctx context.Context

	BeforeAll(func() {
		in := fixtureInput(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC), true)
		in.Meta.Title = "routebench gate"
		in.Meta.Versions[0].Role, in.Meta.Versions[1].Role = "base", "head"
		in.Gate = []reports.GateVerdict{{Head: in.Meta.Versions[1].ID, Base: in.Meta.Versions[0].ID, Outcome: "FAIL",
			Reasons: []string{"threshold decision_accuracy >= 0.85: 0.400 (n=5), needs >= 0.85"}}}
		in.Changes = []reports.FileChange{{Head: in.Meta.Versions[1].ID, Base: in.Meta.Versions[0].ID, File: "persona.md",
			Diff: []string{"--- v1/persona.md", "+++ v2/persona.md", "@@ -1 +1 @@", "-You route requests.", "+You route <b>ops</b> requests."}}}
		path := writeReportFile(in)
		var stop func()
		ctx, _, stop = openInChromium(GinkgoT(), path, 1280, 800)
		DeferCleanup(stop)
	})

	It("shows the verdict and its reason on the first screen", func() {
		Expect(evalIn[string](ctx, `document.querySelector("#gate .outcome").textContent`)).To(Equal("FAIL"))
		// Both the outcome and the reason end above the fold of an 800-pixel window.
		Expect(evalIn[float64](ctx, `document.querySelector("#gate .outcome").getBoundingClientRect().bottom`)).To(BeNumerically("<", 800))
		Expect(evalIn[float64](ctx, `document.querySelector("#gate .reasons li").getBoundingClientRect().bottom`)).To(BeNumerically("<", 800))
		Expect(evalIn[string](ctx, `document.querySelector("#gate .banner").textContent`)).To(ContainSubstring("head v2@"))
	})

	It("shows what changed in the prompt files after the flipped cases, as text", func() {
		Expect(evalIn[bool](ctx, `(() => { const c = document.getElementById("changes"), f = document.getElementById("flips");
			return !!c && !!f && (f.compareDocumentPosition(c) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0; })()`)).To(BeTrue())
		Expect(evalIn[string](ctx, `document.querySelector("#changes h3").textContent`)).To(Equal("persona.md: " + v1 + " → " + v2))
		Expect(evalIn[string](ctx, `document.querySelector("#changes pre.diff .diff-add").textContent`)).To(Equal("+You route <b>ops</b> requests."))
		Expect(evalIn[int](ctx, `document.querySelectorAll("#changes pre.diff b").length`)).To(Equal(0))
	})

	It("labels the head version head and the base base", func() {
		Expect(evalIn[[]string](ctx, `[...document.querySelectorAll("table.versions tbody tr")].map(r => r.cells[1].textContent.trim())`)).
			To(Equal([]string{v1 + " base", v2 + " head"}))
	})
})
