package router

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/routebench/routebench/router/registry"
)

// validateParams is stage 5: the params of an acting decision pass three
// layers, each failure a structured Error. Schema: the skill's JSON Schema.
// Rule: the skill's CEL rules, each checked only when every param it reads
// is present and passed the schema (a rule over a malformed date would only
// repeat the schema's complaint). Permission: x-permission on a property
// value, plus the skill's own permission_scope again, as defence in depth
// behind stage 0.
//
// quick is newQuickSchema(s.Schema), or nil.
func validateParams(s *registry.Skill, quick *quickSchema, params map[string]any, held heldScopes, now time.Time) []Error {
	var errs []Error
	if s.Schema != nil {
		if missing, ok := quick.missingOnly(params); ok {
			// What schemaErrors makes of the full validator's one error,
			// without running it: the usual clarify asks for params the
			// request did not give.
			for _, m := range missing {
				errs = append(errs, Error{Category: CatParams, Layer: LayerSchema, Path: pointer([]string{m}), Rule: "required", Message: m + " is required"})
			}
		} else {
			errs = append(errs, schemaErrors(quick.validate(s.Schema, params), CatParams, LayerSchema)...)
		}
	}
	bad := map[string]bool{}
	for _, e := range errs {
		bad[topField(e.Path)] = true
	}
	var ruleParams map[string]any // worked out for the first rule that runs
	for _, r := range s.Rules {
		if !readable(r.Reads, params, bad) {
			continue
		}
		if ruleParams == nil {
			ruleParams = numericForRules(s, params)
		}
		ok, err := r.Eval(ruleParams, now)
		switch {
		case err != nil:
			errs = append(errs, Error{Category: CatParams, Layer: LayerRule, Path: rulePath(r), Rule: r.Expr,
				Message: fmt.Sprintf("%s (%s could not be checked: %v)", ruleMessage(r), strings.Join(r.Reads, ", "), err)})
		case !ok:
			errs = append(errs, Error{Category: CatParams, Layer: LayerRule, Path: rulePath(r), Rule: r.Expr, Message: ruleMessage(r)})
		}
	}
	return append(errs, permissionErrors(s, params, held)...)
}

// rulePath is where a failed rule points: the first param it reads.
func rulePath(r *registry.Rule) string {
	if reads := ruleReads(r); len(reads) > 0 {
		return pointer(reads[:1])
	}
	return ""
}

// ruleReads lists the params a rule reads in the order its expression
// mentions them, so "date(params.start) <= date(params.end)" points at
// start first, as a person reading the rule would.
func ruleReads(r *registry.Rule) []string {
	reads := slices.Clone(r.Reads)
	at := func(name string) int {
		if i := strings.Index(r.Expr, "params."+name); i >= 0 {
			return i
		}
		if i := strings.Index(r.Expr, name); i >= 0 {
			return i
		}
		return len(r.Expr)
	}
	slices.SortStableFunc(reads, func(a, b string) int { return at(a) - at(b) })
	return reads
}

func ruleMessage(r *registry.Rule) string {
	if r.Message != "" {
		return r.Message
	}
	return "rule " + r.Expr + " does not hold"
}

// readable reports whether all params a rule reads are present and valid.
func readable(reads []string, params map[string]any, bad map[string]bool) bool {
	for _, name := range reads {
		if _, ok := params[name]; !ok || bad[name] {
			return false
		}
	}
	return true
}

// numericForRules hands rules integers where the schema says integer: JSON
// decodes every number as float64, and `params.replicas <= 50` should not
// depend on how a judge happened to print 3.
//
// Rules only read the map, so params is handed over as it is when no value
// needs converting.
func numericForRules(s *registry.Skill, params map[string]any) map[string]any {
	props, _ := s.ParamsSchema["properties"].(map[string]any)
	integer := func(k string, v any) (int64, bool) {
		f, ok := v.(float64)
		if !ok {
			return 0, false
		}
		prop, _ := props[k].(map[string]any)
		if prop["type"] != "integer" || f != math.Trunc(f) || math.Abs(f) >= 1<<53 {
			return 0, false
		}
		return int64(f), true
	}
	converts := false
	for k, v := range params {
		if _, ok := integer(k, v); ok {
			converts = true
			break
		}
	}
	if !converts && params != nil {
		return params
	}
	out := make(map[string]any, len(params))
	for k, v := range params {
		if n, ok := integer(k, v); ok {
			v = n
		}
		out[k] = v
	}
	return out
}

// permissionErrors is the permission layer.
func permissionErrors(s *registry.Skill, params map[string]any, held heldScopes) []Error {
	var errs []Error
	if miss := missingScopes(held, s.PermissionScope); len(miss) > 0 {
		errs = append(errs, Error{Category: CatParams, Layer: LayerPermission, Rule: "permission_scope",
			Message: fmt.Sprintf("%s needs scope %s, which the caller lacks", s.Name, strings.Join(miss, ", "))})
	}
	if !valueScoped(s) {
		return errs
	}
	for _, vs := range s.ValueScopes(params) {
		if miss := missingScopes(held, vs.Scopes); len(miss) > 0 {
			errs = append(errs, Error{Category: CatParams, Layer: LayerPermission, Path: pointer([]string{vs.Param}), Rule: "x-permission",
				Message: fmt.Sprintf("%s=%v needs scope %s, which the caller lacks", vs.Param, vs.Value, strings.Join(miss, ", "))})
		}
	}
	return errs
}

// valueScoped reports whether a property of s sets x-permission, the only
// ones s.ValueScopes can list: it is asked for every acting decision, and
// most skills have none.
func valueScoped(s *registry.Skill) bool {
	props, _ := s.ParamsSchema["properties"].(map[string]any)
	for _, p := range props {
		if prop, ok := p.(map[string]any); ok {
			if _, ok := prop["x-permission"].(map[string]any); ok {
				return true
			}
		}
	}
	return false
}

// topField is the top-level param a JSON pointer points into.
func topField(path string) string {
	p := strings.TrimPrefix(path, "/")
	if i := strings.IndexByte(p, '/'); i >= 0 {
		p = p[:i]
	}
	return strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")
}

// withoutNulls is dropNulls for params no one else holds (a judge's fresh
// answer): the map itself when it has no null, so an acting decision does
// not copy its params.
func withoutNulls(params map[string]any) map[string]any {
	if params == nil {
		return map[string]any{}
	}
	for _, v := range params {
		if v == nil {
			return dropNulls(params)
		}
	}
	return params
}

// dropNulls treats a null param as absent: chat models write "status": null
// for an optional param they found nothing for.
func dropNulls(params map[string]any) map[string]any {
	out := make(map[string]any, len(params))
	for k, v := range params {
		if v != nil {
			out[k] = v
		}
	}
	return out
}
