package router

import (
	g "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = g.Describe("classifyReply", func() {
	g.DescribeTable("reads assent and refusal from general words, whole words only, refusal winning",
		func(text string, want reply, only bool) {
			got, gotOnly := classifyReply(text)
			Expect(got).To(Equal(want), "%q", text)
			Expect(gotOnly).To(Equal(only), "%q only", text)
		},
		g.Entry(nil, "yes", replyYes, true),
		g.Entry(nil, "Sure, go ahead!", replyYes, true),
		g.Entry(nil, "好的", replyYes, true),
		g.Entry(nil, "可以，执行吧", replyYes, true),
		g.Entry(nil, "不行", replyNo, true),
		g.Entry(nil, "不可以", replyNo, true),
		g.Entry(nil, "别", replyNo, true),
		g.Entry(nil, "no thanks", replyNo, true),
		g.Entry(nil, "don't do it", replyNo, true),
		g.Entry(nil, "ok, cancel", replyNo, true),
		g.Entry("a word that holds yes", "yesterday's deliveries", replyNeither, false),
		g.Entry("a word that holds no", "I know nothing", replyNeither, false),
		g.Entry("是 inside a word", "但是港口仓呢", replyNeither, false),
		g.Entry("yes beside content", "yes, and the airport depot too", replyYes, false),
		g.Entry("no at the start of content", "不，改成机场仓", replyNo, false),
		g.Entry(nil, "", replyNeither, false),
	)
})
