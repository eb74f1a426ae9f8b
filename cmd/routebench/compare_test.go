package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/harness/compare"
	"github.com/routebench/routebench/internal/exitcode"
	"github.com/routebench/routebench/reports"
	"github.com/routebench/routebench/router"
)

// compareResults builds one version's results over 30 get_order cases:
// under "v1" cases 0-9 fail (a refund instead of a lookup), under "v2" only
// case 29 fails, so v2 fixes 10 cases and breaks 1.
func compareResults(version string) []harness.Result {
	var out []harness.Result
	for i := range 30 {
		id := fmt.Sprintf("order-%02d", i)
		fail := (version == "v1@11111111" && i < 10) || (version == "v2@22222222" && i == 29)
		d := router.Decision{Action: router.Execute, Skill: "get_order", Params: map[string]any{"order_id": "ORD-00000001"}}
		failure := ""
		if fail {
			d = router.Decision{Action: router.Confirm, Skill: "refund_order", Gate: "irreversible"}
			failure = "judge_wrong_skill"
		}
		out = append(out, harness.Result{
			Format: harness.FormatVersion, Version: version, Case: id, CaseHash: "hash-" + id,
			Suite: []string{"normal", "boundary", "adversarial"}[i%3], Input: "查一下订单 ORD-00000001",
			Expect:   harness.Expect{Action: router.Execute, Skill: "get_order"},
			Decision: d, Pass: !fail, Failure: failure,
		})
	}
	return out
}

func writeResults(t *testing.T, name string, results ...[]harness.Result) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := harness.WriteResultsFile(path, slices.Concat(results...)); err != nil {
		t.Fatal(err)
	}
	return path
}

func cli(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestComparePrintsThePairedTable(t *testing.T) {
	old := writeResults(t, "old.jsonl", compareResults("v1@11111111"))
	neu := writeResults(t, "new.jsonl", compareResults("v2@22222222"))
	// --wide: the intervals are part of what this test checks.
	code, out, errOut := cli("compare", old, neu, "--wide")
	if code != exitcode.Pass {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"base v1@11111111  head v2@22222222  paired 30 cases",
		// 20/30 -> 29/30, b=1 c=10: p = 2*(1+11)/2^11 = 0.0117.
		"decision_accuracy     0.667 (30)  0.967 (30)  +0.300",
		"[+0.100, +0.500] 1/10 mcnemar 0.012 +",
		"broken: 1 (passed under base, fail under head)",
		"fixed: 10 (failed under base, pass under head)",
		"adversarial  order-29",
	} {
		// Column widths depend on the longest metric name; compare words.
		if !strings.Contains(squash(out), squash(want)) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Same files, same bytes.
	_, again, _ := cli("compare", old, neu, "--wide")
	if again != out {
		t.Error("two runs over the same files printed different bytes")
	}
}

func TestCompareWritesJSONAndHTML(t *testing.T) {
	both := writeResults(t, "run.jsonl", compareResults("v1@11111111"), compareResults("v2@22222222"))
	dir := t.TempDir()
	jsonPath, htmlPath := filepath.Join(dir, "c.json"), filepath.Join(dir, "c.html")
	code, _, errOut := cli("compare", both, both, "--base-version", "v1", "--head-version", "v2@22222222",
		"--json", jsonPath, "--html", htmlPath, "--alpha", "0.01")
	if code != exitcode.Pass {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var c compare.Comparison
	data, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatalf("comparison JSON: %v", err)
	}
	if c.Thresholds.Alpha != 0.01 || len(c.Fixed) != 10 || len(c.Broken) != 1 {
		t.Errorf("comparison: alpha %v, %d fixed, %d broken; want 0.01, 10, 1", c.Thresholds.Alpha, len(c.Fixed), len(c.Broken))
	}
	// One file named once compares the same two versions.
	code, once, errOut := cli("compare", both, "--base-version", "v1", "--head-version", "v2@22222222", "--wide")
	_, twice, _ := cli("compare", both, both, "--base-version", "v1", "--head-version", "v2@22222222", "--wide")
	if code != exitcode.Pass || once != twice {
		t.Errorf("compare FILE with both versions named: exit %d, %s\n%s\nwant as with FILE FILE:\n%s", code, errOut, once, twice)
	}
	// At alpha 0.01 a p of 0.0117 is no longer significant.
	all, _ := c.Group(compare.GroupAll)
	if m, _ := all.Metric(harness.DecisionAccuracy); m.Symbol != "~" {
		t.Errorf("decision_accuracy symbol at alpha 0.01 = %q, want ~", m.Symbol)
	}
	page, err := os.ReadFile(htmlPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(page, []byte("<html")) || !bytes.Contains(page, []byte("v2@22222222")) {
		t.Errorf("HTML report lacks the page or the head version (%d bytes)", len(page))
	}
}

func TestCompareUsageErrors(t *testing.T) {
	old := writeResults(t, "old.jsonl", compareResults("v1@11111111"))
	both := writeResults(t, "both.jsonl", compareResults("v1@11111111"), compareResults("v2@22222222"))
	torn := filepath.Join(t.TempDir(), "torn.jsonl")
	if err := os.WriteFile(torn, []byte(`{"format": 1, "version": "v1@1", "ca`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", old}, "holds 1 version; give a second results file"},
		{[]string{"compare", both, old}, "holds 2 versions (v1@11111111, v2@22222222): name one with --base-version"},
		{[]string{"compare", both, old, "--base-version", "v9"}, "--base-version v9: "},
		{[]string{"compare", old, old, "--alpha", "1.5"}, "alpha 1.5: must be between 0 and 1"},
		{[]string{"compare", old, filepath.Join(t.TempDir(), "missing.jsonl")}, "no such file"},
		{[]string{"compare", old, torn}, "cut off"},
		{[]string{"compare", old, "/dev/null"}, "read results /dev/null: it is a character device; give a results.jsonl file or a pipe"},
	} {
		code, _, errOut := cli(tc.args...)
		if code != exitcode.Usage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 mentioning %q", tc.args[1:], code, errOut, tc.want)
		}
	}
}

// squash collapses runs of spaces, keeping line breaks.
func squash(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	return strings.Join(lines, "\n")
}

// With three versions the report's data pairs each later version with the
// base and the third also with the second, so a step that undoes the last
// one shows even while the base comparison still looks better.
func TestReportDataPairsWithBaseAndPrevious(t *testing.T) {
	results := slices.Concat(compareResults("v1@11111111"), compareResults("v2@22222222"), compareResults("v3@33333333"))
	var got []string
	for _, c := range pairedAgainstFirst(results) {
		got = append(got, fmt.Sprintf("%s %s->%s", c.Against, c.Base, c.Head))
	}
	want := []string{"base v1@11111111->v2@22222222", "base v1@11111111->v3@33333333", "previous v2@22222222->v3@33333333"}
	if !slices.Equal(got, want) {
		t.Errorf("comparisons %q, want %q", got, want)
	}
}

// With three versions the report reads the last one against the one
// before it too, not only against the base.
func TestReportReadsTheThirdVersionAgainstThePrevious(t *testing.T) {
	results := slices.Concat(compareResults("v1@11111111"), compareResults("v2@22222222"), compareResults("v3@33333333"))
	in := reports.Input{Meta: reports.MetaFromResults(results), Results: results, Summary: harness.Score(results), Comparisons: pairedAgainstFirst(results)}
	var page bytes.Buffer
	if err := reports.WriteHTML(&page, in); err != nil {
		t.Fatal(err)
	}
	html := page.String()
	for _, want := range []string{
		"<strong>v2@22222222</strong> against base <strong>v1@11111111</strong>",
		"<strong>v3@33333333</strong> against base <strong>v1@11111111</strong>",
		"<strong>v3@33333333</strong> against the previous version <strong>v2@22222222</strong>",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

// fifo serves data once through a named pipe, as `<(git show …)` does.
func fifo(t *testing.T, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	go func() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.Write(data)
		f.Close()
	}()
	return path
}

func TestCompareAndReportReadResultsFromAPipe(t *testing.T) {
	file := writeResults(t, "run.jsonl", compareResults("v1@11111111"), compareResults("v2@22222222"))
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	_, want, _ := cli("compare", file)
	code, out, errOut := cli("compare", fifo(t, data))
	if code != exitcode.Pass || out != want {
		t.Fatalf("compare over a pipe: exit %d, printed\n%s\nwant\n%s%s", code, out, want, errOut)
	}
	html := filepath.Join(t.TempDir(), "r.html")
	code, out, errOut = cli("report", fifo(t, data), "-o", html)
	if code != exitcode.Pass || !strings.Contains(out, "60 results, 2 versions") {
		t.Fatalf("report over a pipe: exit %d: %s%s", code, out, errOut)
	}
}
