package harness_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
)

var _ = Describe("plan.json written case by case", func() {
	// The hash as it was always computed: sha256 over one JSON value of
	// the versions (without Dir) and the cases.
	wholeHash := func(p harness.Plan) string {
		vs := make([]harness.PlanVersion, len(p.Versions))
		for i, v := range p.Versions {
			vs[i] = harness.PlanVersion{ID: v.ID, Fingerprint: v.Fingerprint}
		}
		b, err := json.Marshal(struct {
			Versions []harness.PlanVersion
			Cases    []harness.PlanCase
		}{vs, p.Cases})
		Expect(err).NotTo(HaveOccurred())
		sum := sha256.Sum256(b)
		return hex.EncodeToString(sum[:])
	}

	DescribeTable("is byte for byte what json.MarshalIndent wrote, with the same hash",
		func(cases []harness.PlanCase) {
			p := harness.Plan{
				Format: harness.FormatVersion, Shard: harness.Shard{Index: 2, Count: 3},
				Versions: []harness.PlanVersion{{ID: "v1@0000aaaa", Fingerprint: "aaaa", Dir: "prompts/v1"}, {ID: "v2@0000bbbb", Fingerprint: "bbbb"}},
				Cases:    cases,
				Suites:   []string{"suites/a.yaml", `odd "cases": [] name`},
			}
			p.Hash = wholeHash(p)
			path := filepath.Join(GinkgoT().TempDir(), harness.PlanFile)
			Expect(harness.WritePlanFile(path, p)).To(Succeed())
			got, err := os.ReadFile(path)
			Expect(err).NotTo(HaveOccurred())
			want, err := json.MarshalIndent(p, "", "  ")
			Expect(err).NotTo(HaveOccurred())
			Expect(string(got)).To(Equal(string(want) + "\n"))
			back, err := harness.ReadPlanFile(path) // checks the hash
			Expect(err).NotTo(HaveOccurred())
			Expect(back.Hash).To(Equal(p.Hash))
		},
		Entry("no cases (null)", nil),
		Entry("an empty case list", []harness.PlanCase{}),
		Entry("one case", []harness.PlanCase{{ID: "a-1", Hash: "h1"}}),
		Entry("cases, some under a subset of the versions, one id with quotes and <html>",
			[]harness.PlanCase{{ID: "a-1", Hash: "h1"}, {ID: `b "2" <x>&`, Hash: "h2", Versions: []int{1}}, {ID: "c-3", Hash: "h3", Versions: []int{0, 1}}}),
		Entry("ids in Chinese, with a line separator and a tab",
			[]harness.PlanCase{{ID: "订单-1", Hash: "h1", Versions: []int{0}}, {ID: "a\u2028b\tc", Hash: "h2"}}),
	)
})
