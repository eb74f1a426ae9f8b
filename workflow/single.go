package workflow

import (
	"regexp"
	"sort"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/routebench/routebench/router/registry"
)

// paramKeyRe is a param name a {{params.name}} reference can spell.
var paramKeyRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// SingleSkillNodeID is the id of the one node SingleSkill makes of the
// skill named name: the name itself when that is a valid node id, else
// "call".
func SingleSkillNodeID(name string) string {
	if !idRe.MatchString(name) || name == "params" { // {{params.x}} names the run's params
		return "call"
	}
	return name
}

// SingleSkill is one call of a plain skill as a one-node workflow, so a
// request routed to a skill runs through the same engine and guards as a
// workflow (params, permissions, gate, retry, receipts). The node's id is
// the skill's name when that is a valid node id, else "call"; its params
// are the given params' names, each read from {{params.name}} (a name no
// reference can spell is passed as its literal value). The workflow is
// named after the skill and has no params schema of its own: the node
// checks the params against the skill's.
func SingleSkill(s *registry.Skill, params map[string]any) *Workflow {
	id := SingleSkillNodeID(s.Name)
	node := &Node{ID: id, Kind: KindTool, Tool: s.Name, Skill: s, Params: map[string]any{}, Pos: s.Pos}
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if paramKeyRe.MatchString(k) {
			node.Params[k] = "{{params." + k + "}}"
		} else {
			node.Params[k] = params[k]
		}
	}
	return &Workflow{
		Name: s.Name, Description: s.Description,
		ParamsSchema: map[string]any{"type": "object"}, PropSchemas: map[string]*jsonschema.Schema{},
		Nodes: []*Node{node}, Pos: s.Pos,
		byID: map[string]*Node{id: node}, order: []*Node{node},
	}
}
