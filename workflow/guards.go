package workflow

import (
	"sort"
	"strconv"
)

// GuardCounts are the guards of DESIGN §11 recounted from an Outcome's raw
// facts (calls, receipts, confirmations, claims, events), not from the
// engine's own verdicts, so they can judge another engine's outcome too.
// Every field but DoomLoopsStopped, UnverifiedClaimsFlagged and
// ResumeSkippedNodes counts a broken guard and must be 0.
type GuardCounts struct {
	// IllegalRetries: second attempts after a non-retryable error, or third attempts.
	IllegalRetries int `json:"illegal_retries"`
	// DuplicateSideEffects: success receipts beyond the first per
	// idempotency key, and side-effect calls sent after their key succeeded.
	DuplicateSideEffects int `json:"duplicate_side_effects"`
	// DoomLoopsStopped: runs stopped at a third identical call.
	DoomLoopsStopped int `json:"doom_loops_stopped"`
	// DoomLoopsMissed: three identical calls in a row that were all sent.
	DoomLoopsMissed int `json:"doom_loops_missed"`
	// UnverifiedClaimsFlagged: model claims the engine found unsupported.
	UnverifiedClaimsFlagged int `json:"unverified_claims_flagged"`
	// UnverifiedClaims: successes the report asserts without a success
	// receipt, or a completed outcome with a side-effect node lacking one.
	UnverifiedClaims int `json:"unverified_claims"`
	// WriteOrderViolations: side-effect calls that overlapped, or ran out of
	// the plan's fixed order.
	WriteOrderViolations int `json:"write_order_violations"`
	// ConfirmationMisses: side-effect calls sent without a yes for their node first.
	ConfirmationMisses int `json:"confirmation_misses"`
	// SilentFailures: a failed call not surfaced as the outcome (completed
	// anyway, or a code or message other than the tool's own).
	SilentFailures int `json:"silent_failures"`
	// ResumeSkippedNodes: nodes skipped because a checkpoint had them done.
	ResumeSkippedNodes int `json:"resume_skipped_nodes"`
}

// retryableCode judges from a recorded code alone: timeout, 429 or 5xx.
func retryableCode(code string) bool {
	if code == "timeout" || code == "429" {
		return true
	}
	n, err := strconv.Atoi(code)
	return err == nil && n >= 500 && n <= 599
}

// Guards recounts the guards from o's facts.
func Guards(o *Outcome) GuardCounts {
	var g GuardCounts
	acts := func(c Call) bool {
		return c.SideEffect == "write" || c.SideEffect == "delete" || c.SideEffect == "send"
	}

	// Retries: each attempt > 1 must follow a retryable failure of the
	// same node's previous attempt.
	prev := map[string]Call{}
	for _, c := range o.Calls {
		if c.Attempt > 1 {
			p, ok := prev[c.Node]
			if c.Attempt > 2 || !ok || p.Status != "error" || !retryableCode(p.Code) {
				g.IllegalRetries++
			}
		}
		prev[c.Node] = c
	}

	// Duplicates: per key, at most one success, and nothing sent after it.
	succeeded := map[string]int{}
	for _, r := range o.Receipts {
		if r.Status == "success" {
			if succeeded[r.Key]++; succeeded[r.Key] > 1 {
				g.DuplicateSideEffects++
			}
		}
	}
	okAt := map[string]int{}
	for _, c := range o.Calls {
		if !acts(c) || c.Key == "" {
			continue
		}
		if at, done := okAt[c.Key]; done && c.Start > at {
			if succeeded[c.Key] <= 1 {
				g.DuplicateSideEffects++
			}
		}
		if c.Status == "ok" || c.Status == "empty" {
			if _, seen := okAt[c.Key]; !seen {
				okAt[c.Key] = c.End
			}
		}
	}

	// Doom loops: three first attempts in a row with the same tool and args.
	var firsts []Call
	for _, c := range o.Calls {
		if c.Attempt <= 1 {
			firsts = append(firsts, c)
		}
	}
	sort.SliceStable(firsts, func(i, j int) bool { return firsts[i].Start < firsts[j].Start })
	for i := 2; i < len(firsts); i++ {
		a, b, c := sig(firsts[i-2]), sig(firsts[i-1]), sig(firsts[i])
		if a == b && b == c {
			g.DoomLoopsMissed++
		}
	}
	for _, e := range o.Events {
		if e.Kind == EvDoomLoop {
			g.DoomLoopsStopped++
		}
	}

	// Claims and the report.
	for _, c := range o.Claims {
		if !c.Verified {
			g.UnverifiedClaimsFlagged++
		}
	}
	for _, node := range o.Report.Succeeded {
		found := false
		for _, r := range o.Receipts {
			found = found || (r.Node == node && r.Status == "success")
		}
		if !found {
			g.UnverifiedClaims++
		}
	}
	if o.Outcome == Completed {
		skipped := map[string]bool{}
		for _, n := range o.Nodes {
			if n.Status == NodeSkipped {
				skipped[n.ID] = true
			}
		}
		for _, id := range o.SideEffectOrder {
			found := skipped[id]
			for _, r := range o.Receipts {
				found = found || (r.Node == id && r.Status == "success")
			}
			if !found {
				g.UnverifiedClaims++
			}
		}
	}

	// Write order: no two side-effect calls overlap; nodes start in plan order.
	var writes []Call
	for _, c := range o.Calls {
		if acts(c) {
			writes = append(writes, c)
		}
	}
	for i := range writes {
		for j := i + 1; j < len(writes); j++ {
			if writes[i].Start < writes[j].End && writes[j].Start < writes[i].End {
				g.WriteOrderViolations++
			}
		}
	}
	rank := map[string]int{}
	for i, id := range o.SideEffectOrder {
		rank[id] = i
	}
	last := -1
	for _, c := range writes {
		if r, ok := rank[c.Node]; ok && c.Attempt == 1 {
			if r < last {
				g.WriteOrderViolations++
			}
			last = max(last, r)
		}
	}

	// Confirmations: a yes for the node before its first side-effect call.
	yesAt := map[string]int{}
	for _, c := range o.Confirmations {
		if c.Answer == Yes {
			if _, ok := yesAt[c.Node]; !ok {
				yesAt[c.Node] = c.Seq
			}
		}
	}
	for _, c := range writes {
		if at, ok := yesAt[c.Node]; !ok || at > c.Start {
			g.ConfirmationMisses++
		}
	}

	// Silent failures: the last attempt of a node failed and the outcome
	// does not carry that error verbatim.
	lastCall := map[string]Call{}
	var order []string
	for _, c := range o.Calls {
		if _, ok := lastCall[c.Node]; !ok {
			order = append(order, c.Node)
		}
		lastCall[c.Node] = c
	}
	state := map[string]NodeStatus{}
	for _, n := range o.Nodes {
		state[n.ID] = n.Status
	}
	for _, node := range order {
		c := lastCall[node]
		if c.Status != "error" && c.Status != "malformed" {
			continue
		}
		switch {
		case o.Outcome != Failed:
			g.SilentFailures++
		case o.StoppedAt == node:
			if o.ErrorCode != c.Code || o.ErrorMessage != c.Message {
				g.SilentFailures++ // paraphrased
			}
		case state[node] != NodeFailed:
			g.SilentFailures++ // a second failure of the same wave, hidden
		}
	}
	if o.Outcome == Failed && (o.ErrorCode == "" || o.ErrorMessage == "") {
		g.SilentFailures++
	}
	g.ResumeSkippedNodes = len(o.Checkpoints.Skipped)
	return g
}

func sig(c Call) string { return c.Skill + "\x00" + string(mustCanonical(c.Params)) }
