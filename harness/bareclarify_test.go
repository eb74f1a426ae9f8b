package harness_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/router"
)

// DESIGN §5: `expect: {action: clarify}` alone is valid, and any
// clarification passes it; candidates or skill make it stricter.
var _ = Describe("A bare clarify expectation", func() {
	const suite = `suite: boundary
cases:
  - id: vague-1
    input: how are things looking
    expect: {action: clarify}
  - id: vague-2
    input: do the thing from before
    expect: {action: clarify, never: [delete_test_data]}
`
	var cases []harness.Case
	BeforeEach(func() {
		var err error
		cases, err = harness.ParseSuite("vague.yaml", []byte(suite), testRegistry())
		Expect(err).NotTo(HaveOccurred())
	})

	It("loads, with nothing but the action (and never) set", func() {
		Expect(cases[0].Expect).To(Equal(harness.Expect{Action: router.Clarify}))
		Expect(cases[1].Expect).To(Equal(harness.Expect{Action: router.Clarify, Never: []string{"delete_test_data"}}))
	})

	DescribeTable("is passed by any clarification and failed by anything else",
		func(d router.Decision, pass bool, failure string) {
			c := cases[0]
			c.Caller = fullCaller // acting is then a wrong band, not a policy violation
			v := harness.Check(&c, d, testRegistry())
			Expect(v.Pass).To(Equal(pass), "%v", v.Problems)
			Expect(v.Failure).To(Equal(failure))
			ind := harness.Indicators(harness.Result{Expect: cases[0].Expect, Decision: d, Pass: v.Pass, Failure: v.Failure})
			Expect(ind).To(HaveKeyWithValue(harness.DecisionAccuracy, pass))
			Expect(ind).To(HaveKeyWithValue(harness.ClarifyRecall, d.Action == router.Clarify))
		},
		Entry("a question offering two skills", clarifyOffering("query_orders_by_region", "query_alerts_by_zone"), true, ""),
		Entry("a question offering one skill", clarifyOffering("refund_order"), true, ""),
		Entry("a question offering nothing", decide(router.Clarify, "", 0.5), true, ""),
		Entry("acting instead", decide(router.Execute, "query_orders_by_region", 0.9), false, harness.FailWrongBand),
		Entry("refusing instead", decide(router.Refuse, "", 0.3), false, harness.FailFalseRefusal),
	)
})
