package importer

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// FunctionDef is a function definition as OpenAI tools and BFCL write it.
type FunctionDef struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Parameters  map[string]any `json:"parameters"`
}

// pythonTypes maps BFCL's Python type names to JSON Schema types; "any"
// maps to no type constraint at all.
var pythonTypes = map[string]string{
	"dict":    "object",
	"float":   "number",
	"tuple":   "array",
	"integer": "integer",
	"string":  "string",
	"boolean": "boolean",
	"array":   "array",
	"object":  "object",
	"number":  "number",
	"null":    "null",
	"any":     "",
}

// ToJSONSchema converts a function's parameters into JSON Schema 2020-12,
// mapping Python type names and dropping BFCL's non-standard "optional"
// flag (optionality is what "required" already says).
func ToJSONSchema(params map[string]any) (map[string]any, error) {
	if params == nil {
		return map[string]any{"type": "object"}, nil
	}
	out, err := convertSchema(params, "parameters")
	if err != nil {
		return nil, err
	}
	out["type"] = "object"
	return out, nil
}

func convertSchema(s map[string]any, path string) (map[string]any, error) {
	out := make(map[string]any, len(s))
	for k, v := range s {
		switch k {
		case "optional":
			continue
		case "type":
			name, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("%s.type: want a type name, got %v", path, v)
			}
			t, known := pythonTypes[name]
			if !known {
				return nil, fmt.Errorf("%s.type: unknown type %q", path, name)
			}
			if t != "" {
				out["type"] = t
			}
		case "properties":
			props, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s.properties: want an object", path)
			}
			conv := make(map[string]any, len(props))
			for name, p := range props {
				pm, ok := p.(map[string]any)
				if !ok {
					return nil, fmt.Errorf("%s.properties.%s: want an object", path, name)
				}
				c, err := convertSchema(pm, path+".properties."+name)
				if err != nil {
					return nil, err
				}
				conv[name] = c
			}
			out[k] = conv
		case "items":
			im, ok := v.(map[string]any)
			if !ok {
				out[k] = v
				continue
			}
			c, err := convertSchema(im, path+".items")
			if err != nil {
				return nil, err
			}
			out[k] = c
		default:
			out[k] = v
		}
	}
	return out, nil
}

var skillName = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// FunctionSkill turns a function definition into a read skill.
func FunctionSkill(f FunctionDef, sideEffect string) (SkillDoc, error) {
	if !skillName.MatchString(f.Name) {
		return SkillDoc{}, fmt.Errorf("function %q: a skill name may hold only letters, digits, _ . -", f.Name)
	}
	schema, err := ToJSONSchema(f.Parameters)
	if err != nil {
		return SkillDoc{}, fmt.Errorf("function %s: %w", f.Name, err)
	}
	desc := f.Description
	if desc == "" {
		desc = describeIntent(f.Name)
	}
	s := SkillDoc{Name: f.Name, Description: desc, SideEffect: sideEffect, ParamsSchema: schema}
	if sideEffect != "read" {
		s.Confirm = "normal"
	}
	return s, nil
}

// openAITool is one entry of an OpenAI `tools` array.
type openAITool struct {
	Type     string      `json:"type"`
	Function FunctionDef `json:"function"`
}

// ImportOpenAITools writes a prompt version whose registry is an OpenAI
// `tools` array; every skill is a read skill unless sideEffect says otherwise.
func ImportOpenAITools(path, out, sideEffect string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read tools: %w", err)
	}
	var tools []openAITool
	if err := json.Unmarshal(data, &tools); err != nil {
		return fmt.Errorf("%s: not an OpenAI tools array ([{\"type\": \"function\", \"function\": {...}}]): %w", path, err)
	}
	skills := make([]SkillDoc, 0, len(tools))
	for i, t := range tools {
		if t.Type != "function" {
			return fmt.Errorf("%s: tools[%d].type is %q; only \"function\" tools become skills", path, i, t.Type)
		}
		s, err := FunctionSkill(t.Function, sideEffect)
		if err != nil {
			return fmt.Errorf("%s: tools[%d]: %w", path, i, err)
		}
		skills = append(skills, s)
	}
	return WriteVersion(filepath.Join(out, "version"), VersionDoc{
		Name:        versionName("openai-" + strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))),
		Description: fmt.Sprintf("imported from OpenAI tools %s", filepath.Base(path)),
		TopK:        5,
		Bands:       BandsDoc{Execute: 0.85, Clarify: 0.6},
		Persona:     "You are an assistant that calls exactly one of its tools for each request.\n",
		Constraints: "When no tool fits, decline and say what you can do.\n",
		Skills:      skills,
	})
}
