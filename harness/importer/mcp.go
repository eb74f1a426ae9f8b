package importer

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

// mcpTool is one tool of an MCP tools/list result.
type mcpTool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title"`
	Description  string          `json:"description"`
	InputSchema  map[string]any  `json:"inputSchema"`
	OutputSchema map[string]any  `json:"outputSchema"`
	Annotations  *mcpAnnotations `json:"annotations"`
}

// mcpAnnotations are MCP's ToolAnnotations; every hint is optional, and
// the spec's defaults apply when one is left out: readOnlyHint false,
// destructiveHint true, idempotentHint false, openWorldHint true.
type mcpAnnotations struct {
	Title           string `json:"title"`
	ReadOnlyHint    *bool  `json:"readOnlyHint"`
	DestructiveHint *bool  `json:"destructiveHint"`
	IdempotentHint  *bool  `json:"idempotentHint"`
	OpenWorldHint   *bool  `json:"openWorldHint"`
}

const mcpShape = `a tools/list response {"jsonrpc": "2.0", "id": 1, "result": {"tools": [...]}}, its result {"tools": [...]} or the tools array`

// sideEffect reads a side effect from the hints: readOnlyHint true is
// read; a tool that says it is not read-only, or says whether it is
// destructive, is delete when destructive (the spec's default once
// readOnlyHint is false) and write when not. Annotations with neither hint
// (a title only) say nothing, and ok is false.
func (a *mcpAnnotations) sideEffect() (kind, why string, ok bool) {
	switch {
	case a == nil:
		return "", "", false
	case a.ReadOnlyHint != nil && *a.ReadOnlyHint:
		return "read", "readOnlyHint: true", true
	case a.ReadOnlyHint == nil && a.DestructiveHint == nil:
		return "", "", false
	case a.DestructiveHint == nil:
		return "delete", "readOnlyHint: false, destructiveHint defaults to true", true
	case *a.DestructiveHint:
		return "delete", "destructiveHint: true", true
	}
	return "write", "destructiveHint: false", true
}

// ImportMCPTools writes a prompt version from an MCP tools/list result:
// each tool's name, description (after its title), inputSchema (as
// params_schema), outputSchema (as result_schema) and side effect from its
// annotations, else from opt.SideEffects, else read (reported as assumed).
func ImportMCPTools(path, out string, opt ToolsOptions) (*Report, error) {
	data, err := readInput(path)
	if err != nil {
		return nil, err
	}
	var whole any
	if err := decodeJSON(path, data, &whole); err != nil {
		return nil, err
	}
	elems, more, err := mcpElements(path, data, whole)
	if err != nil {
		return nil, err
	}
	r := &Report{Source: "mcp-tools " + path, NoSuitesWhy: "a tools list holds no cases; write suites against the version (DESIGN §5)"}
	if more != "" {
		r.note("the result has nextCursor %q: tools on later pages are not in this file (call tools/list with that cursor and import them together)", more)
	}
	var tools []toolDef
	var idempotent, openWorld []string
	for i, e := range elems {
		where := fmt.Sprintf("%s:%d: tools[%d]", path, e.Line, i)
		var t mcpTool
		if err := json.Unmarshal(e.Raw, &t); err != nil {
			return nil, fmt.Errorf("%s: %w; want a tool {\"name\": ..., \"inputSchema\": {...}}", where, err)
		}
		if strings.TrimSpace(t.Name) == "" {
			return nil, fmt.Errorf("%s: no name; every MCP tool has one", where)
		}
		if t.InputSchema == nil {
			return nil, fmt.Errorf("%s: %s has no inputSchema; MCP requires one ({\"type\": \"object\"} for no params)", where, t.Name)
		}
		d := toolDef{FunctionDef: FunctionDef{Name: t.Name, Description: mcpDescription(t), Parameters: t.InputSchema}, Line: e.Line, ResultSchema: t.OutputSchema}
		d.Effect, d.Why, _ = t.Annotations.sideEffect()
		if a := t.Annotations; a != nil {
			if a.IdempotentHint != nil {
				idempotent = append(idempotent, t.Name)
			}
			if a.OpenWorldHint != nil {
				openWorld = append(openWorld, t.Name)
			}
		}
		tools = append(tools, d)
	}
	// Said, not dropped silently: skills.yaml has no field for these.
	if len(idempotent) > 0 {
		r.note("idempotentHint not imported (skills.yaml has no field for it; the workflow engine keys every side-effect call itself): %s", strings.Join(idempotent, ", "))
	}
	if len(openWorld) > 0 {
		r.note("openWorldHint not imported (skills.yaml has no field for it): %s", strings.Join(openWorld, ", "))
	}
	name := versionName("mcp-" + strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)))
	if err := writeToolsVersion(r, path, out, tools, opt.SideEffects, VersionDoc{
		Name:        name,
		Description: fmt.Sprintf("imported from MCP tools/list %s", filepath.Base(path)),
		Persona:     "You are an assistant that calls exactly one of its MCP tools for each request.\n",
		Constraints: "When no tool fits, decline and say what you can do.\n",
	}); err != nil {
		return nil, err
	}
	for _, t := range tools {
		if t.Effect != "" {
			r.note("%s: side_effect %s from its annotations (%s)", t.Name, t.Effect, t.Why)
		}
	}
	return r, nil
}

// mcpElements finds the tools in a JSON-RPC response, a bare result or a
// bare array; more is the result's nextCursor.
func mcpElements(path string, data []byte, whole any) (elems []jsonElement, more string, err error) {
	if _, ok := whole.([]any); ok {
		elems, _, err = arrayAt(data)
		return elems, "", err
	}
	obj, ok := whole.(map[string]any)
	if !ok {
		return nil, "", fmt.Errorf("%s: not an MCP tools list; want %s", path, mcpShape)
	}
	if e, ok := obj["error"].(map[string]any); ok {
		return nil, "", fmt.Errorf("%s: the response is a JSON-RPC error (%v: %v), not a tools list; save a successful tools/list response", path, e["code"], e["message"])
	}
	keys := []string{"tools"}
	if res, ok := obj["result"].(map[string]any); ok {
		obj, keys = res, []string{"result", "tools"}
	}
	if _, ok := obj["tools"]; !ok {
		return nil, "", fmt.Errorf("%s: no \"tools\" list; want %s", path, mcpShape)
	}
	elems, found, err := arrayAt(data, keys...)
	if err != nil {
		return nil, "", err
	}
	if !found {
		return nil, "", fmt.Errorf("%s: %s is not an array; want %s", path, strings.Join(keys, "."), mcpShape)
	}
	more, _ = obj["nextCursor"].(string)
	return elems, more, nil
}

// mcpDescription leads with the tool's title (Tool.title, else
// annotations.title) when the description does not already say it: the
// title is the name a person reads, and recall indexes the description.
func mcpDescription(t mcpTool) string {
	title := t.Title
	if title == "" && t.Annotations != nil {
		title = t.Annotations.Title
	}
	desc := strings.TrimSpace(t.Description)
	switch {
	case title == "":
		return desc
	case desc == "":
		return title
	case strings.Contains(strings.ToLower(desc), strings.ToLower(title)):
		return desc
	}
	return strings.TrimRight(title, ".") + ": " + desc
}
