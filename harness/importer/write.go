// Package importer converts public benchmark data (CLINC150, BFCL) and OpenAI
// tools arrays into routebench's own formats: a prompt version in DIR/version/
// and case suites in DIR/suites/. It writes files only; routing and scoring
// them is the harness's job, so imported data is measured exactly like the
// demo.
package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"
)

// SkillDoc is one skills.yaml entry as written by an importer. Field order
// is the order a reader expects in the file.
type SkillDoc struct {
	Name            string         `yaml:"name"`
	Description     string         `yaml:"description"`
	WhenToUse       []string       `yaml:"when_to_use,omitempty"`
	SideEffect      string         `yaml:"side_effect"`
	PermissionScope []string       `yaml:"permission_scope,omitempty"`
	ParamsSchema    map[string]any `yaml:"params_schema,omitempty"`
	Examples        []ExampleDoc   `yaml:"examples,omitempty"`
	CounterExamples []string       `yaml:"counter_examples,omitempty"`
	Confirm         string         `yaml:"confirm,omitempty"`
	ResultSchema    map[string]any `yaml:"result_schema,omitempty"`
}

// ExampleDoc is one positive example.
type ExampleDoc struct {
	Input  string         `yaml:"input"`
	Params map[string]any `yaml:"params,omitempty"`
}

// BandsDoc is the bands block of version.yaml.
type BandsDoc struct {
	Execute float64 `yaml:"execute"`
	Clarify float64 `yaml:"clarify"`
}

// VersionDoc is what an importer needs to write a prompt version.
type VersionDoc struct {
	// Name is the data set's ("clinc150", "bfcl-live_multiple"): every
	// importer writes DIR/version, and without it every imported version
	// would be called "version".
	Name        string
	Description string
	TopK        int
	Bands       BandsDoc
	Persona     string
	Constraints string
	Skills      []SkillDoc
}

// CaseDoc is one case of a suite file.
type CaseDoc struct {
	ID    string     `yaml:"id"`
	Input string     `yaml:"input"`
	Tags  []string   `yaml:"tags,omitempty"`
	Tools []SkillDoc `yaml:"tools,omitempty"`
	// ToolsSim scripts each tool's answers (DESIGN §11), making the case a
	// workflow case: what the router acts on is run against them.
	ToolsSim map[string][]map[string]any `yaml:"tools_sim,omitempty"`
	Expect   ExpectDoc                   `yaml:"expect"`
}

// ExpectDoc is a case's expectation.
type ExpectDoc struct {
	Action string         `yaml:"action,omitempty"`
	Skill  string         `yaml:"skill,omitempty"`
	Params map[string]any `yaml:"params,omitempty"`
	// Outcome is a workflow case's expected run outcome.
	Outcome string `yaml:"outcome,omitempty"`
}

// SuiteDoc is one suite file.
type SuiteDoc struct {
	Suite    string         `yaml:"suite"`
	Defaults map[string]any `yaml:"defaults,omitempty"`
	Cases    []CaseDoc      `yaml:"cases"`
}

// contractSchema is the judge output contract every imported version uses:
// the same shape as the demo versions.
const contractSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "required": ["skill", "confidence", "params"],
  "additionalProperties": false,
  "properties": {
    "skill": {"type": "string", "minLength": 1},
    "confidence": {"type": "number", "minimum": 0, "maximum": 1},
    "params": {"type": "object"},
    "reason": {"type": "string"}
  }
}
`

// WriteVersion writes a complete prompt version directory.
func WriteVersion(dir string, v VersionDoc) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create version dir: %w", err)
	}
	settings := map[string]any{
		"description": v.Description,
		"router": map[string]any{
			"top_k":    v.TopK,
			"embedder": "builtin",
			"judge":    "builtin",
			"bands":    map[string]any{"execute": v.Bands.Execute, "clarify": v.Bands.Clarify},
		},
	}
	if v.Name != "" {
		settings["name"] = v.Name
	}
	files := map[string]any{
		"version.yaml": settings,
		"skills.yaml":  map[string]any{"skills": v.Skills},
	}
	for name, doc := range files {
		if err := writeYAML(filepath.Join(dir, name), doc); err != nil {
			return err
		}
	}
	texts := map[string]string{
		"persona.md":           v.Persona,
		"constraints.md":       v.Constraints,
		"contract.schema.json": contractSchema,
	}
	for name, text := range texts {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", name, err)
		}
	}
	return nil
}

// versionName makes s a version name: letters, digits, '.', '_' and '-'
// are kept, runs of anything else become one '-'.
func versionName(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range s {
		if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '_' || r == '-') {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.Trim(b.String(), "-.")
}

// WriteSuite writes one suite file.
func WriteSuite(path string, s SuiteDoc) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create suites dir: %w", err)
	}
	return writeYAML(path, s)
}

func writeYAML(path string, doc any) error {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("encode %s: %w", filepath.Base(path), err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("encode %s: %w", filepath.Base(path), err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// jsonLine is one decoded JSON Lines record and its line number.
type jsonLine[T any] struct {
	v    T
	line int
}

// decodeJSONLines decodes a JSON Lines file (BFCL's .json files are JSON
// Lines despite the name), naming the line of any bad record.
func decodeJSONLines[T any](path string, data []byte) ([]jsonLine[T], error) {
	var out []jsonLine[T]
	for i, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var v T
		if err := json.Unmarshal(line, &v); err != nil {
			return nil, fmt.Errorf("%s:%d: not a JSON object of the expected shape (each line must be one): %w", path, i+1, err)
		}
		out = append(out, jsonLine[T]{v: v, line: i + 1})
	}
	return out, nil
}

// writeVersion writes the version and records it in the report.
func (r *Report) writeVersion(dir string, v VersionDoc) error {
	if err := WriteVersion(dir, v); err != nil {
		return err
	}
	r.Version, r.VersionName, r.Skills = dir, v.Name, len(v.Skills)
	return nil
}

// writeSuite writes a suite that has cases and records it; a suite without
// cases is not written (a suite file must hold cases) and says so.
func (r *Report) writeSuite(path string, s SuiteDoc) error {
	if len(s.Cases) == 0 {
		r.note("%s not written: no cases for it", path)
		return nil
	}
	if err := WriteSuite(path, s); err != nil {
		return err
	}
	r.Suites = append(r.Suites, SuiteCount{Path: path, Kind: s.Suite, Cases: len(s.Cases)})
	return nil
}
