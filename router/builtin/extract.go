package builtin

import (
	"time"

	"github.com/routebench/routebench/router/registry"
)

// ExtractParams fills the params of s that text supports.
func ExtractParams(s *registry.Skill, text string, now time.Time) map[string]any {
	return map[string]any{}
}
