package importer

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// bfclLine is one BFCL test entry.
type bfclLine struct {
	ID       string `json:"id"`
	Question [][]struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"question"`
	Function []FunctionDef `json:"function"`
}

// bfclAnswer is one possible_answer entry: for each expected call, the
// acceptable values of each param ("" meaning it may be left out).
type bfclAnswer struct {
	ID          string                        `json:"id"`
	GroundTruth []map[string]map[string][]any `json:"ground_truth"`
}

// ImportBFCL writes a BFCL category as a suite of cases that carry their own
// tools. answersPath may be empty only for the irrelevance category, whose
// right answer is to call nothing.
func ImportBFCL(path, answersPath, out string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read bfcl: %w", err)
	}
	lines, err := decodeJSONLines[bfclLine](path, data)
	if err != nil {
		return err
	}
	if len(lines) == 0 {
		return fmt.Errorf("%s: no BFCL entries", path)
	}
	category := bfclCategory(lines[0].ID)
	answers := map[string]bfclAnswer{}
	if answersPath != "" {
		adata, err := os.ReadFile(answersPath)
		if err != nil {
			return fmt.Errorf("read bfcl answers: %w", err)
		}
		list, err := decodeJSONLines[bfclAnswer](answersPath, adata)
		if err != nil {
			return err
		}
		for _, a := range list {
			answers[a.ID] = a
		}
	}
	cases := make([]CaseDoc, 0, len(lines))
	// The version's own registry is every function once (first definition
	// wins): cases route against their own tools, but a version needs skills.
	var all []SkillDoc
	seen := map[string]bool{}
	for i, l := range lines {
		c, err := bfclCase(l, answers, category)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", path, i+1, err)
		}
		cases = append(cases, c)
		for _, t := range c.Tools {
			if !seen[t.Name] {
				seen[t.Name] = true
				all = append(all, t)
			}
		}
	}
	kind := "normal"
	if category == "irrelevance" {
		kind = "boundary"
	}
	err = WriteVersion(filepath.Join(out, "version"), VersionDoc{
		Name:        versionName("bfcl-" + category),
		Description: "BFCL (Berkeley Function Calling Leaderboard): every case carries its own functions",
		TopK:        5,
		Bands:       BandsDoc{Execute: 0.5, Clarify: 0.3},
		Persona:     "You are an assistant that answers each request by calling one of the functions offered, or none.\n",
		Constraints: "Call nothing when none of the functions can do what is asked.\n",
		Skills:      all,
	})
	if err != nil {
		return err
	}
	return WriteSuite(filepath.Join(out, "suites", category+".yaml"), SuiteDoc{Suite: kind, Cases: cases})
}

func bfclCase(l bfclLine, answers map[string]bfclAnswer, category string) (CaseDoc, error) {
	if len(l.Question) == 0 || len(l.Question[0]) == 0 {
		return CaseDoc{}, fmt.Errorf("%s: no question", l.ID)
	}
	turn := l.Question[0]
	input := turn[len(turn)-1].Content
	tools := make([]SkillDoc, 0, len(l.Function))
	for _, f := range l.Function {
		s, err := FunctionSkill(f, "read")
		if err != nil {
			return CaseDoc{}, fmt.Errorf("%s: %w", l.ID, err)
		}
		tools = append(tools, s)
	}
	c := CaseDoc{ID: "bfcl-" + l.ID, Input: input, Tags: []string{"en", "bfcl", "category:" + category}, Tools: tools}
	if category == "irrelevance" {
		c.Expect = ExpectDoc{Action: "refuse"}
		return c, nil
	}
	a, ok := answers[l.ID]
	if !ok {
		return CaseDoc{}, fmt.Errorf("%s: no possible answer (pass --answers with BFCL's possible_answer file)", l.ID)
	}
	if len(a.GroundTruth) != 1 || len(a.GroundTruth[0]) != 1 {
		return CaseDoc{}, fmt.Errorf("%s: expected exactly one call in the ground truth; parallel calls are not single-turn routing", l.ID)
	}
	for fn, params := range a.GroundTruth[0] {
		c.Expect = ExpectDoc{Action: "execute", Skill: fn, Params: map[string]any{}}
		for name, values := range params {
			c.Expect.Params[name] = bfclMatcher(values)
		}
	}
	return c, nil
}

// bfclMatcher turns BFCL's list of acceptable values into a param matcher;
// "" in the list means the param may be left out.
func bfclMatcher(values []any) any {
	var accept []any
	optional := false
	for _, v := range values {
		if s, ok := v.(string); ok && s == "" {
			optional = true
			continue
		}
		accept = append(accept, v)
	}
	m := map[string]any{"any_of": accept}
	if optional {
		m["optional"] = true
	}
	return m
}

// bfclCategory derives the category from an entry id: "simple_python_12" ->
// "simple_python".
func bfclCategory(id string) string {
	if i := strings.LastIndex(id, "_"); i > 0 {
		return id[:i]
	}
	return id
}
