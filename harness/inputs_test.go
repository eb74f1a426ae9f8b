package harness_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/router/registry"
)

// Specs for the files routebench is pointed at: every one is read whole or
// rejected with file and line, and no read can block or grow without end.

// writeFile writes text to dir/name, creating folders, and returns the path.
func writeFile(dir, name, text string) string {
	p := filepath.Join(dir, name)
	ExpectWithOffset(1, os.MkdirAll(filepath.Dir(p), 0o755)).To(Succeed())
	ExpectWithOffset(1, os.WriteFile(p, []byte(text), 0o644)).To(Succeed())
	return p
}

// oneCase is a suite file holding one refusal case with the given id.
func oneCase(id string) string {
	return "suite: adversarial\ncases:\n  - id: " + id + "\n    input: x\n    expect: {action: refuse}\n"
}

func caseIDs(cases []harness.Case) []string {
	ids := []string{}
	for _, c := range cases {
		ids = append(ids, c.ID)
	}
	return ids
}

// loadAsync runs LoadSuites off the spec's goroutine so a loader that blocks
// (a FIFO opened for reading waits for a writer) fails the spec when its
// timeout cancels ctx, instead of hanging the whole suite. A loader that
// returns passes or fails on its answer alone, whatever the timing.
func loadAsync(ctx SpecContext, paths []string, reg *registry.Registry) error {
	done := make(chan error, 1)
	go func() {
		_, err := harness.LoadSuites(paths, reg)
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		Fail("LoadSuites blocked instead of rejecting a file that is not a regular file")
		return nil
	}
}

var _ = Describe("LoadSuites input files", func() {
	var reg *registry.Registry
	var dir string
	BeforeEach(func() {
		reg = testRegistry()
		dir = GinkgoT().TempDir()
	})

	It("rejects a second YAML document instead of dropping its cases", func() {
		text := oneCase("first") + "---\n" + oneCase("second")
		_, err := harness.ParseSuite("two.yaml", []byte(text), reg)
		Expect(problemLines(err)).To(Equal([]string{
			"two.yaml:7: holds a second YAML document (after '---'); routebench reads one document per file: merge it into the first or move it to a file of its own",
		}))
		p := writeFile(dir, "two.yaml", text)
		_, err = harness.LoadSuites([]string{dir}, reg)
		Expect(problemLines(err)).To(Equal([]string{
			p + ":7: holds a second YAML document (after '---'); routebench reads one document per file: merge it into the first or move it to a file of its own",
		}))
	})

	It("walks a suites folder recursively in path order, taking .yaml and .yml in any case and skipping hidden entries and docs", func() {
		writeFile(dir, "b.yaml", oneCase("b"))
		writeFile(dir, "a.YML", oneCase("a"))
		writeFile(dir, "sub/c.Yaml", oneCase("c"))
		writeFile(dir, "sub/deeper/d.yml", oneCase("d"))
		writeFile(dir, "z.yaml", oneCase("z"))
		writeFile(dir, ".hidden.yaml", oneCase("hidden-file"))
		writeFile(dir, ".drafts/e.yaml", oneCase("hidden-dir"))
		writeFile(dir, "README.md", "# suites\n")
		writeFile(dir, "sub/NOTES.txt", "notes\n")
		cases, err := harness.LoadSuites([]string{dir}, reg)
		Expect(err).NotTo(HaveOccurred())
		Expect(caseIDs(cases)).To(Equal([]string{"a", "b", "c", "d", "z"}))
		Expect(cases[2].Pos.File).To(Equal(filepath.Join(dir, "sub", "c.Yaml")))
	})

	It("rejects any other file in a suites folder, naming it and the rule", func() {
		writeFile(dir, "ok.yaml", oneCase("ok"))
		json := writeFile(dir, "cases.json", "{}")
		bak := writeFile(dir, "sub/old.yaml.bak", oneCase("old"))
		_, err := harness.LoadSuites([]string{dir}, reg)
		rule := ": is not a suite file; a suites folder holds suites (.yaml, .yml) and notes (.md, .txt) only: rename it to .yaml, move it out, or hide it with a leading dot"
		Expect(problemLines(err)).To(Equal([]string{json + rule, bak + rule}))
	})

	It("reads a file given explicitly whatever its extension", func() {
		p := writeFile(dir, "cases.txt", oneCase("explicit"))
		cases, err := harness.LoadSuites([]string{p}, reg)
		Expect(err).NotTo(HaveOccurred())
		Expect(caseIDs(cases)).To(Equal([]string{"explicit"}))
	})

	It("says a folder holds no suite files, also when they all sit in hidden folders", func() {
		writeFile(dir, ".old/a.yaml", oneCase("a"))
		writeFile(dir, "README.md", "# nothing yet\n")
		_, err := harness.LoadSuites([]string{dir}, reg)
		Expect(problemLines(err)).To(Equal([]string{dir + ": holds no suite files (.yaml or .yml, searched recursively); add one or fix the suites list"}))
	})

	It("rejects a named pipe given as a suite instead of blocking on it", func(ctx SpecContext) {
		fifo := filepath.Join(dir, "pipe.yaml")
		Expect(syscall.Mkfifo(fifo, 0o644)).To(Succeed())
		err := loadAsync(ctx, []string{fifo}, reg)
		Expect(problemLines(err)).To(Equal([]string{fifo + ": cannot be read: not a regular file (a named pipe); give a regular file"}))
		err = loadAsync(ctx, []string{dir}, reg)
		Expect(problemLines(err)).To(Equal([]string{fifo + ": cannot be read: not a regular file (a named pipe); give a regular file"}))
	}, SpecTimeout(time.Minute))

	It("rejects a link to a device instead of reading it without end", func(ctx SpecContext) {
		zero := filepath.Join(dir, "zero.yaml")
		Expect(os.Symlink("/dev/zero", zero)).To(Succeed())
		err := loadAsync(ctx, []string{zero}, reg)
		Expect(problemLines(err)).To(Equal([]string{zero + ": cannot be read: not a regular file (a character device); give a regular file"}))
	}, SpecTimeout(time.Minute))

	DescribeTable("reports encoding damage with line and column",
		func(text, want string) {
			_, err := harness.ParseSuite("enc.yaml", []byte(text), reg)
			Expect(problemLines(err)).To(Equal([]string{want}))
		},
		Entry("invalid UTF-8", "suite: normal\ncases:\n  - id: a\n    input: caf\xe9\n",
			"enc.yaml:4: column 15: invalid UTF-8 (byte 0xE9); save the file as UTF-8 text without control characters"),
		Entry("a NUL byte", "suite: normal\ncases:\n  - id: a\x00\n",
			"enc.yaml:3: column 10: a NUL byte; save the file as UTF-8 text without control characters"),
		Entry("an escape character", "suite: normal\n\x1b[31mcases: []\n",
			"enc.yaml:2: column 1: control character U+001B; save the file as UTF-8 text without control characters"),
	)

	DescribeTable("rejects case ids that would garble reports, with what to change",
		func(idYAML, want string) {
			_, err := harness.ParseSuite("ids.yaml", []byte(oneCase(idYAML)), reg)
			Expect(problemLines(err)).To(Equal([]string{"ids.yaml:3: cases[0].id: " + want}))
		},
		Entry("a newline", `"a\nb"`, `"a\nb" holds a control character (U+000A) at rune 2; case ids are one line of printable text, e.g. orders-001`),
		Entry("a tab", `"a\tb"`, `"a\tb" holds a control character (U+0009) at rune 2; case ids are one line of printable text, e.g. orders-001`),
		Entry("a right-to-left override", `"\u202Eabc"`, `"\u202eabc" holds a bidirectional control (U+202E) at rune 1, which makes it display differently from what it is; remove it`),
		Entry("a right-to-left mark", `"abc\u200F"`, `"abc\u200f" holds a bidirectional control (U+200F) at rune 4, which makes it display differently from what it is; remove it`),
		Entry("an Arabic letter mark", `"a\u061Cb"`, `"a\u061cb" holds a bidirectional control (U+061C) at rune 2, which makes it display differently from what it is; remove it`),
		Entry("an isolate", `"a\u2066b\u2069"`, `"a\u2066b\u2069" holds a bidirectional control (U+2066) at rune 2, which makes it display differently from what it is; remove it`),
		Entry("a zero-width space", `"a\u200Bb"`, `"a\u200bb" holds a non-printing character (U+200B) at rune 2; case ids are one line of printable text, e.g. orders-001`),
		Entry("an ideographic space", `"a\u3000b"`, `"a\u3000b" holds a non-printing character (U+3000) at rune 2; case ids are one line of printable text, e.g. orders-001`),
		Entry("a leading space", `" a"`, `" a" starts or ends with a space; remove it`),
		Entry("a trailing space", `"a "`, `"a " starts or ends with a space; remove it`),
	)

	It("accepts ids of printable text in any script, with inner spaces", func() {
		cases, err := harness.ParseSuite("ids.yaml", []byte(oneCase(`"华东 订单-001|x"`)), reg)
		Expect(err).NotTo(HaveOccurred())
		Expect(caseIDs(cases)).To(Equal([]string{"华东 订单-001|x"}))
	})
})

var _ = Describe("LoadConfig input files", func() {
	var dir string
	BeforeEach(func() { dir = GinkgoT().TempDir() })

	It("rejects a second YAML document instead of ignoring it", func() {
		_, err := harness.ParseConfig("routebench.yaml", []byte("versions: [v1]\nsuites: [s]\n---\ngate:\n  thresholds: [decision_accuracy >= 0.85]\n"))
		Expect(problemLines(err)).To(Equal([]string{
			"routebench.yaml:4: holds a second YAML document (after '---'); routebench reads one document per file: merge it into the first or move it to a file of its own",
		}))
	})

	It("reports encoding damage with line and column", func() {
		_, err := harness.ParseConfig("routebench.yaml", []byte("versions: [v1]\nsuites: [s\x7f]\n"))
		Expect(problemLines(err)).To(Equal([]string{
			"routebench.yaml:2: column 11: control character U+007F; save the file as UTF-8 text without control characters",
		}))
	})

	It("rejects a named pipe or a device instead of blocking or reading without end", func(ctx SpecContext) {
		fifo := filepath.Join(dir, "routebench.yaml")
		Expect(syscall.Mkfifo(fifo, 0o644)).To(Succeed())
		zero := filepath.Join(dir, "zero.yaml")
		Expect(os.Symlink("/dev/zero", zero)).To(Succeed())
		for path, what := range map[string]string{fifo: "a named pipe", zero: "a character device"} {
			done := make(chan error, 1)
			go func() { _, err := harness.LoadConfig(path); done <- err }()
			select {
			case err := <-done:
				Expect(err).To(MatchError("read config: " + path + ": not a regular file (" + what + "); give a regular file"))
			case <-ctx.Done():
				Fail("LoadConfig blocked on " + what)
			}
		}
	}, SpecTimeout(time.Minute))

	It("keeps a missing file recognisable, so commands can fall back", func() {
		_, err := harness.LoadConfig(filepath.Join(dir, "none.yaml"))
		Expect(err).To(MatchError(os.ErrNotExist))
	})

	It("parses the gate block when the config loads, resolving gate.versions like versions", func() {
		cfg, err := harness.ParseConfig("conf/routebench.yaml", []byte(`versions: [p/v1, p/v2]
suites: [s]
gate:
  versions: [p/v2]
  thresholds: [decision_accuracy >= 0.85, "refusal_recall{suite:adversarial} >= 95%"]
  regression: {metrics: [decision_accuracy]}
`))
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.Gate.Versions).To(Equal([]string{"conf/p/v2"}))
		Expect(cfg.Gate.Thresholds).To(HaveLen(2))
		Expect(cfg.Gate.Thresholds[1].String()).To(Equal("refusal_recall{suite:adversarial} >= 0.95"))
		Expect(*cfg.Gate.Regression).To(Equal(harness.Regression{Metrics: []string{"decision_accuracy"}, MaxDrop: 0.02, Alpha: 0.05}))
	})

	DescribeTable("rejects a bad threshold when the config loads, with file, line and column",
		func(threshold, want string) {
			_, err := harness.ParseConfig("routebench.yaml", []byte("versions: [v1]\nsuites: [s]\ngate:\n  thresholds:\n    - "+threshold+"\n"))
			Expect(problemLines(err)).To(Equal([]string{"routebench.yaml:5: gate.thresholds[0]: column 7: " + want}))
		},
		Entry("a misspelt metric", "decision_acuracy >= 0.85", `unknown metric "decision_acuracy" (did you mean decision_accuracy?)`),
		Entry("a bad operator", "decision_accuracy => 0.85", `"decision_accuracy => 0.85" is not "metric op value": write e.g. "decision_accuracy >= 0.85" or "refusal_recall{suite:adversarial} >= 0.95" (ops: >= <= > < == !=)`),
		Entry("a rate out of range", "refusal_recall >= 95", "bound 95: refusal_recall is a rate between 0 and 1; write 0.95 or 95%"),
		Entry("a negative count", "policy_violations <= -1", "bound -1: policy_violations is never negative"),
		Entry("an unknown selector", "refusal_recall{suites:adversarial} >= 0.9", `selector {suites:adversarial}: unknown selector "suites" (did you mean suite?); write {suite:NAME} or {tag:NAME}`),
		Entry("a misspelt suite", "refusal_recall{suite:adversial} >= 0.9", `selector {suite:adversial}: unknown suite "adversial" (did you mean adversarial?)`),
		Entry("not a string", "{metric: decision_accuracy}", `must be a string "metric op value", e.g. "decision_accuracy >= 0.85"`),
	)

	DescribeTable("rejects a bad regression rule or gate field when the config loads, with file, line and column",
		func(gate, want string) {
			_, err := harness.ParseConfig("routebench.yaml", []byte("versions: [v1]\nsuites: [s]\ngate:\n"+gate))
			Expect(problemLines(err)).To(Equal([]string{want}))
		},
		Entry("alpha 3", "  regression:\n    metrics: [decision_accuracy]\n    alpha: 3\n",
			"routebench.yaml:6: gate.regression.alpha: column 12: 3: a significance level is between 0 and 1, e.g. 0.05"),
		Entry("alpha 0", "  regression:\n    metrics: [decision_accuracy]\n    alpha: 0\n",
			"routebench.yaml:6: gate.regression.alpha: column 12: 0: a significance level is between 0 and 1, e.g. 0.05"),
		Entry("max_drop 1.5", "  regression:\n    metrics: [decision_accuracy]\n    max_drop: 1.5\n",
			"routebench.yaml:6: gate.regression.max_drop: column 15: 1.5: a drop is a fraction in [0, 1), e.g. 0.02 for two points"),
		Entry("max_drop not a number", "  regression:\n    metrics: [decision_accuracy]\n    max_drop: lots\n",
			`routebench.yaml:6: gate.regression.max_drop: column 15: must be a number, got "lots"`),
		Entry("a count as regression metric", "  regression:\n    metrics: [policy_violations]\n",
			"routebench.yaml:5: gate.regression.metrics[0]: column 15: policy_violations is a count, not a rate: regressions are tested case by case on rates; gate it with a threshold instead"),
		Entry("a neutral regression metric", "  regression:\n    metrics: [clarification_rate]\n",
			"routebench.yaml:5: gate.regression.metrics[0]: column 15: clarification_rate has no better direction, so it cannot drop; guard clarify_recall instead"),
		Entry("a misspelt regression metric", "  regression:\n    metrics: [skil_accuracy]\n",
			`routebench.yaml:5: gate.regression.metrics[0]: column 15: unknown metric "skil_accuracy" (did you mean skill_accuracy?)`),
		Entry("no regression metrics", "  regression: {alpha: 0.01}\n",
			"routebench.yaml:4: gate.regression.metrics: column 15: is empty: list the rate metrics to guard, e.g. [decision_accuracy, refusal_accuracy]"),
		Entry("a misspelt gate field", "  treshold: [decision_accuracy >= 0.85]\n",
			"routebench.yaml:4: gate.treshold: column 3: unknown field (did you mean thresholds?); gate takes [versions thresholds regression untested_layers]"),
		Entry("a repeated gate field", "  thresholds: []\n  thresholds: []\n",
			"routebench.yaml:5: gate.thresholds: column 3: appears twice; keep one"),
		Entry("an unconfigured gate version", "  versions: [v3]\n",
			`routebench.yaml:4: gate.versions[0]: column 14: "v3" is not one of the config's versions (v1); list a directory from `+"`versions:`"),
	)
})

var _ = Describe("LoadBaseline input files", func() {
	var dir string
	BeforeEach(func() { dir = GinkgoT().TempDir() })

	It("rejects a second YAML document instead of ignoring its known failures", func() {
		p := writeFile(dir, "baseline.yaml", "v1:\n  - {case: a, failure: recall_miss}\n---\nv2:\n  - {case: b, failure: recall_miss}\n")
		_, err := harness.LoadBaseline(p)
		Expect(problemLines(err)).To(Equal([]string{
			p + ":4: holds a second YAML document (after '---'); routebench reads one document per file: merge it into the first or move it to a file of its own",
		}))
	})

	It("names the line of an unknown category or field, and of encoding damage", func() {
		p := writeFile(dir, "baseline.yaml", "v1:\n  - {case: a, failure: recall_miss}\n  - {case: b, failure: oops}\n  - {case: c, failur: x}\n")
		_, err := harness.LoadBaseline(p)
		Expect(problemLines(err)).To(Equal([]string{
			p + `:3: v1[1].failure: unknown failure category "oops" (case b); use one of ` + strings.Join(harness.AllFailureCategories(), ", "),
			p + `:4: v1[2].failur: unknown field; did you mean "failure"? known fields here: case, failure`,
		}))
		p = writeFile(dir, "enc.yaml", "v1:\n  - {case: \"a\x00\", failure: recall_miss}\n")
		_, err = harness.LoadBaseline(p)
		Expect(problemLines(err)).To(Equal([]string{p + ":2: column 14: a NUL byte; save the file as UTF-8 text without control characters"}))
	})

	It("rejects a named pipe instead of blocking on it", func(ctx SpecContext) {
		fifo := filepath.Join(dir, "baseline.yaml")
		Expect(syscall.Mkfifo(fifo, 0o644)).To(Succeed())
		done := make(chan error, 1)
		go func() { _, err := harness.LoadBaseline(fifo); done <- err }()
		select {
		case err := <-done:
			Expect(err).To(MatchError(fifo + ": cannot be read: not a regular file (a named pipe); give a regular file"))
		case <-ctx.Done():
			Fail("LoadBaseline blocked on a named pipe")
		}
	}, SpecTimeout(time.Minute))
})

var _ = Describe("problem lines", func() {
	It("stay one line each when a key or value holds a line break", func() {
		_, err := harness.ParseSuite("k.yaml", []byte("suite: normal\n\"sui\\nte\": x\ncases: []\n"), testRegistry())
		Expect(problemLines(err)).To(Equal([]string{
			`k.yaml:2: sui\nte: unknown field; did you mean "suite"? known fields here: suite, defaults, cases`,
		}))
		_, err = harness.ParseConfig("routebench.yaml", []byte("versions: [v1]\ngate:\n  thresholds: [\"decision_accuracy{tag:a\\nb} >= 0.5\"]\n"))
		Expect(problemLines(err)).To(Equal([]string{
			`routebench.yaml:3: gate.thresholds[0]: column 16: "decision_accuracy{tag:a\nb} >= 0.5" holds a control character (U+000A); write the threshold on one line`,
		}))
	})
})
