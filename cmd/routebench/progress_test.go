package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/internal/exitcode"
	"github.com/routebench/routebench/router"
)

// fakeClock is a clock tests move by hand: progress never sleeps in tests.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }
func testProgress(terminal bool) (*progress, *bytes.Buffer, *fakeClock) {
	var b bytes.Buffer
	clock := &fakeClock{t: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)}
	return &progress{w: &b, terminal: terminal, now: clock.now, every: progressEvery}, &b, clock
}

// Defect 5 of issue 11: off a terminal (CI) nothing was printed until the
// end; now a line every 10 s with rate and ETA.
func TestProgressOffATerminalPrintsALineEveryTenSeconds(t *testing.T) {
	g := NewWithT(t)
	p, out, clock := testProgress(false)
	p.build(router.BuildPhase{Version: "v1@0123abcd", Step: "fitting", Count: 19})
	p.build(router.BuildPhase{Version: "v1@0123abcd", Step: "indexing", Count: 1234})
	p.update(0, 25) // the run's first call, before any case
	for done := 1; done <= 25; done++ {
		clock.advance(time.Second)
		p.update(done, 25)
	}
	p.done("out", "results.jsonl", "summary.json", "report.html", "junit.xml", "summary.md")
	g.Expect(out.String()).To(Equal(`fitting 19 skills of v1@0123abcd…
indexing 1,234 recall texts of v1@0123abcd…
routing 25 cases…
routed 10/25 cases (40%)  1.0 cases/s, ETA 15s, 10s
routed 20/25 cases (80%)  1.0 cases/s, ETA 5s, 20s
routed 25/25 cases (100%)  1.0 cases/s, 25s
wrote out/results.jsonl, summary.json, report.html, junit.xml, summary.md
`))
}

func TestProgressOfAResumedRunSaysWhatItKept(t *testing.T) {
	g := NewWithT(t)
	p, out, clock := testProgress(false)
	p.update(30, 70)
	for done := 31; done <= 70; done++ {
		clock.advance(time.Second / 2)
		p.update(done, 70)
	}
	g.Expect(out.String()).To(Equal(`routing 70 cases, 30 of them kept from the earlier run…
routed 50/70 cases (71%)  2.0 cases/s, ETA 10s, 10s
routed 70/70 cases (100%)  2.0 cases/s, 20s
`), "the rate counts only the cases this run routed")
}

func TestProgressOnATerminalDrawsABarWithRateAndETA(t *testing.T) {
	g := NewWithT(t)
	p, out, clock := testProgress(true)
	p.update(1, 4000)
	clock.advance(10 * time.Second)
	p.update(1001, 4000)
	g.Expect(out.String()).To(HaveSuffix("\r[######..................] 1,001/4,000 cases  100.0 cases/s, ETA 30s, 10s\x1b[K"))
	p.phase("scoring 4,000 results and writing reports")
	g.Expect(out.String()).To(HaveSuffix("\x1b[K\nscoring 4,000 results and writing reports…\n"), "a phase starts on its own line")
}

func TestThousands(t *testing.T) {
	g := NewWithT(t)
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 15000: "15,000", 1234567: "1,234,567", -1200: "-1,200"} {
		g.Expect(thousands(n)).To(Equal(want))
	}
}

// The run says what it is doing before the first case and names its
// outputs last; stderr here is not a terminal, so no bar is drawn.
func TestRunPrintsPhasesAndNamesItsOutputsLast(t *testing.T) {
	g := NewWithT(t)
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := runCLI("run", "--versions", "../../fixtures/ops/prompts/v2", "--suites", "../../suites/ops/normal.yaml", "--out", out)
	g.Expect(code).To(Equal(exitcode.Pass), stderr)
	g.Expect(stderr).To(MatchRegexp(`(?s)^loading 1 versions and 1 suite paths…\nfitting 19 skills of v2@\w+…\nindexing \d+ recall texts of v2@\w+…\nrouting 120 cases…\n.*routed 120/120 cases \(100%\)`))
	g.Expect(stderr).NotTo(ContainSubstring("\r"))
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	g.Expect(lines[len(lines)-1]).To(Equal("wrote " + out + "/results.jsonl, summary.json, report.html, junit.xml, summary.md"))
}
