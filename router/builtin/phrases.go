package builtin

import (
	"regexp/syntax"
	"strings"
)

// A date rule whose regexp is an alternation of fixed phrases ("今天|今日|
// \btoday\b") is searched phrase by phrase rather than by the regexp
// engine: at each rune, the first phrase (in the regexp's order of
// preference) written there, with \b where the regexp asks for it, is the
// match. The phrases are read from the regexp itself, which stays the
// definition; a spec holds the two to the same matches.

// fixedPhrase is one way an alternation of fixed phrases matches: its text,
// and whether \b must hold before and after it.
type fixedPhrase struct {
	text          string
	before, after bool
}

// fixedPhrasesOf lists the phrases expr matches, in its order of
// preference, or nil when expr is anything but fixed text, alternation,
// optional parts and \b at the ends of a phrase.
func fixedPhrasesOf(expr string) []fixedPhrase {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	out, ok := expandFixedPhrases(re.Simplify())
	if !ok {
		return nil
	}
	for _, p := range out {
		if p.text == "" {
			return nil // an empty match: FindAll's rules for those differ
		}
	}
	return out
}

// expandFixedPhrases is fixedPhrasesOf for a parsed regexp; a \b is kept only at
// the start or end of what the whole phrase ends up being.
func expandFixedPhrases(re *syntax.Regexp) ([]fixedPhrase, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return nil, false
		}
		return []fixedPhrase{{text: string(re.Rune)}}, true
	case syntax.OpCharClass:
		// A few runes ("今[天日]" once the parser has factored "今天|今日"),
		// each its own phrase: they are all one rune long, so no two
		// match at one place.
		var out []fixedPhrase
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if len(out) == maxFixedPhrases {
					return nil, false
				}
				out = append(out, fixedPhrase{text: string(r)})
			}
		}
		return out, true
	case syntax.OpEmptyMatch:
		return []fixedPhrase{{}}, true
	case syntax.OpWordBoundary:
		return []fixedPhrase{{before: true, after: true}}, true
	case syntax.OpCapture:
		return expandFixedPhrases(re.Sub[0])
	case syntax.OpQuest:
		if re.Flags&syntax.NonGreedy != 0 {
			return nil, false
		}
		sub, ok := expandFixedPhrases(re.Sub[0])
		if !ok {
			return nil, false
		}
		return append(sub, fixedPhrase{}), true // greedy: the part first, then without it
	case syntax.OpAlternate:
		var out []fixedPhrase
		for _, s := range re.Sub {
			sub, ok := expandFixedPhrases(s)
			if !ok {
				return nil, false
			}
			out = append(out, sub...)
			if len(out) > maxFixedPhrases {
				return nil, false
			}
		}
		return out, true
	case syntax.OpConcat:
		out := []fixedPhrase{{}}
		for _, s := range re.Sub {
			sub, ok := expandFixedPhrases(s)
			if !ok {
				return nil, false
			}
			if len(out)*len(sub) > maxFixedPhrases {
				return nil, false // digits and the like: a regexp's work
			}
			var next []fixedPhrase
			for _, a := range out {
				for _, b := range sub {
					p, ok := joinFixedPhrases(a, b)
					if !ok {
						return nil, false
					}
					next = append(next, p)
				}
			}
			out = next
		}
		return out, true
	}
	return nil, false
}

// maxFixedPhrases bounds the phrases an alternation is read as: past it
// (a run of digits, a class of letters) the regexp engine does better.
const maxFixedPhrases = 32

// joinFixedPhrases is a followed by b; false when a \b would fall inside
// the joined text, which phrases do not express. A phrase of no text with
// a \b is the one point where both its flags hold.
func joinFixedPhrases(a, b fixedPhrase) (fixedPhrase, bool) {
	switch {
	case a.text == "":
		return fixedPhrase{text: b.text, before: a.before || b.before, after: b.after || b.text == "" && a.after}, true
	case b.text == "":
		return fixedPhrase{text: a.text, before: a.before, after: a.after || b.before || b.after}, true
	case a.after || b.before:
		return fixedPhrase{}, false
	}
	return fixedPhrase{text: a.text + b.text, before: a.before, after: b.after}, true
}

// fixedPhraseMatches is FindAllStringSubmatchIndex(text, -1) of the regexp
// the phrases come from (fixedPhrasesOf): the leftmost place where a phrase
// is written, the first phrase there, then on from its end. A phrase found
// by its bytes starts on a rune the regexp steps to: it starts with ASCII
// or a leading byte, which no rune before it can hold.
//
// Where each phrase is next written is remembered and looked for again
// only once a match has passed it: whether a place holds a phrase (and
// its \b) depends on the text alone, so a phrase's searches move forward
// through the text once, however many matches the other phrases find.
// Searching every phrase again from each match's end read a long text
// once per match.
func fixedPhraseMatches(phrases []fixedPhrase, text string) [][]int {
	var out [][]int
	var next [maxFixedPhrases]int // where phrase i is next written, -1 for nowhere
	for i := range phrases {
		next[i] = fixedPhraseFrom(phrases[i], text, 0)
	}
	for p := 0; p < len(text); {
		best, end := -1, 0
		for i, ph := range phrases {
			if next[i] >= 0 && next[i] < p {
				next[i] = fixedPhraseFrom(ph, text, p)
			}
			if at := next[i]; at >= 0 && (best < 0 || at < best) {
				best, end = at, at+len(ph.text)
			}
		}
		if best < 0 {
			break
		}
		out = append(out, []int{best, end})
		p = end
	}
	return out
}

// fixedPhraseFrom is where ph is first written in text at or after p, with
// \b where it asks for it; -1 when it is not.
func fixedPhraseFrom(ph fixedPhrase, text string, p int) int {
	for p <= len(text) {
		k := strings.Index(text[p:], ph.text)
		if k < 0 {
			return -1
		}
		at := p + k
		if (!ph.before || boundary(text, at)) && (!ph.after || boundary(text, at+len(ph.text))) {
			return at
		}
		p = at + 1
	}
	return -1
}
