package harness_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
	"github.com/routebench/routebench/workflow"
)

// The workflow specs use testdata/wf: a made-up library domain (find_book,
// check_member, hold_book, mail_member) and one workflow, hold_and_mail.

func wfVersion() *registry.Version {
	data, err := os.ReadFile("testdata/wf/skills.yaml")
	Expect(err).NotTo(HaveOccurred())
	skills, err := registry.ParseSkills("testdata/wf/skills.yaml", data)
	Expect(err).NotTo(HaveOccurred())
	reg, err := registry.New(skills)
	Expect(err).NotTo(HaveOccurred())
	raw, err := os.ReadFile("testdata/wf/workflows.yaml")
	Expect(err).NotTo(HaveOccurred())
	return &registry.Version{Name: "lib", Fingerprint: "0badcafe", Dir: "testdata/wf", Registry: reg, WorkflowsRaw: raw}
}

// scriptRouter decides from the request text; anything unknown is refused.
type scriptRouter map[string]router.Decision

func (s scriptRouter) Route(_ context.Context, req router.Request) (router.Decision, error) {
	if d, ok := s[req.Text]; ok {
		return d, nil
	}
	return decide(router.Refuse, "", 0.2), nil
}

var libRouter = scriptRouter{
	"hold Dune for M-1 and mail them": withGate(withParams(decide(router.Confirm, "hold_and_mail", 0.95),
		map[string]any{"title": "Dune", "member": "M-1"}), registry.GateNormal),
	"find Dune": withParams(decide(router.Execute, "find_book", 0.97), map[string]any{"title": "Dune"}),
}

const wfSuiteHead = `suite: normal
defaults:
  caller: {scopes: [lib:read, lib:write, mail:send]}
  now: "2026-11-30T10:00:00+08:00"
cases:
`

// happyTools answer every node of hold_and_mail.
const happyTools = `    tools_sim:
      find_book: [{ok: {book_id: B-7, shelf: S1}}]
      check_member: [{ok: {member: M-1}}]
      hold_book: [{ok: {held: true}}]
      mail_member: [{ok: {sent: true}}]
    confirm: {answer: yes}
`

func wfCases(body string) []harness.Case {
	vw, err := harness.PrepareWorkflows(wfVersion())
	Expect(err).NotTo(HaveOccurred())
	cases, err := harness.ParseSuite("wf.yaml", []byte(wfSuiteHead+body), vw.Routing)
	Expect(err).NotTo(HaveOccurred())
	return cases
}

func wfProblems(body string) []string {
	vw, err := harness.PrepareWorkflows(wfVersion())
	Expect(err).NotTo(HaveOccurred())
	_, err = harness.ParseSuite("wf.yaml", []byte(wfSuiteHead+body), vw.Routing)
	Expect(err).To(HaveOccurred())
	return problemLines(err)
}

// evaluate runs one case of body through the scripted router and engine.
func evaluate(body string) (harness.Result, harness.Verdict) {
	v := wfVersion()
	vw, err := harness.PrepareWorkflows(v)
	Expect(err).NotTo(HaveOccurred())
	cases := wfCases(body)
	Expect(cases).To(HaveLen(1))
	res, verdict, err := harness.EvaluateCase(context.Background(), libRouter, v, vw, &cases[0], 0)
	Expect(err).NotTo(HaveOccurred())
	return res, verdict
}

func wfCase(input, scripts, expect string) string {
	return fmt.Sprintf("  - id: c1\n    input: %s\n%s    expect: %s\n", input, scripts, expect)
}

const holdInput = "hold Dune for M-1 and mail them"

var _ = Describe("workflow cases", func() {
	It("load tools_sim, model_script, confirm and resume, and hash them", func() {
		cs := wfCases(wfCase(holdInput, happyTools, "{action: confirm, skill: hold_and_mail, outcome: completed}") +
			"  - id: c2\n    input: " + holdInput + "\n" + strings.Replace(happyTools, "B-7", "B-8", 1) +
			"    model_script: [{claim: success}]\n    resume: {confirm: {answer: no}}\n" +
			"    expect: {outcome: completed, calls: [], resume: {outcome: completed, skipped: [find]}}\n")
		Expect(cs[0].Workflow).NotTo(BeNil())
		Expect(cs[0].Workflow.Tools).To(HaveKey("hold_book"))
		Expect(cs[1].Workflow.Model).To(HaveLen(1))
		Expect(cs[1].Workflow.Resume).NotTo(BeNil())
		Expect(*cs[1].Expect.Calls).To(BeEmpty(), "calls: [] expects no call at all")
		Expect(cs[0].Hash).NotTo(Equal(cs[1].Hash))
	})

	It("make a case with workflow expectations but no tools_sim a workflow case scripting no tool", func() {
		cs := wfCases(wfCase("nothing", "", "{action: refuse, outcome: refused, calls: []}"))
		Expect(cs[0].Workflow).NotTo(BeNil())
		Expect(cs[0].Workflow.Tools).To(BeEmpty())
	})

	It("report every problem with file:line and what to write", func() {
		body := wfCase(holdInput, `    tools_sim:
      find_bok: [{ok: {}}]
      hold_book: [{fault: timout}]
`, `
      outcome: done
      stoped_at: hold
      side_effects: -1
      reason: dom_loop
      resume: {outcome: completed}
      retries: [hold]`)
		Expect(wfProblems(body)).To(Equal([]string{
			`wf.yaml:9: cases[0].tools_sim.find_bok: unknown skill "find_bok"; did you mean "find_book"?`,
			`wf.yaml:10: cases[0].tools_sim.hold_book[0].fault: unknown fault "timout"; did you mean timeout? use timeout, rate_limited, server_error, client_error, empty, malformed, unavailable`,
			`wf.yaml:12: cases[0].expect.outcome: "done" is not one of them; use one of completed, stopped, failed, refused, awaiting_confirmation`,
			`wf.yaml:13: cases[0].expect.stoped_at: unknown field; did you mean "stopped_at"? known fields here: action, skill, gate, params, candidates, never, outcome, stopped_at, reason, error_code, calls, retries, side_effects, skill_used, resume`,
			`wf.yaml:14: cases[0].expect.side_effects: must be a whole number >= 0, got a number (-1)`,
			`wf.yaml:15: cases[0].expect.reason: "dom_loop" is not one of them; did you mean "doom_loop"? use one of tool_error, malformed, unavailable, params_invalid, missing_input, no_matching_case, permission_denied, skill_disabled, permission_revoked, confirmation_declined, confirmation_timeout, irreversible_bulk, doom_loop, model_step_limit, awaiting_confirmation, not_routed`,
			`wf.yaml:16: cases[0].expect.resume: expects a second run, but the case has no resume: {tools_sim: ..., confirm: ...}; add it`,
			`wf.yaml:17: cases[0].expect.retries: must be a mapping of node id to its retries, e.g. {alerts: 1}; got a list`,
		}))
	})

	It("name the nodes of the expected workflow, with a did-you-mean", func() {
		body := "  - id: c1\n    input: " + holdInput + "\n" + happyTools + "    resume: {tools_sim: {hold_book: [{ok: {held: true}}]}}\n" + `    expect:
      skill: hold_and_mail
      stopped_at: hodl
      retries: {find: 1, nonode: 1}
      resume: {outcome: completed, skipped: [find, membr]}
`
		Expect(wfProblems(body)).To(Equal([]string{
			`wf.yaml:17: cases[0].expect.stopped_at: "hodl" is not a node of hold_and_mail; did you mean "hold"? its nodes are find, member, hold, mail`,
			`wf.yaml:18: cases[0].expect.retries.nonode: "nonode" is not a node of hold_and_mail; its nodes are find, member, hold, mail`,
			`wf.yaml:19: cases[0].expect.resume.skipped[1]: "membr" is not a node of hold_and_mail; did you mean "member"? its nodes are find, member, hold, mail`,
		}))
		// A model's own step, a stop at the params, and a plain skill's one node are names too.
		Expect(wfCases(wfCase(holdInput, happyTools, `{skill: hold_and_mail, stopped_at: "model:hold_book", retries: {"model:find_book": 1}}`))).To(HaveLen(1))
		Expect(wfCases(wfCase(holdInput, happyTools, `{skill: hold_and_mail, stopped_at: params}`))).To(HaveLen(1))
		Expect(wfCases(wfCase("find Dune", happyTools, `{skill: find_book, stopped_at: find_book, retries: {find_book: 1}}`))).To(HaveLen(1))
	})

	It("refuse gate, params and candidates without an action", func() {
		Expect(wfProblems(wfCase(holdInput, happyTools, "{skill: hold_and_mail, gate: normal}"))).To(ConsistOf(
			ContainSubstring("cases[0].expect.gate: needs action")))
	})
})

// expectation is one kind of workflow expectation, right and wrong.
type expectation struct {
	input, scripts, right, wrong, category string
}

var failing409 = `    tools_sim:
      find_book: [{ok: {book_id: B-7}}]
      check_member: [{ok: {member: M-1}}]
      hold_book: [{fault: client_error, code: 409, message: "already held"}]
    confirm: {answer: yes}
`

var retried = `    tools_sim:
      find_book: [{fault: timeout}, {ok: {book_id: B-7}}]
      check_member: [{ok: {member: M-1}}]
      hold_book: [{ok: {held: true}}]
      mail_member: [{ok: {sent: true}}]
    confirm: {answer: yes}
`

var emptyFind = `    tools_sim:
      find_book: [{fault: empty}]
      check_member: [{ok: {member: M-1}}]
    confirm: {answer: yes}
`

var resumed = `    tools_sim:
      find_book: [{ok: {book_id: B-7}}]
      check_member: [{ok: {member: M-1}}]
      hold_book: [{ok: {held: true}}]
      mail_member: [{fault: server_error, code: 503}]
    confirm: {answer: yes}
    resume:
      tools_sim:
        mail_member: [{ok: {sent: true}}]
`

var _ = DescribeTable("each workflow expectation",
	func(x expectation) {
		res, v := evaluate(wfCase(x.input, x.scripts, x.right))
		Expect(v.Problems).To(BeEmpty())
		Expect(v.Pass).To(BeTrue())
		Expect(res.Workflow).NotTo(BeNil())

		_, v = evaluate(wfCase(x.input, x.scripts, x.wrong))
		Expect(v.Pass).To(BeFalse())
		Expect(v.Failure).To(Equal(x.category), strings.Join(v.Problems, "\n"))
	},
	Entry("action and skill", expectation{holdInput, happyTools,
		"{action: confirm, skill: hold_and_mail}", "{action: execute, skill: find_book}", harness.FailRecallMiss}),
	Entry("skill alone", expectation{holdInput, happyTools,
		"{skill: hold_and_mail}", "{skill: hold_book}", harness.FailRecallMiss}),
	Entry("outcome", expectation{holdInput, happyTools,
		"{outcome: completed}", "{outcome: failed}", harness.FailWorkflowOutcome}),
	Entry("stopped_at", expectation{holdInput, failing409,
		"{stopped_at: hold}", "{stopped_at: mail}", harness.FailWorkflowOutcome}),
	Entry("reason", expectation{holdInput, failing409,
		"{reason: tool_error}", "{reason: doom_loop}", harness.FailWorkflowOutcome}),
	Entry("error_code, a number or text", expectation{holdInput, failing409,
		"{error_code: 409}", `{error_code: "500"}`, harness.FailWorkflowOutcome}),
	Entry("calls, in order", expectation{holdInput, happyTools,
		"{calls: [find_book, check_member, hold_book, mail_member]}", "{calls: [check_member, find_book, hold_book, mail_member]}", harness.FailCallSequence}),
	Entry("retries per node, exactly", expectation{holdInput, retried,
		"{retries: {find: 1}}", "{retries: {}}", harness.FailCallSequence}),
	Entry("side_effects", expectation{holdInput, happyTools,
		"{side_effects: 2}", "{side_effects: 1}", harness.FailCallSequence}),
	Entry("never", expectation{holdInput, failing409,
		"{never: [mail_member]}", "{never: [hold_book]}", harness.FailCallSequence}),
	Entry("skill_used of an empty result", expectation{holdInput, emptyFind,
		"{outcome: failed, skill_used: find_book}", "{skill_used: check_member}", harness.FailWorkflowOutcome}),
	Entry("resume", expectation{holdInput, resumed,
		"{outcome: failed, resume: {outcome: completed, skipped: [member, hold, find], calls: [mail_member]}}",
		"{resume: {skipped: [find]}}", harness.FailResume}),
	Entry("a refusal runs nothing", expectation{"nothing", "",
		"{action: refuse, outcome: refused, reason: not_routed, calls: []}", "{action: refuse, outcome: completed}", harness.FailWorkflowOutcome}),
	Entry("a plain skill runs as a one-node plan", expectation{"find Dune", "    tools_sim: {find_book: [{ok: {book_id: B-7}}]}\n",
		"{action: execute, skill: find_book, outcome: completed, calls: [find_book]}", "{calls: []}", harness.FailCallSequence}),
)

var _ = Describe("workflow results", func() {
	It("keep the router's decision, run at the plan-level gate, and consume confirm answers per node", func() {
		res, v := evaluate(wfCase(holdInput, happyTools, "{action: confirm, skill: hold_and_mail}"))
		Expect(v.Pass).To(BeTrue())
		Expect(res.Decision.Action).To(Equal(router.Confirm))
		Expect(res.Workflow.RunID).To(Equal("c1@lib@0badcafe"))
		Expect(res.Workflow.Confirmations).To(HaveLen(2), "hold and mail each asked")
		Expect(res.Workflow.Checkpoints.Written[0].Time.Format("2006-01-02")).To(Equal("2026-11-30"), "the manual clock starts at the case's now")
	})

	It("suspend at the first gate when the case scripts no confirm", func() {
		res, _ := evaluate(wfCase(holdInput, strings.Replace(happyTools, "    confirm: {answer: yes}\n", "", 1), "{outcome: awaiting_confirmation}"))
		Expect(res.Workflow.Outcome).To(Equal(workflow.AwaitingConfirmation))
		Expect(res.Workflow.SideEffectsExecuted()).To(Equal(0))
	})

	It("are the same bytes however many run at once (reads are sent in plan order)", func() {
		body := wfCase(holdInput, retried, "{outcome: completed}")
		first, _ := evaluate(body)
		first.LatencyUS = 0 // wall time, the one field that may differ
		want, err := json.Marshal(first)
		Expect(err).NotTo(HaveOccurred())
		var wg sync.WaitGroup
		got := make([][]byte, 16)
		for i := range got {
			wg.Go(func() {
				defer GinkgoRecover()
				r, _ := evaluate(body)
				r.LatencyUS = 0
				got[i], _ = json.Marshal(r)
			})
		}
		wg.Wait()
		for _, g := range got {
			Expect(string(g)).To(Equal(string(want)))
		}
	})

	It("round-trip through results.jsonl, expectations and outcomes included", func() {
		var results []harness.Result
		for _, body := range []string{
			wfCase(holdInput, resumed, "{calls: [], resume: {skipped: [find, member, hold], calls: [mail_member]}}"),
			wfCase("nothing", "", "{action: refuse, calls: []}"),
		} {
			r, _ := evaluate(body)
			results = append(results, r)
		}
		var buf bytes.Buffer
		Expect(harness.WriteResults(&buf, results)).To(Succeed())
		back, err := harness.DecodeResults(bytes.NewReader(buf.Bytes()), "results.jsonl")
		Expect(err).NotTo(HaveOccurred())
		Expect(back[0].Expect.Calls).NotTo(BeNil(), "calls: [] survives as an expectation of no calls")
		Expect(*back[0].Expect.Calls).To(BeEmpty())
		Expect(back[0].Resume).NotTo(BeNil())
		var again bytes.Buffer
		Expect(harness.WriteResults(&again, back)).To(Succeed())
		Expect(again.String()).To(Equal(buf.String()))
		Expect(harness.Score(back)).To(Equal(harness.Score(results)))
		Expect(harness.WorkflowMismatches(back[0].Expect, back[0].Workflow, back[0].Resume)).To(
			ConsistOf(HaveField("Field", "calls")))
	})
})

var _ = Describe("workflow metrics", func() {
	It("score a small set as computed by hand", func() {
		var results []harness.Result
		for _, body := range []string{
			// 1: passes, lists calls that match
			wfCase(holdInput, happyTools, "{calls: [find_book, check_member, hold_book, mail_member]}"),
			// 2: fails, lists calls that do not match
			wfCase(holdInput, happyTools, "{calls: [find_book]}"),
			// 3: passes, lists no calls; its resume skips 3 nodes
			wfCase(holdInput, resumed, "{resume: {outcome: completed}}"),
			// 4: passes, lists calls: [] and runs nothing
			wfCase("nothing", "", "{action: refuse, calls: []}"),
		} {
			r, _ := evaluate(body)
			results = append(results, r)
		}
		plain := harness.Result{Format: 1, Version: results[0].Version, Case: "plain", Suite: "normal", Tags: []string{"plain"},
			Expect: harness.Expect{Action: router.Execute, Skill: "find_book"}, Decision: decide(router.Execute, "find_book", 0.9), Pass: true}
		for i := range results {
			results[i].Case = fmt.Sprintf("c%d", i+1)
			results[i].Tags = []string{"wf"}
		}
		results = append(results, plain)

		g := harness.Score(results).Versions[0].Groups
		all := g[harness.GroupAll].Metrics
		Expect(all[harness.TaskSuccessRate].K).To(Equal(3))
		Expect(all[harness.TaskSuccessRate].N).To(Equal(4))
		Expect(*all[harness.TaskSuccessRate].Lo).To(BeNumerically("<", 0.75))
		Expect(all[harness.CallSequenceAccuracy].K).To(Equal(2))
		Expect(all[harness.CallSequenceAccuracy].N).To(Equal(3))
		Expect(all[harness.ResumeSkippedNodes].Value).To(Equal(3.0))
		for _, m := range []string{harness.IllegalRetries, harness.DuplicateSideEffects, harness.UnverifiedClaims,
			harness.WriteOrderViolations, harness.ConfirmationMisses, harness.SilentFailures, harness.DoomLoopsStopped} {
			Expect(all[m]).To(Equal(harness.Rate{Value: 0, N: 4}), m)
		}
		// decision_accuracy counts the plain case and case 4 (the only ones expecting an action)
		Expect(all[harness.DecisionAccuracy].N).To(Equal(2))
		Expect(g[harness.GroupAll].Failures).To(HaveKeyWithValue(harness.FailCallSequence, 1))
		// a group without workflow cases has no workflow figures at all
		plainGroup := g["tag:plain"]
		for _, m := range harness.WorkflowMetrics {
			Expect(plainGroup.Metrics).NotTo(HaveKey(m))
		}
		Expect(plainGroup.Failures).NotTo(HaveKey(harness.FailGuardViolation))
	})

	It("count a broken guard from the outcome's facts and fail the case on it", func() {
		o := &workflow.Outcome{Outcome: workflow.Failed, StoppedAt: "a", ErrorCode: "409", ErrorMessage: "conflict",
			Calls: []workflow.Call{
				{Node: "a", Skill: "s", SideEffect: "read", Attempt: 1, Start: 1, End: 2, Status: "error", Code: "409", Message: "conflict"},
				{Node: "a", Skill: "s", SideEffect: "read", Attempt: 2, Start: 3, End: 4, Status: "error", Code: "409", Message: "conflict"},
			},
			Nodes: []workflow.NodeState{{ID: "a", Status: workflow.NodeFailed}}}
		ms := harness.WorkflowMismatches(harness.Expect{Outcome: "failed"}, o, nil)
		Expect(ms).To(HaveLen(1))
		Expect(ms[0].Category).To(Equal(harness.FailGuardViolation))
		Expect(ms[0].String()).To(Equal("guard illegal_retries broken: 1 (must be 0)"))
		r := harness.Result{Format: 1, Version: "v@1", Case: "x", Suite: "normal", Workflow: o}
		Expect(harness.Score([]harness.Result{r}).Versions[0].Groups[harness.GroupAll].Metrics[harness.IllegalRetries].Value).To(Equal(1.0))
	})

	It("are gate thresholds", func() {
		th, err := harness.ParseThreshold("illegal_retries == 0")
		Expect(err).NotTo(HaveOccurred())
		Expect(th.Kind).To(Equal(harness.KindCount))
		th, err = harness.ParseThreshold("task_success_rate{suite:normal} >= 0.9")
		Expect(err).NotTo(HaveOccurred())
		Expect(th.Kind).To(Equal(harness.KindRate))
		_, err = harness.ParseThreshold("ilegal_retries == 0")
		Expect(err).To(MatchError(ContainSubstring("illegal_retries")))
	})
})
