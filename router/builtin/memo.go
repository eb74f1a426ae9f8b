package builtin

import (
	"regexp"
	"sync"
	"time"

	"github.com/routebench/routebench/router/internal/prefilter"
)

// memoRegexp is a regexp that remembers its matches in the last text it
// searched. The judge reads one request's text many times over: the same
// params rules once per candidate close enough to have its params read,
// the date rules once for the recall embedding and once for the judge, a
// conversation's probe again. What it remembers is shared between callers,
// who only read it; concurrent requests just overwrite each other's entry
// and search again.
//
// Its searches go through the regexp's prefilters: a text without the
// literals every match holds is not searched, and a long one only in the
// runs of runes a match can hold.
type memoRegexp struct {
	*regexp.Regexp
	filtered        prefilter.Filtered
	all, sub, first memoSlot
}

// memoOf remembers what a function of a text gave for the last two texts
// it was asked about (a request's text and its lowercase, say); what it
// hands out is shared and never changed.
type memoOf[T any] struct {
	mu   sync.Mutex
	last [2]struct {
		text string
		val  T
		set  bool
	}
	next int // the entry the next new text replaces
}

func (m *memoOf[T]) recall(s string, f func(string) T) T {
	m.mu.Lock()
	for i := range m.last {
		if e := &m.last[i]; e.set && e.text == s {
			v := e.val
			m.mu.Unlock()
			return v
		}
	}
	m.mu.Unlock()
	v := f(s)
	m.mu.Lock()
	e := &m.last[m.next]
	e.text, e.val, e.set = s, v, true
	m.next = 1 - m.next
	m.mu.Unlock()
	return v
}

var lastLowered memoOf[string]

// lowered is lowerASCII(s), remembered for the last text that needed a
// copy: the embedder and the judge lower the same request.
func lowered(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			return lastLowered.recall(s, lowerASCII)
		}
	}
	return s
}

// memoSlot is one text's matches. The matches a slot hands out are never
// changed: storing replaces them.
type memoSlot struct {
	mu      sync.Mutex
	text    string
	matches [][]int
	set     bool
}

func memoCompile(expr string) *memoRegexp {
	return newMemoRegexp(regexp.MustCompile(expr))
}

func newMemoRegexp(re *regexp.Regexp) *memoRegexp {
	return &memoRegexp{Regexp: re, filtered: prefilter.Filter(re)}
}

// recall returns what the slot holds for s, or searches and stores it.
func (m *memoSlot) recall(s string, search func(string) [][]int) [][]int {
	m.mu.Lock()
	if m.set && m.text == s {
		found := m.matches
		m.mu.Unlock()
		return found
	}
	m.mu.Unlock()
	found := search(s)
	m.mu.Lock()
	m.text, m.matches, m.set = s, found, true
	m.mu.Unlock()
	return found
}

// allSubmatchIndex is FindAllStringSubmatchIndex(s, -1).
func (r *memoRegexp) allSubmatchIndex(s string) [][]int {
	return r.sub.recall(s, r.filtered.FindAllSubmatchIndex)
}

// allIndex is FindAllStringIndex(s, -1).
func (r *memoRegexp) allIndex(s string) [][]int {
	return r.all.recall(s, r.filtered.FindAllIndex)
}

// firstSubmatchIndex is FindStringSubmatchIndex(s).
func (r *memoRegexp) firstSubmatchIndex(s string) []int {
	m := r.first.recall(s, func(s string) [][]int {
		if m := r.filtered.FindSubmatchIndex(s); m != nil {
			return [][]int{m}
		}
		return nil
	})
	if m == nil {
		return nil
	}
	return m[0]
}

// lastDates remembers the last dates formatted for a param, boxed: the
// same days are written for each close candidate that has date params,
// and a range's start and end take turns, so two are remembered.
var lastDates struct {
	mu   sync.Mutex
	last [2]formattedDate
	next int // the entry the next new date replaces
}

type formattedDate struct {
	day    time.Time
	layout string
	value  any
}

// formatted is day.Format(layout) as an any.
func formatted(day time.Time, layout string) any {
	lastDates.mu.Lock()
	for i := range lastDates.last {
		if e := &lastDates.last[i]; e.value != nil && e.day == day && e.layout == layout {
			v := e.value
			lastDates.mu.Unlock()
			return v
		}
	}
	lastDates.mu.Unlock()
	var v any = day.Format(layout)
	lastDates.mu.Lock()
	lastDates.last[lastDates.next] = formattedDate{day: day, layout: layout, value: v}
	lastDates.next = 1 - lastDates.next
	lastDates.mu.Unlock()
	return v
}
