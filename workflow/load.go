package workflow

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"regexp"
	"slices"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"

	"github.com/routebench/routebench/internal/inputfile"
	"github.com/routebench/routebench/internal/yamldoc"
	"github.com/routebench/routebench/internal/yamlkind"
	"github.com/routebench/routebench/router/registry"
)

// FileName is the optional workflows file of a prompt version.
const FileName = "workflows.yaml"

var workflowFields = []string{
	"name", "description", "when_to_use", "when_not_to_use", "examples", "counter_examples",
	"params_schema", "permission_scope", "nodes",
}

var nameRe = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// LoadDir reads dir/workflows.yaml against reg. A version without the file
// has no workflows: the result is an empty Set and no error.
func LoadDir(dir string, reg *registry.Registry) (*Set, error) {
	path := filepath.Join(dir, FileName)
	data, err := inputfile.ReadFile(path, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return &Set{byName: map[string]*Workflow{}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("couldn't read %s: %w", path, err)
	}
	return parseText(path, data, reg)
}

// LoadFS reads name from fsys (a git revision's tree, say); display is the
// file name shown in problems. A missing file is an empty Set.
func LoadFS(fsys fs.FS, name, display string, reg *registry.Registry) (*Set, error) {
	data, err := inputfile.Read(fsys, name, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return &Set{byName: map[string]*Workflow{}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("couldn't read %s: %w", display, err)
	}
	return parseText(display, data, reg)
}

func parseText(file string, data []byte, reg *registry.Registry) (*Set, error) {
	if err := inputfile.CheckText(data); err != nil {
		var te *inputfile.TextError
		if errors.As(err, &te) {
			return nil, registry.SortProblems([]registry.Problem{{Pos: registry.Pos{File: file, Line: te.Line}, Message: err.Error()}})
		}
		return nil, fmt.Errorf("couldn't read %s: %w", file, err)
	}
	return Parse(file, data, reg)
}

// Parse reads a workflows.yaml document and checks it against reg: every
// tool must be one of its skills. file is the name shown in problems. The
// error, when not nil, is a *registry.LoadError listing every problem as
// file:line: field: what; what to do.
func Parse(file string, data []byte, reg *registry.Registry) (*Set, error) {
	r := &reader{file: file}
	root := r.parse(data)
	if root == nil {
		return nil, r.err()
	}
	return ParseNode(file, root, reg)
}

// ParseNode is Parse for an already parsed node (a `workflows:` mapping or
// the bare list), for files that embed workflows, such as a case's own.
func ParseNode(file string, root *yaml.Node, reg *registry.Registry) (*Set, error) {
	if reg == nil {
		return nil, errors.New("workflow: parse needs the version's skill registry")
	}
	r := &reader{file: file}
	if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = root.Content[0]
	}
	root = yamldoc.Resolve(root)
	list := root
	if root.Kind == yaml.MappingNode {
		list = nil
		r.fields(root, "", []string{"workflows"}, func(_ string, v *yaml.Node) { list = v })
		if list == nil {
			r.problem(root, "workflows", "is missing; list the workflows under a top-level workflows: key")
			return nil, r.err()
		}
	}
	if list.Kind != yaml.SequenceNode {
		r.problem(list, "workflows", "must be a list of workflows, got %s; start each with \"- name: ...\"", yamlkind.Of(list))
		return nil, r.err()
	}
	if len(list.Content) == 0 {
		r.problem(list, "workflows", "is empty; list at least one workflow or delete the file")
	}
	set := &Set{byName: map[string]*Workflow{}}
	firstLine := map[string]int{}
	for i, item := range list.Content {
		w := r.workflow(yamldoc.Resolve(item), index("workflows", i), reg)
		if w == nil {
			continue
		}
		if line, dup := firstLine[w.Name]; dup {
			r.list = append(r.list, registry.Problem{Pos: w.Pos, Field: index("workflows", i) + ".name",
				Message: fmt.Sprintf("duplicate workflow name %q (first at line %d); workflow names must be unique", w.Name, line)})
			continue
		}
		firstLine[w.Name] = w.Pos.Line
		set.Workflows = append(set.Workflows, w)
		set.byName[w.Name] = w
	}
	if err := r.err(); err != nil {
		return nil, err
	}
	return set, nil
}

// workflow reads one entry; nil when it has no usable name.
func (r *reader) workflow(n *yaml.Node, field string, reg *registry.Registry) *Workflow {
	nodes := map[string]*yaml.Node{}
	if !r.fields(n, field, workflowFields, func(k string, v *yaml.Node) { nodes[k] = v }) {
		return nil
	}
	w := &Workflow{Pos: r.pos(n), byID: map[string]*Node{}}
	for _, req := range []string{"name", "description", "nodes"} {
		if nodes[req] == nil {
			r.problem(n, join(field, req), "is missing; every workflow needs name, description and nodes")
		}
	}
	if v := nodes["name"]; v != nil {
		if name, ok := r.str(v, join(field, "name")); ok {
			w.Name, w.Pos = name, r.pos(v)
			switch {
			case !nameRe.MatchString(name):
				r.problem(v, join(field, "name"), "%q has characters other than letters, digits, _ . -; rename it", name)
			case name == "none":
				r.problem(v, join(field, "name"), "%q is reserved for \"nothing fits\"; pick another name", name)
			case reg.Skill(name) != nil:
				r.problem(v, join(field, "name"), "%q is also a skill (%s); a workflow is routed like a skill, so the names must differ", name, reg.Skill(name).Pos)
			}
		}
	}
	if v := nodes["description"]; v != nil {
		w.Description, _ = r.str(v, join(field, "description"))
	}
	w.WhenToUse = r.strList(nodes["when_to_use"], join(field, "when_to_use"), false)
	w.WhenNotToUse = r.strList(nodes["when_not_to_use"], join(field, "when_not_to_use"), false)
	w.CounterExamples = r.strList(nodes["counter_examples"], join(field, "counter_examples"), false)
	w.PermissionScope = r.strList(nodes["permission_scope"], join(field, "permission_scope"), true)
	if v := nodes["params_schema"]; v != nil {
		raw, sch, props, err := registry.CompileParamsSchema(r.file, join(field, "params_schema"), v)
		r.merge(err)
		w.ParamsSchema, w.Schema, w.PropSchemas = raw, sch, props
	} else {
		w.ParamsSchema = map[string]any{"type": "object", "properties": map[string]any{}}
		w.PropSchemas = map[string]*jsonschema.Schema{}
	}
	if v := nodes["examples"]; v != nil {
		w.Examples = r.examples(v, join(field, "examples"), w)
	}
	if v := nodes["nodes"]; v != nil {
		r.nodes(v, join(field, "nodes"), w, reg)
	}
	if w.Name == "" {
		return nil
	}
	return w
}

// examples reads {input, params} entries; each param must be one the
// workflow's params_schema defines, with a value its property allows.
func (r *reader) examples(n *yaml.Node, field string, w *Workflow) []registry.Example {
	if n.Kind != yaml.SequenceNode {
		r.problem(n, field, "must be a list of {input, params}, got %s; start each example with \"- input: ...\"", yamlkind.Of(n))
		return nil
	}
	var out []registry.Example
	for i, item := range n.Content {
		item = yamldoc.Resolve(item)
		ef := index(field, i)
		ex := registry.Example{Pos: r.pos(item)}
		if item.Kind == yaml.ScalarNode {
			if s, ok := r.str(item, ef); ok {
				ex.Input = s
				out = append(out, ex)
			}
			continue
		}
		var params *yaml.Node
		r.fields(item, ef, []string{"input", "params"}, func(k string, v *yaml.Node) {
			if k == "input" {
				ex.Input, _ = r.str(v, join(ef, k))
			} else {
				params = v
			}
		})
		if item.Kind == yaml.MappingNode && ex.Input == "" && params != nil {
			r.problem(item, join(ef, "input"), "is missing; write the user's words")
		}
		if params != nil && params.ShortTag() != "!!null" {
			ex.Params = r.exampleParams(params, join(ef, "params"), w)
		}
		out = append(out, ex)
	}
	return out
}

func (r *reader) exampleParams(n *yaml.Node, field string, w *Workflow) map[string]any {
	v, ok := r.json(n, field)
	if !ok {
		return nil
	}
	params, ok := v.(map[string]any)
	if !ok {
		r.problem(n, field, "must be a mapping of param name to value, got %s", yamlkind.Of(n))
		return nil
	}
	if w.Schema == nil {
		return params // the schema's own problems are already reported
	}
	defined := slices.Sorted(maps.Keys(w.PropSchemas))
	for i := 0; i+1 < len(n.Content); i += 2 {
		name := n.Content[i].Value
		ps, ok := w.PropSchemas[name]
		if !ok {
			hint := "add it to params_schema.properties or remove it"
			if s := registry.Suggest(name, defined); s != "" {
				hint = "did you mean " + s + "? " + hint
			}
			r.problem(n.Content[i], join(field, name), "is not defined in the workflow's params_schema.properties; %s", hint)
			continue
		}
		if err := ps.Validate(params[name]); err != nil {
			r.problem(n.Content[i+1], join(field, name), "value %s fails its schema (%s); use a value params_schema.properties.%s allows",
				scalarText(params[name]), schemaMessage(err), name)
		}
	}
	return params
}
