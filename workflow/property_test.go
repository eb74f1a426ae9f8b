package workflow_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/workflow"
)

// randomFlow writes a random DAG: reads anywhere, side effects chained in
// declaration order (the loader demands a total order), random extra
// after edges to earlier nodes.
func randomFlow(rng *rand.Rand) []byte {
	n := 3 + rng.IntN(7)
	ls := []string{"workflows:", "  - name: random", "    description: generated", "    nodes:"}
	lastAct := ""
	for i := range n {
		id := fmt.Sprintf("n%d", i)
		var after []string
		for j := range i {
			if rng.IntN(4) == 0 {
				after = append(after, fmt.Sprintf("n%d", j))
			}
		}
		var tool, params string
		switch rng.IntN(4) {
		case 0:
			tool, params = "list_widgets", fmt.Sprintf(`{shelf: "s%d"}`, i)
		case 1:
			tool, params = "get_gauge", fmt.Sprintf(`{name: "g%d"}`, i)
		case 2:
			tool, params = "file_report", fmt.Sprintf(`{title: "t%d"}`, i)
		default:
			tool, params = "ping_team", fmt.Sprintf(`{to: ops, text: "m%d"}`, i)
		}
		if tool == "file_report" || tool == "ping_team" {
			if lastAct != "" && !slices.Contains(after, lastAct) {
				after = append(after, lastAct)
			}
			lastAct = id
		}
		ls = append(ls, fmt.Sprintf("      - {id: %s, tool: %s, after: [%s], params: %s}", id, tool, strings.Join(after, ", "), params))
	}
	return lines(ls...)
}

func randomScript(rng *rand.Rand) workflow.SimScript {
	s := workflow.SimScript{}
	outputs := map[string]any{
		"list_widgets": items(1 + rng.IntN(6)), "get_gauge": map[string]any{"value": 3},
		"file_report": map[string]any{"report_id": "R"}, "ping_team": map[string]any{"sent": true},
	}
	for skill, out := range outputs {
		var list []workflow.SimResponse
		for range 1 + rng.IntN(5) {
			var r workflow.SimResponse
			switch rng.IntN(24) {
			case 0:
				r = fault(workflow.FaultTimeout)
			case 1:
				r = workflow.SimResponse{Fault: workflow.FaultRateLimited, RetryAfter: 3e9}
			case 2:
				r = workflow.SimResponse{Fault: workflow.FaultServerError, Code: 500 + rng.IntN(4)}
			case 3:
				r = workflow.SimResponse{Fault: workflow.FaultClientError, Code: 400 + rng.IntN(30), Message: fmt.Sprintf("refused %d", rng.IntN(99))}
			case 4:
				r = fault(workflow.FaultMalformed)
			case 5:
				r = fault(workflow.FaultEmpty)
			case 6:
				r = fault(workflow.FaultUnavailable)
			default:
				r = ok(out)
			}
			if rng.IntN(5) == 0 {
				r.Preview = preview(rng.IntN(15))
			}
			list = append(list, r)
		}
		s[skill] = list
	}
	return s
}

func randomModel(rng *rand.Rand) workflow.Model {
	var steps []workflow.Step
	for range rng.IntN(6) {
		switch rng.IntN(5) {
		case 0:
			steps = append(steps, call("get_gauge", map[string]any{"name": "g1"}))
		case 1:
			steps = append(steps, call("file_report", map[string]any{"title": fmt.Sprintf("t%d", rng.IntN(4))}))
		case 2:
			steps = append(steps, workflow.Step{Kind: workflow.StepRetry, Node: fmt.Sprintf("n%d", rng.IntN(5))})
		case 3:
			steps = append(steps, workflow.Step{Kind: workflow.StepClaim, Claim: "success"})
		default:
			steps = append(steps, workflow.Step{Kind: workflow.StepFollow})
		}
	}
	return workflow.NewScriptModel(steps...)
}

var _ = Describe("Random workflows under random faults (property)", func() {
	It("never overlap side effects, never send a key twice, and surface every failure", func() {
		reg := testRegistry()
		rng := rand.New(rand.NewPCG(20310504, 9))
		outcomes := map[workflow.Status]int{}
		for iter := range 300 {
			doc := randomFlow(rng)
			set, err := workflow.Parse("random.yaml", doc, reg)
			Expect(err).NotTo(HaveOccurred(), "iteration %d:\n%s", iter, doc)
			w := set.Workflows[0]
			tools := workflow.NewSimTools(randomScript(rng))
			answers := []workflow.ConfirmResponse{{Answer: workflow.Yes}, {Answer: workflow.Yes}, {Answer: workflow.Yes}, {Answer: workflow.No}, {Answer: workflow.Timeout}}
			conf := workflow.NewScriptedConfirmer(answers[rng.IntN(len(answers))], answers[rng.IntN(len(answers))], answers[rng.IntN(len(answers))])
			e := &workflow.Engine{Tools: tools, Registry: reg, Clock: workflow.NewManualClock(epoch), MaxParallel: 1 + rng.IntN(4)}
			o, err := e.Run(context.Background(), workflow.RunInput{ID: fmt.Sprintf("p-%d", iter), Workflow: w,
				Caller: workflow.Caller{Scopes: allScopes}, Confirmer: conf, Model: randomModel(rng)})
			Expect(err).NotTo(HaveOccurred())
			outcomes[o.Outcome]++
			g := workflow.Guards(o)
			why := fmt.Sprintf("iteration %d: %+v\n%s\n%s", iter, g, doc, trace(o))
			Expect(g.WriteOrderViolations).To(BeZero(), why)
			Expect(g.DuplicateSideEffects).To(BeZero(), why)
			Expect(g.IllegalRetries).To(BeZero(), why)
			Expect(g.ConfirmationMisses).To(BeZero(), why)
			Expect(g.SilentFailures).To(BeZero(), why)
			Expect(g.UnverifiedClaims).To(BeZero(), why)
			Expect(g.DoomLoopsMissed).To(BeZero(), why)
			Expect(tools.DuplicateSends()).To(BeZero(), why)

			// Independently of Guards: side-effect calls are pairwise
			// disjoint in sequence numbers, and keys succeed at most once.
			succeeded := map[string]int{}
			var acts []workflow.Call
			for _, c := range o.Calls {
				if c.Key != "" {
					acts = append(acts, c)
					if c.Status == "ok" || c.Status == "empty" {
						succeeded[c.Key]++
					}
				}
			}
			for i := range acts {
				for j := i + 1; j < len(acts); j++ {
					Expect(acts[i].End < acts[j].Start || acts[j].End < acts[i].Start).To(BeTrue(), why)
				}
			}
			for key, n := range succeeded {
				Expect(n).To(Equal(1), "key %s in %s", key, why)
			}
			// Every failed last attempt is the outcome's error, verbatim.
			if n := len(o.Calls); n > 0 && o.Outcome == workflow.Failed && o.ErrorCode != "" && strings.HasPrefix(o.StoppedAt, "n") {
				var last *workflow.Call
				for i := range o.Calls {
					if o.Calls[i].Node == o.StoppedAt {
						last = &o.Calls[i]
					}
				}
				if last != nil && last.Status != "ok" && last.Status != "empty" {
					Expect(o.ErrorCode).To(Equal(last.Code), why)
					Expect(o.ErrorMessage).To(Equal(last.Message), why)
				}
			}
		}
		// The generator must reach every ending, or the property proves little.
		Expect(outcomes).To(HaveKey(workflow.Completed))
		Expect(outcomes).To(HaveKey(workflow.Failed))
		Expect(outcomes).To(HaveKey(workflow.Refused))
		AddReportEntry("outcomes", outcomes)
	})
})

// trace prints an outcome compactly for failure messages.
func trace(o *workflow.Outcome) string {
	var b strings.Builder
	fmt.Fprintf(&b, "outcome %s at %q (%s) %s: %s\n", o.Outcome, o.StoppedAt, o.Reason, o.ErrorCode, o.ErrorMessage)
	for _, c := range o.Calls {
		fmt.Fprintf(&b, "  call %s %s #%d [%d,%d] %s %s %s\n", c.Node, c.Skill, c.Attempt, c.Start, c.End, c.Status, c.Code, c.Message)
	}
	for _, n := range o.Nodes {
		fmt.Fprintf(&b, "  node %s %s %s\n", n.ID, n.Status, n.Why)
	}
	return b.String()
}
