package builtin

import "strings"

// flagFiller are name parts that say how a flag is used, not what it is
// about: "include_dissent" is about dissent.
var flagFiller = map[string]bool{"is": true, "has": true, "include": true, "get": true, "want": true,
	"with": true, "show": true, "use": true, "return": true, "need": true, "allow": true, "enable": true,
	"status": true, "flag": true}

// negators before a flag's words turn it off: "without dissent".
var negators = []string{"no ", "not ", "without ", "exclude ", "excluding ", "don't ", "do not ",
	"never ", "dont ", "skip ", "omit "}

// assignBools sets a boolean property only when the text names it: the
// words of its name (filler such as "include" aside) appear in order,
// each starting a word ("include dissent information" -> include_dissent
// true; "accepts credit cards" -> accepts_credit_cards true); a negator
// right before them makes it false. A flag the text does not name stays
// unset, whatever its default.
func assignBools(p *extractPlan, lower string, out map[string]any) {
	for i := range p.props {
		pp := &p.props[i]
		if pp.kind != propBool {
			continue
		}
		var words []string
		for _, w := range pp.nameCues {
			if !flagFiller[w] {
				words = append(words, flagStem(w))
			}
		}
		if len(words) == 0 || len(words) == 1 && len(words[0]) < 4 {
			continue // too weak to find: "x", "raw"
		}
		at, ok := phraseAt(lower, words)
		if !ok {
			continue
		}
		value := true
		before := lower[:at]
		for { // "don't show the raw log": filler between negator and flag
			t := strings.TrimRight(before, " ")
			k := strings.LastIndexByte(t, ' ')
			if w := t[k+1:]; !flagFiller[w] && w != "the" && w != "a" && w != "an" && w != "any" || t == "" {
				break
			}
			before = t[:k+1]
		}
		for _, n := range negators {
			if strings.HasSuffix(before, n) {
				value = false
			}
		}
		out[pp.name] = value
	}
}

// flagStem cuts a long word of a flag's name to its stem, so that
// "normalize" meets "normalization" and "detailed" meets "details".
func flagStem(w string) string {
	if len(w) <= 5 {
		return w
	}
	return w[:max(5, len(w)-2)]
}

// phraseAt finds words written in order, each starting a word and
// separated only by spaces or hyphens ("credit cards", "multi-player").
func phraseAt(lower string, words []string) (int, bool) {
	found, first := -1, -1
	cueAt(lower, words[0], func(at int) {
		if found >= 0 {
			return
		}
		pos := at + len(words[0])
		for _, w := range words[1:] {
			for pos < len(lower) && isLatinOrDigit(rune(lower[pos])) {
				pos++ // the rest of the word: "credit" in "credits"
			}
			for pos < len(lower) && (lower[pos] == ' ' || lower[pos] == '-') {
				pos++
			}
			if !strings.HasPrefix(lower[pos:], w) {
				return
			}
			pos += len(w)
		}
		found, first = pos, at
	})
	return first, found >= 0
}
