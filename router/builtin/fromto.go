package builtin

import "strings"

// assignFromTo fills a pair of plain string properties that name the two
// ends of a conversion (source_language and target_language,
// from_currency and to_currency, from_unit and to_unit) from "from A to
// B", or "N A to B" after an amount ("convert 300 yen to euros"). Places
// are left to the proper-name rules, which know how a place is written;
// these ends are often common nouns ("euros", "miles").
func assignFromTo(p *extractPlan, text, lower string, taken *spans, out map[string]any) {
	src, dst := -1, -1
	for i := range p.props {
		pp := &p.props[i]
		if pp.kind != propString || pp.class != classNone {
			continue
		}
		if _, done := out[pp.name]; done {
			continue
		}
		switch journeyLead(pp.name) {
		case "from":
			if src >= 0 {
				return // two candidates for one end: doubt
			}
			src = i
		case "to":
			if dst >= 0 {
				return
			}
			dst = i
		}
	}
	if src < 0 || dst < 0 {
		return
	}
	words := wordsOf(lower)
	for k, w := range words {
		if w.w != "to" && w.w != "into" || k == 0 {
			continue
		}
		b, ok := endRun(text, lower, words, k+1, 1, taken)
		if !ok {
			continue
		}
		a, ok := endRun(text, lower, words, k-1, -1, taken)
		if !ok {
			continue
		}
		// The first end must be introduced: by "from", or by an amount.
		j := k - 1
		for j >= 0 && words[j].from >= a.from {
			j--
		}
		switch {
		case j >= 0 && words[j].w == "from":
		case j >= 0 && isNumberWord(words[j].w):
		default:
			continue
		}
		out[p.props[src].name] = text[a.from:a.to]
		out[p.props[dst].name] = text[b.from:b.to]
		taken.add(a.from, a.to)
		taken.add(b.from, b.to)
		return
	}
}

// endRun is one end of a conversion: up to three words from words[k]
// going in direction dir (1 forward, -1 backward), each a content word
// or capitalised in text ("US dollars"), within one clause, none that
// another property took ("today" is a date) except an amount's unit
// ("300 euros": the amount is the number, the currency the word).
func endRun(text, lower string, words []wordAt, k, dir int, taken *spans) (span, bool) {
	var sp span
	n := 0
	for ; k >= 0 && k < len(words) && n < 3; k += dir {
		w := words[k]
		if !contentWord(w.w) && !(text[w.from] >= 'A' && text[w.from] <= 'Z') || isNumberWord(w.w) {
			break
		}
		if taken.overlaps(w.from, w.to) && !(dir < 0 && k > 0 && isNumberWord(words[k-1].w)) {
			break
		}
		if n > 0 && dir > 0 && len(w.w) > 4 && strings.HasSuffix(w.w, "ing") && text[w.from] >= 'a' {
			break // "to US dollars using today's rate": a participle starts a new phrase
		}
		if n > 0 {
			from, to := sp.to, w.from
			if dir < 0 {
				from, to = w.to, sp.from
			}
			gap := lower[from:to]
			if strings.ContainsAny(gap, ".,;:?!()") {
				break
			}
		}
		if n == 0 {
			sp = w.span
		} else if dir > 0 {
			sp.to = w.to
		} else {
			sp.from = w.from
		}
		n++
	}
	return sp, n > 0
}

// isNumberWord: a word of digits ("300", "1.5" is two words here).
func isNumberWord(w string) bool {
	if w == "" {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i] < '0' || w[i] > '9' {
			return false
		}
	}
	return true
}
