package harness

import (
	"encoding/json"
	"maps"
	"slices"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
	"github.com/routebench/routebench/workflow"
)

// outcomeSensitiveValues are the values of the x-sensitive params the
// workflow run o sent to its tools (and asked a person to confirm), in
// text form. The engine runs on the decision's real params, so a code
// the router extracted reaches every call that uses it.
func outcomeSensitiveValues(reg *registry.Registry, o *workflow.Outcome) []string {
	if o == nil || reg == nil || !reg.HasSensitive() {
		return nil
	}
	var values []string
	add := func(skill string, params map[string]any) {
		s := reg.Skill(skill)
		if s == nil {
			return
		}
		for _, n := range s.Sensitive() {
			if v, ok := params[n]; ok && v != nil && v != router.Masked {
				values = router.AppendValues(values, v)
			}
		}
	}
	for _, c := range o.Calls {
		add(c.Skill, c.Params)
	}
	if o.Pending != nil {
		if p, ok := o.Pending.Params.(map[string]any); ok {
			add(o.Pending.Skill, p)
		}
	}
	return values
}

// maskOutcome is o as results may show it: each call's (and the pending
// confirmation's) x-sensitive params written as "***", and values masked
// wherever the outcome holds text (messages, confirmation samples,
// previews, other params). o is not changed; with nothing to mask it is
// returned as is.
func maskOutcome(reg *registry.Registry, o *workflow.Outcome, values []string) *workflow.Outcome {
	if o == nil || reg == nil || !reg.HasSensitive() {
		return o
	}
	masked := *o
	masked.Calls = slices.Clone(o.Calls)
	for i := range masked.Calls {
		c := &masked.Calls[i]
		c.Params = maskNamed(reg, c.Skill, c.Params)
	}
	if o.Pending != nil {
		pending := *o.Pending
		if p, ok := pending.Params.(map[string]any); ok {
			pending.Params = maskNamed(reg, pending.Skill, p)
		}
		masked.Pending = &pending
	}
	if len(values) == 0 {
		return &masked
	}
	// Text can sit in any field, and new fields come with new guards: the
	// outcome is masked as the JSON results.jsonl holds, string by string,
	// and read back as reading results.jsonl would.
	data, err := json.Marshal(&masked)
	if err != nil {
		return &masked
	}
	var doc any
	if json.Unmarshal(data, &doc) != nil {
		return &masked
	}
	doc, changed := router.MaskStrings(doc, values)
	if !changed {
		return &masked
	}
	if data, err = json.Marshal(doc); err != nil {
		return &masked
	}
	var out workflow.Outcome
	if json.Unmarshal(data, &out) != nil {
		return &masked
	}
	return &out
}

// maskNamed is params with skill's x-sensitive ones written as "***",
// a copy when anything changes.
func maskNamed(reg *registry.Registry, skill string, params map[string]any) map[string]any {
	s := reg.Skill(skill)
	if s == nil {
		return params
	}
	out, copied := params, false
	for _, n := range s.Sensitive() {
		if v, ok := params[n]; ok && v != nil && v != router.Masked {
			if !copied {
				out, copied = maps.Clone(params), true
			}
			out[n] = router.Masked
		}
	}
	return out
}
