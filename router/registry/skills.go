package registry

import (
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/routebench/routebench/internal/yamlkind"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

var skillFields = []string{
	"name", "description", "when_to_use", "when_not_to_use", "side_effect", "permission_scope",
	"params_schema", "rules", "triggers", "examples", "counter_examples", "glossary", "confirm", "cost",
	"result_schema", "x-affects",
}

var skillName = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// noneSkill is what a judge answers when nothing fits, so no skill may have it.
const noneSkill = "none"

// ParseSkills parses a skills.yaml document: a mapping with a `skills:` list,
// or the bare list. file is the name shown in problems. The error, when not
// nil, is a *LoadError listing every problem.
func ParseSkills(file string, data []byte) ([]*Skill, error) {
	ps := &problems{}
	f := &yfile{name: file, ps: ps}
	root := f.parse(data)
	if root == nil {
		return nil, ps.err()
	}
	skills := f.skillsDoc(root)
	if err := ps.err(); err != nil {
		return nil, err
	}
	return skills, nil
}

// ParseSkillsNode parses skills from an already parsed YAML node (a `skills:`
// mapping or a list of skills), for files that embed skill lists, such as
// per-case tools in suites, so their problems carry the right lines.
func ParseSkillsNode(file string, n *yaml.Node) ([]*Skill, error) {
	ps := &problems{}
	f := &yfile{name: file, ps: ps}
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	skills := f.skillsDoc(resolve(n))
	if err := ps.err(); err != nil {
		return nil, err
	}
	return skills, nil
}

func (f *yfile) skillsDoc(root *yaml.Node) []*Skill {
	list := root
	if root.Kind == yaml.MappingNode {
		list = nil
		f.fields(root, "", []string{"skills"}, func(_ string, v *yaml.Node) { list = v })
		if list == nil {
			f.problem(root, "skills", "is missing; list the skills under a top-level skills: key")
			return nil
		}
	}
	if list.Kind != yaml.SequenceNode {
		f.problem(list, "skills", "must be a list of skills, got %s; start each skill with \"- name: ...\"", yamlkind.Of(list))
		return nil
	}
	if len(list.Content) == 0 {
		f.problem(list, "skills", "is empty; a registry needs at least one skill")
		return nil
	}
	// Skills are independent until names are compared, so they are checked
	// in parallel (a 150-skill registry with 15,000 examples is the target),
	// each into its own problem list, merged in order for stable output.
	parsed := make([]*Skill, len(list.Content))
	found := make([]problems, len(list.Content))
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(list.Content)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				sf := &yfile{name: f.name, ps: &found[i]}
				parsed[i] = sf.skill(resolve(list.Content[i]), index("skills", i))
			}
		}()
	}
	for i := range list.Content {
		work <- i
	}
	close(work)
	wg.Wait()

	var skills []*Skill
	first := map[string]int{} // name -> index into list
	for i, s := range parsed {
		f.ps.list = append(f.ps.list, found[i].list...)
		if s == nil {
			continue
		}
		if j, dup := first[s.Name]; dup {
			f.ps.add(s.Pos, join(index("skills", i), "name"), "duplicate skill name %q (also skills[%d] at line %d); skill names must be unique",
				s.Name, j, parsed[j].Pos.Line)
			continue
		}
		first[s.Name] = i
		skills = append(skills, s)
	}
	return skills
}

// skill parses one entry. It returns nil only when the entry has no usable
// name; every other problem is reported and parsing goes on, so one load
// shows them all.
func (f *yfile) skill(n *yaml.Node, field string) *Skill {
	nodes := map[string]*yaml.Node{}
	if !f.fields(n, field, skillFields, func(key string, v *yaml.Node) { nodes[key] = v }) {
		return nil
	}
	s := &Skill{Pos: f.pos(n)}
	for _, req := range []string{"name", "description", "side_effect"} {
		if nodes[req] == nil {
			f.problem(n, join(field, req), "is missing; every skill needs name, description and side_effect")
		}
	}
	if v := nodes["name"]; v != nil {
		if name, ok := f.str(v, join(field, "name")); ok {
			switch {
			case !skillName.MatchString(name):
				f.problem(v, join(field, "name"), "%q has characters other than letters, digits, _ . -; rename it (verb_noun advised)", name)
			case name == noneSkill:
				f.problem(v, join(field, "name"), "%q is reserved for \"nothing fits\"; pick another name", name)
			}
			s.Name = name
			s.Pos = f.pos(v)
		}
	}
	if v := nodes["description"]; v != nil {
		s.Description, _ = f.str(v, join(field, "description"))
	}
	if v := nodes["side_effect"]; v != nil {
		if se, ok := f.str(v, join(field, "side_effect")); ok {
			switch SideEffect(se) {
			case Read, Write, Delete, Send:
				s.SideEffect = SideEffect(se)
			default:
				f.problem(v, join(field, "side_effect"), "%q is not a side effect; use read, write, delete or send", se)
			}
		}
	}
	if v := nodes["confirm"]; v != nil {
		if g, ok := f.str(v, join(field, "confirm")); ok {
			switch Gate(g) {
			case GateNormal, GateBatch, GateIrreversible:
				s.Confirm = Gate(g)
			default:
				f.problem(v, join(field, "confirm"), "%q is not a gate; use normal, batch or irreversible", g)
			}
		}
	}
	// Gates are enforced in code: a side effect without a declared gate still
	// gets the normal one (lint warns that it should be declared).
	if s.SideEffect.Acts() && s.Confirm == "" {
		s.Confirm = GateNormal
	}
	s.WhenToUse = f.optStrList(nodes["when_to_use"], join(field, "when_to_use"))
	s.WhenNotToUse = f.optStrList(nodes["when_not_to_use"], join(field, "when_not_to_use"))
	s.PermissionScope = f.optStrList(nodes["permission_scope"], join(field, "permission_scope"))
	s.CounterExamples = f.optStrList(nodes["counter_examples"], join(field, "counter_examples"))
	if v := nodes["glossary"]; v != nil {
		s.Glossary = map[string]string{}
		f.pairs(v, join(field, "glossary"), func(k, val *yaml.Node) {
			if def, ok := f.str(val, join(field, "glossary."+k.Value)); ok {
				s.Glossary[k.Value] = def
			}
		})
	}
	if v := nodes["cost"]; v != nil {
		f.cost(v, join(field, "cost"), &s.Cost)
	}

	schemaOK := true
	if v := nodes["params_schema"]; v != nil {
		s.ParamsSchema, s.Schema, s.PropSchemas = f.paramsSchema(v, join(field, "params_schema"))
		schemaOK = s.Schema != nil
	} else {
		f.defaultSchema(s)
	}
	if v := nodes["result_schema"]; v != nil {
		s.ResultSchemaRaw, s.ResultSchema = f.resultSchema(v, join(field, "result_schema"))
	}
	if v := nodes["x-affects"]; v != nil {
		s.Affects = f.affects(v, join(field, "x-affects"), s)
	}
	rulesOK := true
	if v := nodes["rules"]; v != nil {
		s.Rules, rulesOK = f.rules(v, join(field, "rules"))
	}
	if v := nodes["triggers"]; v != nil {
		s.Triggers = f.triggers(v, join(field, "triggers"))
	}
	if v := nodes["examples"]; v != nil {
		s.Examples = f.examples(v, join(field, "examples"), s, schemaOK, rulesOK)
	}
	if s.Name == "" {
		return nil
	}
	return s
}

func (f *yfile) optStrList(n *yaml.Node, field string) []string {
	if n == nil || n.ShortTag() == "!!null" {
		return nil
	}
	out, _ := f.strList(n, field)
	return out
}

// defaultSchema gives a skill without params_schema an empty object schema.
func (f *yfile) defaultSchema(s *Skill) {
	s.ParamsSchema = map[string]any{"type": "object", "properties": map[string]any{}}
	c := newSchemaCompiler()
	if err := c.AddResource(schemaURL, s.ParamsSchema); err == nil {
		s.Schema, _ = c.Compile(schemaURL)
	}
	s.PropSchemas = map[string]*jsonschema.Schema{}
}

func (f *yfile) cost(n *yaml.Node, field string, c *Cost) {
	f.fields(n, field, []string{"latency_ms", "quota"}, func(key string, v *yaml.Node) {
		switch key {
		case "latency_ms":
			if ms, ok := f.integer(v, join(field, key)); ok {
				if ms < 0 {
					f.problem(v, join(field, key), "is negative; write the expected latency in milliseconds (>= 0)")
				}
				c.LatencyMS = ms
			}
		case "quota":
			if q, ok := f.number(v, join(field, key)); ok {
				if q < 0 {
					f.problem(v, join(field, key), "is negative; write the quota units one call uses (>= 0)")
				}
				c.Quota = q
			}
		}
	})
}

// rules compiles the `rules:` list; ok is false when any rule is unusable, in
// which case examples are not checked against rules.
func (f *yfile) rules(n *yaml.Node, field string) ([]*Rule, bool) {
	if n.Kind != yaml.SequenceNode {
		f.problem(n, field, "must be a list of {expr, message}, got %s; start each rule with \"- expr: ...\"", yamlkind.Of(n))
		return nil, false
	}
	var out []*Rule
	ok := true
	for i, item := range n.Content {
		item = resolve(item)
		rfield := index(field, i)
		var exprNode *yaml.Node
		var expr, msg string
		f.fields(item, rfield, []string{"expr", "message"}, func(key string, v *yaml.Node) {
			switch key {
			case "expr":
				exprNode = v
				expr, _ = f.str(v, join(rfield, key))
			case "message":
				msg, _ = f.str(v, join(rfield, key))
			}
		})
		if item.Kind == yaml.MappingNode && exprNode == nil {
			f.problem(item, join(rfield, "expr"), "is missing; write the rule as a CEL condition over params and now")
		}
		if expr == "" {
			ok = false
			continue
		}
		r, errs := compileRule(expr, msg)
		f.exprProblems(exprNode, join(rfield, "expr"), errs)
		if r == nil {
			ok = false
			continue
		}
		r.Pos = f.pos(exprNode)
		out = append(out, r)
	}
	return out, ok
}

// exprProblems reports CEL compile problems at the line inside the
// expression's scalar where each one is, with its column.
func (f *yfile) exprProblems(exprNode *yaml.Node, field string, errs []ruleCompileError) {
	for _, e := range errs {
		where := ""
		if e.column > 0 {
			where = fmt.Sprintf(" (column %d)", e.column)
		}
		line := exprNode.Line
		if e.line > 1 {
			line += e.line - 1
			if exprNode.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
				line++ // block scalars start on the line after the indicator
			}
		}
		f.ps.add(Pos{File: f.name, Line: line}, field, "%s", withColumn(e.msg, where))
	}
}

func (f *yfile) triggers(n *yaml.Node, field string) []*Trigger {
	if n.Kind != yaml.SequenceNode {
		f.problem(n, field, "must be a list of regex strings, got %s; write ['(?i)\\bORD-\\d{8}\\b']", yamlkind.Of(n))
		return nil
	}
	var out []*Trigger
	for i, item := range n.Content {
		item = resolve(item)
		pat, ok := f.str(item, index(field, i))
		if !ok {
			continue
		}
		re, err := regexp.Compile(pat)
		if err != nil {
			f.problem(item, index(field, i), "does not compile: %s", explainRegexp(err))
			continue
		}
		out = append(out, &Trigger{Pattern: pat, Re: re, Pos: f.pos(item)})
	}
	return out
}

// exampleNow is the now given to rules checked on examples; rules that read
// now are skipped there, so it only has to be a valid time.
var exampleNow = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func (f *yfile) examples(n *yaml.Node, field string, s *Skill, schemaOK, rulesOK bool) []Example {
	if n.Kind != yaml.SequenceNode {
		f.problem(n, field, "must be a list of {input, params}, got %s; start each example with \"- input: ...\"", yamlkind.Of(n))
		return nil
	}
	var out []Example
	for i, item := range n.Content {
		item = resolve(item)
		efield := index(field, i)
		ex := Example{Pos: f.pos(item)}
		if item.Kind == yaml.ScalarNode {
			// A bare string is an example whose text determines no params.
			if in, ok := f.str(item, efield); ok {
				ex.Input = in
				out = append(out, ex)
			}
			continue
		}
		var paramsNode *yaml.Node
		hasInput := false
		f.fields(item, efield, []string{"input", "params"}, func(key string, v *yaml.Node) {
			switch key {
			case "input":
				hasInput = true
				ex.Input, _ = f.str(v, join(efield, key))
			case "params":
				paramsNode = v
			}
		})
		if item.Kind != yaml.MappingNode {
			continue
		}
		if !hasInput {
			f.problem(item, join(efield, "input"), "is missing; write the user's words")
		}
		valid := true
		if paramsNode != nil && paramsNode.ShortTag() != "!!null" {
			ex.Params, valid = f.exampleParams(paramsNode, join(efield, "params"), s, schemaOK)
		}
		if valid && schemaOK && rulesOK {
			f.checkRules(paramsNode, join(efield, "params"), s, ex)
		}
		out = append(out, ex)
	}
	return out
}

// exampleParams reads an example's params and checks each against its
// property's schema; required is not applied, as examples are partial.
func (f *yfile) exampleParams(n *yaml.Node, field string, s *Skill, schemaOK bool) (map[string]any, bool) {
	before := len(f.ps.list)
	v, good := f.jsonValue(n, field)
	if len(f.ps.list) > before || !good {
		// Said already, here or (past the count of values) once before.
		return nil, false
	}
	params, ok := v.(map[string]any)
	if !ok {
		f.problem(n, field, "must be a mapping of param name to value, got %s; write {name: value, ...}", yamlkind.Of(n))
		return nil, false
	}
	if !schemaOK {
		return params, false
	}
	props := s.Properties()
	defined := make([]string, 0, len(props))
	for name := range props {
		defined = append(defined, name)
	}
	valid := true
	for i := 0; i+1 < len(n.Content); i += 2 {
		name, vnode := n.Content[i].Value, n.Content[i+1]
		pfield := join(field, name)
		ps, defd := s.PropSchemas[name]
		if !defd {
			hint := "add it to params_schema.properties or remove it from the example"
			if sug := suggest(name, defined); sug != "" {
				hint = "did you mean " + sug + "? " + hint
			}
			f.problem(n.Content[i], pfield, "is not defined in params_schema.properties; %s", hint)
			valid = false
			continue
		}
		if err := ps.Validate(params[name]); err != nil {
			for _, p := range explainSchemaError(err) {
				f.problem(nodeAt(vnode, p.ptr), fieldOf(pfield, p.ptr), "value %s fails its schema: %s; use a value params_schema.properties.%s allows",
					describeValue(params[name]), p.msg, name)
			}
			valid = false
		}
	}
	return params, valid
}

// checkRules reports rules that are false on an example holding every param
// they read: either the example or the rule is wrong.
func (f *yfile) checkRules(n *yaml.Node, field string, s *Skill, ex Example) {
	for j, r := range s.Rules {
		if r.readsNow || !hasAll(ex.Params, r.Reads) {
			continue
		}
		at := ex.Pos
		if n != nil {
			at = f.pos(n)
		}
		ok, err := r.Eval(ex.Params, exampleNow)
		switch {
		case err != nil:
			f.ps.add(at, field, "rules[%d] (line %d) cannot be evaluated on this example: %v; fix the example's params or the rule",
				j, r.Pos.Line, err)
		case !ok:
			f.ps.add(at, field, "breaks rules[%d] (line %d: %s): %s; fix the example or the rule",
				j, r.Pos.Line, r.Expr, r.Message)
		}
	}
}

func hasAll(params map[string]any, names []string) bool {
	for _, n := range names {
		if _, ok := params[n]; !ok {
			return false
		}
	}
	return true
}

func describeValue(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("%q", x)
	case nil:
		return "null"
	case map[string]any, []any:
		return strings.TrimSpace(fmt.Sprint(x))
	}
	return fmt.Sprint(v)
}

// withColumn puts "(column N)" before the advice part of a message.
func withColumn(msg, where string) string {
	if where == "" {
		return msg
	}
	if i := strings.LastIndex(msg, "; "); i >= 0 {
		return msg[:i] + where + msg[i:]
	}
	return msg + where
}
