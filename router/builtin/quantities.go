package builtin

import (
	"math"
	"slices"
	"strings"
)

// nameParts splits a property name into the words it is written with
// ("initial_velocity" -> initial, velocity; "numTrials" -> num, trial),
// lowercased, a plural "s" dropped so "trials" meets "trial".
func nameParts(name string) []string {
	var parts []string
	word := []byte{}
	flush := func() {
		if len(word) > 0 {
			w := strings.TrimSuffix(lowerASCII(string(word)), "s")
			if w != "" && !slices.Contains(parts, w) {
				parts = append(parts, w)
			}
			word = word[:0]
		}
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_' || c == '-' || c == '.' || c == ' ':
			flush()
		case c >= 'A' && c <= 'Z' && i > 0 && name[i-1] >= 'a' && name[i-1] <= 'z':
			flush()
			word = append(word, c)
		default:
			word = append(word, c)
		}
	}
	flush()
	return parts
}

// numericItems reports whether an array schema holds numbers.
func numericItems(schema map[string]any) bool {
	items, _ := schema["items"].(map[string]any)
	t, _ := items["type"].(string)
	return t == "integer" || t == "number"
}

// cueAt lists where a cue word is written in lowered text. A Latin cue
// must start a word ("b" is not in "about", "temp" is in "temperature");
// a cue of one or two letters must be the whole word ("a=1", not "at").
func cueAt(lower, cue string, visit func(at int)) { cueAtMode(lower, cue, false, visit) }

// cueAtMode is cueAt; with whole set a Latin cue must be the whole word or
// its plural: description words are many and loose, so "pow" (from
// "pow(base, exponent)") must not find "power".
func cueAtMode(lower, cue string, whole bool, visit func(at int)) {
	latin := cue != "" && isLatinOrDigit(rune(cue[0]))
	for from := 0; ; {
		k := strings.Index(lower[from:], cue)
		if k < 0 {
			return
		}
		at := from + k
		from = at + len(cue)
		if latin {
			if at > 0 && isLatinOrDigit(rune(lower[at-1])) {
				continue
			}
			if (whole || len(cue) <= 2) && !wordEnds(lower, at+len(cue)) {
				continue
			}
		}
		visit(at)
	}
}

// cueGap is the distance in bytes between a cue word and a number, or -1
// when the cue is not in the text.
func cueGap(lower, cue string, n span, whole bool) int {
	best := -1
	cueAtMode(lower, cue, whole, func(at int) {
		gap := max(at-n.to, n.from-(at+len(cue)), 0)
		if gap > 0 && clauseBreak(lower[min(at+len(cue), n.to):max(at, n.from)]) {
			gap += clausePenalty // "300K, a final temperature": final names the next number
		}
		if best < 0 || gap < best {
			best = gap
		}
	})
	return best
}

// clausePenalty is what a comma or "and" between a cue and a number adds
// to their distance: the cue more likely names a number in its own clause.
const clausePenalty = 40

func clauseBreak(gap string) bool {
	return strings.ContainsAny(gap, ",;，；") || strings.Contains(gap, " and ")
}

// gapCap bounds how much one absent or distant cue weighs.
const gapCap = 120

// numberAffinity scores how plainly text ties a number to a property,
// lower is closer: every part of the property's name counts ("initial
// temperature of 300K" ties 300 to initial_temperature, not to
// final_temperature), and description words count a quarter, as a
// tie-breaker. ok is false when no cue of the property is in the text.
func numberAffinity(pp *propPlan, lower string, n span) (score int, ok bool) {
	for _, c := range pp.nameCues {
		g := cueGap(lower, c, n, false)
		if g < 0 {
			score += gapCap
			continue
		}
		ok = true
		score += min(g, gapCap)
	}
	desc := gapCap
	for _, c := range pp.cues {
		if g := cueGap(lower, c, n, true); g >= 0 {
			ok = true
			desc = min(desc, g)
		}
	}
	return score + desc/4, ok
}

// assignNumbers fills integer and number properties. Pairs of a property
// and a number are taken closest first, so two properties never fight
// over one number and the better-tied one wins it. Properties whose words
// are not in the text get the remaining numbers in order only when the
// counts agree exactly (required properties first, then all): "sides 5,
// 4 and 3" fills side1, side2, side3; three numbers for one unnamed
// property fill nothing.
func assignNumbers(p *extractPlan, lower string, nums []numberSpan, taken *spans, out map[string]any) {
	type pair struct{ prop, num, score int }
	var pairs []pair
	var unnamed []int
	for i := range p.props {
		pp := &p.props[i]
		if pp.kind != propNumber {
			continue
		}
		if _, done := out[pp.name]; done {
			continue
		}
		named := false
		for j, n := range nums {
			if taken.overlaps(n.from, n.to) {
				continue
			}
			if s, ok := numberAffinity(pp, lower, n.span); ok {
				named = true
				pairs = append(pairs, pair{i, j, s})
			}
		}
		if !named {
			unnamed = append(unnamed, i)
		}
	}
	slices.SortStableFunc(pairs, func(a, b pair) int {
		if a.score != b.score {
			return a.score - b.score
		}
		if a.prop != b.prop {
			return a.prop - b.prop
		}
		return a.num - b.num
	})
	for _, pr := range pairs {
		pp, n := &p.props[pr.prop], nums[pr.num]
		if _, done := out[pp.name]; done || taken.overlaps(n.from, n.to) {
			continue
		}
		out[pp.name] = numberValue(pp, n.value)
		taken.add(n.from, n.to)
	}
	var free []numberSpan
	for _, n := range nums {
		if !taken.overlaps(n.from, n.to) {
			free = append(free, n)
		}
	}
	var required []int
	for _, i := range unnamed {
		if p.props[i].required {
			required = append(required, i)
		}
	}
	fill := required
	if len(required) == 0 && p.examples {
		fill = unnamed // a registry's own skill: its examples show how it is asked
	}
	if len(fill) == 0 || len(fill) != len(free) {
		return
	}
	// Names sort end_year before start_year: put starts first, ends last.
	rank := map[string]int{"from": 0, "": 1, "to": 2}
	slices.SortStableFunc(fill, func(a, b int) int {
		return rank[journeyLead(p.props[a].name)] - rank[journeyLead(p.props[b].name)]
	})
	for k, i := range fill {
		out[p.props[i].name] = numberValue(&p.props[i], free[k].value)
		taken.add(free[k].from, free[k].to)
	}
}

func numberValue(pp *propPlan, v float64) any {
	if pp.integer && v == math.Trunc(v) && math.Abs(v) < 1<<53 {
		return int(v)
	}
	return v
}

// numberRun is a written list of two or more numbers: "[1, 2, 3]",
// "12, 24, 36", "2nd, 3rd and 4th" is not one (ordinals are glued).
type numberRun struct {
	span
	values []float64
	nums   []span
}

// numberRuns groups numbers separated only by commas, spaces and "and".
func numberRuns(text string, nums []numberSpan, taken *spans) []numberRun {
	var out []numberRun
	var cur numberRun
	flush := func() {
		if len(cur.values) >= 2 {
			out = append(out, cur)
		}
		cur = numberRun{}
	}
	for _, n := range nums {
		if taken.overlaps(n.from, n.to) {
			flush()
			continue
		}
		if len(cur.values) > 0 && !listSeparator(text[cur.to:n.from]) {
			flush()
		}
		if len(cur.values) == 0 {
			cur.from = n.from
		}
		cur.to = n.to
		cur.values = append(cur.values, n.value)
		cur.nums = append(cur.nums, n.span)
	}
	flush()
	return out
}

func listSeparator(s string) bool {
	s = strings.TrimSpace(s)
	if s == "," {
		return true
	}
	s = strings.TrimSpace(strings.TrimPrefix(s, ","))
	return s == "and" || s == ""
}

// assignNumberLists fills arrays of numbers from written lists: one
// array property takes the longest list; several take the lists in order
// when there are exactly as many lists as properties.
func assignNumberLists(p *extractPlan, text string, nums []numberSpan, taken *spans, out map[string]any) {
	var props []int
	for i := range p.props {
		if p.props[i].kind == propNumberList {
			props = append(props, i)
		}
	}
	if len(props) == 0 {
		return
	}
	runs := numberRuns(text, nums, taken)
	if len(runs) == 0 {
		return
	}
	take := func(i int, r numberRun) {
		pp := &p.props[i]
		vals := make([]any, len(r.values))
		for k, v := range r.values {
			vals[k] = numberValue(&propPlan{integer: pp.integer}, v)
		}
		out[pp.name] = vals
		taken.add(r.from, r.to)
	}
	switch {
	case len(props) == 1:
		best := 0
		for k, r := range runs {
			if len(r.values) > len(runs[best].values) {
				best = k
			}
		}
		take(props[0], runs[best])
	case len(props) == len(runs):
		for k, i := range props {
			take(i, runs[k])
		}
	}
}

// wordEnds reports whether a word ends at i, allowing a plural ending
// ("replica" ends in "replicas", "box" in "boxes").
func wordEnds(s string, i int) bool {
	for _, suffix := range []string{"", "s", "es"} {
		j := i + len(suffix)
		if j <= len(s) && s[i:j] == suffix && (j == len(s) || !isLatinOrDigit(rune(s[j]))) {
			return true
		}
	}
	return false
}

// specificCues drops the Latin description words that do not single out
// this property: words of the skill's own description ("Calculate the
// power ...") and other properties' names ("pow(base, exponent) % mod"
// names base and exponent, not mod), and a few words every description
// uses. Han cues stay: they are how Chinese requests name a number.
func specificCues(cues []string, name, skillDesc string, props map[string]map[string]any) []string {
	common := map[string]bool{}
	for _, t := range segment(skillDesc, nil) {
		if t.kind == tokLatin {
			common[strings.TrimSuffix(t.text, "s")] = true
		}
	}
	for other := range props {
		if other != name {
			for _, w := range nameParts(other) {
				common[w] = true
			}
		}
	}
	own := nameParts(name)
	out := cues[:0:0]
	for _, c := range cues {
		latin := isLatinOrDigit(rune(c[0]))
		if latin && !slices.Contains(own, c) && (common[c] || descFiller[c]) {
			continue
		}
		out = append(out, c)
	}
	return out
}

var descFiller = map[string]bool{"default": true, "provided": true, "given": true, "value": true,
	"number": true, "optional": true, "used": true, "specified": true, "when": true, "this": true,
	"that": true, "which": true, "will": true, "must": true, "should": true, "can": true, "not": true}
