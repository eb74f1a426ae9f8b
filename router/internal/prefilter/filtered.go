package prefilter

import "regexp"

// Filtered is a regexp searched only where it can match: not at all in a
// text without the literals every match holds (Required), and otherwise,
// when its matches are made of few kinds of rune, only in the runs of
// those that can hold a match (AlphabetOf). Its answers are the regexp's
// own. Searching run by run pays even in short requests: a search tries
// the regexp at every position of what it is given.
type Filtered struct {
	re      *regexp.Regexp
	clauses Clauses
	alpha   *Alphabet
}

// Filter reads re's prefilters.
func Filter(re *regexp.Regexp) Filtered {
	return Filtered{re: re, clauses: Required(re), alpha: AlphabetOf(re)}
}

// FindAllSubmatchIndex is re.FindAllStringSubmatchIndex(text, -1).
func (f Filtered) FindAllSubmatchIndex(text string) [][]int {
	return f.findAll(text, func(s string) [][]int { return f.re.FindAllStringSubmatchIndex(s, -1) })
}

// FindAllIndex is re.FindAllStringIndex(text, -1).
func (f Filtered) FindAllIndex(text string) [][]int {
	return f.findAll(text, func(s string) [][]int { return f.re.FindAllStringIndex(s, -1) })
}

// FindSubmatchIndex is re.FindStringSubmatchIndex(text).
func (f Filtered) FindSubmatchIndex(text string) []int {
	if !f.clauses.Hold(text) {
		return nil
	}
	if f.alpha == nil {
		return f.re.FindStringSubmatchIndex(text)
	}
	for from, to := range f.alpha.Runs(text) {
		if m := f.find(text, from, to, f.re.FindStringSubmatchIndex); m != nil {
			return m
		}
	}
	return nil
}

func (f Filtered) findAll(text string, search func(string) [][]int) [][]int {
	if !f.clauses.Hold(text) {
		return nil
	}
	if f.alpha == nil {
		return search(text)
	}
	var out [][]int
	for from, to := range f.alpha.Runs(text) {
		w := text[from:to]
		if !f.clauses.Hold(w) {
			continue
		}
		for _, m := range search(w) {
			out = append(out, shift(m, from))
		}
	}
	return out
}

// find is search in text[from:to], its offsets in text; nil when the
// window cannot or does not match.
func (f Filtered) find(text string, from, to int, search func(string) []int) []int {
	w := text[from:to]
	if !f.clauses.Hold(w) {
		return nil
	}
	return shift(search(w), from)
}

// shift moves a match's offsets by d, leaving -1 (a group that did not
// take part) as it is.
func shift(m []int, d int) []int {
	for i, x := range m {
		if x >= 0 {
			m[i] = x + d
		}
	}
	return m
}
