package builtin

import (
	"regexp"
	"sync/atomic"
)

// memoRegexp is a regexp that remembers its matches in the last text it
// searched. The judge reads one request's text many times over: the same
// params rules once per candidate close enough to have its params read,
// the date rules once for the recall embedding and once for the judge, a
// conversation's probe again. What it remembers is shared between callers,
// who only read it; concurrent requests just overwrite each other's entry
// and search again.
type memoRegexp struct {
	*regexp.Regexp
	all, sub, first atomic.Pointer[memoEntry]
}

// memoEntry is one text's matches, never changed once stored.
type memoEntry struct {
	text    string
	matches [][]int
}

func memoCompile(expr string) *memoRegexp {
	return &memoRegexp{Regexp: regexp.MustCompile(expr)}
}

// recall returns what slot holds for s, or searches and stores it.
func recall(slot *atomic.Pointer[memoEntry], s string, search func(string) [][]int) [][]int {
	if e := slot.Load(); e != nil && e.text == s {
		return e.matches
	}
	m := search(s)
	slot.Store(&memoEntry{text: s, matches: m})
	return m
}

// allSubmatchIndex is FindAllStringSubmatchIndex(s, -1).
func (r *memoRegexp) allSubmatchIndex(s string) [][]int {
	return recall(&r.sub, s, func(s string) [][]int { return r.FindAllStringSubmatchIndex(s, -1) })
}

// allIndex is FindAllStringIndex(s, -1).
func (r *memoRegexp) allIndex(s string) [][]int {
	return recall(&r.all, s, func(s string) [][]int { return r.FindAllStringIndex(s, -1) })
}

// firstSubmatchIndex is FindStringSubmatchIndex(s).
func (r *memoRegexp) firstSubmatchIndex(s string) []int {
	m := recall(&r.first, s, func(s string) [][]int {
		if m := r.FindStringSubmatchIndex(s); m != nil {
			return [][]int{m}
		}
		return nil
	})
	if m == nil {
		return nil
	}
	return m[0]
}
