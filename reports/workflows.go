package reports

import (
	"fmt"
	"strings"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/workflow"
)

// workflowRunLimit caps the workflow runs drawn in the HTML; the case
// table still lists every case.
const workflowRunLimit = 500

// workflowCaseView is one workflow case under one version: the run (and
// the resume) drawn as its nodes in plan order.
type workflowCaseView struct {
	Case     string
	Version  string
	Pass     bool
	Failure  string
	Decision string
	Differs  []string
	Runs     []workflowRunView
}

type workflowRunView struct {
	Title   string // "run" or "resume"
	Name    string // the workflow, or "-" when nothing ran
	Outcome string
	Where   string // "at ticket (tool_error): 409 ticket exists"
	Calls   string
	Nodes   []workflowNodeView
	Claims  []workflowClaimView
}

type workflowNodeView struct {
	ID, Kind, Skill, Status string
	Retries                 int
	Why                     string
	Receipts                []string
	Confirmations           []string
}

type workflowClaimView struct {
	Text    string
	Flagged bool
}

// workflowView draws one workflow result. The page draws the workflow
// results in the results' order, up to workflowRunLimit, and says how many
// there are in all; the digest gathers them (digest.add).
func workflowView(r *harness.Result) workflowCaseView {
	v := workflowCaseView{Case: r.Case, Version: r.Version, Pass: r.Pass, Failure: r.Failure,
		Decision: actionSkill(r.Decision.Action, r.Decision.Skill)}
	for _, m := range harness.WorkflowMismatches(r.Expect, r.Workflow, r.Resume) {
		v.Differs = append(v.Differs, m.String())
	}
	v.Runs = append(v.Runs, workflowRun("run", r.Workflow))
	if r.Resume != nil {
		v.Runs = append(v.Runs, workflowRun("resume", r.Resume))
	}
	return v
}

func workflowRun(title string, o *workflow.Outcome) workflowRunView {
	rv := workflowRunView{Title: title, Name: orDash(o.Workflow), Outcome: string(o.Outcome),
		Calls: "[" + strings.Join(o.CallSkills(), ", ") + "]"}
	var where []string
	if o.StoppedAt != "" {
		where = append(where, "at "+o.StoppedAt)
	}
	if o.Reason != "" {
		where = append(where, "("+o.Reason+")")
	}
	if o.ErrorCode != "" || o.ErrorMessage != "" {
		where = append(where, strings.TrimSpace(o.ErrorCode+" "+truncateRunes(o.ErrorMessage, maxMessageRunes)))
	}
	rv.Where = strings.Join(where, " ")
	for _, n := range o.Nodes {
		nv := workflowNodeView{ID: n.ID, Kind: string(n.Kind), Skill: n.Skill, Status: string(n.Status),
			Retries: o.Retries[n.ID], Why: truncateRunes(n.Why, maxMessageRunes)}
		for _, rc := range o.Receipts {
			if rc.Node != n.ID {
				continue
			}
			s := fmt.Sprintf("receipt %s %s %s", rc.Operation, rc.Status, orDash(rc.ExternalID))
			if rc.Preview != nil {
				s += fmt.Sprintf(", preview %d items", rc.Preview.Count)
			}
			nv.Receipts = append(nv.Receipts, s)
		}
		for _, c := range o.Confirmations {
			if c.Node != n.ID {
				continue
			}
			s := fmt.Sprintf("asked (%s gate", c.Gate)
			if c.Count > 0 {
				s += fmt.Sprintf(", %d items", c.Count)
			}
			s += "): " + string(c.Answer)
			if c.Via != "" {
				s += " via " + c.Via
			}
			nv.Confirmations = append(nv.Confirmations, s)
		}
		rv.Nodes = append(rv.Nodes, nv)
	}
	for _, c := range o.Claims {
		text := "model claims " + c.Claim
		if c.Node != "" {
			text += " of " + c.Node
		}
		if !c.Verified && c.Why != "" {
			text += ": " + truncateRunes(c.Why, maxMessageRunes)
		}
		rv.Claims = append(rv.Claims, workflowClaimView{Text: text, Flagged: !c.Verified})
	}
	return rv
}
