package importer

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
)

// BFCLOptions configures the BFCL import.
type BFCLOptions struct {
	// Answers is BFCL's possible_answer file; needed for every category
	// but irrelevance, live_irrelevance and live_relevance.
	Answers string
	// Category overrides the one read from the file name and ids.
	Category string
}

// bfclLine is one BFCL test entry.
type bfclLine struct {
	ID       string `json:"id"`
	Question [][]struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"question"`
	Function []FunctionDef `json:"function"`
}

// bfclAnswer is one possible_answer entry: for each expected call, the
// acceptable values of each param ("" meaning it may be left out).
type bfclAnswer struct {
	ID          string                        `json:"id"`
	GroundTruth []map[string]map[string][]any `json:"ground_truth"`
}

// maxAnswerVariants bounds how many literal values one nested ground-truth
// value (a dict whose keys each list acceptable values) may expand to.
const maxAnswerVariants = 256

// ImportBFCL writes one BFCL single-turn category as a suite of cases that
// carry their own functions:
//
//   - simple, multiple and live_simple/live_multiple cases expect execute
//     of the ground truth's function with its params as {any_of, optional}
//     matchers ("" and null in BFCL's lists mean the param may be left out;
//     a param the function requires never may, as BFCL checks required
//     params first);
//   - irrelevance and live_irrelevance cases expect a refusal;
//   - live_relevance cases (any call is right, no answers file) are
//     workflow cases: every function answers ok, and the run must complete,
//     which it does exactly when the router acts on one of them.
//
// An entry that cannot be scored honestly (a ground truth naming a param
// the function does not define, listing no acceptable value, or several
// calls) is skipped and reported, never aborting the import.
func ImportBFCL(path, out string, opt BFCLOptions) (*Report, error) {
	data, err := readInput(path)
	if err != nil {
		return nil, err
	}
	lines, err := decodeJSONLines[bfclLine](path, data)
	if err != nil {
		return nil, err
	}
	if len(lines) == 0 {
		return nil, fmt.Errorf("%s: no BFCL entries", path)
	}
	category, err := pickBFCLCategory(path, opt.Category, lines[0].v.ID)
	if err != nil {
		return nil, err
	}
	if err := bfclRefusal(category); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	kind := bfclKindOf(category)
	if opt.Category == "" {
		for _, l := range lines {
			if c := bfclCategoryOfID(l.v.ID); c != category {
				return nil, fmt.Errorf("%s:%d: entry %s is of category %s, not %s; give each category its own file, or pass --category", path, l.line, l.v.ID, c, category)
			}
		}
	}
	answers, err := readBFCLAnswers(opt.Answers, kind, category)
	if err != nil {
		return nil, err
	}
	if answers != nil && !slices.ContainsFunc(lines, func(l jsonLine[bfclLine]) bool { _, ok := answers[l.v.ID]; return ok }) {
		return nil, fmt.Errorf("--answers %s has an answer for none of the %d entries of %s (its first id is %s); give the possible_answer file of category %s", opt.Answers, len(lines), path, firstKey(answers), category)
	}
	r := &Report{Source: fmt.Sprintf("bfcl %s from %s", category, path)}
	b := &bfclBuilder{r: r, names: newNamer(), answers: answers, category: category, kind: kind, seen: map[string]bool{}, notes: map[string]bool{}, asked: map[string]bool{}}
	var cases []CaseDoc
	for _, l := range lines {
		c, ok := b.entry(l.v, fmt.Sprintf("%s (line %d)", l.v.ID, l.line))
		if ok {
			cases = append(cases, c)
		}
	}
	var unused []string
	for _, id := range sortedKeys(answers) {
		if !b.asked[id] {
			unused = append(unused, id)
		}
	}
	if len(unused) > 0 {
		r.note("%d answers in %s have no entry in %s, not used: %s", len(unused), opt.Answers, path, strings.Join(unused, ", "))
	}
	if len(b.system) > 0 {
		r.note("%d entries open with a system message, not routed: a case carries the user's text only (%s)", len(b.system), strings.Join(b.system, ", "))
	}
	b.names.report(r, "function")
	if len(cases) == 0 {
		return nil, fmt.Errorf("%s: every entry was skipped, nothing to write:\n%s", path, skipLines(r.Skipped))
	}
	err = r.writeVersion(filepath.Join(out, "version"), VersionDoc{
		Name:        versionName("bfcl-" + category),
		Description: "BFCL (Berkeley Function Calling Leaderboard): every case carries its own functions",
		TopK:        5,
		Bands:       BandsDoc{Execute: 0.5, Clarify: 0.3},
		Persona:     "You are an assistant that answers each request by calling one of the functions offered, or none.\n",
		Constraints: "Call nothing when none of the functions can do what is asked.\n",
		Skills:      b.all,
	})
	if err != nil {
		return nil, err
	}
	suite := "normal"
	if kind == bfclAbstain {
		suite = "boundary"
	}
	return r, r.writeSuite(filepath.Join(out, "suites", category+".yaml"), SuiteDoc{Suite: suite, Cases: cases})
}

func firstKey[V any](m map[string]V) string {
	keys := sortedKeys(m)
	if len(keys) == 0 {
		return "(none)"
	}
	return keys[0]
}

func skipLines(skips []Skip) string {
	var b strings.Builder
	for _, s := range skips {
		fmt.Fprintf(&b, "  %s: %s\n", s.Item, s.Reason)
	}
	return b.String()
}

// readBFCLAnswers reads the possible_answer file by id; a call category
// needs one, the others have none.
func readBFCLAnswers(path string, kind bfclKind, category string) (map[string]bfclAnswer, error) {
	if path == "" {
		if kind == bfclCall {
			return nil, fmt.Errorf("category %s needs its possible answers: pass --answers with BFCL's possible_answer/BFCL_v4_%s.json", category, category)
		}
		return nil, nil
	}
	if kind != bfclCall {
		return nil, fmt.Errorf("--answers %s: category %s has no possible answers (it is scored by whether anything is called); leave --answers out", path, category)
	}
	data, err := readInput(path)
	if err != nil {
		return nil, err
	}
	list, err := decodeJSONLines[bfclAnswer](path, data)
	if err != nil {
		return nil, err
	}
	out := make(map[string]bfclAnswer, len(list))
	for _, a := range list {
		if _, dup := out[a.v.ID]; dup {
			return nil, fmt.Errorf("%s:%d: answer %s appears twice; keep one", path, a.line, a.v.ID)
		}
		out[a.v.ID] = a.v
	}
	return out, nil
}

// bfclBuilder turns entries into cases, collecting the version's skills
// (every function once, first definition wins: cases route against their
// own tools, but a version needs a registry) and what it skipped.
type bfclBuilder struct {
	r        *Report
	names    *namer
	answers  map[string]bfclAnswer
	category string
	kind     bfclKind
	all      []SkillDoc
	seen     map[string]bool
	notes    map[string]bool
	asked    map[string]bool // answer ids an entry looked up
	system   []string
}

func (b *bfclBuilder) entry(l bfclLine, item string) (CaseDoc, bool) {
	if len(l.Question) != 1 {
		b.r.skip(item, "%d turns; single-turn categories have one", len(l.Question))
		return CaseDoc{}, false
	}
	input, ok := "", false
	for _, m := range l.Question[0] {
		switch m.Role {
		case "user":
			if ok {
				// A case routes one user text; picking one of several
				// would score a request nobody made.
				b.r.skip(item, "more than one user message in its turn; a single-turn case routes one")
				return CaseDoc{}, false
			}
			input, ok = m.Content, true
		case "assistant", "tool":
			b.r.skip(item, "an %s message in its turn; a single-turn case routes one user message", m.Role)
			return CaseDoc{}, false
		case "system":
			if !slices.Contains(b.system, l.ID) {
				b.system = append(b.system, l.ID)
			}
		}
	}
	if !ok || strings.TrimSpace(input) == "" {
		b.r.skip(item, "no user message to route")
		return CaseDoc{}, false
	}
	tools := make([]SkillDoc, 0, len(l.Function))
	defs := map[string]FunctionDef{}
	for _, f := range l.Function {
		s, notes, err := FunctionSkill(f, b.names.name(f.Name), "read")
		if err != nil {
			b.r.skip(item, "%v", err)
			return CaseDoc{}, false
		}
		for _, n := range notes {
			if !b.notes[n] {
				b.notes[n] = true
				b.r.note("%s", n)
			}
		}
		if _, dup := defs[f.Name]; dup {
			b.r.skip(item, "function %s is offered twice", f.Name)
			return CaseDoc{}, false
		}
		defs[f.Name] = FunctionDef{Name: s.Name, Parameters: s.ParamsSchema}
		tools = append(tools, s)
	}
	if len(tools) == 0 {
		b.r.skip(item, "no functions offered")
		return CaseDoc{}, false
	}
	c := CaseDoc{ID: "bfcl-" + l.ID, Input: input, Tags: []string{langTag(input), "bfcl", "category:" + b.category}, Tools: tools}
	switch b.kind {
	case bfclAbstain:
		c.Expect = ExpectDoc{Action: "refuse"}
	case bfclRelevance:
		// Any call is right: every function answers ok, and the run
		// completes exactly when the router acts on one of them.
		c.ToolsSim = map[string][]map[string]any{}
		for _, t := range tools {
			c.ToolsSim[t.Name] = []map[string]any{{"ok": map[string]any{}}}
		}
		c.Expect = ExpectDoc{Outcome: "completed"}
	default:
		e, why := b.expectCall(l.ID, defs)
		if why != "" {
			b.r.skip(item, "%s", why)
			return CaseDoc{}, false
		}
		c.Expect = e
	}
	for _, t := range tools {
		if !b.seen[t.Name] {
			b.seen[t.Name] = true
			b.all = append(b.all, t)
		}
	}
	return c, true
}

// expectCall turns the entry's ground truth into an execute expectation;
// why says what makes it unusable.
func (b *bfclBuilder) expectCall(id string, defs map[string]FunctionDef) (ExpectDoc, string) {
	a, ok := b.answers[id]
	b.asked[id] = true
	if !ok {
		return ExpectDoc{}, "no possible answer in the --answers file"
	}
	if len(a.GroundTruth) != 1 || len(a.GroundTruth[0]) != 1 {
		return ExpectDoc{}, fmt.Sprintf("the ground truth holds %d calls; a single-turn routing case expects one", countCalls(a.GroundTruth))
	}
	for fn, params := range a.GroundTruth[0] {
		def, ok := defs[fn]
		if !ok {
			return ExpectDoc{}, fmt.Sprintf("the ground truth calls %s, which the entry does not offer", fn)
		}
		props, _ := def.Parameters["properties"].(map[string]any)
		required := requiredOf(def.Parameters)
		e := ExpectDoc{Action: "execute", Skill: def.Name, Params: map[string]any{}}
		for _, name := range sortedKeys(params) {
			if _, defined := props[name]; !defined {
				return ExpectDoc{}, fmt.Sprintf("the ground truth names param %q, which %s does not define", name, fn)
			}
			m, why := bfclMatcher(params[name], slices.Contains(required, name))
			if why != "" {
				return ExpectDoc{}, fmt.Sprintf("param %q: %s", name, why)
			}
			e.Params[name] = m
		}
		return e, ""
	}
	return ExpectDoc{}, "empty ground truth"
}

func countCalls(gt []map[string]map[string][]any) int {
	n := 0
	for _, call := range gt {
		n += len(call)
	}
	return n
}

// bfclMatcher turns BFCL's list of acceptable values into a param matcher.
// "" and null in the list mean the param may be left out (the router drops
// a null param as not given), unless the function requires it. A nested
// answer (a dict whose keys list acceptable values) is expanded into every
// literal dict it accepts, so routebench's own check and bfcl-check both
// compare plain values.
func bfclMatcher(values []any, required bool) (map[string]any, string) {
	if len(values) == 0 {
		return nil, "the ground truth lists no acceptable value, so no call could ever pass"
	}
	accept := []any{}
	optional := false
	for _, v := range values {
		if s, ok := v.(string); (ok && s == "") || v == nil {
			optional = true
			continue
		}
		variants, ok := expandAnswer(v)
		if !ok {
			return nil, fmt.Sprintf("a nested value has more than %d variants; too many to list", maxAnswerVariants)
		}
		for _, x := range variants {
			if !slices.ContainsFunc(accept, func(a any) bool { return jsonEqual(a, x) }) {
				accept = append(accept, x)
			}
		}
	}
	if required && len(accept) == 0 {
		return nil, "the function requires it, but the ground truth only accepts leaving it out"
	}
	m := map[string]any{"any_of": accept}
	if optional && !required {
		m["optional"] = true
	}
	return m, ""
}

// expandAnswer lists the literal values a ground-truth value accepts: a
// dict (BFCL writes each key's acceptable values as a list, "" allowing
// the key to be left out) is every combination; a list is every
// combination of its elements; anything else is itself. ok is false past
// maxAnswerVariants.
func expandAnswer(v any) ([]any, bool) {
	switch t := v.(type) {
	case map[string]any:
		variants := []map[string]any{{}}
		for _, k := range sortedKeys(t) {
			opts, isList := t[k].([]any)
			if !isList {
				opts = []any{t[k]}
			}
			var next []map[string]any
			for _, opt := range opts {
				if s, ok := opt.(string); ok && s == "" {
					next = append(next, variants...)
					continue
				}
				vals, ok := expandAnswer(opt)
				if !ok {
					return nil, false
				}
				for _, base := range variants {
					for _, val := range vals {
						m := make(map[string]any, len(base)+1)
						for bk, bv := range base {
							m[bk] = bv
						}
						m[k] = val
						next = append(next, m)
					}
				}
			}
			if len(next) > maxAnswerVariants {
				return nil, false
			}
			variants = next
		}
		out := make([]any, len(variants))
		for i, m := range variants {
			out[i] = m
		}
		return out, true
	case []any:
		variants := [][]any{{}}
		for _, el := range t {
			vals, ok := expandAnswer(el)
			if !ok {
				return nil, false
			}
			var next [][]any
			for _, base := range variants {
				for _, val := range vals {
					next = append(next, append(slices.Clone(base), val))
				}
			}
			if len(next) > maxAnswerVariants {
				return nil, false
			}
			variants = next
		}
		out := make([]any, len(variants))
		for i, l := range variants {
			out[i] = l
		}
		return out, true
	}
	return []any{v}, true
}

func jsonEqual(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}

// langTag tags a case by its script: zh when it has Han characters.
func langTag(s string) string {
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			return "zh"
		}
	}
	return "en"
}
