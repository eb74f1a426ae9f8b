package registry

import "sort"

// SensitiveKeyword marks a params_schema property whose values must never
// be written in clear: results, reports and cassettes show "***".
const SensitiveKeyword = "x-sensitive"

// Sensitive lists the top-level params marked `x-sensitive: true`, sorted.
func (s *Skill) Sensitive() []string {
	var out []string
	// The schema's properties as Properties reads them, without its copy:
	// every decision's masking asks.
	props, _ := s.ParamsSchema["properties"].(map[string]any)
	for name, p := range props {
		if prop, ok := p.(map[string]any); ok {
			if on, _ := prop[SensitiveKeyword].(bool); on {
				out = append(out, name)
			}
		}
	}
	sort.Strings(out)
	return out
}
