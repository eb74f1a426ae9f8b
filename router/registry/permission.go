package registry

import (
	"fmt"
	"sort"
)

// ValueScope is what an `x-permission: {value: [scope, ...]}` entry asks
// for one param value: acting with Param = Value needs Scopes.
type ValueScope struct {
	Param  string
	Value  any
	Scopes []string
}

// ValueScopes lists, by param name, the scopes the skill's x-permission
// entries ask for the given params. The router enforces them and the
// harness checks decisions against them, so both read them here.
func (s *Skill) ValueScopes(params map[string]any) []ValueScope {
	props := s.Properties()
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	sort.Strings(names)
	var out []ValueScope
	for _, name := range names {
		perm, ok := props[name]["x-permission"].(map[string]any)
		if !ok {
			continue
		}
		val, present := params[name]
		if !present || val == nil {
			continue
		}
		// Keys are strings in YAML, so the value is compared by its printed form.
		if scopes := scopeList(perm[fmt.Sprint(val)]); len(scopes) > 0 {
			out = append(out, ValueScope{Param: name, Value: val, Scopes: scopes})
		}
	}
	return out
}

func scopeList(raw any) []string {
	switch r := raw.(type) {
	case []any:
		var out []string
		for _, x := range r {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	case []string:
		return append([]string(nil), r...)
	case string:
		return []string{r}
	}
	return nil
}
