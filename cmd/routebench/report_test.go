package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/internal/exitcode"
	"github.com/routebench/routebench/router"
)

// reportResults is one version's run over 20 alerts cases; under
// "v1@aaaaaaaa" the first 8 go to the orders skill (the classic incident),
// under "v2@bbbbbbbb" only the last one does.
func reportResults(version string) []harness.Result {
	var out []harness.Result
	for i := range 20 {
		id := fmt.Sprintf("alerts-%02d", i)
		fail := (version == "v1@aaaaaaaa" && i < 8) || (version == "v2@bbbbbbbb" && i == 19)
		d := router.Decision{Action: router.Execute, Skill: "query_alerts_by_zone", Confidence: 0.9, Stage: "judge", Version: version, Model: "builtin"}
		failure := ""
		if fail {
			d.Skill, failure = "query_orders_by_region", "judge_wrong_skill"
		}
		out = append(out, harness.Result{Format: harness.FormatVersion, Version: version, Case: id, CaseHash: "h-" + id,
			Suite: "boundary", Input: "华东区最近的告警 <b>" + id + "</b>",
			Expect:   harness.Expect{Action: router.Execute, Skill: "query_alerts_by_zone"},
			Decision: d, Pass: !fail, Failure: failure, LatencyUS: 100})
	}
	return out
}

func reportCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func writeReportResults(t *testing.T, results ...[]harness.Result) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "results.jsonl")
	var all []harness.Result
	for _, rs := range results {
		all = append(all, rs...)
	}
	if err := harness.WriteResultsFile(path, all); err != nil {
		t.Fatal(err)
	}
	return path
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestReportWritesHTMLJUnitAndMarkdownWithPairedDeltas(t *testing.T) {
	results := writeReportResults(t, reportResults("v1@aaaaaaaa"), reportResults("v2@bbbbbbbb"))
	dir := t.TempDir()
	html, junit, md := filepath.Join(dir, "r.html"), filepath.Join(dir, "junit.xml"), filepath.Join(dir, "summary.md")
	code, out, errs := reportCLI("report", results, "-o", html, "--junit", junit, "--markdown", md, "--commit", "abc123")
	if code != exitcode.Pass {
		t.Fatalf("exit %d, stderr %s", code, errs)
	}
	for _, want := range []string{"wrote " + html, "wrote " + junit, "wrote " + md, "40 results, 2 versions, base v1@aaaaaaaa"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	page := readFile(t, html)
	// The input's markup travels as JSON with <, > escaped.
	for _, want := range []string{"v1@aaaaaaaa", "v2@bbbbbbbb", "abc123", "paired comparison", `\u003cb\u003ealerts-00`} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(page, "<b>alerts") {
		t.Error("case input reached the HTML unescaped")
	}
	// 8 fixed against 1 broken is significant at alpha 0.05 (p = 0.039).
	if !strings.Contains(readFile(t, md), "better (significant): decision accuracy +35.0 pp") {
		t.Errorf("summary.md lacks the significant improvement:\n%s", readFile(t, md))
	}
	if got := strings.Count(readFile(t, junit), "<testcase "); got != 40 {
		t.Errorf("junit has %d testcases, want 40", got)
	}
}

func TestReportNamesVersionsAsThePlanBesideTheResultsRecordsThem(t *testing.T) {
	results := writeReportResults(t, reportResults("v1@aaaaaaaa"), reportResults("v2@bbbbbbbb"))
	full := "aaaaaaaa" + strings.Repeat("1", 56)
	plan := harness.Plan{Format: harness.PlanFormat, Hash: "not checked here", Versions: []harness.PlanVersion{
		{ID: "v1@aaaaaaaa", Fingerprint: full, Dir: "prompts/made-up-v1", Description: "a made-up terse persona"},
		// Another version under v2's ID: not taken.
		{ID: "v2@bbbbbbbb", Fingerprint: "cccccccc" + strings.Repeat("2", 56), Dir: "prompts/elsewhere", Description: "not this v2"},
	}, Cases: []harness.PlanCase{}}
	if err := harness.WritePlanFile(filepath.Join(filepath.Dir(results), harness.PlanFile), plan); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	html, md := filepath.Join(dir, "r.html"), filepath.Join(dir, "summary.md")
	if code, _, errs := reportCLI("report", results, "-o", html, "--markdown", md, "--base", "v2"); code != exitcode.Pass {
		t.Fatalf("exit %d, stderr %s", code, errs)
	}
	page, summary := readFile(t, html), readFile(t, md)
	for _, want := range []string{full, "prompts/made-up-v1", "a made-up terse persona"} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q from the plan", want)
		}
	}
	if !strings.Contains(summary, "| `v1@aaaaaaaa` | `"+full+"` |") || !strings.Contains(summary, "| `v2@bbbbbbbb` (base) | `bbbbbbbb` |") {
		t.Errorf("summary.md does not name v1 in full and v2 (base) short:\n%s", summary)
	}
	if strings.Contains(page, "not this v2") || strings.Contains(page, "prompts/elsewhere") {
		t.Error("the report took a version of another fingerprint from the plan")
	}
}

func TestReportSaysWhenThePlanBesideTheResultsCannotBeRead(t *testing.T) {
	results := writeReportResults(t, reportResults("v1@aaaaaaaa"))
	plan := filepath.Join(filepath.Dir(results), harness.PlanFile)
	html := filepath.Join(t.TempDir(), "r.html")
	code, out, errs := reportCLI("report", results, "-o", html)
	if code != exitcode.Pass || strings.Contains(out, "plan.json") {
		t.Fatalf("no plan.json: exit %d, said %q %s; want exit 0 and nothing of a plan", code, out, errs)
	}
	if err := os.WriteFile(plan, []byte(`{"format":2,"versions":[`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = reportCLI("report", results, "-o", html)
	if code != exitcode.Pass || !strings.Contains(out, "note: the plan.json beside the results was not read (") {
		t.Errorf("a cut plan.json: exit %d, said %q %s; want exit 0 and a note", code, out, errs)
	}
}

func TestReportBaseReordersVersions(t *testing.T) {
	results := writeReportResults(t, reportResults("v1@aaaaaaaa"), reportResults("v2@bbbbbbbb"))
	html := filepath.Join(t.TempDir(), "r.html")
	code, out, errs := reportCLI("report", results, "-o", html, "--base", "v2")
	if code != exitcode.Pass {
		t.Fatalf("exit %d, stderr %s", code, errs)
	}
	if !strings.Contains(out, "base v2@bbbbbbbb") || !strings.Contains(readFile(t, html), "Δ vs v2") {
		t.Errorf("v2 is not the base:\n%s", out)
	}
}

func TestReportUnpairedShowsPlainDifferences(t *testing.T) {
	results := writeReportResults(t, reportResults("v1@aaaaaaaa"), reportResults("v2@bbbbbbbb"))
	html := filepath.Join(t.TempDir(), "r.html")
	if code, _, errs := reportCLI("report", results, "-o", html, "--unpaired"); code != exitcode.Pass {
		t.Fatalf("exit %d, stderr %s", code, errs)
	}
	if !strings.Contains(readFile(t, html), "plain differences") {
		t.Error("an unpaired report should say its deltas are plain differences")
	}
}

func TestReportInputErrorsAreUsageErrors(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.jsonl")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("not json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	results := writeReportResults(t, reportResults("v1@aaaaaaaa"))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"report", filepath.Join(dir, "missing.jsonl"), "-o", filepath.Join(dir, "x.html")}, "missing.jsonl"},
		{[]string{"report", empty, "-o", filepath.Join(dir, "x.html")}, "holds no results"},
		{[]string{"report", bad, "-o", filepath.Join(dir, "x.html")}, "bad.jsonl:1"},
		{[]string{"report", results, "-o", filepath.Join(dir, "x.html"), "--base", "v9"}, `no version "v9"`},
		{[]string{"report"}, "accepts 1 arg"},
	} {
		code, _, errs := reportCLI(tc.args...)
		if code != exitcode.Usage || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 mentioning %q", tc.args, code, errs, tc.want)
		}
	}
}
