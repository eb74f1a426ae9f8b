package importer

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

// ToolsOptions configures the openai-tools and mcp-tools imports.
type ToolsOptions struct {
	SideEffects SideEffects
}

// openAITool is one entry of an OpenAI tools list in any of its shapes:
// {"type": "function", "function": {...}} (Chat Completions), {"type":
// "function", "name": ...} (Responses API, flattened) or a bare function
// object {"name": ..., "parameters": ...}.
type openAITool struct {
	Type     string       `json:"type"`
	Function *FunctionDef `json:"function"`
	FunctionDef
}

// toolsShape says what OpenAI tools files look like, for errors.
const toolsShape = `an array of tools, {"tools": [...]}, one tool {"type": "function", "function": {...}} or a bare function {"name": ..., "parameters": {...}}`

// ImportOpenAITools writes a prompt version whose registry is an OpenAI
// tools file: the bare array, {"tools": [...]} (or the older {"functions":
// [...]}), a single tool, or bare function objects. Hosted tools (web
// search, file search, ...) are not functions and are skipped, said in the
// report. Side effects come from opt.SideEffects, else read (reported as
// assumed).
func ImportOpenAITools(path, out string, opt ToolsOptions) (*Report, error) {
	data, err := readInput(path)
	if err != nil {
		return nil, err
	}
	var whole any
	if err := decodeJSON(path, data, &whole); err != nil {
		return nil, err
	}
	elems, err := openAIElements(path, data, whole)
	if err != nil {
		return nil, err
	}
	r := &Report{Source: "openai-tools " + path, NoSuitesWhy: "a tools file holds no cases; write suites against the version (DESIGN §5)"}
	var funcs []toolDef
	for i, e := range elems {
		var t openAITool
		where := fmt.Sprintf("%s:%d: tools[%d]", path, e.Line, i)
		if err := json.Unmarshal(e.Raw, &t); err != nil {
			return nil, fmt.Errorf("%s: %w; want %s", where, err, toolsShape)
		}
		f := t.FunctionDef
		switch {
		case t.Function != nil:
			if t.Type != "" && t.Type != "function" {
				return nil, fmt.Errorf("%s: type is %q beside a function; only \"function\" tools carry one", where, t.Type)
			}
			f = *t.Function
		case t.Type != "" && t.Type != "function":
			r.skip(fmt.Sprintf("tools[%d] (line %d)", i, e.Line), "type %q is a hosted tool, not a function: there is nothing to route to", t.Type)
			continue
		}
		if strings.TrimSpace(f.Name) == "" {
			return nil, fmt.Errorf("%s: no function name; want %s", where, toolsShape)
		}
		funcs = append(funcs, toolDef{FunctionDef: f, Line: e.Line})
	}
	name := versionName("openai-" + strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)))
	return r, writeToolsVersion(r, path, out, funcs, opt.SideEffects, VersionDoc{
		Name:        name,
		Description: fmt.Sprintf("imported from OpenAI tools %s", filepath.Base(path)),
		Persona:     "You are an assistant that calls exactly one of its tools for each request.\n",
		Constraints: "When no tool fits, decline and say what you can do.\n",
	})
}

// openAIElements finds the tool entries in any of the accepted shapes.
func openAIElements(path string, data []byte, whole any) ([]jsonElement, error) {
	switch v := whole.(type) {
	case []any:
		elems, _, err := arrayAt(data)
		return elems, err
	case map[string]any:
		for _, key := range []string{"tools", "functions"} {
			if _, ok := v[key]; ok {
				elems, found, err := arrayAt(data, key)
				if err != nil {
					return nil, err
				}
				if !found {
					return nil, fmt.Errorf("%s: %q is not an array; want %s", path, key, toolsShape)
				}
				return elems, nil
			}
		}
		if _, ok := v["function"]; ok {
			return []jsonElement{{Raw: data, Line: 1}}, nil
		}
		if _, ok := v["name"]; ok {
			return []jsonElement{{Raw: data, Line: 1}}, nil
		}
	}
	return nil, fmt.Errorf("%s: not OpenAI tools; want %s", path, toolsShape)
}

// toolDef is one function of a tools file, with what decides its side
// effect.
type toolDef struct {
	FunctionDef
	Line int
	// Effect and Why come from the tool itself (MCP annotations); empty
	// when it says nothing.
	Effect, Why  string
	ResultSchema map[string]any
}

// writeToolsVersion turns tools into skills and writes the version: the
// side effect is the tool's own (annotations), else the flag's, else read,
// and every assumption is reported.
func writeToolsVersion(r *Report, path, out string, tools []toolDef, se SideEffects, v VersionDoc) error {
	if len(tools) == 0 {
		return fmt.Errorf("%s: no function tools; want %s", path, toolsShape)
	}
	originals := make([]string, len(tools))
	for i, t := range tools {
		originals[i] = t.Name
	}
	if err := se.checkNames(originals); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	names := newNamer()
	var assumed []string
	seen := map[string]int{}
	for _, t := range tools {
		if line, dup := seen[t.Name]; dup {
			return fmt.Errorf("%s:%d: tool %q is defined twice (first on line %d); keep one", path, t.Line, t.Name, line)
		}
		seen[t.Name] = t.Line
		kind, given := se.lookup(t.Name)
		switch {
		case t.Effect != "":
			if flag, named := se.ByName[t.Name]; named && flag != t.Effect {
				r.note("%s: --side-effect %s=%s not used: its annotations say %s (%s)", t.Name, t.Name, flag, t.Effect, t.Why)
			}
			kind = t.Effect
		case !given:
			assumed = append(assumed, t.Name)
		}
		s, notes, err := FunctionSkill(t.FunctionDef, names.name(t.Name), kind)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", path, t.Line, err)
		}
		s.ResultSchema = t.ResultSchema
		for _, n := range notes {
			r.note("%s", n)
		}
		v.Skills = append(v.Skills, s)
	}
	names.report(r, "tool")
	if len(assumed) > 0 {
		r.note("assumed side_effect read (no annotation, no --side-effect NAME=KIND) for %s", strings.Join(assumed, ", "))
	}
	v.TopK, v.Bands = 5, BandsDoc{Execute: 0.85, Clarify: 0.6}
	return r.writeVersion(filepath.Join(out, "version"), v)
}
