package harness

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/routebench/routebench/internal/yamlkind"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

// Turn is one user message of a conversation case (DESIGN §12) and what a
// careful human expects the router to decide after it. Input may be ""
// (the user said nothing, e.g. left a confirmation unanswered).
type Turn struct {
	Input  string       `json:"input"`
	Expect Expect       `json:"expect"`
	Pos    registry.Pos `json:"-"`
}

// TurnResult is one turn of a conversation in results.jsonl.
type TurnResult struct {
	Input    string          `json:"input"`
	Expect   Expect          `json:"expect"`
	Decision router.Decision `json:"decision"`
	Pass     bool            `json:"pass"`
	Failure  string          `json:"failure"` // primary failure category, "" when passed
	// Masked is Result.Masked for this turn's decision: how each x-sensitive
	// param compared before it was written as "***".
	Masked map[string]string `json:"masked,omitempty"`
}

// IsConversation reports whether the case is a conversation.
func (c *Case) IsConversation() bool { return len(c.Turns) > 0 }

// IsConversation reports whether the result is a conversation's.
func (r *Result) IsConversation() bool { return len(r.Turns) > 0 }

var turnFields = []string{"input", "expect"}

// turns parses a conversation's turns: a non-empty list of {input,
// expect}, each expectation as a single case's.
func (y *ynode) turns(n *yaml.Node, field string, skills skillIndex) []Turn {
	if n.Kind != yaml.SequenceNode {
		y.problem(n, field, "must be a list of turns such as - {input: ..., expect: {action: ...}}, got %s", yamlkind.Of(n))
		return nil
	}
	if len(n.Content) == 0 {
		y.problem(n, field, "is empty; a conversation needs at least one turn (or write the case with input and expect)")
		return nil
	}
	out := make([]Turn, 0, len(n.Content))
	for i, item := range n.Content {
		item = resolve(item)
		f := field + "[" + strconv.Itoa(i) + "]"
		t := Turn{Pos: y.pos(item)}
		if item.Kind != yaml.MappingNode {
			y.problem(item, f, "must be a mapping {input: ..., expect: {...}}, got %s", yamlkind.Of(item))
			continue
		}
		var expectNode *yaml.Node
		y.fields(item, f, turnFields, func(key string, v *yaml.Node) {
			switch key {
			case "input":
				t.Input = y.text(v, f, "input")
			case "expect":
				expectNode = v
			}
		})
		if !hasKey(item, "input") {
			y.problem(item, f+".input", "is missing; write what the user said in this turn (\"\" when they said nothing)")
		}
		if expectNode == nil {
			y.problem(item, f+".expect", "is missing; say what the router should do after this turn (action: execute|confirm|clarify|refuse)")
		} else {
			t.Expect = y.expect(expectNode, f+".expect", skills, nil)
		}
		out = append(out, t)
	}
	return out
}

// conversationConflicts reports the fields a conversation case may not
// hold beside turns.
func (y *ynode) conversationConflicts(n *yaml.Node, field string, wfParts map[string]*yaml.Node) {
	if hasKey(n, "input") {
		y.problem(keyOf(n, "input"), field+".input", "is not allowed beside turns; a conversation's text goes in each turn's input")
	}
	if hasKey(n, "expect") {
		y.problem(keyOf(n, "expect"), field+".expect", "is not allowed beside turns; give each turn its own expect")
	}
	for _, key := range []string{"tools_sim", "model_script", "confirm", "resume"} {
		if wfParts[key] != nil {
			y.problem(keyOf(n, key), field+"."+key, "is not allowed beside turns; a conversation is not a workflow case (write the workflow as its own case)")
		}
	}
}

// TurnRequestID is the request id of a conversation's turn (1-based).
func TurnRequestID(caseID string, turn int) string { return caseID + "#" + strconv.Itoa(turn) }

// evaluateConversation routes a conversation turn by turn. Each request
// carries the earlier turns with the decisions the router actually made
// (not the expected ones): a router that went wrong in turn 1 must live
// with it in turn 2, as it would with a real user. Every turn runs and is
// judged, even after one fails, so turn metrics see the whole
// conversation. words says whether the verdict's problems are written
// (check).
func evaluateConversation(ctx context.Context, rt Router, v *registry.Version, reg *registry.Registry, c *Case, seq int, now time.Time, words bool) (Result, Verdict, error) {
	res := Result{
		Format:   FormatVersion,
		Version:  v.ID(),
		Case:     c.ID,
		CaseHash: c.Hash,
		Suite:    c.Suite,
		Tags:     nonNilTags(c.Tags),
		Caller:   c.Caller,
		Seq:      seq,
		Turns:    make([]TurnResult, 0, len(c.Turns)),
	}
	var history []router.Turn
	var verdicts []Verdict
	for i, t := range c.Turns {
		req := router.Request{Text: t.Input, Caller: c.Caller, Tools: c.Tools, Now: now,
			Turns: history, ID: TurnRequestID(c.ID, i+1), ConversationID: c.ID}
		start := time.Now()
		d, err := rt.Route(ctx, req)
		elapsed := time.Since(start)
		if err != nil {
			return Result{}, Verdict{}, fmt.Errorf("route %s turn %d under %s: %w", c.ID, i+1, v.ID(), err)
		}
		if d.LatencyUS <= 0 {
			d.LatencyUS = elapsed.Microseconds()
		}
		var prev *router.Decision
		if len(history) > 0 {
			prev = &history[len(history)-1].Decision
		}
		vd := checkTurn(c, i, d, prev, reg, words)
		verdicts = append(verdicts, vd)
		res.Turns = append(res.Turns, TurnResult{Input: t.Input, Expect: t.Expect, Decision: d, Pass: vd.Pass, Failure: vd.Failure})
		res.LatencyUS += d.LatencyUS
		// Copied: the router may keep the slice it was given.
		history = append(history[:len(history):len(history)], router.Turn{Text: t.Input, Decision: d})
	}
	verdict := conversationVerdict(verdicts)
	res.Pass, res.Failure, res.FailedTurn = verdict.Pass, verdict.Failure, verdict.FailedTurn
	// Scored above on the real values; from here on only masked ones.
	// MaskResult also gives the line its deciding turn's input,
	// expectation and decision.
	MaskResult(reg, &res)
	return res, verdict.Verdict, nil
}

// conversationOutcome is a conversation's verdict and the turn it failed
// at (1-based, 0 when it passed).
type conversationOutcome struct {
	Verdict
	FailedTurn int
}

// conversationVerdict folds turn verdicts: the conversation passes when
// every turn does; its failure is the first failing turn's category, and
// every problem is prefixed with its turn.
func conversationVerdict(turns []Verdict) conversationOutcome {
	out := conversationOutcome{Verdict: Verdict{Pass: true}}
	for i, v := range turns {
		if v.Pass {
			continue
		}
		if out.Pass {
			out.Pass, out.Failure, out.FailedTurn = false, v.Failure, i+1
		}
		for _, p := range v.Problems {
			out.Problems = append(out.Problems, fmt.Sprintf("turn %d of %d: %s", i+1, len(turns), p))
		}
	}
	return out
}

// CheckTurn judges the decision after turn i (0-based) of a conversation
// case, as Check judges a single case, with one difference the
// conversation makes: executing a side-effect skill is what a confirmation
// answered yes leads to, so it is no policy violation when the previous
// decision (prev) confirmed that very skill with the same params behind a
// gate. Policy is then judged as for that confirmation (scopes, disabled
// skills and param permissions still apply); anything else executed
// without a gate is still a violation.
func CheckTurn(c *Case, i int, d router.Decision, prev *router.Decision, reg *registry.Registry) Verdict {
	return checkTurn(c, i, d, prev, reg, true)
}

// checkTurn is CheckTurn; words says whether the verdict's problems are
// written (check).
func checkTurn(c *Case, i int, d router.Decision, prev *router.Decision, reg *registry.Registry, words bool) Verdict {
	tc := *c
	tc.Input, tc.Expect, tc.Turns = c.Turns[i].Input, c.Turns[i].Expect, nil
	policyView := d
	if confirmedBefore(d, prev) {
		policyView.Action, policyView.Gate = router.Confirm, prev.Gate
	}
	return checkWithPolicy(&tc, d, PolicyViolation(c.Caller, policyView, reg), words)
}

// confirmedBefore reports whether d executes exactly what prev asked the
// user to confirm: same skill, same params, behind a gate.
func confirmedBefore(d router.Decision, prev *router.Decision) bool {
	return prev != nil && d.Action == router.Execute && prev.Action == router.Confirm && prev.Gate != "" &&
		prev.Skill == d.Skill && sameParams(prev.Params, d.Params)
}

// sameParams compares params as JSON would carry them: nil and empty are
// the same, and numbers compare by value.
func sameParams(a, b map[string]any) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(normalizeYAML(jsonShape(a)), normalizeYAML(jsonShape(b)))
}

// jsonShape copies params into JSON-shaped values (float64 numbers), so a
// param decided as int in one turn and float64 in the next compares equal.
func jsonShape(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, x := range t {
			m[k] = jsonShape(x)
		}
		return m
	case []any:
		l := make([]any, len(t))
		for i, x := range t {
			l[i] = jsonShape(x)
		}
		return l
	case float32:
		return float64(t)
	case int32:
		return float64(t)
	}
	return v
}

// appendDecisionResults appends DecisionResults(*r) to buf: scoring runs
// it for every result, into one buffer it reuses.
func appendDecisionResults(buf []Result, r *Result) []Result {
	if !r.IsConversation() {
		return append(buf, *r)
	}
	for k := range r.Turns {
		buf = append(buf, TurnDecision(r, k))
	}
	return buf
}

// DecisionResults are the routing decisions a result holds, each as a
// result of its own: the result itself for a single case, one per turn for
// a conversation (with the turn's input, expectation, decision, verdict
// and latency, under the conversation's case, suite and tags). Decision
// metrics are scored over these, so a conversation's turns count as
// decisions beside single cases.
func DecisionResults(r Result) []Result {
	if !r.IsConversation() {
		return []Result{r}
	}
	return appendDecisionResults(make([]Result, 0, len(r.Turns)), &r)
}

// TurnDecision is turn k of conversation r as DecisionResults gives it,
// for a caller that reads one turn at a time (no slice of them all).
func TurnDecision(r *Result, k int) Result {
	t := &r.Turns[k]
	return Result{Format: r.Format, Version: r.Version, Case: r.Case, CaseHash: r.CaseHash,
		Suite: r.Suite, Tags: r.Tags, Input: t.Input, Caller: r.Caller, Expect: t.Expect,
		Decision: t.Decision, Pass: t.Pass, Failure: t.Failure, LatencyUS: t.Decision.LatencyUS, Seq: r.Seq, Masked: t.Masked}
}

// ConversationIndicators are a conversation result's own terms: its
// success, and one turn_accuracy term per turn (in turn order). A single
// case has none.
func ConversationIndicators(r Result) (success bool, turns []bool, ok bool) {
	if !r.IsConversation() {
		return false, nil, false
	}
	turns = make([]bool, len(r.Turns))
	for i, t := range r.Turns {
		turns[i] = t.Pass
	}
	return r.Pass, turns, true
}

// DescribeTurnFailure is the first failing turn of a conversation result
// in words: "turn 2 of 3: expected execute x, decided clarify …", or ""
// when it passed.
func DescribeTurnFailure(r Result) string {
	if !r.IsConversation() || r.FailedTurn < 1 || r.FailedTurn > len(r.Turns) {
		return ""
	}
	t := r.Turns[r.FailedTurn-1]
	return fmt.Sprintf("turn %d of %d: %s", r.FailedTurn, len(r.Turns), describeDecisionMiss(t.Expect, t.Decision))
}
