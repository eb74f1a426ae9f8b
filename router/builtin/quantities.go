package builtin

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// nameParts splits a property name into the words it is written with
// ("initial_velocity" -> initial, velocity; "numTrials" -> num, trial),
// lowercased and singular, so "trials" meets "trial".
func nameParts(name string) []string {
	var parts []string
	word := []byte{}
	flush := func() {
		if len(word) > 0 {
			w := singular(lowerASCII(string(word)))
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

// singular undoes a regular English plural: "cities" -> "city",
// "boxes" -> "box", "trials" -> "trial"; "status", "analysis" and
// "address" stay.
func singular(w string) string {
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case len(w) > 4 && (strings.HasSuffix(w, "xes") || strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes") || strings.HasSuffix(w, "sses")):
		return w[:len(w)-2]
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		return w[:len(w)-1]
	}
	return w
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
			gap += clausePenalty // "6 bar, and an inlet pressure": inlet names the next number
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
	return strings.ContainsAny(gap, ",;，；。？！") || strings.Contains(gap, " and ") || sentenceBreak(gap)
}

// sentenceBreak: a full stop, question or exclamation mark that ends a
// sentence ("… 10 and 9. The ace counts 1": the ace names the 1).
func sentenceBreak(gap string) bool {
	for i := 0; i < len(gap); i++ {
		if c := gap[i]; (c == '.' || c == '?' || c == '!') && (i+1 == len(gap) || gap[i+1] == ' ') {
			return true
		}
	}
	return false
}

// gapCap bounds how much one absent or distant cue weighs.
const gapCap = 120

// numberAffinity scores how plainly text ties a number to a property,
// lower is closer: every part of the property's name counts ("initial
// temperature of 300K" ties 300 to initial_temperature, not to
// final_temperature), and description words count a quarter, as a
// tie-breaker. A number whose unit measures what the property measures
// ("4 m/s^2" for acceleration, "$5000" for the amount) is tied closer; one
// whose unit measures something else is not the property's at all. ok is
// false when the number cannot be the property's or no cue of the
// property is in the text.
func numberAffinity(pp *propPlan, lower string, n numberSpan) (score int, ok bool) {
	if n.dim == dimPercent && !pp.percent && !slices.Contains(pp.dims, dimPercent) {
		return 0, false // a share is not a count or an amount
	}
	unitMatch := n.dim != dimNone && slices.Contains(pp.dims, n.dim)
	if n.dim != dimNone && n.dim != dimPercent && len(pp.dims) > 0 && !unitMatch && !(n.dim == dimTime && pp.integer) {
		return 0, false // "5 seconds" is no distance
	}
	for _, c := range pp.nameCues {
		g := cueGap(lower, c, n.span, false)
		if g < 0 {
			score += gapCap
			continue
		}
		ok = true
		score += min(g, gapCap)
	}
	desc := gapCap
	for _, c := range pp.cues {
		if g := cueGap(lower, c, n.span, true); g >= 0 {
			ok = ok || !n.word // "two sets of scores": a word number needs the property's own name
			desc = min(desc, g)
		}
	}
	score += desc / 4
	if unitMatch {
		ok = true
		score -= unitBonus * len(pp.nameCues)
	}
	if n.word {
		score += wordPenalty
	}
	// "heated from 20°C to 90°C": the number after "to" ends a change,
	// the one after "from" starts it.
	if lead := numberLead(lower[:n.from]); lead != "" {
		end, start := slices.ContainsFunc(pp.nameCues, isEndWord), slices.ContainsFunc(pp.nameCues, isStartWord)
		switch {
		case (lead == "to" || lead == "until") && end, lead == "from" && start:
			score -= leadBonus
		case (lead == "to" || lead == "until") && start, lead == "from" && end:
			score += leadBonus
		}
	}
	return score, ok
}

// numberLead is the word before a number, past a variable it is given
// to: "from t = -4" leads -4 with "from".
func numberLead(before string) string {
	t := strings.TrimRight(before, " $")
	if rest, ok := strings.CutSuffix(t, "="); ok {
		rest = strings.TrimRight(rest, " ")
		if v := lastWord(rest); len(v) == 1 && v[0] >= 'a' && v[0] <= 'z' {
			t = strings.TrimRight(rest[:len(rest)-1], " ")
		}
	}
	return lastWord(t)
}

// leadBonus is what "to" before a number counts for an end property
// ("final", "end") and "from" for a start property ("initial", "start").
const leadBonus = 40

func isEndWord(w string) bool {
	return w == "final" || w == "end" || w == "to" || w == "target" || w == "max" || w == "maximum" || w == "last"
}

func isStartWord(w string) bool {
	return w == "initial" || w == "start" || w == "from" || w == "min" || w == "minimum" || w == "first"
}

// unitBonus is how much closer, per name part, a number whose unit
// matches the property counts: a unit is about as plain as a cue word
// right beside the number.
const unitBonus = 60

// wordPenalty puts numbers written as words behind digits.
const wordPenalty = 30

// assignNumbers fills integer and number properties. Pairs of a property
// and a number are taken closest first, so two properties never fight
// over one number and the better-tied one wins it. A list of properties
// followed by a list of as many numbers ("its width and depth are 3 and
// 10") pairs them in order first. Properties whose words are not in the
// text get the remaining numbers in order only when the counts agree
// exactly (required properties first, then all): "a crate of 7, 2 and 9"
// fills side1, side2, side3; three numbers for one unnamed property fill
// nothing.
func assignNumbers(p *extractPlan, lower string, nums []numberSpan, taken *spans, out map[string]any) {
	assignRespectively(p, lower, nums, taken, out)
	assignRange(p, lower, nums, taken, out)
	assignOrdinals(p, lower, nums, taken, out)
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
			if s, ok := numberAffinity(pp, lower, n); ok {
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
		out[pp.name] = numberValue(pp, n)
		taken.add(n.from, n.to)
	}
	var free []numberSpan
	for _, n := range nums {
		if !taken.overlaps(n.from, n.to) && n.dim != dimPercent && !n.word {
			free = append(free, n)
		}
	}
	// A number measured in something no unnamed property measures is
	// none of theirs ("45 minutes" for a distance).
	for _, n := range free {
		for _, i := range unnamed {
			if d := p.props[i].dims; n.dim != dimNone && len(d) > 0 && !slices.Contains(d, n.dim) {
				return
			}
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
		out[p.props[i].name] = numberValue(&p.props[i], free[k])
		taken.add(free[k].from, free[k].to)
	}
}

// rangeEnds name the low and high ends of a range in a property's name.
var rangeEnds = [][2]string{{"min", "max"}, {"minimum", "maximum"}, {"low", "high"}, {"lower", "upper"}, {"from", "to"}, {"start", "end"}, {"initial", "final"}}

// assignRange gives a written range ("$300 to $450", "between 2 and 4") to
// a pair of properties that name its low and high ends (min_price and
// max_price, lower and upper), the low end first whatever the order of the
// numbers' properties in the schema.
func assignRange(p *extractPlan, lower string, nums []numberSpan, taken *spans, out map[string]any) {
	for _, ends := range rangeEnds {
		lo, hi := -1, -1
		for i := range p.props {
			pp := &p.props[i]
			if pp.kind != propNumber {
				continue
			}
			if _, done := out[pp.name]; done {
				continue
			}
			switch {
			case slices.Contains(pp.nameCues, ends[0]):
				lo = i
			case slices.Contains(pp.nameCues, ends[1]):
				hi = i
			}
		}
		if lo < 0 || hi < 0 {
			continue
		}
		for k := 0; k+1 < len(nums); k++ {
			a, b := nums[k], nums[k+1]
			if taken.overlaps(a.from, a.to) || taken.overlaps(b.from, b.to) {
				continue
			}
			gap := strings.TrimSpace(lower[a.to:b.from])
			if gap != "to" && gap != "-" && gap != "–" && gap != "and" && gap != "through" {
				continue
			}
			if before := strings.Fields(lower[max(0, a.from-30):a.from]); gap == "and" &&
				!slices.Contains(before[max(0, len(before)-2):], "between") {
				continue // "between 12 and 30", "between week 12 and 30"
			}
			if a.value > b.value {
				a, b = b, a
			}
			out[p.props[lo].name] = numberValue(&p.props[lo], a)
			out[p.props[hi].name] = numberValue(&p.props[hi], b)
			taken.add(nums[k].from, nums[k+1].to)
			return
		}
	}
}

// ordinalWords mark the members of a group of properties: first_note and
// second_note, value1 and value2.
var ordinalWords = map[string]int{"first": 1, "second": 2, "third": 3, "fourth": 4, "1": 1, "2": 2, "3": 3, "4": 4}

// ordinalGroup is the group a number property belongs to (its name
// without the ordinal) and its place in it, or "" and 0.
func ordinalGroup(name string) (string, int) {
	parts := nameParts(name)
	if st := numberedStem(name); st != "" {
		k := ordinalWords[name[len(strings.TrimRight(name, "0123456789")):]]
		return st, k
	}
	for i, w := range parts {
		if k, ok := ordinalWords[w]; ok {
			rest := append(append([]string(nil), parts[:i]...), parts[i+1:]...)
			return strings.Join(rest, "_"), k
		}
	}
	return "", 0
}

// assignOrdinals gives a written list of numbers to a group of ordinal
// properties of as many members, in order: "notes of 440Hz and 880Hz" to
// first_note_frequency and second_note_frequency; "5 and 9" to x1, x2.
func assignOrdinals(p *extractPlan, lower string, nums []numberSpan, taken *spans, out map[string]any) {
	groups := map[string][]int{}
	var order []string
	for i := range p.props {
		pp := &p.props[i]
		if pp.kind != propNumber {
			continue
		}
		if _, done := out[pp.name]; done {
			continue
		}
		if g, k := ordinalGroup(pp.name); g != "" && k > 0 {
			if _, seen := groups[g]; !seen {
				order = append(order, g)
			}
			groups[g] = append(groups[g], i)
		}
	}
	for _, g := range order {
		props := groups[g]
		if len(props) < 2 {
			continue
		}
		slices.SortFunc(props, func(a, b int) int {
			_, ka := ordinalGroup(p.props[a].name)
			_, kb := ordinalGroup(p.props[b].name)
			return ka - kb
		})
		for _, r := range numberRuns(lower, nums, taken) {
			if len(r.values) != len(props) {
				continue
			}
			for k, i := range props {
				n := numberSpan{span: r.nums[k], value: r.values[k], dim: r.dims[k]}
				out[p.props[i].name] = numberValue(&p.props[i], n)
				taken.add(n.from, n.to)
			}
			break
		}
	}
}

// assignRespectively pairs a written list of property names with a
// written list of as many numbers that follows it within a few words:
// "the width and depth as 3cm and 8cm", "width, height and depth are
// 3, 8 and 5". Each name must name exactly one number property.
func assignRespectively(p *extractPlan, lower string, nums []numberSpan, taken *spans, out map[string]any) {
	runs := numberRuns(lower, nums, taken)
	for _, r := range runs {
		// The words before the run, back to the previous clause.
		from := max(0, r.from-80)
		before := lower[from:r.from]
		var props []int
		var at []int
		for i := range p.props {
			pp := &p.props[i]
			if pp.kind != propNumber || len(pp.nameCues) == 0 {
				continue
			}
			if _, done := out[pp.name]; done {
				continue
			}
			last := -1
			cueAt(before, pp.nameCues[len(pp.nameCues)-1], func(k int) { last = k })
			if last >= 0 {
				props, at = append(props, i), append(at, last)
			}
		}
		if len(props) != len(r.values) || len(props) < 2 {
			continue
		}
		order := make([]int, len(props))
		for k := range order {
			order[k] = k
		}
		slices.SortFunc(order, func(a, b int) int { return at[a] - at[b] })
		// Each property must be named by a word of its own: start_week and
		// end_week both meet the one "week" of "between week 12 and 30",
		// which lists no names.
		distinct := true
		for k := 1; k < len(order); k++ {
			distinct = distinct && at[order[k]] != at[order[k-1]]
		}
		if !distinct {
			continue
		}
		// The names must themselves be a list ("base and height"), ending
		// a few words before the numbers.
		first, lastAt := at[order[0]], at[order[len(order)-1]]
		between := before[first:]
		if strings.ContainsAny(between, ".;?!") || len(before)-lastAt > 40 {
			continue
		}
		for k, o := range order {
			i := props[o]
			n := numberSpan{span: r.nums[k], value: r.values[k], dim: r.dims[k]}
			out[p.props[i].name] = numberValue(&p.props[i], n)
			taken.add(n.from, n.to)
		}
	}
}

func numberValue(pp *propPlan, n numberSpan) any {
	v := n.value
	if n.dim == dimPercent && !pp.percent {
		v = math.Round(v*1e6) / 1e8 // 5% as a fraction, without 0.05000000000000001
	}
	if pp.integer && v == math.Trunc(v) && math.Abs(v) < 1<<53 {
		return int(v)
	}
	return v
}

// numberRun is a written list of two or more numbers: "[1, 2, 3]",
// "7, 14, 21"; "1st, 5th and 9th" is not one (ordinals are glued).
type numberRun struct {
	span
	values []float64
	nums   []span
	dims   []dimension
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
		cur.dims = append(cur.dims, n.dim)
	}
	flush()
	return out
}

// assignNumberLists fills arrays of numbers from written lists: one
// array property takes the longest list; several take the lists in order
// when there are exactly as many lists as properties.
func assignNumberLists(p *extractPlan, text, lower string, nums []numberSpan, taken *spans, out map[string]any) {
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
			vals[k] = numberValue(&propPlan{integer: pp.integer}, numberSpan{value: v})
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
	default:
		// Fewer or more lists than properties: a list goes to the one
		// property whose name words stand right before it ("daily
		// readings: [4, 7]").
		for _, r := range runs {
			named := -1
			for _, i := range props {
				if _, done := out[p.props[i].name]; !done && namedBefore(lower, span{r.from, r.to}, p.props[i].nameCues) {
					if named >= 0 {
						named = -2
						break
					}
					named = i
				}
			}
			if named >= 0 {
				take(named, r)
			}
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
// this property: words of the skill's own description ("Raise one number
// to the power ..."), other properties' names (a modulus described as
// "applied to base^exponent" is named by neither base nor exponent),
// words another property's description uses too, and a few words every
// description uses. Han cues stay: they are how Chinese requests name a
// number.
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
	// A description word another property's description also uses ("the
	// crate" in every side's description) singles out neither.
	for other, schema := range props {
		if other == name {
			continue
		}
		desc, _ := schema["description"].(string)
		for _, t := range segment(desc, nil) {
			if t.kind == tokLatin {
				common[singular(t.text)] = true
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

// assignOrdinalCounts gives "the 12th century" (12) or "the 3rd floor"
// (3) to a number property named by the word after the ordinal: an
// ordinal is no count in general ("the 2nd option"), but the property's
// own word says what it numbers.
func assignOrdinalCounts(p *extractPlan, lower string, taken *spans, out map[string]any) {
	if !strings.Contains(lower, "st ") && !strings.Contains(lower, "nd ") && !strings.Contains(lower, "rd ") && !strings.Contains(lower, "th ") {
		return
	}
	for pp := range p.unfilled(out, propNumber) {
		if len(pp.nameCues) != 1 {
			continue
		}
		cue := pp.nameCues[0]
		cueAtMode(lower, cue, true, func(at int) {
			if _, done := out[pp.name]; done {
				return
			}
			end := at - 1 // the space before the cue
			if end < 3 || lower[end] != ' ' {
				return
			}
			suffix := lower[end-2 : end]
			if suffix != "st" && suffix != "nd" && suffix != "rd" && suffix != "th" {
				return
			}
			from := end - 2
			for from > 0 && lower[from-1] >= '0' && lower[from-1] <= '9' {
				from--
			}
			if from == end-2 || from > 0 && isLatinOrDigit(rune(lower[from-1])) || taken.overlaps(from, end) {
				return
			}
			n, err := strconv.Atoi(lower[from : end-2])
			if err != nil {
				return
			}
			if pp.integer {
				out[pp.name] = n
			} else {
				out[pp.name] = float64(n)
			}
			taken.add(from, end)
		})
	}
}

// ordinalListRe finds a written list of ordinals: "1st, 5th and 12th".
var ordinalListRe = memoCompile(`\b\d{1,4}(?:st|nd|rd|th)(?:(?:,\s*|,?\s+(?:and|or)\s+)\d{1,4}(?:st|nd|rd|th))+\b`)

// assignOrdinalLists gives "the 2nd, 3rd and 4th floors" ([2 3 4]) to a
// list of numbers named by the word after the ordinals.
func assignOrdinalLists(p *extractPlan, lower string, taken *spans, out map[string]any) {
	for pp := range p.unfilled(out, propNumberList) {
		if len(pp.nameCues) != 1 {
			continue
		}
		for _, m := range ordinalListRe.allSubmatchIndex(lower) {
			after := strings.TrimLeft(lower[m[1]:], " ")
			if taken.overlaps(m[0], m[1]) || !strings.HasPrefix(after, pp.nameCues[0]) || !wordEnds(after, len(pp.nameCues[0])) {
				continue
			}
			var vals []any
			for _, f := range strings.FieldsFunc(lower[m[0]:m[1]], func(r rune) bool { return r == ',' || r == ' ' }) {
				if n, err := strconv.Atoi(strings.TrimRight(f, "stndrh")); err == nil {
					vals = append(vals, numberValue(&propPlan{integer: pp.integer}, numberSpan{value: float64(n)}))
				}
			}
			out[pp.name] = vals
			taken.add(m[0], m[1])
			break
		}
	}
}
