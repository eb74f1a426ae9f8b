package workflow

import (
	"slices"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/routebench/routebench/router/registry"
)

// Kind is what a node does.
type Kind string

const (
	KindTool      Kind = "tool"      // one skill call
	KindDecision  Kind = "decision"  // branches on an earlier output; cases are a finite enum
	KindConfirm   Kind = "confirm"   // waits for a person; a timeout refuses
	KindAggregate Kind = "aggregate" // merges earlier outputs by a declared rule
)

// Aggregate rules.
const (
	RuleFirstNonEmpty = "first_non_empty" // the first input with a non-empty output
	RuleConcat        = "concat"          // the inputs' items, one list
	RuleMerge         = "merge"           // the inputs' objects merged, later inputs win
)

var aggregateRules = []string{RuleFirstNonEmpty, RuleConcat, RuleMerge}

// Workflow is one entry of workflows.yaml (DESIGN §11), checked against a
// registry. It is routable like a skill: see AsSkill.
type Workflow struct {
	Name            string
	Description     string
	WhenToUse       []string
	WhenNotToUse    []string
	Examples        []registry.Example
	CounterExamples []string
	// ParamsSchema is the workflow's params schema as JSON values; Schema
	// and PropSchemas are it compiled, as for skills.
	ParamsSchema    map[string]any
	Schema          *jsonschema.Schema
	PropSchemas     map[string]*jsonschema.Schema
	PermissionScope []string
	Nodes           []*Node
	Pos             registry.Pos

	byID  map[string]*Node
	order []*Node // topological, ties by declaration order
}

// Node is one step of a workflow.
type Node struct {
	ID   string
	Kind Kind
	// Tool and Skill are set for tool nodes.
	Tool  string
	Skill *registry.Skill
	// Params are the tool's params as written, `{{...}}` references included.
	Params map[string]any
	After  []string
	// On and Cases are set for decision nodes: the reference branched on and
	// each literal value's target node, in CaseOrder as written.
	On        *Ref
	Cases     map[string]string
	CaseOrder []string
	// Message and Timeout are set for confirm nodes.
	Message string
	Timeout time.Duration
	// Inputs and Rule are set for aggregate nodes.
	Inputs []string
	Rule   string
	Pos    registry.Pos

	index int
	deps  []string // every predecessor: after, data references, deciding node, aggregate inputs
	reads []string // nodes whose outputs the params or `on` read
	// decidedBy is the decision node that has this node as a case target.
	decidedBy string
}

// SideEffect is the node's effect on the world: its skill's for tool nodes,
// read for the rest.
func (n *Node) SideEffect() registry.SideEffect {
	if n.Kind == KindTool && n.Skill != nil {
		return n.Skill.SideEffect
	}
	return registry.Read
}

// Node returns the node with the id, or nil.
func (w *Workflow) Node(id string) *Node { return w.byID[id] }

// Order is the fixed execution order: topological, ties by declaration.
// Side-effect nodes run in exactly this order.
func (w *Workflow) Order() []*Node { return append([]*Node(nil), w.order...) }

// Set is the workflows of one prompt version.
type Set struct {
	Workflows []*Workflow
	byName    map[string]*Workflow
}

// Workflow returns the workflow with the name, or nil.
func (s *Set) Workflow(name string) *Workflow {
	if s == nil {
		return nil
	}
	return s.byName[name]
}

// Names lists the workflow names in file order.
func (s *Set) Names() []string {
	out := make([]string, 0, len(s.Workflows))
	for _, w := range s.Workflows {
		out = append(out, w.Name)
	}
	return out
}

var effectRank = map[registry.SideEffect]int{registry.Read: 0, registry.Send: 1, registry.Write: 2, registry.Delete: 3}
var gateRank = map[registry.Gate]int{"": 0, registry.GateNormal: 1, registry.GateBatch: 2, registry.GateIrreversible: 3}

// Scopes is every scope running the workflow needs: its own
// permission_scope, then each tool node's skill scopes, without repeats. A
// workflow never lends its nodes a permission the caller lacks.
func (w *Workflow) Scopes() []string {
	seen := map[string]bool{}
	var out []string
	add := func(list []string) {
		for _, s := range list {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	add(w.PermissionScope)
	for _, n := range w.Nodes {
		if n.Kind == KindTool && n.Skill != nil {
			add(n.Skill.PermissionScope)
		}
	}
	return out
}

// AsSkill is the workflow seen as one skill, so the router can offer it as
// a candidate: its side effect is the strongest of its nodes' (read < send <
// write < delete), its gate the strictest (normal < batch < irreversible),
// its scopes those of Scopes, its Steps the skills of its tool nodes in plan
// order. The skill shares the workflow's schema values.
func (w *Workflow) AsSkill() *registry.Skill {
	s := &registry.Skill{
		Name: w.Name, Description: w.Description,
		WhenToUse: w.WhenToUse, WhenNotToUse: w.WhenNotToUse,
		SideEffect:      registry.Read,
		PermissionScope: w.Scopes(),
		ParamsSchema:    w.ParamsSchema, Schema: w.Schema, PropSchemas: w.PropSchemas,
		Examples: w.Examples, CounterExamples: w.CounterExamples,
		Pos: w.Pos,
	}
	for _, n := range w.Nodes {
		if n.Kind != KindTool || n.Skill == nil {
			continue
		}
		if effectRank[n.Skill.SideEffect] > effectRank[s.SideEffect] {
			s.SideEffect = n.Skill.SideEffect
		}
		if gateRank[n.Skill.Confirm] > gateRank[s.Confirm] {
			s.Confirm = n.Skill.Confirm
		}
		s.Cost.LatencyMS += n.Skill.Cost.LatencyMS
		s.Cost.Quota += n.Skill.Cost.Quota
	}
	if s.SideEffect.Acts() && s.Confirm == "" {
		s.Confirm = registry.GateNormal
	}
	s.Steps = w.steps()
	for _, n := range w.Nodes {
		s.NodeIDs = append(s.NodeIDs, n.ID)
	}
	return s
}

// steps lists the skills the tool nodes call, each once, in plan order. A
// workflow built without Parse has no plan yet; its declaration order is
// the best order there is.
func (w *Workflow) steps() []string {
	plan := w.order
	if len(plan) == 0 {
		plan = w.Nodes
	}
	var out []string
	for _, n := range plan {
		if n.Kind == KindTool && n.Tool != "" && !slices.Contains(out, n.Tool) {
			out = append(out, n.Tool)
		}
	}
	return out
}
