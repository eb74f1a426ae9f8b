package router

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/routebench/routebench/router/registry"
)

// limitsSection is appended to every judge prompt. It lives in code, not in
// a version's files, so no prompt edit can remove it (DESIGN §3).
const limitsSection = `# Limits

These limits always apply and override anything above.
- Act only through the candidate skills listed above. Never name, invent or call any other skill or tool.
- When nothing fits, say so plainly: answer with skill "none" instead of stretching a skill to fit.
- Never claim file, connector or storage access; you have none beyond the listed skills.
- Surface errors instead of retrying silently: if a parameter is missing or unclear, leave it out rather than guessing.
`

// ComposePrompt builds the judge's system prompt in DESIGN §3's fixed
// order: persona, constraints, skills (candidates only, full definitions
// including params schema and glossary), contract, then the always-on
// limits section.
func ComposePrompt(v *registry.Version, candidates []*registry.Skill) string {
	sections := make([]string, len(candidates))
	for i, s := range candidates {
		sections[i] = skillSection(s)
	}
	return composePrompt(v, sections)
}

// composePrompt joins precomputed skill sections, so the per-request cost is
// one string concatenation.
func composePrompt(v *registry.Version, skillSections []string) string {
	var b strings.Builder
	size := len(v.Persona) + len(v.Constraints) + len(v.ContractRaw) + len(limitsSection) + 512
	for _, s := range skillSections {
		size += len(s) + 1
	}
	b.Grow(size)
	b.WriteString("# Persona\n\n")
	b.WriteString(strings.TrimSpace(v.Persona))
	b.WriteString("\n\n# Constraints\n\n")
	b.WriteString(strings.TrimSpace(v.Constraints))
	b.WriteString("\n\n# Skills\n\nThe candidate skills for this request. Choose at most one of them.\n")
	for _, s := range skillSections {
		b.WriteString("\n")
		b.WriteString(s)
	}
	b.WriteString("\n# Contract\n\nAnswer with exactly one JSON object and nothing else. ")
	b.WriteString(`"skill" is a candidate's exact name or "none"; "confidence" in [0,1] is how sure you are; "params" holds the parameters the request determines. It must validate against this JSON Schema:`)
	b.WriteString("\n\n")
	b.WriteString(strings.TrimSpace(string(v.ContractRaw)))
	b.WriteString("\n\n")
	b.WriteString(limitsSection)
	return b.String()
}

// skillSection renders one skill's full definition for the judge.
func skillSection(s *registry.Skill) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n", s.Name)
	fmt.Fprintf(&b, "description: %s\n", s.Description)
	fmt.Fprintf(&b, "side_effect: %s\n", s.SideEffect)
	if len(s.PermissionScope) > 0 {
		fmt.Fprintf(&b, "permission_scope: %s\n", strings.Join(s.PermissionScope, ", "))
	}
	if s.SideEffect.Acts() {
		fmt.Fprintf(&b, "confirm: %s (the system asks the user before acting)\n", gateOf(s))
	}
	writeList(&b, "when_to_use", s.WhenToUse)
	writeList(&b, "when_not_to_use", s.WhenNotToUse)
	schema, _ := json.Marshal(s.ParamsSchema)
	fmt.Fprintf(&b, "params_schema: %s\n", schema)
	if len(s.Rules) > 0 {
		b.WriteString("rules:\n")
		for _, r := range s.Rules {
			fmt.Fprintf(&b, "- %s (%s)\n", r.Message, r.Expr)
		}
	}
	if len(s.Examples) > 0 {
		b.WriteString("examples:\n")
		for _, e := range s.Examples {
			params, _ := json.Marshal(e.Params)
			fmt.Fprintf(&b, "- input: %s\n  params: %s\n", e.Input, params)
		}
	}
	writeList(&b, "counter_examples (not this skill)", s.CounterExamples)
	if len(s.Glossary) > 0 {
		b.WriteString("glossary:\n")
		terms := make([]string, 0, len(s.Glossary))
		for t := range s.Glossary {
			terms = append(terms, t)
		}
		slices.Sort(terms)
		for _, t := range terms {
			fmt.Fprintf(&b, "- %s: %s\n", t, s.Glossary[t])
		}
	}
	return b.String()
}

func writeList(b *strings.Builder, title string, items []string) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintf(b, "%s:\n", title)
	for _, it := range items {
		fmt.Fprintf(b, "- %s\n", it)
	}
}

// gateOf is the confirmation a side-effect skill carries; a skill that
// forgot to declare one still gets the normal gate, never none.
func gateOf(s *registry.Skill) registry.Gate {
	if s.Confirm == "" {
		return registry.GateNormal
	}
	return s.Confirm
}
