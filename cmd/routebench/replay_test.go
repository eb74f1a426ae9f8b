package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/internal/exitcode"
)

// lockerSkills is a made-up registry: a read skill and a write skill whose
// unlock code is x-sensitive (the builtin judge extracts it by pattern).
const lockerSkills = `skills:
  - name: list_lockers
    description: List the lockers of one floor and whether each is free. 列出某一层的储物柜
    when_to_use: [the user wants to see which lockers on a floor are free]
    when_not_to_use: [the user wants to open a locker (use open_locker)]
    side_effect: read
    permission_scope: [lockers:read]
    params_schema:
      type: object
      required: [floor]
      properties:
        floor: {type: integer, minimum: 1, maximum: 9}
    examples:
      - {input: which lockers are free on floor 3, params: {floor: 3}}
      - {input: show free lockers on floor 5, params: {floor: 5}}
    counter_examples: [open locker L-12 with code ZK-4471]
  - name: open_locker
    description: Open one locker with its unlock code. 用开锁码打开一个储物柜
    when_to_use: [the user gives a locker and its unlock code and wants it opened]
    when_not_to_use: [the user only wants to see which lockers are free (use list_lockers)]
    side_effect: write
    confirm: normal
    permission_scope: [lockers:write]
    params_schema:
      type: object
      required: [locker, code]
      properties:
        locker: {type: string, pattern: '^L-\d{2}$'}
        code: {type: string, pattern: '^[A-Z]{2}-[A-Z0-9]{4}$', x-sensitive: true}
    triggers: ['(?i)\bopen locker\b']
    examples:
      - {input: open locker L-12 with code QP-1234, params: {locker: L-12, code: QP-1234}}
      - {input: please open locker L-40 code MN-9981, params: {locker: L-40, code: MN-9981}}
    counter_examples: [which lockers are free on floor 2]
`

const lockerSuite = `suite: normal
defaults:
  caller: {scopes: [lockers:read, lockers:write]}
  now: "2026-03-02T09:00:00+01:00"
cases:
  - id: lk-open-1
    input: open locker L-07 with code VX-7KQ5
    expect: {action: confirm, skill: open_locker, params: {locker: L-07, code: VX-7KQ5}}
  - id: lk-list-1
    input: which lockers are free on floor 4
    expect: {action: execute, skill: list_lockers, params: {floor: 4}}
`

// lockerWorkspace writes a version and a suite under a temp dir and
// returns the dir, the version dir and the suite file.
func lockerWorkspace(t *testing.T) (string, string, string) {
	t.Helper()
	dir := t.TempDir()
	ver := filepath.Join(dir, "prompts", "v7")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(ver, 0o755))
	contract, err := os.ReadFile("../../fixtures/ops/prompts/v2/contract.schema.json")
	must(err)
	files := map[string]string{
		"version.yaml":         "description: lockers\nrouter:\n  top_k: 3\n  embedder: builtin\n  judge: builtin\n  bands: {execute: 0.85, clarify: 0.6}\n",
		"persona.md":           "You help people with lockers.\n",
		"constraints.md":       "Open a locker only with its code.\n",
		"skills.yaml":          lockerSkills,
		"contract.schema.json": string(contract),
	}
	for name, body := range files {
		must(os.WriteFile(filepath.Join(ver, name), []byte(body), 0o644))
	}
	suite := filepath.Join(dir, "suites", "normal.yaml")
	must(os.MkdirAll(filepath.Dir(suite), 0o755))
	must(os.WriteFile(suite, []byte(lockerSuite), 0o644))
	return dir, ver, suite
}

func TestReplayReproducesAndDetectsAChangedDecision(t *testing.T) {
	g := NewWithT(t)
	dir, ver, suite := lockerWorkspace(t)
	out := filepath.Join(dir, "out")
	code, _, stderr := runCLI("run", "--versions", ver, "--suites", suite, "--out", out)
	g.Expect(code).To(Equal(exitcode.Pass), stderr)
	results := filepath.Join(out, harness.ResultsFile)

	code, stdout, stderr := runCLI("replay", results, "lk-open-1")
	g.Expect(code).To(Equal(exitcode.Pass), stdout+stderr)
	g.Expect(stdout).To(ContainSubstring("replay lk-open-1 under v7@"))
	g.Expect(stdout).To(ContainSubstring("request id lk-open-1, conversation id lk-open-1"))
	g.Expect(stdout).To(ContainSubstring("trace:\n  policy "))
	g.Expect(stdout).To(ContainSubstring("the builtin judge has no prompt; it scored the candidates' own texts:\n  - open_locker"))
	g.Expect(stdout).To(ContainSubstring("raw output:"))
	g.Expect(stdout).To(ContainSubstring(`params     {"code":"***","locker":"L-07"} -> {"code":"***","locker":"L-07"}`))
	g.Expect(stdout).To(ContainSubstring("SAME: today's decision is the recorded one."))
	g.Expect(stdout).NotTo(ContainSubstring("VX-7KQ5"), "the sensitive code is masked on screen too")

	// A tampered recording: the replay says what differs, and exits 1.
	data, err := os.ReadFile(results)
	g.Expect(err).NotTo(HaveOccurred())
	tampered := strings.Replace(string(data), `"decision":{"action":"execute","skill":"list_lockers"`, `"decision":{"action":"clarify","skill":"list_lockers"`, 1)
	g.Expect(tampered).NotTo(Equal(string(data)))
	g.Expect(os.WriteFile(results, []byte(tampered), 0o644)).To(Succeed())
	code, stdout, stderr = runCLI("replay", results, "lk-list-1")
	g.Expect(code).To(Equal(exitcode.GateFailed), stdout+stderr)
	g.Expect(stdout).To(ContainSubstring(`DIFFERS from the recording:` + "\n" + `  action: recorded "clarify", today "execute"`))
	g.Expect(stderr).To(ContainSubstring("differs from the recorded one (1 fields)"))

	// The version changed since the recording: refused, naming it.
	g.Expect(os.WriteFile(filepath.Join(ver, "persona.md"), []byte("You help people.\n"), 0o644)).To(Succeed())
	code, _, stderr = runCLI("replay", results, "lk-open-1")
	g.Expect(code).To(Equal(exitcode.Usage))
	g.Expect(stderr).To(MatchRegexp(`version v7@[0-9a-f]{8} changed since the recording: .*v7 \(from .*plan.json\) is now v7@`))
}

func TestReplayPicksAVersionAndRejectsBadInput(t *testing.T) {
	g := NewWithT(t)
	dir, ver, suite := lockerWorkspace(t)
	other := filepath.Join(dir, "prompts", "v8")
	copyDir(t, ver, other)
	out := filepath.Join(dir, "out")
	code, _, stderr := runCLI("run", "--versions", ver+","+other, "--suites", suite, "--out", out)
	g.Expect(code).To(Equal(exitcode.Pass), stderr)
	results := filepath.Join(out, harness.ResultsFile)

	code, _, stderr = runCLI("replay", results, "lk-list-1")
	g.Expect(code).To(Equal(exitcode.Usage))
	g.Expect(stderr).To(MatchRegexp(`holds case "lk-list-1" under 2 versions: v7@[0-9a-f]{8}, v8@[0-9a-f]{8}; pick one with --version`))

	code, stdout, stderr := runCLI("replay", results, "lk-list-1", "--version", "v8")
	g.Expect(code).To(Equal(exitcode.Pass), stderr)
	g.Expect(stdout).To(ContainSubstring("replay lk-list-1 under v8@"))

	code, _, stderr = runCLI("replay", results, "lk-list-9")
	g.Expect(code).To(Equal(exitcode.Usage))
	g.Expect(stderr).To(ContainSubstring(`holds no result for case "lk-list-9"`))

	// The case itself changed since the recording.
	data, _ := os.ReadFile(suite)
	g.Expect(os.WriteFile(suite, []byte(strings.Replace(string(data), "floor 4", "floor 6", 1)), 0o644)).To(Succeed())
	code, _, stderr = runCLI("replay", results, "lk-list-1", "--version", "v7")
	g.Expect(code).To(Equal(exitcode.Usage))
	g.Expect(stderr).To(ContainSubstring(`case "lk-list-1" changed since the recording`))

	// A plan.json it cannot read (here an older format's) is named, not
	// passed over in silence, when nothing else says where the versions are.
	planPath := filepath.Join(out, harness.PlanFile)
	plan, err := os.ReadFile(planPath)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(os.WriteFile(planPath, []byte(strings.Replace(string(plan), `"format": 2`, `"format": 1`, 1)), 0o644)).To(Succeed())
	code, _, stderr = runCLI("replay", results, "lk-list-1", "--version", "v7")
	g.Expect(code).To(Equal(exitcode.Usage))
	g.Expect(stderr).To(ContainSubstring("keep plan.json beside the results (the plan.json beside the results was not read: "))
	g.Expect(stderr).To(ContainSubstring("plan format 1, this routebench reads format 2"))

	code, stdout, _ = runCLI("replay", "--help")
	g.Expect(code).To(Equal(exitcode.Pass))
	g.Expect(strings.TrimSpace(stdout)).To(MatchRegexp(`Examples:\n(  routebench replay .*\n)+`))
}

func TestExpectedSensitiveValuesAreMaskedWhenNotExtracted(t *testing.T) {
	g := NewWithT(t)
	dir, ver, _ := lockerWorkspace(t)
	// The caller may not open lockers: the router refuses and never takes
	// the code from the text, yet the case's author wrote it twice.
	suite := filepath.Join(dir, "suites", "noscope.yaml")
	g.Expect(os.WriteFile(suite, []byte(`suite: boundary
cases:
  - id: lk-noscope-1
    input: open locker L-07 with code RT-3WW8
    caller: {scopes: [lockers:read]}
    expect: {action: confirm, skill: open_locker, params: {locker: L-07, code: RT-3WW8}}
`), 0o644)).To(Succeed())
	out := filepath.Join(dir, "out")
	code, _, stderr := runCLI("run", "--versions", ver, "--suites", suite, "--out", out)
	g.Expect(code).NotTo(Equal(exitcode.Usage), stderr)
	results := readFile(t, filepath.Join(out, harness.ResultsFile))
	g.Expect(results).To(ContainSubstring(`"case":"lk-noscope-1"`))
	g.Expect(results).NotTo(ContainSubstring(`"skill":"open_locker","params":{"code":"***"`), "the router did not extract the code")
	for _, name := range []string{harness.ResultsFile, "report.html", "junit.xml", "summary.md", harness.SummaryFile} {
		g.Expect(readFile(t, filepath.Join(out, name))).NotTo(MatchRegexp(`(?i)3ww8`), name)
	}
	g.Expect(results).To(ContainSubstring(`"input":"open locker L-07 with code ***"`))

	code, stdout, stderr := runCLI("replay", filepath.Join(out, harness.ResultsFile), "lk-noscope-1")
	g.Expect(code).NotTo(Equal(exitcode.Usage), stderr)
	g.Expect(stdout).To(ContainSubstring("replay lk-noscope-1 under v7@"))
	g.Expect(stdout+stderr).NotTo(MatchRegexp(`(?i)3ww8`), "nor on screen")
}

func TestSensitiveParamsAreMaskedInEveryOutput(t *testing.T) {
	g := NewWithT(t)
	dir, ver, suite := lockerWorkspace(t)
	out := filepath.Join(dir, "out")
	code, _, stderr := runCLI("run", "--versions", ver, "--suites", suite, "--out", out)
	g.Expect(code).To(Equal(exitcode.Pass), stderr)
	for _, name := range []string{harness.ResultsFile, "report.html", "junit.xml", "summary.md", harness.SummaryFile} {
		body := readFile(t, filepath.Join(out, name))
		g.Expect(body).NotTo(ContainSubstring("VX-7KQ5"), name)
		// No part of the code shows either (a partial mask such as
		// "***7KQ5", or a lowercased copy). The code has letters no number
		// or hex hash can hold, so a measured latency cannot trip this.
		g.Expect(body).NotTo(MatchRegexp(`(?i)7kq5`), name)
	}
	g.Expect(readFile(t, filepath.Join(out, harness.ResultsFile))).To(ContainSubstring(`"code":"***"`))
	g.Expect(readFile(t, filepath.Join(out, harness.ResultsFile))).To(ContainSubstring(`"masked":{"code":"ok"}`))
	// Scored on the real code: every case passes.
	g.Expect(readFile(t, filepath.Join(out, "summary.md"))).NotTo(ContainSubstring("param_error"))
}
