package prefilter

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"
)

// A regexp whose every match begins with one of a few literals (a cue
// word: `(?:titled|called|about)\s*(.+)`) cannot match before the first
// place one of them is written. A search that starts there, with one byte
// of the text before it so `\b` and `^` see what they see in the whole
// text, finds what the search of the whole text finds: the regexp is
// otherwise tried at every position before it, and on a short request
// that is most of the search.

// maxLeads bounds the literals looked for: each costs a substring search.
const maxLeads = 16

// Leads are literals one of which every match of a regexp begins with,
// after any zero-width assertions; nil when that is not known.
type Leads []string

// LeadsOf reads re's leading literals.
func LeadsOf(re *regexp.Regexp) Leads {
	parsed, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return nil
	}
	ls := leads(parsed)
	if len(ls) > maxLeads {
		return nil
	}
	return ls
}

// leads is what every match of re begins with, or nil when it cannot tell.
// Only literals matched exactly are read: a case-folded one begins with
// any of its cases.
func leads(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return nil
		}
		// An invalid byte of the text is read as U+FFFD, which a search
		// for the rune's bytes would not find: the lead stops before it.
		k := slices.Index(re.Rune, utf8.RuneError)
		if k < 0 {
			k = len(re.Rune)
		}
		if k == 0 {
			return nil
		}
		return []string{string(re.Rune[:k])}
	case syntax.OpCharClass:
		// A few runes ("[:：]"): each is a lead.
		var out []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			if hi-lo >= maxLeads || len(out)+int(hi-lo)+1 > maxLeads {
				return nil
			}
			for r := lo; r <= hi; r++ {
				if r == utf8.RuneError {
					return nil
				}
				out = append(out, string(r))
			}
		}
		return out
	case syntax.OpCapture, syntax.OpPlus:
		return leads(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return leads(re.Sub[0])
		}
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			switch sub.Op {
			case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
				syntax.OpWordBoundary, syntax.OpNoWordBoundary:
				continue // zero width: the match begins with what follows
			}
			return leads(sub)
		}
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			ls := leads(sub)
			if ls == nil {
				return nil
			}
			for _, l := range ls {
				if !slices.Contains(out, l) {
					out = append(out, l)
				}
			}
		}
		return out
	}
	return nil
}

// From is where a search of text for the regexp may start: one byte
// before the first place one of the leads is written (0 when it is the
// text's start), and false when none is written, so nothing matches. Nil
// leads: 0, true.
func (ls Leads) From(text string) (int, bool) {
	if ls == nil {
		return 0, true
	}
	first := -1
	for _, l := range ls {
		// Only an earlier place matters: a lead that starts later is not
		// looked for past where it would have to end.
		in := text
		if first >= 0 {
			in = text[:min(first+len(l)-1, len(text))]
		}
		if k := strings.Index(in, l); k >= 0 {
			first = k
		}
	}
	if first < 0 {
		return 0, false
	}
	return max(first-1, 0), true
}
