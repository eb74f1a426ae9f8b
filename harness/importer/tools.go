package importer

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Side effects a skill may declare (DESIGN §2).
var sideEffects = []string{"read", "write", "delete", "send"}

// SideEffects says which side effect each imported tool has: by name, then
// Default for the rest. Parsed from repeated or comma-separated
// --side-effect flags: "send_email=send", or a bare kind for every tool
// not named.
type SideEffects struct {
	ByName  map[string]string
	Default string
}

// ParseSideEffects parses --side-effect values: NAME=KIND items and at most
// one bare KIND, separated by commas or given as repeated flags.
func ParseSideEffects(values []string) (SideEffects, error) {
	se := SideEffects{ByName: map[string]string{}}
	for _, v := range values {
		for _, item := range strings.Split(v, ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				continue
			}
			name, kind, named := strings.Cut(item, "=")
			if !named {
				name, kind = "", item
			}
			name, kind = strings.TrimSpace(name), strings.TrimSpace(kind)
			if !slices.Contains(sideEffects, kind) {
				return SideEffects{}, fmt.Errorf("--side-effect %s: %q is not a side effect; use one of %s (e.g. send_email=send)", item, kind, strings.Join(sideEffects, ", "))
			}
			switch {
			case !named && se.Default != "" && se.Default != kind:
				return SideEffects{}, fmt.Errorf("--side-effect: two defaults for every tool (%s, %s); name the tools: NAME=KIND", se.Default, kind)
			case !named:
				se.Default = kind
			case name == "":
				return SideEffects{}, fmt.Errorf("--side-effect %s: no tool name before '='; write NAME=KIND", item)
			case se.ByName[name] != "" && se.ByName[name] != kind:
				return SideEffects{}, fmt.Errorf("--side-effect: %s is given twice (%s, %s); keep one", name, se.ByName[name], kind)
			default:
				se.ByName[name] = kind
			}
		}
	}
	return se, nil
}

// lookup returns the flag's side effect for a tool, and whether a flag
// (by name or the bare default) gave one.
func (se SideEffects) lookup(name string) (string, bool) {
	if k, ok := se.ByName[name]; ok {
		return k, true
	}
	if se.Default != "" {
		return se.Default, true
	}
	return "read", false
}

// checkNames reports --side-effect names that no tool in the file has: a
// typo there would silently leave a side-effect tool as read.
func (se SideEffects) checkNames(tools []string) error {
	var unknown []string
	for name := range se.ByName {
		if !slices.Contains(tools, name) {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	sorted := slices.Clone(tools)
	sort.Strings(sorted)
	return fmt.Errorf("--side-effect names %s, which the file does not define; its tools are %s", strings.Join(unknown, ", "), strings.Join(sorted, ", "))
}

// FunctionSkill turns a function definition into a skill with the given
// side effect and name (the registry-safe one; see namer). A side-effect
// skill gets the normal confirmation gate: routebench never executes a side
// effect without one.
func FunctionSkill(f FunctionDef, name, sideEffect string) (SkillDoc, []string, error) {
	var c schemaConverter
	schema, err := c.convertParams(f.Parameters, "parameters")
	if err != nil {
		return SkillDoc{}, nil, fmt.Errorf("function %s: %w", f.Name, err)
	}
	desc := strings.TrimSpace(f.Description)
	if desc == "" {
		desc = describeIntent(name)
	}
	s := SkillDoc{Name: name, Description: desc, SideEffect: sideEffect, ParamsSchema: schema}
	if sideEffect != "read" {
		s.Confirm = "normal"
	}
	notes := make([]string, len(c.notes))
	for i, n := range c.notes {
		notes[i] = f.Name + ": " + n
	}
	return s, notes, nil
}
