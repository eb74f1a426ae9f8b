package prefilter

import (
	"iter"
	"regexp"
)

// Filtered is a regexp searched only where it can match: not at all in a
// text without the literals every match holds (Required), and otherwise,
// when its matches are made of few kinds of rune, only in the runs of
// those that can hold a match (AlphabetOf). Its answers are the regexp's
// own. Searching run by run pays even in short requests: a search tries
// the regexp at every position of what it is given. A regexp without such
// runs whose matches all begin with one of a few literals (LeadsOf) is
// searched from the first of them.
type Filtered struct {
	re      *regexp.Regexp
	clauses Clauses
	alpha   *Alphabet
	leads   Leads
}

// Filter reads re's prefilters.
func Filter(re *regexp.Regexp) Filtered {
	f := Filtered{re: re, clauses: Required(re), alpha: AlphabetOf(re)}
	if f.alpha == nil {
		f.leads = LeadsOf(re)
	}
	return f
}

// FindAllSubmatchIndex is re.FindAllStringSubmatchIndex(text, -1).
func (f Filtered) FindAllSubmatchIndex(text string) [][]int {
	return f.findAll(text, func(s string) [][]int { return f.re.FindAllStringSubmatchIndex(s, -1) })
}

// FindAllIndex is re.FindAllStringIndex(text, -1).
func (f Filtered) FindAllIndex(text string) [][]int {
	return f.findAll(text, func(s string) [][]int { return f.re.FindAllStringIndex(s, -1) })
}

// MatchString is re.MatchString(text): a match lies in one window, and
// one found in a window is one of text.
func (f Filtered) MatchString(text string) bool {
	if !f.clauses.Hold(text) {
		return false
	}
	if f.alpha == nil {
		from, ok := f.leads.From(text)
		return ok && f.re.MatchString(text[from:])
	}
	for from, to := range f.windows(text) {
		if f.re.MatchString(text[from:to]) {
			return true
		}
	}
	return false
}

// FindSubmatchIndex is re.FindStringSubmatchIndex(text).
func (f Filtered) FindSubmatchIndex(text string) []int {
	if !f.clauses.Hold(text) {
		return nil
	}
	if f.alpha == nil {
		from, ok := f.leads.From(text)
		if !ok {
			return nil
		}
		if m := f.re.FindStringSubmatchIndex(text[from:]); m != nil {
			return shift(m, from)
		}
		return nil
	}
	for from, to := range f.windows(text) {
		if m := f.re.FindStringSubmatchIndex(text[from:to]); m != nil {
			return shift(m, from)
		}
	}
	return nil
}

func (f Filtered) findAll(text string, search func(string) [][]int) [][]int {
	if !f.clauses.Hold(text) {
		return nil
	}
	if f.alpha == nil {
		from, ok := f.leads.From(text)
		if !ok {
			return nil
		}
		found := search(text[from:])
		for _, m := range found {
			shift(m, from)
		}
		return found
	}
	var out [][]int
	for from, to := range f.windows(text) {
		found := search(text[from:to])
		for _, m := range found {
			shift(m, from)
		}
		if out == nil {
			out = found // usually the only window that matches: no copy
		} else {
			out = append(out, found...)
		}
	}
	return out
}

// mergeGap is how far apart two runs may be and still be searched as one
// window: a search costs a call and its allocations, and scanning a few
// bytes between runs costs less. Any stretch of text from one run's
// window start to a later one's end is a window: what lies between the
// runs cannot be part of a match.
const mergeGap = 16

// windows are the runs of text a match can lie in, those close together
// joined, that hold the literals every match holds.
func (f Filtered) windows(text string) iter.Seq2[int, int] {
	return func(yield func(from, to int) bool) {
		from, to := -1, -1
		for wf, wt := range f.alpha.Runs(text) {
			if from >= 0 && wf <= to+mergeGap {
				to = wt
				continue
			}
			if from >= 0 && f.clauses.Hold(text[from:to]) && !yield(from, to) {
				return
			}
			from, to = wf, wt
		}
		if from >= 0 && f.clauses.Hold(text[from:to]) {
			yield(from, to)
		}
	}
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
