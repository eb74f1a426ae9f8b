package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routebench/routebench/harness/calibrate"
	"github.com/routebench/routebench/internal/exitcode"
)

func calibrateCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"calibrate"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

func TestCalibrateBadInputIsUsage(t *testing.T) {
	suites := "../../suites/ops"
	badSuite := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(badSuite, []byte("suite: normal\ncases:\n  - id: x\n    input: hi\n    expect: {action: dance}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"no version":       {[]string{"--suites", suites}, "--version is required"},
		"no suites":        {[]string{"--version", v2}, "no cases"},
		"holdout 0":        {[]string{"--version", v2, "--suites", suites, "--holdout", "0"}, "--holdout"},
		"holdout 1.5":      {[]string{"--version", v2, "--suites", suites, "--holdout", "1.5"}, "--holdout"},
		"target 0":         {[]string{"--version", v2, "--suites", suites, "--max-wrong-exec", "0"}, "--max-wrong-exec"},
		"recall 2":         {[]string{"--version", v2, "--suites", suites, "--min-refusal-recall", "2"}, "--min-refusal-recall"},
		"both splits":      {[]string{"--version", v2, "--suites", suites, "--fit-suites", suites, "--eval-suites", suites}, "not both"},
		"fit without eval": {[]string{"--version", v2, "--fit-suites", suites}, "go together"},
		"not a number":     {[]string{"--version", v2, "--suites", suites, "--holdout", "half"}, "invalid argument"},
		"missing version":  {[]string{"--version", "no/such/dir", "--suites", suites}, "no/such/dir"},
		"bad suite file":   {[]string{"--version", v2, "--suites", badSuite}, "bad.yaml:5"},
		"unknown judge":    {[]string{"--version", v2, "--suites", suites, "--judge", "nosuch:x"}, "nosuch"},
		"positional args":  {[]string{"--version", v2, "--suites", suites, "extra"}, "unknown command"},
		"negative workers": {[]string{"--version", v2, "--suites", suites, "--concurrency", "-1"}, "--concurrency"},
	} {
		t.Run(name, func(t *testing.T) {
			code, out, errOut := calibrateCLI(t, tc.args...)
			if code != exitcode.Usage {
				t.Fatalf("exit %d, want %d; stderr %s", code, exitcode.Usage, errOut)
			}
			if out != "" {
				t.Errorf("nothing should be printed on stdout:\n%s", out)
			}
			if !strings.Contains(errOut, tc.want) {
				t.Errorf("stderr should mention %q:\n%s", tc.want, errOut)
			}
		})
	}
}

func TestCalibrateOpsDemo(t *testing.T) {
	dir := t.TempDir()
	plot, js := filepath.Join(dir, "bands.svg"), filepath.Join(dir, "bands.json")
	code, out, errOut := calibrateCLI(t, "--version", v2, "--suites", "../../suites/ops", "--max-wrong-exec", "0.05",
		"--plot", plot, "--json", js)
	if code != exitcode.Pass {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	// The demo's ~50 fit cases per class cannot certify 0.05, and the fitted
	// bands lose held-out accuracy: not a recommendation, no snippet.
	for _, want := range []string{"routebench calibrate: v2@", "Trade-off on the fit split", "NOT CERTIFIED",
		"no version.yaml snippet: read, write/delete/send not certified", "Held-out check", "Platt scaling", "target 0.050 on the eval split"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, unwanted := range []string{"Recommended bands", "in version.yaml:", "recommended (read)"} {
		if strings.Contains(out, unwanted) {
			t.Errorf("output shows %q for bands it could not certify:\n%s", unwanted, out)
		}
	}
	data, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var rep calibrate.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatalf("--json is not a report: %v", err)
	}
	if rep.Split.Fit+rep.Split.Eval != len(rep.Records) || rep.Split.Fit == 0 || rep.Split.Eval == 0 {
		t.Errorf("split %+v does not account for %d records", rep.Split, len(rep.Records))
	}
	if len(rep.Sweep) != 101*102/2 || len(rep.Classes) != 2 || rep.MaxWrongExec != 0.05 {
		t.Errorf("report lacks the grid, the classes or the target: %d points, %d classes, target %g", len(rep.Sweep), len(rep.Classes), rep.MaxWrongExec)
	}
	svg, err := os.ReadFile(plot)
	if err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(svg, new(struct{})); err != nil || !bytes.Contains(svg, []byte("<polyline")) {
		t.Errorf("--plot is not an SVG with curves (%v):\n%.300s", err, svg)
	}

	// Explicit fit and eval suites: fit on normal, report on the others.
	code, out, errOut = calibrateCLI(t, "--version", v2, "--fit-suites", "../../suites/ops/normal.yaml",
		"--eval-suites", "../../suites/ops/boundary.yaml,../../suites/ops/adversarial.yaml")
	if code != exitcode.Pass {
		t.Fatalf("split by suites: exit %d, stderr %s", code, errOut)
	}
	if !strings.Contains(out, "normal.yaml") || !strings.Contains(out, "adversarial.yaml") {
		t.Errorf("the split should name its suites:\n%s", out)
	}
}
