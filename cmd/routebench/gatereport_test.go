package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/routebench/routebench/internal/exitcode"
)

// The gate's report.html is the one file a lead opens from the CI
// artifact (DESIGN §7): it must open with the verdict and the checks with
// their measured values, then compare head with base, each labelled.
func TestGateReportOpensWithVerdictThenPairsHeadWithBase(t *testing.T) {
	v3, err := filepath.Abs("../../fixtures/ops/prompts/v3")
	if err != nil {
		t.Fatal(err)
	}
	root := gateRepo(t, passingGate)
	copyDir(t, v3, filepath.Join(root, "prompts", "ops"))
	code, _, errOut := cli("gate", "--base", "HEAD", "--out", "gate-out")
	if code != exitcode.Pass && code != exitcode.GateFailed {
		t.Fatalf("exit %d\nstderr:\n%s", code, errOut)
	}
	rec := readGateRecord(t, filepath.Join(root, "gate-out"))
	v := rec.Verdicts[0]
	data, err := os.ReadFile(filepath.Join(root, "gate-out", "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	at := func(s string) int {
		t.Helper()
		i := strings.Index(page, s)
		if i < 0 {
			t.Fatalf("report.html lacks %q", s)
		}
		return i
	}
	banner := at(`<section id="gate">`)
	outcome := at(`<strong class="outcome">` + v.Outcome() + `</strong> head <strong>` + v.Head + `</strong> against base <strong>` + v.Base + `</strong>`)
	thresholds := at(`<table class="gate-checks thresholds">`)
	regressions := at(`<table class="gate-checks regressions">`)
	paired := at(`<section id="verdict">`)
	if !(banner < outcome && outcome < thresholds && thresholds < regressions && regressions < paired && banner < at(`<dl class="meta">`)) {
		t.Errorf("report.html order: banner %d, outcome %d, thresholds %d, regressions %d, paired comparison %d",
			banner, outcome, thresholds, regressions, paired)
	}
	// Every threshold shows the value the head measured.
	at(`<td><code>decision_accuracy &gt;= 0</code></td><td class="num">`)
	if regexp.MustCompile(`<code>decision_accuracy &gt;= 0</code></td><td class="num">not measured`).MatchString(page) {
		t.Error("decision_accuracy threshold shows no measured value")
	}
	// Head is labelled head, base base; no head is called the base.
	at(`<strong>` + v.Head + `</strong> <span class="tag role-head">head</span>`)
	at(`<strong>` + v.Base + `</strong> <span class="tag role-base">base</span>`)
	if strings.Contains(page, "no paired comparison was given") {
		t.Error("report.html shows plain differences: the gate's comparison was not passed")
	}
}
