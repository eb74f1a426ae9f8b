package harness_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/router"
)

var _ = Describe("results.jsonl", func() {
	cases := runCases(12)

	// threeLines is a complete run's results file, as lines.
	threeLines := func() (dir string, lines []string) {
		dir = GinkgoT().TempDir()
		_, err := harness.Run(context.Background(), runConfig(dir, cases[:3], 1))
		Expect(err).NotTo(HaveOccurred())
		return dir, strings.SplitAfter(strings.TrimSuffix(string(readFile(filepath.Join(dir, harness.ResultsFile))), "\n"), "\n")
	}

	It("names the file and line of a corrupt line on resume, as bad input", func() {
		dir, lines := threeLines()
		lines[1] = `{"format":1,"version":"v1@aaaaaaaa","case":` + "\n"
		path := filepath.Join(dir, harness.ResultsFile)
		Expect(os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644)).To(Succeed())
		cfg := runConfig(dir, cases[:3], 1)
		cfg.Resume = true
		_, err := harness.Run(context.Background(), cfg)
		var bad *harness.ResultsError
		Expect(errors.As(err, &bad)).To(BeTrue(), "got %v", err)
		Expect(bad.Path).To(Equal(path))
		Expect(bad.Line).To(Equal(2))
		Expect(err).To(MatchError(ContainSubstring(path + ":2: not a result line")))
		Expect(string(readFile(path))).To(Equal(strings.Join(lines, "")), "a file it cannot read is left as it was")
	})

	It("names the line of a result of another format", func() {
		_, lines := threeLines()
		lines[2] = strings.Replace(lines[2], `{"format":1,`, `{"format":7,`, 1)
		_, err := harness.DecodeResults(strings.NewReader(strings.Join(lines, "")), "r.jsonl")
		Expect(err).To(MatchError(ContainSubstring("r.jsonl:3: results format 7, this routebench reads format 1")))
	})

	DescribeTable("names the line and field of a decision routebench could not have written",
		func(damage func(*router.Decision), want string) {
			_, lines := threeLines()
			rs, err := harness.DecodeResults(strings.NewReader(lines[1]), "r.jsonl")
			Expect(err).NotTo(HaveOccurred())
			damage(&rs[0].Decision)
			line, err := json.Marshal(rs[0])
			Expect(err).NotTo(HaveOccurred())
			lines[1] = string(line) + "\n"
			_, err = harness.DecodeResults(strings.NewReader(strings.Join(lines, "")), "r.jsonl")
			Expect(err).To(MatchError(ContainSubstring("r.jsonl:2: " + want)))
			Expect(err).To(MatchError(HaveSuffix("; fix or delete the line")))
		},
		Entry("an action that is none", func(d *router.Decision) { d.Action = "launch_missiles" }, `decision.action: "launch_missiles" is not an action`),
		Entry("a confidence past 1", func(d *router.Decision) { d.Confidence = 1e308 }, "decision.confidence: 1e+308 is outside [0, 1]"),
		Entry("a negative confidence", func(d *router.Decision) { d.Confidence = -5 }, "decision.confidence: -5 is outside [0, 1]"),
		Entry("an unknown gate", func(d *router.Decision) { d.Gate = "trapdoor" }, `decision.gate: "trapdoor" is not a gate`),
		Entry("a candidate naming nothing", func(d *router.Decision) { d.Candidates = []router.Candidate{{Score: 0.5}} }, "decision.candidates[0].skill: is empty"),
	)

	It("refuses a device, which never ends, and a line longer than any result", func() {
		err := harness.NewFileStream("/dev/null").Each(func(int, *harness.Result) error { return nil })
		Expect(err).To(MatchError("read results /dev/null: it is a character device; give a results.jsonl file or a pipe"))

		DeferCleanup(harness.SetMaxResultLine(1 << 10))
		_, lines := threeLines()
		path := filepath.Join(GinkgoT().TempDir(), harness.ResultsFile)
		Expect(os.WriteFile(path, []byte(lines[0]+strings.Repeat("x", 200<<10)+"\n"), 0o644)).To(Succeed())
		err = harness.NewFileStream(path).Each(func(int, *harness.Result) error { return nil })
		Expect(err).To(MatchError(ContainSubstring(path + ":2: a line longer than 1024 bytes")))
	})

	It("keeps a whole last object that lost only its newline", func() {
		_, lines := threeLines()
		rs, err := harness.DecodeResults(strings.NewReader(strings.TrimSuffix(strings.Join(lines, ""), "\n")), "r.jsonl")
		Expect(err).NotTo(HaveOccurred())
		Expect(rs).To(HaveLen(6))
	})

	It("lets a summary vouch only for the exact results it was scored from", func() {
		dir, lines := threeLines()
		path := filepath.Join(dir, harness.ResultsFile)
		ok, why, err := harness.SummaryMatches(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(ok).To(BeFalse())
		Expect(why).To(Equal("there is no summary.json"))

		rs, err := harness.ReadResults(path)
		Expect(err).NotTo(HaveOccurred())
		d, err := harness.DigestResultsFile(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Lines).To(Equal(6))
		Expect(d.SHA256).To(HaveLen(64))
		s := harness.Score(rs)
		s.Results = &d
		Expect(harness.WriteSummaryFile(filepath.Join(dir, harness.SummaryFile), s)).To(Succeed())
		Expect(string(readFile(filepath.Join(dir, harness.SummaryFile)))).To(ContainSubstring(fmt.Sprintf(`"sha256": "%s"`, d.SHA256)))
		ok, _, err = harness.SummaryMatches(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(ok).To(BeTrue())

		// Fresh results beside the old summary: one line fewer.
		Expect(os.WriteFile(path, []byte(strings.Join(lines[:5], "")), 0o644)).To(Succeed())
		ok, why, err = harness.SummaryMatches(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(ok).To(BeFalse())
		Expect(why).To(ContainSubstring("was scored from other results (6 lines, sha256 " + d.SHA256[:12] + ") than results.jsonl holds (5 lines"))
	})

	It("writes outputs whole: no temporary file is left and a failed write keeps the old file", func() {
		dir, _ := threeLines()
		path := filepath.Join(dir, harness.ResultsFile)
		before := readFile(path)
		// A NaN confidence cannot be encoded: the write fails half-way.
		rs, err := harness.ReadResults(path)
		Expect(err).NotTo(HaveOccurred())
		rs[len(rs)-1].Decision.Confidence = math.NaN()
		err = harness.WriteResultsFile(path, rs)
		Expect(err).To(HaveOccurred())
		Expect(readFile(path)).To(Equal(before))
		entries, err := os.ReadDir(dir)
		Expect(err).NotTo(HaveOccurred())
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		Expect(names).To(ConsistOf(harness.PlanFile, harness.ResultsFile))
	})
})

var _ = Describe("a label filter that selects nothing", func() {
	c := runCases(10)
	var existing []string
	for _, v := range []string{"v1", "v2"} {
		for i := range c {
			existing = append(existing, harness.Labels(v, &c[i])...)
		}
	}

	It("names the unknown label with the nearest existing one and lists labels by kind", func() {
		err := harness.NoMatchError("suite:adversrial && lang:zh", 8, existing)
		Expect(err).To(MatchError(HavePrefix(`--label-filter "suite:adversrial && lang:zh" matches none of the 8 (version, case) pairs; no case has label "suite:adversrial" (did you mean "suite:adversarial"?). Labels that exist:`)))
		Expect(err.Error()).To(ContainSubstring("\n  suite:   suite:adversarial, suite:boundary, suite:normal"))
		Expect(err.Error()).To(ContainSubstring("\n  version: version:v1, version:v2"))
		Expect(err.Error()).To(ContainSubstring("\n  skill:   skill:query_orders_by_region, skill:refund_order"))
		Expect(err.Error()).To(ContainSubstring("\n  lang:    lang:en, lang:zh"))
		Expect(err.Error()).To(ContainSubstring("\n  tags:    en, ids, zh"))
		Expect(err.Error()).NotTo(ContainSubstring(`"lang:zh" (did`), "known labels are not called unknown")
	})

	It("says when every label exists but their combination selects nothing", func() {
		err := harness.NoMatchError("lang:zh && skill:refund_order && !/^x/", 8, existing)
		Expect(err).To(MatchError(ContainSubstring("each label in it exists, but no pair carries that combination")))
	})

	It("offers no guess for a label far from every existing one", func() {
		err := harness.NoMatchError("completely-different || skill: containsAny {nope}", 8, existing)
		Expect(err).To(MatchError(ContainSubstring(`no case has label "completely-different". Labels`)))
	})
})
