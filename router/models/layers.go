package models

import (
	"slices"
	"strings"

	"github.com/routebench/routebench/router/registry"
)

// promptOnlyLayers are the version files that reach a decision only through
// the judge's system prompt. skills.yaml, contract.schema.json,
// version.yaml and workflows.yaml act on every judge through the router
// (candidates, output validation, bands, workflows).
var promptOnlyLayers = []string{"constraints.md", "persona.md"}

// UnreadLayers lists the prompt version files (in registry.VersionFiles
// order) that a judge built from spec never reads, so a change to them
// cannot change its decisions (DESIGN §7). The builtin judge learns from
// the registry and never sees the system prompt, so it reads neither
// persona.md nor constraints.md; a model judge reads the composed prompt,
// which holds every layer, so the list is empty. This is the one place
// that says which judge reads what.
func UnreadLayers(judgeSpec string) []string {
	if prefix, _ := split(judgeSpec); prefix != Builtin {
		return nil
	}
	return slices.Clone(promptOnlyLayers)
}

// JudgeSpec is the judge a version routes with: override when set (the
// --judge flag), else the version's router.judge.
func JudgeSpec(v *registry.Version, override string) string {
	if s := strings.TrimSpace(override); s != "" {
		return s
	}
	if v == nil || v.Router.Judge == "" {
		return Builtin
	}
	return v.Router.Judge
}
