package builtin

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/routebench/routebench/router/registry"
)

// maxLeftoverWords bounds a value found by elimination: a longer run of
// unexplained words is a clause, not a value.
const maxLeftoverWords = 4

// ownWords are the lowercase words a bare tool schema uses about itself:
// its name's parts, its description and its params' names and
// descriptions. In a request, these say what to do, not with what.
func ownWords(s *registry.Skill) map[string]bool {
	own := map[string]bool{}
	add := func(text string) {
		lower := lowerASCII(text)
		for from, to := nextWord(lower, 0); from < to; from, to = nextWord(lower, to) {
			own[lower[from:to]] = true
		}
	}
	for _, part := range nameParts(s.Name) {
		own[part] = true
	}
	add(s.Description)
	for name, schema := range s.Properties() {
		for _, part := range nameParts(name) {
			own[part] = true
		}
		if d, ok := schema["description"].(string); ok {
			add(d)
		}
	}
	return own
}

// saysOwn reports whether w, or w with or without a plural or
// third-person ending, is one of the skill's own words.
func saysOwn(own map[string]bool, w string) bool {
	if own[w] || own[w+"s"] || own[w+"es"] {
		return true
	}
	for _, suffix := range []string{"es", "s"} {
		if stem, ok := strings.CutSuffix(w, suffix); ok && len(stem) >= 3 && own[stem] {
			return true
		}
	}
	return false
}

// assignLeftover fills, by elimination, the one required plain string
// property of a bare tool schema that nothing else filled: when the
// request has exactly one run of content words (at most
// maxLeftoverWords, within a clause) that the schema's own texts do not
// use and no other property took, that run is what the request gives the
// tool ("the role of lactase dehydrogenase" for a tool about what
// enzymes do: "lactase dehydrogenase"). Two such runs, or two empty required
// properties, are doubt, and doubt stays unfilled so the bands ask.
// Registries written for routing (with examples) never guess this way.
func assignLeftover(p *extractPlan, text, lower string, taken *spans, out map[string]any) {
	target := loneMissing(p, out, func(pp *propPlan) bool {
		return pp.kind == propString && (pp.role == roleGeneric || pp.role == roleName || pp.role == roleKeyword)
	})
	if target == nil {
		return
	}
	var runs []span
	var run span
	words := 0
	flush := func() {
		if words > 0 && words <= maxLeftoverWords {
			if r, ok := trimModifiers(lower, run); ok {
				runs = append(runs, r)
			}
		}
		words = 0
	}
	for from, to := nextWord(lower, 0); from < to; from, to = nextWord(lower, to) {
		w := lower[from:to]
		if !contentWord(w) || saysOwn(p.own, w) || taken.overlaps(from, to) {
			flush()
			continue
		}
		if words > 0 && strings.ContainsAny(lower[run.to:from], ".,;:?!()[]{}\"") {
			flush()
		}
		if words == 0 {
			run.from = from
		}
		run.to = to
		words++
		if strings.HasSuffix(w, "'s") {
			run.to -= 2 // "Ada Park's main work": the value is Ada Park
			flush()
		}
	}
	flush()
	if target.class != classNone {
		for k, r := range runs {
			runs[k] = capitalizedPrefix(text, lower, r)
		}
	}
	runs = slices.DeleteFunc(runs, func(r span) bool {
		return !introduced(text, lower, r) || target.class != classNone && (!capitalized(text, r) || calendarNames[text[r.from:r.to]])
	})
	if len(runs) != 1 {
		return
	}
	out[target.name] = text[runs[0].from:runs[0].to]
	taken.add(runs[0].from, runs[0].to)
}

// loneMissing is the one required property of a bare tool schema that
// out still lacks, when fits says elimination may fill it; nil when the
// skill has examples, when none is missing, or when another required
// value is missing too (the request is short of more than one).
func loneMissing(p *extractPlan, out map[string]any, fits func(*propPlan) bool) *propPlan {
	if p.examples || p.own == nil {
		return nil
	}
	var target *propPlan
	for i := range p.props {
		pp := &p.props[i]
		if _, done := out[pp.name]; done || !pp.required {
			continue
		}
		if target != nil || !fits(pp) {
			return nil
		}
		target = pp
	}
	return target
}

// valueIntroducers are the closed-class words a value follows in plain
// English: articles, possessives and prepositions ("the pump valve",
// "of Jupiter", "for my dog").
var valueIntroducers = map[string]bool{"the": true, "a": true, "an": true, "of": true, "for": true, "about": true,
	"on": true, "in": true, "at": true, "from": true, "with": true, "by": true, "my": true,
	"our": true, "his": true, "her": true, "their": true, "your": true, "called": true, "named": true}

// introduced reports whether a leftover run reads as a value: a word
// that introduces values stands right before it, or it is a name (a
// capital or a digit first) that does not open the sentence. A run right
// after a number is its unit.
func introduced(text, lower string, r span) bool {
	prevFrom, prevTo := previousWord(lower, r.from)
	if prevFrom < prevTo && isNumberWord(lower[prevFrom:prevTo]) && strings.TrimSpace(lower[prevTo:r.from]) == "" {
		return false // "40 PSI": a unit after its number
	}
	if prevFrom < prevTo && valueIntroducers[lower[prevFrom:prevTo]] {
		return true
	}
	return prevFrom < prevTo && (capitalized(text, r) || text[r.from] >= '0' && text[r.from] <= '9')
}

// capitalized: a property that holds a proper name (a place, a person)
// takes only a run written as one.
func capitalized(text string, r span) bool { return text[r.from] >= 'A' && text[r.from] <= 'Z' }

// capitalizedPrefix cuts a run to its leading capitalised words: "Lyon
// tomorrow morning" names Lyon.
func capitalizedPrefix(text, lower string, r span) span {
	end := r.from
	for from, to := nextWord(lower, r.from); from < to && from < r.to; from, to = nextWord(lower, to) {
		if !capitalized(text, span{from, to}) {
			break
		}
		end = min(to, r.to) // a possessive's "'s" is outside the run
	}
	if end == r.from {
		return r // not a name at all: the caller drops it
	}
	return span{r.from, end}
}

// previousWord is the word that ends before i as [from, to), from == to
// when none does.
func previousWord(lower string, i int) (from, to int) {
	for i > 0 {
		_, size := utf8.DecodeLastRuneInString(lower[:i])
		if ok, _ := wordRuneAt(lower, i-size); ok {
			break
		}
		i -= size
	}
	to = i
	for i > 0 {
		_, size := utf8.DecodeLastRuneInString(lower[:i])
		if ok, _ := wordRuneAt(lower, i-size); !ok {
			break
		}
		i -= size
	}
	return i, to
}

// trimModifiers drops the leading words of a run that English inflects
// as modifiers, not names: superlatives, participles and adverbs
// ("cheapest", "recommended", "using", "quickly"). What remains, if
// anything, is the value.
func trimModifiers(lower string, r span) (span, bool) {
	for from, to := nextWord(lower, r.from); from < to && to <= r.to; from, to = nextWord(lower, to) {
		if !modifierForm(lower[from:to]) {
			r.from = from
			return r, true
		}
	}
	return r, false
}

func modifierForm(w string) bool {
	for _, suffix := range []string{"est", "ed", "ing", "ly"} {
		if len(w) > len(suffix)+2 && strings.HasSuffix(w, suffix) {
			return true
		}
	}
	return false
}

// assignLeftoverList fills, by elimination, the one required list of
// plain strings of a bare tool schema that nothing else filled, when the
// request writes exactly one list of two or more things the schema's own
// texts do not name, joined by commas, "and" or "or": "the price of
// plums and pears" for a grocery tool's items. Like assignLeftover it
// guesses nothing when another required value is missing too, and never
// for a registry written with examples.
func assignLeftoverList(p *extractPlan, text, lower string, taken *spans, out map[string]any) {
	target := loneMissing(p, out, func(pp *propPlan) bool { return pp.kind == propStringList && pp.class == classNone })
	if target == nil {
		return
	}
	words := wordsOf(lower)
	// item is the run of up to three unexplained content words from
	// words[k], within a clause, and the index after it.
	item := func(k int) (span, int, bool) {
		sp, n := span{}, 0
		for ; k < len(words) && n < 3; k++ {
			w := words[k]
			if !contentWord(w.w) || saysOwn(p.own, w.w) || taken.overlaps(w.from, w.to) ||
				n > 0 && strings.ContainsAny(lower[sp.to:w.from], ".,;:?!()") {
				break
			}
			if n == 0 {
				sp.from = w.from
			}
			sp.to = w.to
			n++
		}
		return sp, k, n > 0
	}
	var lists [][]span
	for k := 0; k < len(words); {
		first, j, ok := item(k)
		if !ok {
			k++
			continue
		}
		items := []span{first}
		for j < len(words) {
			joined := strings.Contains(lower[items[len(items)-1].to:words[j].from], ",")
			if words[j].w == "and" || words[j].w == "or" {
				joined, j = true, j+1
			}
			next, after, ok := item(j)
			if !joined || !ok {
				break
			}
			items, j = append(items, next), after
		}
		if len(items) >= 2 {
			lists = append(lists, items)
		}
		k = max(j, k+1)
	}
	if len(lists) != 1 {
		return
	}
	vals := make([]any, len(lists[0]))
	for k, sp := range lists[0] {
		vals[k] = text[sp.from:sp.to]
		taken.add(sp.from, sp.to)
	}
	out[target.name] = vals
}
