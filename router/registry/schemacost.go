package registry

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// maxSchemaVisits bounds how many subschemas validating one value may
// visit. The validator follows every $ref afresh, so $defs that refer to
// the same definition from two branches, level after level, cost 2^levels:
// 40 such lines made loading hang at 3.6 GB, and `serve` takes schemas in
// requests. Real schemas are far below: at most 7 among the repository's
// 93 (fixtures, suites, testdata), 13 among the 2,663 of the five BFCL
// imports (per-case tools included). The limit leaves room for big
// generated schemas and keeps one validation within milliseconds (8,190
// visits: 7 ms for a value that fails).
const maxSchemaVisits = 10_000

// validationCost reports a schema compiled from doc (by c, whose cache
// holds every subschema) that could make validating one value take time
// exponential in the schema's or the value's size, or nil. It assumes
// refCycle found no cycle.
func validationCost(c *jsonschema.Compiler, doc any, sch *jsonschema.Schema) *schemaProblem {
	g := newSchemaGraph(c, doc)
	visits := g.visits(sch)
	if visits[sch] > maxSchemaVisits {
		return g.tooCostly(sch, visits)
	}
	return g.fanOut(sch)
}

// schemaGraph is a compiled schema as the validator walks it. Besides its
// static target, a $dynamicRef (or a 2019-09 $recursiveRef) may resolve to
// any schema declaring the same anchor, even one nothing else refers to.
type schemaGraph struct {
	dynamic   map[string][]*jsonschema.Schema // $dynamicAnchor name -> schemas
	recursive []*jsonschema.Schema            // schemas with $recursiveAnchor: true
}

func newSchemaGraph(c *jsonschema.Compiler, doc any) *schemaGraph {
	g := &schemaGraph{dynamic: map[string][]*jsonschema.Schema{}}
	var walk func(v any, ptr string)
	walk = func(v any, ptr string) {
		switch x := v.(type) {
		case map[string]any:
			name, dyn := x["$dynamicAnchor"].(string)
			rec, _ := x["$recursiveAnchor"].(bool)
			if dyn || rec {
				// Compiling by pointer returns the node the compiler
				// already built, so the graph has one node per schema.
				if s, err := c.Compile(schemaURL + "#" + ptr); err == nil {
					if dyn {
						g.dynamic[name] = append(g.dynamic[name], s)
					}
					if rec {
						g.recursive = append(g.recursive, s)
					}
				}
			}
			for _, k := range slices.Sorted(maps.Keys(x)) {
				walk(x[k], ptr+"/"+escapePointerToken(k))
			}
		case []any:
			for i, e := range x {
				walk(e, ptr+"/"+strconv.Itoa(i))
			}
		}
	}
	walk(doc, "")
	return g
}

// same lists what s applies to its own value: sameValue's subschemas and
// the other schemas its dynamic references may resolve to.
func (g *schemaGraph) same(s *jsonschema.Schema) []*jsonschema.Schema {
	return append(sameValue(s), g.dynamicTargets(s)...)
}

// refs lists where s's references may lead.
func (g *schemaGraph) refs(s *jsonschema.Schema) []*jsonschema.Schema {
	out := []*jsonschema.Schema{s.Ref, s.RecursiveRef}
	if s.DynamicRef != nil {
		out = append(out, s.DynamicRef.Ref)
	}
	return append(out, g.dynamicTargets(s)...)
}

func (g *schemaGraph) dynamicTargets(s *jsonschema.Schema) []*jsonschema.Schema {
	var out []*jsonschema.Schema
	if d := s.DynamicRef; d != nil && d.Anchor != "" && d.Ref.DynamicAnchor == d.Anchor {
		for _, t := range g.dynamic[d.Anchor] {
			if t != d.Ref {
				out = append(out, t)
			}
		}
	}
	if r := s.RecursiveRef; r != nil && r.RecursiveAnchor {
		for _, t := range g.recursive {
			if t != r {
				out = append(out, t)
			}
		}
	}
	return out
}

// visits counts for each schema reachable from root the subschemas that
// validating one value against it may visit: itself plus what each
// subschema visits, a $ref counting as much as its target, so a definition
// counts once per path that reaches it. Recursion through a part of the
// value (a schema met again while it is still being counted) adds nothing
// here: it is paid once per level of the value, and fanOut makes sure it
// is paid only once. Counts stop at maxSchemaVisits+1 and are memoised, so
// this is linear in the schema's size.
func (g *schemaGraph) visits(root *jsonschema.Schema) map[*jsonschema.Schema]int {
	memo := map[*jsonschema.Schema]int{}
	pending := map[*jsonschema.Schema]bool{}
	var count func(s *jsonschema.Schema) int
	count = func(s *jsonschema.Schema) int {
		if n, ok := memo[s]; ok {
			return n
		}
		if pending[s] {
			return 0
		}
		pending[s] = true
		n := 1
		for _, t := range g.children(s) {
			n = min(n+count(t), maxSchemaVisits+1)
		}
		delete(pending, s)
		memo[s] = n
		return n
	}
	count(root)
	return memo
}

func (g *schemaGraph) children(s *jsonschema.Schema) []*jsonschema.Schema {
	return append(g.same(s), partsOfValue(s)...)
}

// tooCostly locates an over-limit count: down the costliest subschemas from
// root, the first $ref whose target alone is over the limit (the line an
// author wrote), else root itself.
func (g *schemaGraph) tooCostly(root *jsonschema.Schema, visits map[*jsonschema.Schema]int) *schemaProblem {
	at, target := root, root
	seen := map[*jsonschema.Schema]bool{}
	for s := root; s != nil && !seen[s]; {
		seen[s] = true
		var next *jsonschema.Schema
		for _, t := range g.children(s) {
			if visits[t] > maxSchemaVisits && (next == nil || visits[t] > visits[next]) {
				next = t
			}
		}
		if next != nil && slices.Contains(g.refs(s), next) {
			at, target = s, next
			break
		}
		s = next
	}
	via := "its $refs"
	if target != at {
		via = "its $ref to " + shortLocation(target)
	}
	return &schemaProblem{ptr: locationPointer(at), msg: schemaPrinter.Sprintf(
		"is too costly to validate: following %s, checking one value can visit more than %d subschemas, "+
			"so one example or request could hang the router; a definition is walked again for every $ref to it, "+
			"and refs to the same definitions from several anyOf/allOf/oneOf branches, properties or items multiply at every level: "+
			"refer to each definition from one place per level, or flatten the nesting", via, maxSchemaVisits)}
}

// fanOut finds a schema that, recursing through parts of the value, can
// reach the same part of the value twice on its way into recursion: two
// anyOf branches that both lead back through property "a", or items and
// contains both leading back. Each level of nesting in the value then
// doubles the work (or, for two recursions, adds a level's worth), which
// no count over the schema alone shows. Ways whose steps differ (property
// a and property b, items and properties) reach different parts and are
// fine, so trees, filter expressions and JSON-value schemas pass. It
// returns nil when there is no such schema.
func (g *schemaGraph) fanOut(root *jsonschema.Schema) *schemaProblem {
	recursive, live, order := g.recursion(root)
	budget := 10 * maxSchemaVisits // bounds the walks below on intricate schemas
	for _, u := range order {
		if !recursive[u] {
			continue
		}
		exact := map[string][]*jsonschema.Schema{} // step -> first way to take it
		kind := map[byte][]*jsonschema.Schema{}    // any step of the kind
		wild := map[byte][]*jsonschema.Schema{}    // a step that reaches any part of the kind
		var clash [2][]*jsonschema.Schema
		var clashStep string
		way := []*jsonschema.Schema{u}
		var walk func(s *jsonschema.Schema) bool
		walk = func(s *jsonschema.Schema) bool {
			if budget--; budget < 0 {
				return true
			}
			for _, p := range valueParts(s) {
				if !live[p.s] {
					continue
				}
				w := append(slices.Clone(way), p.s)
				k, wildStep := p.step[0], p.step[1] == '*'
				var prev []*jsonschema.Schema
				switch {
				case exact[p.step] != nil:
					prev = exact[p.step]
				case wildStep && kind[k] != nil:
					prev = kind[k]
				case !wildStep && wild[k] != nil:
					prev = wild[k]
				}
				if prev != nil {
					clash, clashStep = [2][]*jsonschema.Schema{prev, w}, p.step
					return true
				}
				exact[p.step], kind[k] = w, w
				if wildStep {
					wild[k] = w
				}
			}
			for _, t := range g.same(s) {
				way = append(way, t)
				if walk(t) {
					return true
				}
				way = way[:len(way)-1]
			}
			return false
		}
		if !walk(u) {
			continue
		}
		if budget < 0 {
			return &schemaProblem{ptr: locationPointer(u), msg: schemaPrinter.Sprintf(
				"has recursive $refs too intricate to check (more than %d ways through them): "+
					"simplify the recursive definitions so a few anyOf/allOf/oneOf branches lead back into the recursion", 10*maxSchemaVisits)}
		}
		return &schemaProblem{ptr: locationPointer(u), msg: fmt.Sprintf(
			"leads into $ref recursion twice through %s (%s; %s): each level a value nests multiplies the work, "+
				"so one example or request could hang the router; declare that part once, outside the "+
				"anyOf/allOf/oneOf branches, or let only one of them recurse",
			stepString(clashStep), wayString(clash[0]), wayString(clash[1]))}
	}
	return nil
}

// stepString names a part's step for an author.
func stepString(step string) string {
	if name, ok := strings.CutPrefix(step, "o:"); ok {
		return fmt.Sprintf("property %q", name)
	}
	if i, ok := strings.CutPrefix(step, "a:"); ok {
		return "item " + i
	}
	return map[string]string{"o*": "any property", "a*": "every item", "n*": "property names", "c*": "decoded content"}[step]
}

// recursion finds, with Tarjan's algorithm over every edge, the schemas on
// a cycle (which, refCycle having passed, goes through a part of the
// value) and the schemas that reach one (live), and lists reachable
// schemas in the order first met.
func (g *schemaGraph) recursion(root *jsonschema.Schema) (recursive, live map[*jsonschema.Schema]bool, order []*jsonschema.Schema) {
	recursive, live = map[*jsonschema.Schema]bool{}, map[*jsonschema.Schema]bool{}
	index, low := map[*jsonschema.Schema]int{}, map[*jsonschema.Schema]int{}
	onStack := map[*jsonschema.Schema]bool{}
	var stack []*jsonschema.Schema
	var visit func(s *jsonschema.Schema)
	visit = func(s *jsonschema.Schema) {
		index[s], low[s] = len(order), len(order)
		order = append(order, s)
		stack = append(stack, s)
		onStack[s] = true
		self := false
		for _, t := range g.children(s) {
			self = self || t == s
			if _, met := index[t]; !met {
				visit(t)
				low[s] = min(low[s], low[t])
			} else if onStack[t] {
				low[s] = min(low[s], index[t])
			}
		}
		if low[s] != index[s] {
			return
		}
		var scc []*jsonschema.Schema
		for len(scc) == 0 || scc[len(scc)-1] != s {
			scc = append(scc, stack[len(stack)-1])
			stack = stack[:len(stack)-1]
		}
		cyclic := len(scc) > 1 || self
		// Components come out sinks first, so every schema outside this
		// one that s's component refers to is already settled.
		reaches := cyclic
		for _, m := range scc {
			onStack[m] = false
			for _, t := range g.children(m) {
				reaches = reaches || live[t]
			}
		}
		for _, m := range scc {
			recursive[m] = cyclic
			live[m] = reaches
		}
	}
	visit(root)
	return recursive, live, order
}

// shortLocation is s's place as authors write a $ref: "#/$defs/a".
func shortLocation(s *jsonschema.Schema) string {
	loc := strings.TrimPrefix(s.Location, schemaURL)
	if loc == "" {
		return "#"
	}
	return loc
}

// locationPointer is s's JSON pointer within the document, nil when it
// lies in another resource (the problem then shows at the schema's top).
func locationPointer(s *jsonschema.Schema) []string {
	if strings.HasPrefix(s.Location, schemaURL+"#") {
		return pointerOf(s.Location)
	}
	return nil
}

func wayString(way []*jsonschema.Schema) string {
	steps := make([]string, len(way))
	for i, s := range way {
		steps[i] = shortLocation(s)
	}
	return strings.Join(steps, " -> ")
}
