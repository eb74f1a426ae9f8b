// Package prefilter tells, from a regexp's syntax alone, texts the regexp
// cannot match and the parts of a text a match must lie in, so a search
// runs only where it can find something: the router's triggers and the
// builtin judge's extraction rules run on every request, and most
// requests hold nothing most rules look for.
package prefilter

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A regexp is tried only on text that holds what every match of it holds:
// literals read off the regexp's syntax, as clauses that must all hold,
// each met by any one of its needles ("INV-" and one of "void" or
// "cancel" for `(void|cancel).*INV-\d+`). The analysis only ever keeps
// things a match needs, so a text it turns away is one the regexp does not
// match.

// Needle is a literal; Fold: in any ASCII case (kept in lower case; runes
// outside ASCII in it have no other case and are matched as they are).
type Needle struct {
	S    string
	Fold bool
}

// In reports whether text holds the needle.
func (n Needle) In(text string) bool {
	if !n.Fold {
		return strings.Contains(text, n.S)
	}
	// A byte without case ("-" of "inv-", any byte of a Han rune) is
	// looked for as it is, which IndexByte does fast; the needle's start
	// is then that far before it.
	if k := strings.IndexFunc(n.S, func(r rune) bool { return !('a' <= r && r <= 'z') }); k >= 0 {
		anchor := n.S[k]
		for i := 0; ; {
			j := strings.IndexByte(text[i:], anchor)
			if j < 0 {
				return false
			}
			if at := i + j - k; at >= 0 && at+len(n.S) <= len(text) && asciiFoldPrefix(text[at:], n.S) {
				return true
			}
			i += j + 1
		}
	}
	// Letters only: the places of its first letter in either case.
	lower, upper := n.S[0], n.S[0]-('a'-'A')
	nextLower, nextUpper := strings.IndexByte(text, lower), strings.IndexByte(text, upper)
	for nextLower >= 0 || nextUpper >= 0 {
		at := nextLower
		if at < 0 || nextUpper >= 0 && nextUpper < at {
			at = nextUpper
		}
		if at+len(n.S) > len(text) {
			return false
		}
		if asciiFoldPrefix(text[at:], n.S) {
			return true
		}
		if at == nextLower {
			nextLower = indexFrom(text, lower, at+1)
		} else {
			nextUpper = indexFrom(text, upper, at+1)
		}
	}
	return false
}

// indexFrom is the index of the first c in text at or after from, or -1.
func indexFrom(text string, c byte, from int) int {
	if j := strings.IndexByte(text[from:], c); j >= 0 {
		return from + j
	}
	return -1
}

// asciiFoldPrefix reports whether text starts with lower in any ASCII case.
func asciiFoldPrefix(text, lower string) bool {
	for j := 0; j < len(lower); j++ {
		c := text[j]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[j] {
			return false
		}
	}
	return true
}

// Clauses are what every match of a regexp holds: each clause is met by
// any one of its needles, and all must be met. Nil: nothing is known, any
// text may match.
type Clauses [][]Needle

// Hold reports whether text meets every clause (no clauses: it may match).
func (cs Clauses) Hold(text string) bool {
	for _, c := range cs {
		if !slices.ContainsFunc(c, func(n Needle) bool { return n.In(text) }) {
			return false
		}
	}
	return true
}

// maxClauses bounds what is kept of a regexp: more clauses filter better
// but cost a search each.
const maxClauses = 6

// Required is requiredClauses of re, or nil when it has none.
func Required(re *regexp.Regexp) Clauses {
	parsed, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return nil
	}
	return requiredClauses(parsed)
}

// requiredClauses are clauses every match of re meets, or nil when it
// cannot tell. A concatenation needs what each part needs; an alternation
// needs, for every way of picking one clause from each branch, one of
// those; a repeat at least once needs its body. Of a case-folded literal
// only a run of runes that an exact or an ASCII case-insensitive search
// finds exactly is kept (not k or s, whose fold orbits hold the Kelvin
// sign and the long s).
func requiredClauses(re *syntax.Regexp) [][]Needle {
	switch re.Op {
	case syntax.OpLiteral:
		if n, ok := literalNeedle(re); ok {
			return [][]Needle{{n}}
		}
	case syntax.OpCapture, syntax.OpPlus:
		return requiredClauses(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredClauses(re.Sub[0])
		}
	case syntax.OpConcat:
		var all [][]Needle
		for _, sub := range re.Sub {
			all = append(all, requiredClauses(sub)...)
		}
		return simplify(all)
	case syntax.OpAlternate:
		var acc [][]Needle
		for i, sub := range re.Sub {
			cs := requiredClauses(sub)
			if cs == nil {
				return nil
			}
			if i == 0 {
				acc = cs
				continue
			}
			var next [][]Needle
			for _, a := range acc {
				for _, c := range cs {
					next = append(next, union(a, c))
				}
			}
			acc = simplify(next)
		}
		return acc
	}
	return nil
}

// literalNeedle is the longest run of a literal's runes a search finds
// exactly.
func literalNeedle(re *syntax.Regexp) (Needle, bool) {
	fold := re.Flags&syntax.FoldCase != 0
	var best, run []rune
	for _, r := range append(re.Rune, utf8.RuneError) {
		if r == utf8.RuneError || fold && !foldSearchable(r) {
			if len(run) > len(best) {
				best = run
			}
			run = nil
			continue
		}
		run = append(run, r)
	}
	if len(best) == 0 {
		return Needle{}, false
	}
	s := string(best)
	if fold {
		s = strings.ToLower(s)
	}
	return Needle{S: s, Fold: fold}, true
}

// union is a clause met when a or b is.
func union(a, b []Needle) []Needle {
	out := slices.Clone(a)
	for _, n := range b {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// simplify drops repeated needles and clauses another clause implies (a
// clause holding all of a shorter clause's needles), then keeps the
// maxClauses clauses whose shortest needle is longest.
func simplify(clauses [][]Needle) [][]Needle {
	var out [][]Needle
	for i, c := range clauses {
		implied := false
		for j, d := range clauses {
			if i != j && subset(d, c) && (!subset(c, d) || j < i) {
				implied = true // c is met whenever d is (the first of equals stays)
				break
			}
		}
		if !implied {
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(a, b []Needle) int { return shortest(b) - shortest(a) })
	if len(out) > maxClauses {
		out = out[:maxClauses]
	}
	return out
}

// subset reports whether every needle of a is in b.
func subset(a, b []Needle) bool {
	for _, n := range a {
		if !slices.Contains(b, n) {
			return false
		}
	}
	return true
}

func shortest(ns []Needle) int {
	m := len(ns[0].S)
	for _, n := range ns[1:] {
		m = min(m, len(n.S))
	}
	return m
}

// foldSearchable reports whether a search finds exactly the runes r
// matches case-insensitively: an ASCII letter whose folds are all ASCII
// (an ASCII case-insensitive search), or any rune without other cases
// (an exact search).
func foldSearchable(r rune) bool {
	if unicode.SimpleFold(r) == r {
		return true
	}
	if r >= utf8.RuneSelf {
		return false
	}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
