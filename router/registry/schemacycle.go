package registry

import (
	"cmp"
	"maps"
	"slices"
	"strconv"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// refCycle finds a chain of subschemas that apply to the same value ($ref,
// allOf, not, if/then/else, ...) and comes back to where it started, in
// the compiled schema sch. The compiler accepts such a chain, but
// validating any value that reaches it fails with "reference cycle", so a
// params schema with one would turn every request into a clarification.
// Recursion through properties or items is fine: each step there reads a
// smaller part of the value. The cycle is returned from its first schema
// back to it, or nil when there is none.
func refCycle(sch *jsonschema.Schema) []*jsonschema.Schema {
	const (
		unseen = iota
		onPath
		done
	)
	state := map[*jsonschema.Schema]int{}
	var path, cycle []*jsonschema.Schema
	// inPlace walks same-value edges only; a schema met again while still
	// on the path closes a cycle.
	var inPlace func(s *jsonschema.Schema) bool
	inPlace = func(s *jsonschema.Schema) bool {
		switch state[s] {
		case onPath:
			i := slices.Index(path, s)
			cycle = append(append(cycle, path[i:]...), s)
			return true
		case done:
			return false
		}
		state[s] = onPath
		path = append(path, s)
		for _, next := range sameValue(s) {
			if inPlace(next) {
				return true
			}
		}
		path = path[:len(path)-1]
		state[s] = done
		return false
	}
	// Every reachable schema is a start, since a cycle may hang under any
	// property or item.
	seen := map[*jsonschema.Schema]bool{}
	queue := []*jsonschema.Schema{sch}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if s == nil || seen[s] {
			continue
		}
		seen[s] = true
		if inPlace(s) {
			return cycle
		}
		queue = append(queue, sameValue(s)...)
		queue = append(queue, partsOfValue(s)...)
	}
	return nil
}

// sameValue lists the subschemas that s applies to the value s itself is
// applied to, in a fixed order.
func sameValue(s *jsonschema.Schema) []*jsonschema.Schema {
	out := []*jsonschema.Schema{s.Ref, s.RecursiveRef, s.Not, s.If, s.Then, s.Else}
	if s.DynamicRef != nil {
		// Resolved against the dynamic scope when validating; its static
		// target is where it goes without an overriding $dynamicAnchor.
		out = append(out, s.DynamicRef.Ref)
	}
	out = append(out, s.AllOf...)
	out = append(out, s.AnyOf...)
	out = append(out, s.OneOf...)
	out = append(out, sortedValues(s.DependentSchemas)...)
	for _, k := range slices.Sorted(maps.Keys(s.Dependencies)) {
		if d, ok := s.Dependencies[k].(*jsonschema.Schema); ok {
			out = append(out, d)
		}
	}
	return slices.DeleteFunc(out, func(x *jsonschema.Schema) bool { return x == nil })
}

// partsOfValue lists the subschemas that s applies to parts of its value
// (properties, items, property names, decoded content).
func partsOfValue(s *jsonschema.Schema) []*jsonschema.Schema {
	parts := valueParts(s)
	out := make([]*jsonschema.Schema, len(parts))
	for i, p := range parts {
		out[i] = p.s
	}
	return out
}

// part is a subschema applied to a part of the value, with the step that
// reaches the part: "o:name" is one property and "a:3" one item; "o*" (any
// property), "a*" (any item), "n*" (property names) and "c*" (decoded
// content) may reach any part of their kind.
type part struct {
	step string
	s    *jsonschema.Schema
}

// valueParts lists the parts s applies subschemas to, in a fixed order.
func valueParts(s *jsonschema.Schema) []part {
	var out []part
	add := func(step string, x *jsonschema.Schema) {
		if x != nil {
			out = append(out, part{step, x})
		}
	}
	add("n*", s.PropertyNames)
	add("o*", s.UnevaluatedProperties)
	add("a*", s.Contains)
	add("a*", s.Items2020)
	add("a*", s.UnevaluatedItems)
	add("c*", s.ContentSchema)
	for _, k := range slices.Sorted(maps.Keys(s.Properties)) {
		add("o:"+k, s.Properties[k])
	}
	patterns := make([]jsonschema.Regexp, 0, len(s.PatternProperties))
	for re := range s.PatternProperties {
		patterns = append(patterns, re)
	}
	slices.SortFunc(patterns, func(a, b jsonschema.Regexp) int { return cmp.Compare(a.String(), b.String()) })
	for _, re := range patterns {
		add("o*", s.PatternProperties[re])
	}
	if x, ok := s.AdditionalProperties.(*jsonschema.Schema); ok {
		add("o*", x)
	}
	if x, ok := s.AdditionalItems.(*jsonschema.Schema); ok {
		add("a*", x)
	}
	switch x := s.Items.(type) {
	case *jsonschema.Schema:
		add("a*", x)
	case []*jsonschema.Schema: // drafts before 2020-12: one schema per position
		for j, item := range x {
			add("a:"+strconv.Itoa(j), item)
		}
	}
	for j, item := range s.PrefixItems {
		add("a:"+strconv.Itoa(j), item)
	}
	return out
}

func sortedValues(m map[string]*jsonschema.Schema) []*jsonschema.Schema {
	out := make([]*jsonschema.Schema, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, m[k])
	}
	return out
}

// cycleProblem describes a cycle for an author: where it is (the JSON
// pointer of its first schema within the document registered at
// schemaURL, nil when it lies in another resource) and the chain as
// pointers.
func cycleProblem(cycle []*jsonschema.Schema) (ptr []string, chain string) {
	return locationPointer(cycle[0]), wayString(cycle)
}
