package builtin

import (
	"strings"

	"github.com/routebench/routebench/router/registry"
)

// nameStems are the words of a skill's name that say what it does, cut to
// five letters so "calculates" meets "calculate": function words and
// one-letter parts aside.
func nameStems(name string) []string {
	var out []string
	for _, w := range nameParts(name) {
		if len(w) < 2 || background.has(hashWord(w)) {
			continue
		}
		if len(w) > 5 {
			w = w[:5]
		}
		out = append(out, w)
	}
	return out
}

// nameCover is the share of stems that start a word of lower (1 for a
// name of no such words).
func nameCover(stems []string, lower string) float64 {
	if len(stems) == 0 {
		return 1
	}
	n := 0
	for _, st := range stems {
		found := false
		cueAtMode(lower, st, false, func(int) { found = true })
		if found {
			n++
		}
	}
	return float64(n) / float64(len(stems))
}

// paramCover is the share of the skill's required params that params
// holds (1 when none is required).
func paramCover(s *registry.Skill, params map[string]any) float64 {
	// s.Required() without building the list: this runs for every close
	// candidate of every request.
	req, _ := s.ParamsSchema["required"].([]any)
	n, total := 0, 0
	for _, r := range req {
		name, ok := r.(string)
		if !ok {
			continue
		}
		total++
		if _, ok := params[name]; ok {
			n++
		}
	}
	if total == 0 {
		return 1
	}
	return float64(n) / float64(total)
}

// coverage reads both covers of skill s for a request, whose content
// stems are words (appendContentStems); params are the skill's params
// extracted from it (nil when it requires none).
func (f *fitted) coverage(s int, text, lower string, dates []dateSpan, words []string) (name, param, schema float64, params map[string]any) {
	name = nameCover(f.stems[s], lower)
	schema = schemaCoverOf(f.schemaStems[s], words, len(f.skills[s].Examples) == 0)
	sk := f.skills[s]
	if !requiresAny(sk) {
		return name, 1, schema, nil
	}
	params = extractDated(planFor(sk), text, lower, dates, f.known)
	return name, paramCover(sk, params), schema, params
}

// heldOutCoverage is coverage for a registry text routed in calibration,
// its dates read against a fixed day.
func (f *fitted) heldOutCoverage(s int, text string) (name, param, schema float64) {
	lower := lowerASCII(text)
	var dates []dateSpan
	if requiresAny(f.skills[s]) {
		dates = findDates(lower, dateProbe)
	}
	name, param, schema, params := f.coverage(s, text, lower, dates, appendContentStems(nil, text, lower))
	releaseParams(params)
	return name, param, schema
}

// schemaStems are the five-letter stems of every word a skill's own
// texts and params schema use: name, description, when_to_use, property
// names, their descriptions and enum values, nested ones included.
func schemaStems(s *registry.Skill) map[string]bool {
	out := map[string]bool{}
	add := func(text string) {
		for _, w := range strings.FieldsFunc(splitCamel(text), func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') }) {
			w = strings.ToLower(w)
			if len(w) > 5 {
				w = w[:5]
			}
			out[w] = true
		}
	}
	add(s.Name)
	add(s.Description)
	for _, t := range s.WhenToUse {
		add(t)
	}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				switch k {
				case "properties":
					if props, ok := e.(map[string]any); ok {
						for name, p := range props {
							add(name)
							walk(p)
						}
					}
				case "description", "enum", "items", "title", "examples":
					walk(e)
				}
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case string:
			add(x)
		}
	}
	walk(s.ParamsSchema)
	return out
}

// splitCamel puts a space inside camelCase words: "maxCalories" ->
// "max Calories".
func splitCamel(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if i > 0 && s[i] >= 'A' && s[i] <= 'Z' && s[i-1] >= 'a' && s[i-1] <= 'z' {
			b.WriteByte(' ')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// schemaCover is how much of the request talks about what the skill's
// texts or schema talk about, read from the request's plain content words
// (not function words, not capitalised names, not numbers: those are
// values); 0.5 when the request has none (Chinese, names alone).
//
// For a skill written with examples it is the share of those words the
// skill uses: its calibration is fitted on its own requests, whose length
// the share matches. For a bare tool schema, judged by the fixed prior, it
// is how many of them it uses, up to schemaWordsEnough, as a share of it:
// people who write more ("I'd like to hear everything this band ever
// recorded") say no fewer of a tool's words, and a share would count
// their chat against them (on BFCL, measured with the prior refitted to
// each form: 70.0% of irrelevance refused against 63.3%, 89.1% of the
// held-out live requests kept in scope against 86.4%, simple_python kept
// at 98%).
func schemaCover(stems map[string]bool, text string, bare bool) float64 {
	return schemaCoverLower(stems, text, lowerASCII(text), bare)
}

// schemaCoverLower is schemaCover with lowerASCII(text) already at hand.
func schemaCoverLower(stems map[string]bool, text, lower string, bare bool) float64 {
	var room [32]string
	return schemaCoverOf(stems, appendContentStems(room[:0], text, lower), bare)
}

// appendContentStems appends the words schemaCover reads in a request, in
// text order, cut to their five-letter stems: a request's are read once,
// however many candidates it is weighed against.
func appendContentStems(dst []string, text, lower string) []string {
	for from, to := nextWord(lower, 0); from < to; from, to = nextWord(lower, to) {
		word := lower[from:to]
		if len(word) < 3 || text[from] < 'a' || text[from] > 'z' || !contentWord(word) {
			continue // capitalised in the request, a number, or grammar
		}
		if len(word) > 5 {
			word = word[:5]
		}
		dst = append(dst, word)
	}
	return dst
}

// schemaCoverOf is schemaCover over a request's content stems
// (appendContentStems).
func schemaCoverOf(stems map[string]bool, words []string, bare bool) float64 {
	found := 0
	for _, w := range words {
		if stems[w] {
			found++
		}
	}
	switch {
	case len(words) == 0:
		return 0.5
	case bare:
		return float64(min(found, schemaWordsEnough)) / schemaWordsEnough
	}
	return float64(found) / float64(len(words))
}

// schemaWordsEnough is how many of its schema's words make a request
// plainly about a bare tool: past it, more say nothing more.
const schemaWordsEnough = 3
