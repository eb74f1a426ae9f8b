package registry

import "sort"

// SensitiveKeyword marks a params_schema property whose values must never
// be written in clear: results, reports and cassettes show "***".
const SensitiveKeyword = "x-sensitive"

// Sensitive lists the top-level params marked `x-sensitive: true`, sorted.
func (s *Skill) Sensitive() []string {
	var out []string
	for name, prop := range s.Properties() {
		if on, _ := prop[SensitiveKeyword].(bool); on {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}
