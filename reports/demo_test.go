package reports_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/routebench/routebench/reports"
)

// TestWriteFixtureReport writes the fixture's report to $REPORT_OUT for a
// person to open; it does nothing unless that is set.
func TestWriteFixtureReport(t *testing.T) {
	out := os.Getenv("REPORT_OUT")
	if out == "" {
		t.Skip("set REPORT_OUT=/path/report.html to write the fixture report")
	}
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := reports.WriteHTML(f, fixtureInput(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC), true)); err != nil {
		t.Fatal(err)
	}
}

// TestScreenshotReport opens $REPORT_HTML in Chromium and saves a
// full-page PNG to $SCREENSHOT_OUT, to look at a report as a lead would.
// $SCREENSHOT_JS runs first (e.g. to open a row).
func TestScreenshotReport(t *testing.T) {
	in, out := os.Getenv("REPORT_HTML"), os.Getenv("SCREENSHOT_OUT")
	if in == "" || out == "" {
		t.Skip("set REPORT_HTML and SCREENSHOT_OUT to take a screenshot")
	}
	abs, err := filepath.Abs(in)
	if err != nil {
		t.Fatal(err)
	}
	ctx, _, stop := openInChromium(t, abs, 1280, 900)
	defer stop()
	if js := os.Getenv("SCREENSHOT_JS"); js != "" {
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js)); err != nil {
			t.Fatal(err)
		}
	}
	// $SCREENSHOT_SECTIONS ("header,metrics") takes one PNG per element,
	// OUT-<name>.png, instead of the whole page.
	if sections := os.Getenv("SCREENSHOT_SECTIONS"); sections != "" {
		for _, sel := range strings.Split(sections, ",") {
			png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(sel)))
			if err != nil {
				t.Fatalf("screenshot %s: %v", sel, err)
			}
			name := strings.TrimSuffix(out, ".png") + "-" + strings.Trim(sel, "#.") + ".png"
			if err := os.WriteFile(name, png, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestWriteSyntheticReport writes the 10,000-case × 3-version benchmark
// report to $SYNTHETIC_OUT, to open or measure.
func TestWriteSyntheticReport(t *testing.T) {
	out := os.Getenv("SYNTHETIC_OUT")
	if out == "" {
		t.Skip("set SYNTHETIC_OUT=/path/report.html to write the synthetic 10k report")
	}
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := reports.WriteHTML(f, syntheticInput(10000, 3, true)); err != nil {
		t.Fatal(err)
	}
}
