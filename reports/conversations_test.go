package reports_test

import (
	"bytes"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/reports"
	"github.com/routebench/routebench/router"
)

// convResult is a made-up three-turn conversation: a clarify that passed,
// a follow-up decided as clarify where an execute was expected, and a
// silent turn refused as expected. The user's second turn is hostile text.
func convResult(version string) harness.Result {
	hostile := `<img src=x onerror=alert(1)> mornings`
	trace := func(choice string) []router.TraceStep {
		return []router.TraceStep{{Stage: "recall", Top: []string{"book_room", "list_rooms"}}, {Stage: "judge", Provider: "builtin", Choice: choice}}
	}
	turns := []harness.TurnResult{
		{Input: "book a room", Expect: harness.Expect{Action: router.Clarify, Skill: "book_room"},
			Decision: router.Decision{Action: router.Clarify, Skill: "book_room", Confidence: 0.7, Stage: "judge", Trace: trace("book_room"), LatencyUS: 40}, Pass: true},
		{Input: hostile, Expect: harness.Expect{Action: router.Execute, Skill: "book_room"},
			Decision: router.Decision{Action: router.Clarify, Skill: "book_room", Confidence: 0.6, Stage: "judge", Trace: trace("book_room"), LatencyUS: 50},
			Failure:  harness.FailWrongBand},
		{Input: "", Expect: harness.Expect{Action: router.Refuse},
			Decision: router.Decision{Action: router.Refuse, Stage: "policy", LatencyUS: 5}, Pass: true},
	}
	return harness.Result{Format: 1, Version: version, Case: "conv-rooms", CaseHash: "h", Suite: "boundary", Tags: []string{"conversation"},
		Input: hostile, Expect: turns[1].Expect, Decision: turns[1].Decision, Failure: harness.FailWrongBand, FailedTurn: 2,
		Turns: turns, LatencyUS: 95}
}

var _ = Describe("conversations in reports", func() {
	It("give JUnit one testcase per conversation, its failure naming the turn, its body every turn", func() {
		var b bytes.Buffer
		Expect(reports.WriteJUnit(&b, []harness.Result{convResult("v@1")})).To(Succeed())
		x := b.String()
		Expect(strings.Count(x, "<testcase ")).To(Equal(1))
		Expect(x).To(ContainSubstring(`name="conv-rooms"`))
		Expect(x).To(ContainSubstring(`message="turn 2 of 3: expected execute book_room, decided clarify book_room (confidence 0.600)"`))
		Expect(x).To(ContainSubstring(`type="wrong_band"`))
		Expect(x).To(ContainSubstring("--- turn 1 of 3 (pass)"))
		Expect(x).To(ContainSubstring("--- turn 2 of 3 (failed: wrong_band)"))
		Expect(x).To(ContainSubstring("input: (the user said nothing)"))
	})

	It("show a conversation in the HTML report as its turns, each with input, decision and trace, escaped and deterministic", func() {
		rs := []harness.Result{convResult("v@1")}
		in := reports.Input{Results: rs, Summary: harness.Score(rs)}
		html := renderHTML(in)
		Expect(renderHTML(in)).To(Equal(html))
		Expect(html).NotTo(ContainSubstring("<img src=x"))
		data := caseDataOf(html)
		c := data["c"].([]any)[0].(map[string]any)
		turns := c["tu"].([]any)
		Expect(turns).To(HaveLen(3))
		Expect(turns[1].(map[string]any)["in"]).To(Equal(`<img src=x onerror=alert(1)> mornings`))
		Expect(turns[2].(map[string]any)).NotTo(HaveKey("in"), "a silent turn has no text")
		r := c["r"].([]any)[0].(map[string]any)
		Expect(r["ft"]).To(BeEquivalentTo(2))
		decided := r["tu"].([]any)
		Expect(decided).To(HaveLen(3))
		Expect(decided[1].(map[string]any)).To(HaveKey("tr"), "each turn keeps its trace")
		Expect(c["in"]).To(Equal("book a room → <img src=x onerror=alert(1)> mornings → …"))
		// The metric table carries the conversation metrics.
		Expect(html).To(ContainSubstring("conversation success rate"))
		Expect(html).To(ContainSubstring("turn accuracy (conversations)"))
	})

	It("encode conversation turns exactly as json.Marshal does", func() {
		rs := []harness.Result{convResult("v@1"), convResult("v@2")}
		rs[1].Turns[0].Input = "book a room\u2028</script>"
		own, reference, err := reports.CaseDataForTest([]string{"v@1", "v@2"}, rs)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(own)).To(Equal(string(reference)))
		Expect(string(own)).To(ContainSubstring(`"tu":[`))
	})

	It("list the conversation metrics in summary.md only when a version has conversations", func() {
		rs := []harness.Result{convResult("v@1")}
		var with, without bytes.Buffer
		Expect(reports.WriteMarkdown(&with, reports.Input{Results: rs, Summary: harness.Score(rs)})).To(Succeed())
		single := []harness.Result{{Format: 1, Version: "v@1", Case: "s", Suite: "normal", Tags: []string{},
			Expect: harness.Expect{Action: router.Refuse}, Decision: router.Decision{Action: router.Refuse}, Pass: true}}
		Expect(reports.WriteMarkdown(&without, reports.Input{Results: single, Summary: harness.Score(single)})).To(Succeed())
		Expect(with.String()).To(ContainSubstring("conversation success rate"))
		Expect(with.String()).To(ContainSubstring("turn accuracy (conversations)"))
		Expect(without.String()).NotTo(ContainSubstring("conversation success rate"))
	})
})
