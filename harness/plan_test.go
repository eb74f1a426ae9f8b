package harness_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/internal/inputfile"
)

var _ = Describe("plan.json written case by case", func() {
	DescribeTable("is byte for byte what json.MarshalIndent wrote, with the same hash",
		func(cases []harness.PlanCase) {
			p := harness.Plan{
				Format: harness.PlanFormat, Shard: harness.Shard{Index: 2, Count: 3}, ShardCases: []int{4, len(cases), 1},
				Hash:     strings.Repeat("5e", 32), // the whole plan's: a shard's plan is checked by its PartHash
				Versions: []harness.PlanVersion{{ID: "v1@0000aaaa", Fingerprint: "aaaa", Dir: "prompts/v1", Description: "made up: \"quoted\" <b>"}, {ID: "v2@0000bbbb", Fingerprint: "bbbb"}},
				Cases:    cases,
				Suites:   []string{"suites/a.yaml", `odd "cases": [] name`},
			}
			p.PartHash = refPartHash(p)
			path := filepath.Join(GinkgoT().TempDir(), harness.PlanFile)
			Expect(harness.WritePlanFile(path, p)).To(Succeed())
			got, err := os.ReadFile(path)
			Expect(err).NotTo(HaveOccurred())
			want, err := json.MarshalIndent(p, "", "  ")
			Expect(err).NotTo(HaveOccurred())
			Expect(string(got)).To(Equal(string(want) + "\n"))
			back, err := harness.ReadPlanFile(path) // checks the hash
			Expect(err).NotTo(HaveOccurred())
			Expect(back).To(Equal(p))
			var viaUnmarshal harness.Plan
			Expect(json.Unmarshal(got, &viaUnmarshal)).To(Succeed())
			Expect(back).To(Equal(viaUnmarshal))
		},
		Entry("no cases (null)", nil),
		Entry("an empty case list", []harness.PlanCase{}),
		Entry("one case, first in the whole plan (its seq 0 is not written)", []harness.PlanCase{{ID: "a-1", Hash: "h1"}}),
		Entry("cases, some under a subset of the versions, one id with quotes and <html>",
			[]harness.PlanCase{{ID: "a-1", Hash: "h1", Seq: 2}, {ID: `b "2" <x>&`, Hash: "h2", Versions: []int{1}, Seq: 5}, {ID: "c-3", Hash: "h3", Versions: []int{0, 1}, Seq: 9}}),
		Entry("ids in Chinese, with a line separator and a tab",
			[]harness.PlanCase{{ID: "订单-1", Hash: "h1", Versions: []int{0}, Seq: 1}, {ID: "a\u2028b\tc", Hash: "h2", Seq: 1234567}}),
	)
})

var _ = Describe("plan.json read a case at a time", func() {
	plan := func(cases int) harness.Plan {
		p := harness.Plan{Format: harness.PlanFormat, Versions: []harness.PlanVersion{{ID: "v1@0000aaaa", Fingerprint: "aaaa", Description: "made up"}}}
		p.Cases = make([]harness.PlanCase, cases)
		for i := range p.Cases {
			p.Cases[i] = harness.PlanCase{ID: fmt.Sprintf("made-up-case-%07d", i), Hash: strings.Repeat("0123456789abcdef", 4)}
		}
		return p
	}
	withHash := func(p harness.Plan) harness.Plan {
		p.Hash = refPlanHash(p)
		return p
	}

	It("reads a plan larger than any input file may be (a run of about half a million cases)", func() {
		p := withHash(plan(int(inputfile.DefaultLimit/120) + 1000))
		path := filepath.Join(GinkgoT().TempDir(), harness.PlanFile)
		Expect(harness.WritePlanFile(path, p)).To(Succeed())
		info, err := os.Stat(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(info.Size()).To(BeNumerically(">", inputfile.DefaultLimit))
		back, err := harness.ReadPlanFile(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(back.Cases).To(HaveLen(len(p.Cases)))
		Expect(back.Cases[len(p.Cases)-1]).To(Equal(p.Cases[len(p.Cases)-1]))
	})

	It("reads what json.Unmarshal reads: any case of field names, unknown fields skipped, the last of a repeated one", func() {
		p := withHash(plan(2))
		b, err := json.Marshal(p)
		Expect(err).NotTo(HaveOccurred())
		var generic map[string]any
		Expect(json.Unmarshal(b, &generic)).To(Succeed())
		text := fmt.Sprintf(`{"FORMAT": %d, "unknown": {"a": [1, {"b": null}]}, "hash": "stale", "Hash": %q, "shard": {"index": 0, "count": 0},
			"versions": [{"id": "x@1", "fingerprint": "1"}], "versions": %s, "cases": %s, "suites": null}`+"\n",
			p.Format, p.Hash, mustJSON(generic["versions"]), mustJSON(generic["cases"]))
		path := filepath.Join(GinkgoT().TempDir(), harness.PlanFile)
		Expect(os.WriteFile(path, []byte(text), 0o644)).To(Succeed())
		back, err := harness.ReadPlanFile(path)
		Expect(err).NotTo(HaveOccurred())
		var viaUnmarshal harness.Plan
		Expect(json.Unmarshal([]byte(text), &viaUnmarshal)).To(Succeed())
		Expect(back).To(Equal(viaUnmarshal))
		Expect(back).To(Equal(p))
	})

	// json.Unmarshal leaves Cases nil when the field is absent, and decodes
	// a repeated versions field into the elements the first one left (a
	// field the second lacks keeps the first's value): the hash is over
	// what it reads, so a reader that differs takes other files.
	DescribeTable("reads as json.Unmarshal reads what routebench never writes, and checks the hash over that",
		func(text string) {
			var viaUnmarshal harness.Plan
			Expect(json.Unmarshal([]byte(text), &viaUnmarshal)).To(Succeed())
			text = strings.ReplaceAll(text, "HASH", refPlanHash(viaUnmarshal))
			Expect(json.Unmarshal([]byte(text), &viaUnmarshal)).To(Succeed())
			text = strings.ReplaceAll(text, "PSUM", refPartHash(viaUnmarshal))
			Expect(json.Unmarshal([]byte(text), &viaUnmarshal)).To(Succeed())
			path := filepath.Join(GinkgoT().TempDir(), harness.PlanFile)
			Expect(os.WriteFile(path, []byte(text), 0o644)).To(Succeed())
			back, err := harness.ReadPlanFile(path)
			Expect(err).NotTo(HaveOccurred())
			Expect(back).To(Equal(viaUnmarshal))
			merged, err := harness.ReadPlanFileAsMerged(path)
			Expect(err).NotTo(HaveOccurred())
			Expect(merged).To(Equal(viaUnmarshal))
		},
		Entry("no cases field (nil, hashed as null)", `{"format": 2, "hash": "HASH", "versions": [{"id": "v@1", "fingerprint": "1"}]}`),
		Entry("versions after the cases (merge's reader hashes the cases again)",
			`{"format": 2, "hash": "HASH", "cases": [{"id": "a", "hash": "h"}], "versions": [{"id": "v@1", "fingerprint": "1"}]}`),
		Entry("versions before the cases and again after them, the second over the first",
			`{"format": 2, "hash": "HASH", "versions": [{"id": "v@1", "fingerprint": "1"}], "cases": [{"id": "a", "hash": "h"}, {"id": "b", "hash": "h"}], "versions": [{"id": "w@2"}]}`),
		Entry("a shard's plan whose shard comes after its cases (merge's reader hashes the cases again, as a part)",
			`{"format": 2, "hash": "5e", "part_hash": "PSUM", "cases": [{"id": "a", "hash": "h", "seq": 3}], "shard": {"index": 2, "count": 4}, "shard_cases": [0, 1, 0, 0]}`),
		Entry("a repeated versions field whose second lacks a fingerprint",
			`{"format": 2, "hash": "HASH", "versions": [{"id": "v@1", "fingerprint": "1", "dir": "d"}], "versions": [{"id": "w@1"}], "cases": []}`),
	)

	DescribeTable("refuses a repeated cases field, whatever the second holds (json.Unmarshal would keep the last, but the first was read)",
		func(second string) {
			text := `{"format": 2, "hash": "HASH", "cases": [{"id": "a", "hash": "h"}], "cases": ` + second + `}`
			var viaUnmarshal harness.Plan
			Expect(json.Unmarshal([]byte(text), &viaUnmarshal)).To(Succeed())
			for _, hashed := range []harness.Plan{viaUnmarshal, {Cases: []harness.PlanCase{{ID: "a", Hash: "h"}}}} {
				path := filepath.Join(GinkgoT().TempDir(), harness.PlanFile)
				Expect(os.WriteFile(path, []byte(strings.ReplaceAll(text, "HASH", refPlanHash(hashed))), 0o644)).To(Succeed())
				_, err := harness.ReadPlanFile(path)
				Expect(err).To(MatchError(ContainSubstring(path + ": not a plan record: cases: given twice")))
				_, err = harness.ReadPlanFileAsMerged(path)
				Expect(err).To(MatchError(ContainSubstring(path + ": not a plan record: cases: given twice")))
			}
		},
		Entry("empty", `[]`),
		Entry("null", `null`),
		Entry("a case", `[{"id": "b", "hash": "h"}]`),
	)

	DescribeTable("refuses what is not a plan record, naming the file",
		func(text, why string) {
			path := filepath.Join(GinkgoT().TempDir(), harness.PlanFile)
			Expect(os.WriteFile(path, []byte(text), 0o644)).To(Succeed())
			_, err := harness.ReadPlanFile(path)
			Expect(err).To(MatchError(ContainSubstring(path + ": not a plan record")))
			Expect(err).To(MatchError(ContainSubstring(why)))
			var p harness.Plan
			Expect(json.Unmarshal([]byte(text), &p)).NotTo(Succeed(), "json.Unmarshal refuses it too")
		},
		Entry("an array", `[]`, "want {"),
		Entry("cases not an array", `{"cases": "many"}`, "cases: want an array"),
		Entry("a case not an object", `{"cases": [{"id": "a", "hash": "h"}, 7]}`, "cases: case 2"),
		Entry("cut short", `{"format": 2, "cases": [{"id": "a"`, "cases: case 1"),
		Entry("a second value after it", `{"format": 2} {}`, "more after the plan's closing brace"),
		Entry("a wrong type", `{"format": "one"}`, "format:"),
	)

	DescribeTable("ReadPlanVersions reads the versions before the first case",
		func(text string, want []harness.PlanVersion, why string) {
			path := filepath.Join(GinkgoT().TempDir(), harness.PlanFile)
			Expect(os.WriteFile(path, []byte(text), 0o644)).To(Succeed())
			got, err := harness.ReadPlanVersions(path)
			if why != "" {
				Expect(err).To(MatchError(ContainSubstring(why)))
				return
			}
			Expect(err).NotTo(HaveOccurred())
			Expect(got).To(Equal(want))
		},
		Entry("as routebench writes a plan, a broken case after them unread",
			`{"format": 2, "hash": "x", "versions": [{"id": "v1@ab", "fingerprint": "abcd", "description": "made up"}], "cases": [{"id": "a"}, 7`,
			[]harness.PlanVersion{{ID: "v1@ab", Fingerprint: "abcd", Description: "made up"}}, ""),
		Entry("no cases", `{"versions": [{"id": "v1@ab", "fingerprint": "abcd"}]}`, []harness.PlanVersion{{ID: "v1@ab", Fingerprint: "abcd"}}, ""),
		Entry("versions after the cases", `{"cases": [{"id": "a", "hash": "h"}], "versions": [{"id": "v1@ab"}]}`, nil, "no versions before its cases"),
		Entry("not a plan", `{"versions": 7}`, nil, "not a plan record"),
	)

	It("says a missing plan predates plan records, and refuses a directory", func() {
		dir := GinkgoT().TempDir()
		_, err := harness.ReadPlanFile(filepath.Join(dir, harness.PlanFile))
		Expect(err).To(MatchError(os.ErrNotExist))
		Expect(err).To(MatchError(ContainSubstring("predates plan records")))
		_, err = harness.ReadPlanFile(dir)
		Expect(err).To(MatchError(inputfile.ErrNotRegular))
	})
})

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	Expect(err).NotTo(HaveOccurred())
	return string(b)
}
