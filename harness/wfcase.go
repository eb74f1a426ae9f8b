package harness

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/routebench/routebench/internal/yamlkind"
	"github.com/routebench/routebench/router/registry"
	"github.com/routebench/routebench/workflow"
)

// A case with tools_sim is a workflow case (DESIGN §11): after routing,
// the engine runs what the router chose against the scripted tools. So is
// a case with any other workflow field (model_script, confirm, resume) or
// workflow expectation (outcome, calls, ...): without tools_sim it scripts
// no tool, so any call it makes fails as unscripted, which is what a case
// expecting the router to refuse (outcome: refused, calls: []) wants.

// expectsWorkflow reports whether an expect mapping holds a workflow
// expectation.
func expectsWorkflow(n *yaml.Node) bool {
	if n == nil || n.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if slices.Contains(workflowExpectFields, n.Content[i].Value) {
			return true
		}
	}
	return false
}

// WorkflowCase is what a workflow case scripts: the tools, optionally the
// model and the person answering gates, and optionally a second run of
// the same task (resume).
type WorkflowCase struct {
	Tools workflow.SimScript
	// Model is the scripted model's steps; nil runs the plan model.
	Model []workflow.Step
	// Confirm is the `confirm:` node, decoded afresh for every run (a
	// scripted confirmer keeps its place in the list); nil answers no
	// gate, so a run suspends at its first (awaiting_confirmation).
	Confirm *yaml.Node
	Resume  *ResumeScript
	file    string
	field   string
}

// ResumeScript is the second run of a task: the same run id and
// checkpoint store, under its own tools (replacing the first run's skill
// by skill) and confirmations (the first run's when left out), and the
// plan model.
type ResumeScript struct {
	Tools   workflow.SimScript
	Confirm *yaml.Node
}

// Confirmer returns a fresh scripted confirmer for node n, or nil.
func (w *WorkflowCase) confirmer(n *yaml.Node, field string) (workflow.Confirmer, error) {
	if n == nil {
		return nil, nil
	}
	c, err := workflow.DecodeConfirm(w.file, field, n)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// ResumeExpect is what the second run must show.
type ResumeExpect struct {
	Outcome string `json:"outcome,omitempty"`
	// Skipped are the nodes skipped by checkpoint, in any order.
	Skipped *[]string `json:"skipped,omitempty"`
	Calls   *[]string `json:"calls,omitempty"`
}

var (
	workflowCaseFields   = []string{"tools_sim", "model_script", "confirm", "resume"}
	workflowExpectFields = []string{"outcome", "stopped_at", "reason", "error_code", "calls", "retries", "side_effects", "skill_used", "resume"}
	outcomes             = []string{
		string(workflow.Completed), string(workflow.Stopped), string(workflow.Failed),
		string(workflow.Refused), string(workflow.AwaitingConfirmation),
	}
	// reasons are every Outcome.Reason the engine and the harness give.
	reasons = []string{
		workflow.ReasonToolError, workflow.ReasonMalformed, workflow.ReasonUnavailable, workflow.ReasonParamsInvalid,
		workflow.ReasonMissingInput, workflow.ReasonNoMatchingCase, workflow.ReasonPermissionDenied, workflow.ReasonSkillDisabled,
		workflow.ReasonPermRevoked, workflow.ReasonDeclined, workflow.ReasonConfirmTimeout, workflow.ReasonIrreversibleBulk,
		workflow.ReasonDoomLoop, workflow.ReasonStepLimit, workflow.ReasonAwaiting, ReasonNotRouted,
	}
)

// workflowCase reads a case's tools_sim, model_script, confirm and resume.
// It returns the case's script and the plain values for the case hash.
func (y *ynode) workflowCase(parts map[string]*yaml.Node, field string, skills skillIndex) (*WorkflowCase, any) {
	w := &WorkflowCase{file: y.file, field: field}
	plain := map[string]any{}
	for _, k := range workflowCaseFields {
		if n := parts[k]; n != nil {
			v, err := nodeValue(n)
			if err != nil {
				y.problem(n, field+"."+k, "cannot be read: %v", err)
				continue
			}
			plain[k] = v
		}
	}
	w.Tools = workflow.SimScript{}
	if n := parts["tools_sim"]; n != nil {
		w.Tools = y.toolsSim(n, field+".tools_sim", skills)
	}
	if n := parts["model_script"]; n != nil {
		steps, err := workflow.DecodeModelScript(y.file, field+".model_script", n)
		y.merge(err)
		w.Model = steps
	}
	if n := parts["confirm"]; n != nil {
		if _, err := w.confirmer(n, field+".confirm"); err != nil {
			y.merge(err)
		}
		w.Confirm = ownNode(n)
	}
	if n := parts["resume"]; n != nil {
		w.Resume = y.resumeScript(n, field+".resume", skills)
	}
	return w, plain
}

func (y *ynode) toolsSim(n *yaml.Node, field string, skills skillIndex) workflow.SimScript {
	script, err := workflow.DecodeToolsSim(y.file, field, n, nil)
	y.merge(err)
	if n.Kind != yaml.MappingNode || skills.empty() {
		return script
	}
	// Checked here rather than by the decoder, against every skill the
	// case may name: the versions' registries, or the case's own tools.
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if !skills.has(k.Value) {
			y.problem(k, field+"."+k.Value, "unknown skill %q%s", k.Value, skills.hint(k.Value))
		}
	}
	return script
}

func (y *ynode) resumeScript(n *yaml.Node, field string, skills skillIndex) *ResumeScript {
	r := &ResumeScript{}
	if n.Kind != yaml.MappingNode {
		y.problem(n, field, "must be a mapping {tools_sim: ..., confirm: ...} (the second run's scripts), got %s", yamlkind.Of(n))
		return r
	}
	y.fields(n, field, []string{"tools_sim", "confirm"}, func(key string, v *yaml.Node) {
		switch key {
		case "tools_sim":
			r.Tools = y.toolsSim(v, field+".tools_sim", skills)
		case "confirm":
			if _, err := workflow.DecodeConfirm(y.file, field+".confirm", v); err != nil {
				y.merge(err)
			}
			r.Confirm = ownNode(v)
		}
	})
	return r
}

// merge adds a decoder's problems (a *registry.LoadError) to the loader's.
func (y *ynode) merge(err error) {
	if err == nil {
		return
	}
	var le *registry.LoadError
	if errors.As(err, &le) {
		for _, p := range le.Problems {
			y.l.problems = append(y.l.problems, oneLine(p))
		}
		return
	}
	y.l.problems = append(y.l.problems, oneLine(registry.Problem{Pos: registry.Pos{File: y.file}, Message: err.Error()}))
}

// workflowExpect reads the workflow expectations of expect (nodes by key);
// wf is the case's scripts (never nil when one is given).
func (y *ynode) workflowExpect(nodes map[string]*yaml.Node, field string, skills skillIndex, wf *WorkflowCase, e *Expect) {
	if wf == nil {
		return
	}
	nodeOK := y.nodeChecker(e.Skill, skills)
	for _, key := range workflowExpectFields {
		v := nodes[key]
		if v == nil {
			continue
		}
		f := field + "." + key
		switch key {
		case "outcome":
			e.Outcome = y.oneOf(v, f, outcomes)
		case "stopped_at":
			if e.StoppedAt = y.str(v, f); e.StoppedAt != "" && e.StoppedAt != workflow.StoppedAtParams {
				nodeOK(v, f, e.StoppedAt)
			}
		case "reason":
			e.Reason = y.oneOf(v, f, reasons)
		case "error_code":
			if v.Kind != yaml.ScalarNode || v.ShortTag() == "!!null" || v.Value == "" {
				y.problem(v, f, "must be the tool's error code, a number or a word (409, timeout), got %s", yamlkind.Of(v))
				continue
			}
			e.ErrorCode = v.Value
		case "calls":
			calls := y.skillList(v, f, skills)
			e.Calls = &calls
		case "retries":
			e.Retries = y.retries(v, f)
			if v.Kind == yaml.MappingNode {
				for i := 0; i+1 < len(v.Content); i += 2 {
					nodeOK(v.Content[i], f+"."+v.Content[i].Value, v.Content[i].Value)
				}
			}
		case "side_effects":
			if n, ok := y.count(v, f); ok {
				e.SideEffects = &n
			}
		case "skill_used":
			e.SkillUsed = y.skillName(v, f, skills)
		case "resume":
			if wf.Resume == nil {
				y.problem(v, f, "expects a second run, but the case has no resume: {tools_sim: ..., confirm: ...}; add it")
				continue
			}
			e.Resume = y.resumeExpect(v, f, skills)
			if skipped := keyNode(v, "skipped"); skipped != nil && skipped.Kind == yaml.SequenceNode {
				for i, item := range skipped.Content {
					nodeOK(item, fmt.Sprintf("%s.skipped[%d]", f, i), item.Value)
				}
			}
		}
	}
}

// nodeChecker returns a check that a node id an expectation names is a
// node of the workflow the case expects (skill), in some version: a plan
// node's id, or "model:<skill>" for a step a model took. When the case
// names no known skill, nothing is checked. A plain skill runs as one
// node (workflow.SingleSkillNodeID).
func (y *ynode) nodeChecker(skill string, skills skillIndex) func(n *yaml.Node, field, id string) {
	var ids []string
	add := func(id string) {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	for _, s := range skills[skill] {
		if len(s.NodeIDs) == 0 {
			add(workflow.SingleSkillNodeID(s.Name))
		}
		for _, id := range s.NodeIDs {
			add(id)
		}
	}
	return func(n *yaml.Node, field, id string) {
		if len(ids) == 0 || slices.Contains(ids, id) || strings.HasPrefix(id, workflow.ModelStepPrefix) {
			return
		}
		hint := ""
		if sug := suggest(id, ids); sug != "" {
			hint = fmt.Sprintf("did you mean %q? ", sug)
		}
		y.problem(n, field, "%q is not a node of %s; %sits nodes are %s", id, skill, hint, strings.Join(ids, ", "))
	}
}

func (y *ynode) oneOf(n *yaml.Node, field string, allowed []string) string {
	s := y.str(n, field)
	if s == "" || slices.Contains(allowed, s) {
		return s
	}
	hint := ""
	if sug := suggest(s, allowed); sug != "" {
		hint = fmt.Sprintf("did you mean %q? ", sug)
	}
	y.problem(n, field, "%q is not one of them; %suse one of %s", s, hint, strings.Join(allowed, ", "))
	return ""
}

func (y *ynode) count(n *yaml.Node, field string) (int, bool) {
	c, err := strconv.Atoi(n.Value)
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || err != nil || c < 0 {
		y.problem(n, field, "must be a whole number >= 0, got %s", yamlkind.Of(n))
		return 0, false
	}
	return c, true
}

func (y *ynode) retries(n *yaml.Node, field string) *map[string]int {
	out := map[string]int{}
	if n.Kind != yaml.MappingNode {
		y.problem(n, field, "must be a mapping of node id to its retries, e.g. {alerts: 1}; got %s", yamlkind.Of(n))
		return &out
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolve(n.Content[i+1])
		if _, dup := out[k.Value]; dup {
			y.problem(k, field+"."+k.Value, "appears twice; keep one")
			continue
		}
		if c, ok := y.count(v, field+"."+k.Value); ok {
			out[k.Value] = c
		}
	}
	return &out
}

func (y *ynode) resumeExpect(n *yaml.Node, field string, skills skillIndex) *ResumeExpect {
	r := &ResumeExpect{}
	if n.Kind != yaml.MappingNode {
		y.problem(n, field, "must be a mapping {outcome, skipped, calls}, got %s", yamlkind.Of(n))
		return r
	}
	y.fields(n, field, []string{"outcome", "skipped", "calls"}, func(key string, v *yaml.Node) {
		f := field + "." + key
		switch key {
		case "outcome":
			r.Outcome = y.oneOf(v, f, outcomes)
		case "skipped":
			s := y.strList(v, f)
			if s == nil {
				s = []string{}
			}
			r.Skipped = &s
		case "calls":
			c := y.skillList(v, f, skills)
			r.Calls = &c
		}
	})
	return r
}
