package prefilter

import (
	"iter"
	"regexp"
	"regexp/syntax"
	"slices"
	"unicode"
	"unicode/utf8"
)

// A regexp whose matches can only hold a few kinds of rune (digits and
// date separators, say) finds in a long text what it finds in each run of
// those runes alone: a match never crosses a rune outside them. Searching
// the runs, and only those long enough and holding the required literals,
// skips the rest of the text, where a search would try every position.
//
// This holds exactly for a regexp that cannot match empty and whose only
// zero-width assertions are \b and \B. Each run is searched with one byte
// of the text either side, so \b at its ends sees what it sees in the
// whole text: an ASCII byte as it is, and a byte of a longer UTF-8
// sequence, which alone decodes to U+FFFD, a non-word rune like every
// rune outside ASCII. Neither context byte can be part of a match: it is
// a rune outside the alphabet, or U+FFFD, which the alphabet never holds.

// Alphabet is the runes a regexp's matches can hold, and what a run must
// hold to hold a match, for searching by runs (Runs).
type Alphabet struct {
	runes    runeSet
	key      runeSet // every match holds one of these
	minRunes int     // every match holds at least this many runes (≥ 1)
}

// runeSet is a set of runes: ASCII by table, the rest by sorted,
// disjoint ranges.
type runeSet struct {
	ascii [utf8.RuneSelf]bool
	wide  [][2]rune
}

func newRuneSet(ranges [][2]rune) runeSet {
	var s runeSet
	for _, r := range ranges {
		for c := r[0]; c <= min(r[1], utf8.RuneSelf-1); c++ {
			s.ascii[c] = true
		}
		if r[1] >= utf8.RuneSelf {
			s.wide = append(s.wide, [2]rune{max(r[0], utf8.RuneSelf), r[1]})
		}
	}
	s.wide = mergeRanges(s.wide)
	return s
}

func (s *runeSet) holds(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 0 && s.ascii[r]
	}
	_, found := slices.BinarySearchFunc(s.wide, r, func(rg [2]rune, r rune) int {
		switch {
		case rg[1] < r:
			return -1
		case rg[0] > r:
			return 1
		}
		return 0
	})
	return found
}

// AlphabetOf is re's alphabet, or nil when re's matches may hold any rune,
// may be empty, or depend on more than \b and \B around them.
func AlphabetOf(re *regexp.Regexp) *Alphabet {
	parsed, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return nil
	}
	var ranges [][2]rune
	if !collectRunes(parsed, &ranges) {
		return nil
	}
	for _, r := range ranges {
		if r[0] <= utf8.RuneError && utf8.RuneError <= r[1] {
			return nil // the context bytes would decode to a rune it holds
		}
	}
	a := &Alphabet{runes: newRuneSet(ranges), minRunes: minRunes(parsed)}
	if a.minRunes < 1 {
		return nil
	}
	key := keyRunes(parsed)
	if key == nil {
		key = ranges // no narrower requirement than the alphabet itself
	}
	a.key = newRuneSet(key)
	return a
}

// keyRunes are runes one of which every match of re holds, or nil when it
// cannot tell: a concatenation needs what its narrowest part needs, an
// alternation what any branch needs, a repeat at least once its body.
func keyRunes(re *syntax.Regexp) [][2]rune {
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return nil
		}
		r := re.Rune[0]
		out := [][2]rune{{r, r}}
		if re.Flags&syntax.FoldCase != 0 {
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				out = append(out, [2]rune{f, f})
			}
		}
		return out
	case syntax.OpCharClass:
		out := make([][2]rune, 0, len(re.Rune)/2)
		for i := 0; i+1 < len(re.Rune); i += 2 {
			out = append(out, [2]rune{re.Rune[i], re.Rune[i+1]})
		}
		return out
	case syntax.OpCapture, syntax.OpPlus:
		return keyRunes(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return keyRunes(re.Sub[0])
		}
	case syntax.OpConcat:
		var best [][2]rune
		for _, sub := range re.Sub {
			if k := keyRunes(sub); k != nil && (best == nil || runeCount(k) < runeCount(best)) {
				best = k
			}
		}
		return best
	case syntax.OpAlternate:
		var all [][2]rune
		for _, sub := range re.Sub {
			k := keyRunes(sub)
			if k == nil {
				return nil
			}
			all = append(all, k...)
		}
		return all
	}
	return nil
}

func runeCount(ranges [][2]rune) int {
	n := 0
	for _, r := range ranges {
		n += int(r[1]-r[0]) + 1
	}
	return n
}

// collectRunes appends the ranges of runes re's matches may hold; false
// when it cannot bound them or re has an assertion other than \b and \B.
func collectRunes(re *syntax.Regexp, out *[][2]rune) bool {
	switch re.Op {
	case syntax.OpNoMatch, syntax.OpEmptyMatch, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			*out = append(*out, [2]rune{r, r})
			if re.Flags&syntax.FoldCase != 0 {
				for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
					*out = append(*out, [2]rune{f, f})
				}
			}
		}
		return true
	case syntax.OpCharClass:
		// The parser has already folded a case-insensitive class.
		for i := 0; i+1 < len(re.Rune); i += 2 {
			*out = append(*out, [2]rune{re.Rune[i], re.Rune[i+1]})
		}
		return true
	case syntax.OpCapture, syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat, syntax.OpConcat, syntax.OpAlternate:
		for _, sub := range re.Sub {
			if !collectRunes(sub, out) {
				return false
			}
		}
		return true
	}
	return false // any character, line and text anchors
}

// minRunes is the fewest runes a match of re holds.
func minRunes(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		return len(re.Rune)
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1
	case syntax.OpCapture, syntax.OpPlus:
		return minRunes(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min * minRunes(re.Sub[0])
	case syntax.OpConcat:
		n := 0
		for _, sub := range re.Sub {
			n += minRunes(sub)
		}
		return n
	case syntax.OpAlternate:
		n := minRunes(re.Sub[0])
		for _, sub := range re.Sub[1:] {
			n = min(n, minRunes(sub))
		}
		return n
	}
	return 0 // empty, star, quest, assertions
}

func mergeRanges(rs [][2]rune) [][2]rune {
	slices.SortFunc(rs, func(a, b [2]rune) int { return int(a[0] - b[0]) })
	var out [][2]rune
	for _, r := range rs {
		if n := len(out); n > 0 && r[0] <= out[n-1][1]+1 {
			out[n-1][1] = max(out[n-1][1], r[1])
			continue
		}
		out = append(out, r)
	}
	return out
}

// Runs yields, in text order, the windows of text a match can lie in:
// each run of at least minRunes alphabet runes holding a key rune, widened
// by one byte either side where the text has one. A match of the regexp in text lies inside
// one window, and searching the window alone finds it at the same place
// (offset by the window's start) with the same submatches.
func (a *Alphabet) Runs(text string) iter.Seq2[int, int] {
	return func(yield func(from, to int) bool) { a.runs(text, yield) }
}

func (a *Alphabet) runs(text string, yield func(from, to int) bool) {
	start, n, keyed := -1, 0, false
	flush := func(end int) bool {
		if start < 0 {
			return true
		}
		from, runes, key := start, n, keyed
		start, n, keyed = -1, 0, false
		if runes < a.minRunes || !key {
			return true
		}
		return yield(max(from-1, 0), min(end+1, len(text)))
	}
	for i := 0; i < len(text); {
		var in, key bool
		size := 1
		if c := text[i]; c < utf8.RuneSelf {
			// Most of a request: the two tables read inline.
			in, key = a.runes.ascii[c], a.key.ascii[c]
		} else {
			// Invalid UTF-8 decodes to U+FFFD, which no alphabet holds.
			var r rune
			r, size = utf8.DecodeRuneInString(text[i:])
			in = a.runes.holds(r)
			key = in && a.key.holds(r)
		}
		if in {
			if start < 0 {
				start = i
			}
			n++
			keyed = keyed || key
		} else if !flush(i) {
			return
		}
		i += size
	}
	flush(len(text))
}
