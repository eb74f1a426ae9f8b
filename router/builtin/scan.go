package builtin

import (
	"strings"
	"unicode/utf8"
)

// Hand-written scanners for the params regexps every request runs into
// (most requests hold a colon or a number word's letters somewhere, so no
// literal pre-check spares them): each gives exactly the matches its
// regexp's FindAll gives, leftmost-first as Go's regexp chooses them, and
// a spec runs both on made-up texts to hold them to it. The regexps stay
// as the definition.

// isWordByte is regexp's \w (and \b's word side) for the rune a byte
// starts: ASCII letters, digits and underscore. A byte from 0x80 starts
// or continues a rune outside ASCII, which is never a word rune.
func isWordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_'
}

// isSpaceByte is regexp's \s: [\t\n\f\r ].
func isSpaceByte(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\f' || b == '\r'
}

// explicitMatches is explicitRe.FindAllStringSubmatchIndex(text, -1):
// `([A-Za-z_][A-Za-z0-9_]*)\s*(?:=|:)\s*(\[[^\]]*\]|"[^"]*"|'[^']*'|[^\s,;)]+)`.
//
// At a start the name takes every word byte that follows, the spaces and
// the "=" or ":" are forced, and the value is the first alternative that
// fits: backtracking into the name or the spaces cannot help, since a
// shorter name is followed by a word byte and fewer spaces by a space,
// neither of which the rest accepts. A start inside the name a failed
// start began has the same rest, so it fails too.
func explicitMatches(text string) [][]int {
	var out [][]int
	for p := 0; p < len(text); {
		c := text[p]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_') {
			p++
			continue
		}
		nameEnd := p + 1
		for nameEnd < len(text) && isWordByte(text[nameEnd]) {
			nameEnd++
		}
		if from, to, ok := explicitAfterName(text, nameEnd); ok {
			out = append(out, []int{p, to, p, nameEnd, from, to})
			p = to
			continue
		}
		p = nameEnd
	}
	return out
}

// explicitAfterName reads `\s*(?:=|:)\s*(value)` from at.
func explicitAfterName(text string, at int) (from, to int, ok bool) {
	k := at
	for k < len(text) && isSpaceByte(text[k]) {
		k++
	}
	if k == len(text) || text[k] != '=' && text[k] != ':' {
		return 0, 0, false
	}
	k++
	for k < len(text) && isSpaceByte(text[k]) {
		k++
	}
	if k == len(text) {
		return 0, 0, false
	}
	// \[[^\]]*\] | "[^"]*" | '[^']*': up to the first closing character.
	if open := text[k]; open == '[' || open == '"' || open == '\'' {
		closing := open
		if open == '[' {
			closing = ']'
		}
		for e := k + 1; e < len(text); e++ {
			if text[e] == closing {
				return k, e + 1, true
			}
		}
	}
	// [^\s,;)]+
	e := k
	for e < len(text) && !isSpaceByte(text[e]) && text[e] != ',' && text[e] != ';' && text[e] != ')' {
		e++
	}
	return k, e, e > k
}

// numberWords are numberWordRe's alternatives, in its order.
var numberWords = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
	"eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
	"twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety", "hundred", "a dozen", "dozen"}

// numberWordMatches is numberWordRe.FindAllStringIndex(text, -1):
// `(?i)\b(zero|one|...|a dozen|dozen)\b`. At each rune where \b holds, the
// first word (in the regexp's order) written there in any case and
// followed by \b is the match; (?i) also lets the Kelvin sign stand for k
// and the long s for s, which are not word runes for \b.
func numberWordMatches(text string) [][]int {
	var out [][]int
	for p := 0; p < len(text); {
		if numberWordStarts[text[p]] && boundary(text, p) {
			if end, ok := numberWordAt(text, p); ok {
				out = append(out, []int{p, end})
				p = end
				continue
			}
		}
		p += runeLen(text, p)
	}
	return out
}

// numberWordStarts holds the bytes a number word can start with: its
// first letter in either case, and any byte outside ASCII (the long s
// stands for s).
var numberWordStarts = func() (starts [256]bool) {
	for _, w := range numberWords {
		starts[w[0]], starts[w[0]-('a'-'A')] = true, true
	}
	for c := utf8.RuneSelf; c < 256; c++ {
		starts[c] = true
	}
	return starts
}()

// numberWordAt is the end of the first number word at p followed by \b.
func numberWordAt(text string, p int) (int, bool) {
	for _, w := range numberWords {
		if end, ok := foldedAt(text, p, w); ok && boundary(text, end) {
			return end, true
		}
	}
	return 0, false
}

// foldedAt matches lower-case ASCII w at text[p:] as (?i) does.
func foldedAt(text string, p int, w string) (int, bool) {
	for i := 0; i < len(w); i++ {
		if p == len(text) {
			return 0, false
		}
		c := text[p]
		switch {
		case c|0x20 == w[i] && (c|0x20 >= 'a' && c|0x20 <= 'z'):
			p++
		case c == w[i]: // the space of "a dozen"
			p++
		case w[i] == 'k' && len(text)-p >= 3 && text[p:p+3] == "\u212a":
			p += 3
		case w[i] == 's' && len(text)-p >= 2 && text[p:p+2] == "\u017f":
			p += 2
		default:
			return 0, false
		}
	}
	return p, true
}

// boundary is \b at p: a word rune on one side only.
func boundary(text string, p int) bool {
	before := p > 0 && isWordByte(text[p-1])
	after := p < len(text) && isWordByte(text[p])
	return before != after
}

// runeLen is the width regexp steps over at p (1 for an invalid byte).
func runeLen(text string, p int) int {
	c := text[p]
	if c < 0x80 {
		return 1
	}
	_, size := utf8.DecodeRuneInString(text[p:])
	return size
}

// numberMatches is numberRe.FindAllStringSubmatchIndex(text, -1):
// `(?:[$€£¥￥]\s?)?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?|\.(\d+)|[零一二两三四五六七八九十百千]+`
// read by hand, at each rune the first alternative (in the regexp's order)
// that matches there. Every request whose close candidates have a number
// to fill is read for numbers, and the regexp's backtracking was most of
// that reading.
func numberMatches(text string) [][]int {
	var out [][]int
	for p := 0; p < len(text); {
		if c := text[p]; c < utf8.RuneSelf && c != '$' && c != '.' && !isDigitByte(c) {
			p++ // no match starts with any other ASCII byte
			continue
		}
		if m, ok := numberAt(text, p); ok {
			out = append(out, m)
			p = m[1]
			continue
		}
		p += runeLen(text, p)
	}
	return out
}

// numberAt is numberRe's match starting at p, if any, with its groups (-1
// for a group that took no part).
func numberAt(text string, p int) ([]int, bool) {
	// The first alternative: a currency sign (and one \s) if written,
	// then the digits.
	q := p
	if n := currencySignAt(text, p); n > 0 {
		q += n
		if q < len(text) && isRegexpSpace(text[q]) && q+1 < len(text) && isDigitByte(text[q+1]) {
			q++
		}
	}
	if r := digitRun(text, q); r > 0 {
		end := q + r
		// \d{1,3}(?:,\d{3})+ comes before \d+: only a run of at most
		// three digits can start it.
		if r <= 3 && thousandsAt(text, end) {
			for thousandsAt(text, end) {
				end += 4
			}
		}
		m := []int{p, end, q, end, -1, -1, -1, -1}
		if end+1 < len(text) && text[end] == '.' && isDigitByte(text[end+1]) {
			d := digitRun(text, end+1)
			m[4], m[5] = end+1, end+1+d
			m[1] = end + 1 + d
		}
		return m, true
	}
	// The second: a decimal point and digits.
	if text[p] == '.' {
		if d := digitRun(text, p+1); d > 0 {
			return []int{p, p + 1 + d, -1, -1, -1, -1, p + 1, p + 1 + d}, true
		}
	}
	// The third: a run of Chinese numerals.
	end := p
	for end < len(text) && text[end] >= utf8.RuneSelf {
		r, size := utf8.DecodeRuneInString(text[end:])
		if !chineseNumeral(r) {
			break
		}
		end += size
	}
	if end > p {
		return []int{p, end, -1, -1, -1, -1, -1, -1}, true
	}
	return nil, false
}

// chineseNumeral reports whether r is one of numberRe's Chinese numerals.
func chineseNumeral(r rune) bool {
	switch r {
	case '零', '一', '二', '两', '三', '四', '五', '六', '七', '八', '九', '十', '百', '千':
		return true
	}
	return false
}

// currencySignAt is the length of the currency sign numberRe allows
// before a number at p, 0 for none.
func currencySignAt(text string, p int) int {
	if text[p] == '$' {
		return 1
	}
	if text[p] < utf8.RuneSelf {
		return 0
	}
	for _, sign := range []string{"€", "£", "¥", "￥"} {
		if strings.HasPrefix(text[p:], sign) {
			return len(sign)
		}
	}
	return 0
}

// digitRun is the number of ASCII digits from p on.
func digitRun(text string, p int) int {
	n := 0
	for p+n < len(text) && isDigitByte(text[p+n]) {
		n++
	}
	return n
}

// thousandsAt reports whether a comma and three digits are written at p.
func thousandsAt(text string, p int) bool {
	return p+3 < len(text) && text[p] == ',' && isDigitByte(text[p+1]) && isDigitByte(text[p+2]) && isDigitByte(text[p+3])
}

// isRegexpSpace is \s of a regexp: [\t\n\f\r ].
func isRegexpSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// runeSet is a set of runes to look for in text, as strings.ContainsAny
// looks for chars: its ASCII runes are read from a byte table, and only
// text past ASCII is decoded (strings.ContainsAny decodes every rune of
// text when chars hold one past ASCII, as the quote marks do).
type runeSet struct {
	ascii [utf8.RuneSelf]bool
	wide  []rune
}

func newRuneSet(chars string) *runeSet {
	s := &runeSet{}
	for _, r := range chars {
		if r < utf8.RuneSelf {
			s.ascii[r] = true
		} else {
			s.wide = append(s.wide, r)
		}
	}
	return s
}

// in is strings.ContainsAny(text, chars) for the set's chars: the runes of
// text are read from the same offsets, a byte that starts no rune as one
// utf8.RuneError, as ContainsAny reads them.
func (s *runeSet) in(text string) bool {
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			if s.ascii[c] {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		for _, w := range s.wide {
			if r == w {
				return true
			}
		}
		i += size
	}
	return false
}

// quoteMarks are the marks a quote may open with.
var quoteMarks = newRuneSet("\"“「『'`")
