package harness_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/harness/compare"
	"github.com/routebench/routebench/harness/stats"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

// turnRouter answers each text with a scripted decision and records
// every request it saw.
type turnRouter struct {
	mu      sync.Mutex
	answers map[string]router.Decision
	seen    []router.Request
}

func (s *turnRouter) Route(_ context.Context, req router.Request) (router.Decision, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen = append(s.seen, req)
	d, ok := s.answers[req.Text]
	if !ok {
		d = decide(router.Refuse, "", 0.1)
	}
	d.LatencyUS = 100
	return d, nil
}

const convSuite = `suite: boundary
defaults:
  caller: {scopes: [orders:read, alerts:read, ops:write]}
  now: "2026-11-30T10:00:00+08:00"
  tags: [conversation]
cases:
  - id: conv-region
    turns:
      - input: how did sales go
        expect: {action: clarify, candidates: [query_orders_by_region, query_alerts_by_zone]}
      - input: the north region orders
        expect: {action: execute, skill: query_orders_by_region, params: {region: north}}
  - id: conv-restart
    turns:
      - {input: bounce the cart service on staging, expect: {action: confirm, skill: restart_service}}
      - {input: "", expect: {action: refuse, never: [restart_service]}}
`

func loadConv(body string) ([]harness.Case, error) {
	return harness.ParseSuite("conv.yaml", []byte(body), testRegistry())
}

var _ = Describe("conversation cases", func() {
	Describe("loading", func() {
		It("reads turns with their own expectations, an empty input included", func() {
			cases, err := loadConv(convSuite)
			Expect(err).NotTo(HaveOccurred())
			Expect(cases).To(HaveLen(2))
			c := cases[0]
			Expect(c.IsConversation()).To(BeTrue())
			Expect(c.Input).To(BeEmpty())
			Expect(c.Turns).To(HaveLen(2))
			Expect(c.Turns[0].Expect.Candidates).To(Equal([]string{"query_orders_by_region", "query_alerts_by_zone"}))
			Expect(c.Turns[1].Expect.Params).To(HaveKeyWithValue("region", eq("north")))
			Expect(c.Turns[1].Pos.Line).To(Equal(11))
			Expect(cases[1].Turns[1].Input).To(Equal(""))
			Expect(cases[1].Turns[1].Expect.Never).To(Equal([]string{"restart_service"}))
		})

		It("labels a conversation with every turn's skills and its language", func() {
			cases, err := loadConv(convSuite)
			Expect(err).NotTo(HaveOccurred())
			Expect(harness.Labels("v2", &cases[0])).To(ContainElements("skill:query_orders_by_region", "skill:query_alerts_by_zone", "lang:en", "conversation"))
			Expect(harness.Labels("v2", &cases[1])).To(ContainElement("skill:restart_service"))
		})

		It("hashes the turns: a changed later turn changes the case hash", func() {
			a, err := loadConv(convSuite)
			Expect(err).NotTo(HaveOccurred())
			b, err := loadConv(strings.Replace(convSuite, "the north region orders", "the south region orders", 1))
			Expect(err).NotTo(HaveOccurred())
			Expect(a[0].Hash).NotTo(Equal(b[0].Hash))
			Expect(a[1].Hash).To(Equal(b[1].Hash))
		})

		It("rejects input or expect beside turns, empty turns and unknown turn fields, with line and a hint", func() {
			body := `suite: normal
cases:
  - id: both
    input: hello
    expect: {action: refuse}
    turns:
      - {input: hi, expect: {action: refuse}}
  - id: empty
    turns: []
  - id: typo
    turns:
      - {inptu: hi, expect: {action: refuse}}
      - {input: hi}
  - id: scalar
    turns: [hello]
  - id: workflow
    tools_sim: {}
    turns:
      - {input: hi, expect: {action: refuse}}
`
			_, err := loadConv(body)
			Expect(err).To(HaveOccurred())
			Expect(problemLines(err)).To(Equal([]string{
				`conv.yaml:4: cases[0].input: is not allowed beside turns; a conversation's text goes in each turn's input`,
				`conv.yaml:5: cases[0].expect: is not allowed beside turns; give each turn its own expect`,
				`conv.yaml:9: cases[1].turns: is empty; a conversation needs at least one turn (or write the case with input and expect)`,
				`conv.yaml:12: cases[2].turns[0].inptu: unknown field; did you mean "input"? known fields here: input, expect`,
				`conv.yaml:12: cases[2].turns[0].input: is missing; write what the user said in this turn ("" when they said nothing)`,
				`conv.yaml:13: cases[2].turns[1].expect: is missing; say what the router should do after this turn (action: execute|confirm|clarify|refuse)`,
				`conv.yaml:15: cases[3].turns[0]: must be a mapping {input: ..., expect: {...}}, got the string "hello"`,
				`conv.yaml:17: cases[4].tools_sim: is not allowed beside turns; a conversation is not a workflow case (write the workflow as its own case)`,
			}))
		})

		It("checks turn expectations like a single case's (unknown skills)", func() {
			_, err := loadConv(strings.Replace(convSuite, "skill: restart_service}", "skill: restart_servcie}", 1))
			Expect(err).To(MatchError(ContainSubstring(`cases[1].turns[0].expect.skill: unknown skill "restart_servcie"; did you mean "restart_service"?`)))
		})
	})

	Describe("running", func() {
		var cases []harness.Case
		var rt *turnRouter
		BeforeEach(func() {
			var err error
			cases, err = loadConv(convSuite)
			Expect(err).NotTo(HaveOccurred())
			restart := withGate(withParams(decide(router.Confirm, "restart_service", 0.95), map[string]any{"service": "cart", "env": "staging"}), registry.GateNormal)
			rt = &turnRouter{answers: map[string]router.Decision{
				// Turn 1 of conv-region refuses where a clarify is expected.
				"how did sales go":                   recalled(decide(router.Refuse, "", 0.3), "query_orders_by_region", "query_alerts_by_zone"),
				"the north region orders":            withParams(decide(router.Execute, "query_orders_by_region", 0.9), map[string]any{"region": "north"}),
				"bounce the cart service on staging": restart,
			}}
		})

		It("feeds each turn the earlier turns with the router's actual decisions, and ids per turn", func() {
			res, verdict, err := harness.EvaluateCase(context.Background(), rt, testVersion("v2", "abcd"), nil, &cases[0], 3)
			Expect(err).NotTo(HaveOccurred())
			Expect(rt.seen).To(HaveLen(2))
			Expect(rt.seen[0].Turns).To(BeEmpty())
			Expect(rt.seen[0].ID).To(Equal("conv-region#1"))
			Expect(rt.seen[1].ID).To(Equal("conv-region#2"))
			Expect(rt.seen[1].ConversationID).To(Equal("conv-region"))
			Expect(rt.seen[1].Turns).To(HaveLen(1))
			Expect(rt.seen[1].Turns[0].Text).To(Equal("how did sales go"))
			Expect(rt.seen[1].Turns[0].Decision.Action).To(Equal(router.Refuse), "the decision made, not the one expected")
			Expect(rt.seen[1].Now.IsZero()).To(BeFalse())

			Expect(res.Turns).To(HaveLen(2))
			Expect(res.Turns[0].Pass).To(BeFalse())
			Expect(res.Turns[0].Failure).To(Equal(harness.FailFalseRefusal))
			Expect(res.Turns[1].Pass).To(BeTrue())
			Expect(res.Pass).To(BeFalse())
			Expect(res.Failure).To(Equal(harness.FailFalseRefusal))
			Expect(res.FailedTurn).To(Equal(1))
			Expect(res.Decision.Action).To(Equal(router.Refuse), "the line's decision is the failing turn's")
			Expect(res.LatencyUS).To(Equal(int64(200)))
			Expect(verdict.Problems).To(ContainElement(HavePrefix("turn 1 of 2: expected clarify")))
			Expect(harness.DescribeTurnFailure(res)).To(HavePrefix("turn 1 of 2: expected clarify offering [query_orders_by_region query_alerts_by_zone], decided refuse"))
		})

		It("passes a conversation only when every turn passes", func() {
			rt.answers["how did sales go"] = withCandidates(decide(router.Clarify, "", 0.7), "query_orders_by_region", "query_alerts_by_zone")
			res, _, err := harness.EvaluateCase(context.Background(), rt, testVersion("v2", "abcd"), nil, &cases[0], 0)
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Pass).To(BeTrue())
			Expect(res.Failure).To(BeEmpty())
			Expect(res.FailedTurn).To(BeZero())
			Expect(res.Decision.Skill).To(Equal("query_orders_by_region"), "a passing line carries its last turn")
		})

		It("takes an executed side effect after its own confirmation as the gate passed, and nothing else", func() {
			c := cases[1]
			c.Turns = []harness.Turn{c.Turns[0], {Input: "yes go ahead", Expect: harness.Expect{Action: router.Execute, Skill: "restart_service"}}}
			executed := withParams(decide(router.Execute, "restart_service", 0.95), map[string]any{"service": "cart", "env": "staging"})
			rt.answers["yes go ahead"] = executed
			res, _, err := harness.EvaluateCase(context.Background(), rt, testVersion("v2", "abcd"), nil, &c, 0)
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Pass).To(BeTrue(), "%+v", res.Turns)

			// Other params than the ones confirmed: not what the user agreed to.
			rt.answers["yes go ahead"] = withParams(executed, map[string]any{"service": "cart", "env": "prod"})
			res, _, err = harness.EvaluateCase(context.Background(), rt, testVersion("v2", "abcd"), nil, &c, 0)
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Turns[1].Failure).To(Equal(harness.FailPolicyViolation))

			// Executed without a confirmation before it.
			c.Turns[0].Input = "something else"
			res, _, err = harness.EvaluateCase(context.Background(), rt, testVersion("v2", "abcd"), nil, &c, 0)
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Turns[1].Failure).To(Equal(harness.FailPolicyViolation))
		})

		It("runs a conversation's turns in order on one worker whatever the concurrency", func() {
			var many []harness.Case
			for i := range 12 {
				c := cases[0]
				c.ID = fmt.Sprintf("conv-%02d", i)
				many = append(many, c)
			}
			out, err := harness.Run(context.Background(), harness.RunConfig{
				Versions: []*registry.Version{testVersion("v2", "abcd")}, Cases: many, Concurrency: 4, OutDir: GinkgoT().TempDir(), KeepResults: true,
				NewRouter: func(*registry.Version) (harness.Router, error) { return rt, nil },
			})
			Expect(err).NotTo(HaveOccurred())
			Expect(out.Results).To(HaveLen(12))
			next := map[string]int{}
			for _, req := range rt.seen {
				next[req.ConversationID]++
				Expect(req.ID).To(Equal(fmt.Sprintf("%s#%d", req.ConversationID, next[req.ConversationID])))
				Expect(req.Turns).To(HaveLen(next[req.ConversationID] - 1))
			}
		})

		It("writes turns to results.jsonl and reads them back; lines without turns still read", func() {
			res, _, err := harness.EvaluateCase(context.Background(), rt, testVersion("v2", "abcd"), nil, &cases[0], 0)
			Expect(err).NotTo(HaveOccurred())
			var buf bytes.Buffer
			Expect(harness.WriteResults(&buf, []harness.Result{res})).To(Succeed())
			Expect(buf.String()).To(ContainSubstring(`"turns":[{"input":"how did sales go","expect":{"action":"clarify"`))
			Expect(buf.String()).To(ContainSubstring(`"failed_turn":1`))
			back, err := harness.DecodeResults(&buf, "r.jsonl")
			Expect(err).NotTo(HaveOccurred())
			Expect(back[0].Turns).To(HaveLen(2))
			Expect(back[0].Turns[0].Failure).To(Equal(harness.FailFalseRefusal))

			old := `{"format":1,"version":"v1@aa","case":"x","case_hash":"h","suite":"normal","tags":[],"input":"hi","expect":{"action":"refuse"},"decision":{"action":"refuse"},"pass":true,"failure":""}` + "\n"
			back, err = harness.DecodeResults(strings.NewReader(old), "old.jsonl")
			Expect(err).NotTo(HaveOccurred())
			Expect(back[0].IsConversation()).To(BeFalse())
		})
	})

	Describe("scoring", func() {
		// results: one single case that passes, one conversation of two
		// turns whose first fails, one of two turns that passes.
		results := func(version string) []harness.Result {
			single := harness.Result{Version: version, Case: "single", Suite: harness.SuiteNormal, Tags: []string{"single-step"},
				Expect: harness.Expect{Action: router.Refuse}, Decision: decide(router.Refuse, "", 0.2), Pass: true, LatencyUS: 10}
			turn := func(pass bool) harness.TurnResult {
				t := harness.TurnResult{Input: "t", Expect: harness.Expect{Action: router.Execute, Skill: "query_orders_by_region"},
					Decision: decide(router.Execute, "query_orders_by_region", 0.9), Pass: true}
				if !pass {
					t.Decision, t.Pass, t.Failure = decide(router.Refuse, "", 0.3), false, harness.FailFalseRefusal
				}
				return t
			}
			failing := harness.Result{Version: version, Case: "conv-a", Suite: harness.SuiteBoundary, Tags: []string{"conversation"},
				Turns: []harness.TurnResult{turn(false), turn(true)}, Failure: harness.FailFalseRefusal, FailedTurn: 1}
			passing := harness.Result{Version: version, Case: "conv-b", Suite: harness.SuiteBoundary, Tags: []string{"conversation"},
				Turns: []harness.TurnResult{turn(true), turn(true)}, Pass: true}
			return []harness.Result{single, failing, passing}
		}

		It("counts every turn as a decision and scores conversations and turns on their own", func() {
			s := harness.Score(results("v2@1"))
			all := s.Versions[0].Groups[harness.GroupAll]
			Expect(all.N).To(Equal(3), "n counts cases")
			Expect(all.Mix).To(Equal(map[string]int{harness.SuiteNormal: 1, harness.SuiteBoundary: 2}))
			Expect(all.Failures[harness.FailFalseRefusal]).To(Equal(1), "one failed case")
			da := all.Metrics[harness.DecisionAccuracy]
			Expect(da.N).To(Equal(5), "1 single case + 4 turns")
			Expect(da.K).To(Equal(4))
			Expect(all.Metrics[harness.PolicyViolations].N).To(Equal(5))
			Expect(all.Metrics[harness.LatencyP50].N).To(Equal(5))

			conv := all.Metrics[harness.ConversationSuccessRate]
			Expect(conv.N).To(Equal(2))
			Expect(conv.K).To(Equal(1))
			Expect(conv.Value).To(Equal(0.5))
			Expect(conv.Lo).NotTo(BeNil())
			Expect(*conv.Hi).To(BeNumerically(">", 0.5))
			ta := all.Metrics[harness.TurnAccuracy]
			Expect([]int{ta.K, ta.N}).To(Equal([]int{3, 4}))

			single := s.Versions[0].Groups["tag:single-step"]
			Expect(single.Metrics).NotTo(HaveKey(harness.ConversationSuccessRate))
			Expect(single.Metrics).NotTo(HaveKey(harness.TurnAccuracy))
		})

		It("accepts the conversation metrics in gate thresholds", func() {
			for _, name := range []string{harness.ConversationSuccessRate, harness.TurnAccuracy} {
				m, ok := harness.LookupMetric(name)
				Expect(ok).To(BeTrue(), name)
				Expect(m.Kind).To(Equal(harness.KindRate))
				Expect(m.HigherIsBetter).To(BeTrue())
			}
		})

		It("pairs conversations by case in the comparison, and their turns turn by turn", func() {
			base, head := results("v1@1"), results("v2@2")
			head[1].Turns[0] = head[2].Turns[0] // conv-a is fixed under head
			head[1].Pass, head[1].Failure, head[1].FailedTurn = true, "", 0
			c := compare.Paired(base, head, stats.DefaultThresholds)
			all, ok := c.Group(compare.GroupAll)
			Expect(ok).To(BeTrue())
			Expect(all.N).To(Equal(3), "n counts paired cases")
			conv, ok := all.Metric(harness.ConversationSuccessRate)
			Expect(ok).To(BeTrue())
			Expect([]int{conv.BaseK, conv.BaseN, conv.HeadK, conv.HeadN}).To(Equal([]int{1, 2, 2, 2}))
			Expect(conv.C).To(Equal(1))
			ta, ok := all.Metric(harness.TurnAccuracy)
			Expect(ok).To(BeTrue())
			Expect([]int{ta.BaseK, ta.BaseN, ta.HeadK, ta.HeadN}).To(Equal([]int{3, 4, 4, 4}))
			da, _ := all.Metric(harness.DecisionAccuracy)
			Expect([]int{da.BaseN, da.HeadK}).To(Equal([]int{5, 5}))
			Expect(c.Fixed).To(HaveLen(1))
			Expect(c.Fixed[0].Case).To(Equal("conv-a"))

			singles := compare.Paired(base[:1], head[:1], stats.DefaultThresholds)
			g, _ := singles.Group(compare.GroupAll)
			_, has := g.Metric(harness.ConversationSuccessRate)
			Expect(has).To(BeFalse(), "a comparison without conversations reads as before")
		})

		It("prints the conversation metrics in the run table only when there are conversations", func() {
			var with, without bytes.Buffer
			Expect(harness.WriteTable(&with, harness.Score(results("v2@1")))).To(Succeed())
			Expect(harness.WriteTable(&without, harness.Score(results("v2@1")[:1]))).To(Succeed())
			Expect(with.String()).To(ContainSubstring("conv_success"))
			Expect(with.String()).To(MatchRegexp(`v2@1\s+all\s+2\s+4\s+0\.500`))
			Expect(without.String()).NotTo(ContainSubstring("conv_success"))
		})
	})
})

// recalled puts skills in the decision's recall stage.
func recalled(d router.Decision, skills ...string) router.Decision {
	d.Trace[0].Top = append(d.Trace[0].Top, skills...)
	return d
}

func withCandidates(d router.Decision, skills ...string) router.Decision {
	for _, s := range skills {
		d.Candidates = append(d.Candidates, router.Candidate{Skill: s, Score: 0.6})
		d.Trace[0].Top = append(d.Trace[0].Top, s)
	}
	return d
}
