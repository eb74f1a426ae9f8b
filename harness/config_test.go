package harness_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/router"
)

var _ = Describe("ParseConfig", func() {
	It("reads versions and suites relative to the config file", func() {
		cfg, err := harness.ParseConfig("conf/routebench.yaml", []byte(`versions: [prompts/v1, "git:origin/main:prompts/v2", /abs/v3]
suites: [suites/ops]
gate:
  thresholds: [decision_accuracy >= 0.85]
`))
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.Path).To(Equal("conf/routebench.yaml"))
		Expect(cfg.Versions).To(Equal([]string{"conf/prompts/v1", "git:origin/main:prompts/v2", "/abs/v3"}))
		Expect(cfg.Suites).To(Equal([]string{"conf/suites/ops"}))
		Expect(cfg.Gate.Thresholds).To(HaveLen(1))
	})

	It("rejects unknown top-level keys with file and line", func() {
		_, err := harness.ParseConfig("routebench.yaml", []byte("versions: [a]\nsuits: [b]\ngate: 3\n"))
		Expect(problemLines(err)).To(Equal([]string{
			`routebench.yaml:2: suits: unknown field; did you mean "suites"? known fields here: versions, suites, gate`,
			`routebench.yaml:3: gate: column 7: must be a mapping with thresholds and regression, got a number (3)`,
		}))
	})

	It("accepts an empty gate block", func() {
		cfg, err := harness.ParseConfig("r.yaml", []byte("versions: [a]\nsuites: [b]\ngate:\n"))
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.Gate).To(BeZero())
	})
})

var _ = Describe("Labels", func() {
	It("label a (version, case) by suite, version, expected skills, language and tags", func() {
		c := &harness.Case{Suite: "boundary", Input: "华东区最近怎么样", Tags: []string{"region", "dates"},
			Expect: harness.Expect{Action: router.Clarify, Candidates: []string{"query_orders_by_region", "query_alerts_by_zone"}}}
		Expect(harness.Labels("v2", c)).To(Equal([]string{"suite:boundary", "version:v2",
			"skill:query_orders_by_region", "skill:query_alerts_by_zone", "lang:zh", "region", "dates"}))
		c.Tags = []string{"en"}
		Expect(harness.Labels("v1", c)).To(ContainElement("lang:en"), "a lang tag wins over the text")
	})

	It("filter with Ginkgo's label syntax", func() {
		f, err := harness.LabelFilter("suite:adversarial && !lang:en")
		Expect(err).NotTo(HaveOccurred())
		Expect(f([]string{"suite:adversarial", "lang:zh"})).To(BeTrue())
		Expect(f([]string{"suite:adversarial", "lang:en"})).To(BeFalse())
	})
})

var _ = Describe("ParseShard", func() {
	It("reads i/n and partitions case ids", func() {
		s, err := harness.ParseShard("2/3")
		Expect(err).NotTo(HaveOccurred())
		Expect(s).To(Equal(harness.Shard{Index: 2, Count: 3}))
		for _, bad := range []string{"0/3", "4/3", "3", "a/b", "1/0"} {
			_, err := harness.ParseShard(bad)
			Expect(err).To(HaveOccurred(), bad)
		}
		// A shard's plan counts every shard's cases: a split into ever
		// more shards is refused, not allocated.
		_, err = harness.ParseShard(fmt.Sprintf("1/%d", harness.MaxShards))
		Expect(err).NotTo(HaveOccurred())
		_, err = harness.ParseShard("1/100000000000")
		Expect(err).To(MatchError(ContainSubstring(`shard "1/100000000000": at most 10000 shards`)))
		hits := 0
		for i := 1; i <= 3; i++ {
			if (harness.Shard{Index: i, Count: 3}).Has("case-001") {
				hits++
			}
		}
		Expect(hits).To(Equal(1))
	})
})
