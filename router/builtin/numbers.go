package builtin

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// numberSpan is a number written in a request, with the unit written
// after it (or the currency sign before it), if any.
type numberSpan struct {
	span
	value float64
	dim   dimension
	// word is set for a number written as a word ("three"): weaker
	// evidence than digits ("one" is often no number at all).
	word bool
	// unit is where its unit is written ("feet" in "9 feet"), empty
	// when it has none.
	unit span
}

// numberRe finds written numbers: digits with an optional decimal part and
// thousands separators, optionally after a currency sign; or a run of
// Chinese numerals. Glued-on letters are checked afterwards, so "p99",
// "node-7" and "3000ms" are identifiers, not quantities. It is the
// definition; numberMatches finds its matches by hand.
var numberRe = regexp.MustCompile(`(?:[$€£¥￥]\s?)?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?|\.(\d+)|[零一二两三四五六七八九十百千]+`)

// numeralRunes are the runes one of which every numberRe match holds.
const numeralRunes = "0123456789零一二两三四五六七八九十百千"

var numerals = newRuneSet(numeralRunes)

// numberWordRe finds English number words. It is the definition;
// numberWordMatches finds its matches by hand.
var numberWordRe = regexp.MustCompile(`(?i)\b(zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|a dozen|dozen)\b`)

var lastNumberWords memoOf[[][]int]

// findNumbers lists the standalone numbers of text outside the taken spans.
// The text is read once (writtenNumbers, remembered for the last texts):
// every close candidate of a request reads the same numbers, and only
// which of them its other properties used up differs.
func findNumbers(text string, taken *spans) []numberSpan {
	var out []numberSpan
	for _, w := range lastNumbers.recall(text, writtenNumbers) {
		if !taken.overlaps(w.match.from, w.match.to) {
			out = append(out, w.numberSpan)
		}
	}
	slices.SortFunc(out, func(a, b numberSpan) int { return a.from - b.from })
	kept := out[:0]
	for _, n := range out {
		if len(kept) > 0 && n.from < kept[len(kept)-1].to {
			continue // "two hundred": the first reading stands
		}
		kept = append(kept, n)
	}
	return kept
}

// writtenNumber is a standalone number of a text, and the part of the
// text that must be free for it to count (the digits or the word as
// found, before a unit or an exponent is read on).
type writtenNumber struct {
	numberSpan
	match span
}

var lastNumbers memoOf[[]writtenNumber]

// writtenNumbers lists every standalone number of text, in findNumbers'
// order before sorting: digits and Chinese numerals, then number words.
// What is handed out is shared and never changed.
func writtenNumbers(text string) []writtenNumber {
	var out []writtenNumber
	// Every match holds an ASCII digit or a Chinese numeral.
	var matches [][]int
	if numerals.in(text) {
		matches = numberMatches(text)
	}
	for _, m := range matches {
		from, to := m[0], m[1]
		// A minus sign after a space, "=", "(" or "[" makes a negative
		// number ("b=-3", "[-50000, ..."); after a letter it joins an id.
		negative := from > 0 && text[from-1] == '-' && (from == 1 || strings.IndexByte(" =([,:", text[from-2]) >= 0)
		if negative {
			from--
		}
		// Scientific notation: "1e-9", "6.02e23" (the exponent is no unit).
		exp := 0
		if m[2] >= 0 || m[6] >= 0 {
			exp = expSuffix(text, to)
		}
		dim, unitLen := unitAfter(text, to+exp)
		glued := unitLen > 0 && text[to+exp] != ' '
		// A glued unit ends the word: only the number's left side must be free.
		right := to + exp
		if glued {
			right = len(text)
		}
		if gluedToWord(text, from, right) || clockTime(text, from, to) {
			continue
		}
		match := span{from, to}
		var v float64
		switch {
		case m[2] >= 0 || m[6] >= 0:
			digits := "0"
			if m[2] >= 0 {
				digits = strings.ReplaceAll(text[m[2]:m[3]], ",", "")
			}
			if m[4] >= 0 {
				digits += "." + text[m[4]:m[5]]
			} else if m[6] >= 0 {
				digits += "." + text[m[6]:m[7]]
			}
			f, err := strconv.ParseFloat(digits, 64)
			if err != nil {
				continue
			}
			v = f
			if strings.ContainsAny(text[m[0]:m[0]+1], currencySigns) || strings.HasPrefix(text[m[0]:], "¥") || strings.HasPrefix(text[m[0]:], "￥") ||
				strings.HasPrefix(text[m[0]:], "€") || strings.HasPrefix(text[m[0]:], "£") {
				dim = dimMoney
			}
			if exp != 0 {
				e, _ := strconv.Atoi(strings.TrimPrefix(text[to+1:to+exp], "+"))
				v *= math.Pow(10, float64(e))
				to += exp
			}
		default:
			n, ok := chineseNumber(text[from:to])
			if !ok || !countable(text, to) {
				continue
			}
			v = float64(n)
		}
		if negative {
			v = -v
		}
		if k, scale := magnitudeWord(text, to); k > 0 {
			v *= scale
			to += k
			dim, unitLen = unitAfter(text, to)
		}
		var unit span
		if unitLen > 0 {
			unit = span{to, to + unitLen}
			to += unitLen
		}
		if math.IsInf(v, 0) || math.IsNaN(v) {
			continue // "1e400": no number JSON can hold
		}
		out = append(out, writtenNumber{numberSpan{span: span{from, to}, value: v, dim: dim, unit: unit}, match})
	}
	for _, m := range lastNumberWords.recall(text, numberWordMatches) {
		from, to := m[0], m[1]
		if gluedToWord(text, from, to) {
			continue
		}
		n, _ := parseCount(strings.ToLower(text[from:to]))
		dim, unitLen := unitAfter(text, to)
		out = append(out, writtenNumber{numberSpan{span: span{from, to + unitLen}, value: float64(n), dim: dim, word: true, unit: span{to, to + unitLen}}, span{from, to}})
	}
	return out
}

// expSuffix is the length of an exponent ("e-9", "E+23") written right
// after a number ending at to, or 0.
func expSuffix(s string, to int) int {
	if to+1 >= len(s) || s[to] != 'e' && s[to] != 'E' {
		return 0
	}
	k := to + 1
	if s[k] == '-' || s[k] == '+' {
		k++
	}
	start := k
	for k < len(s) && s[k] >= '0' && s[k] <= '9' {
		k++
	}
	if k == start || k < len(s) && isLatinOrDigit(rune(s[k])) {
		return 0
	}
	return k - to
}

// gluedToWord reports whether a match touches a Latin letter, a digit, a
// hyphen or a dot on either side (so it is part of an identifier, a
// version or a decimal the regexp split).
func gluedToWord(s string, from, to int) bool {
	if from > 0 {
		r, _ := utf8.DecodeLastRuneInString(s[:from])
		if isLatinOrDigit(r) || r == '-' || r == '_' || r == '.' || r == '/' || r == '#' {
			return true
		}
	}
	if to < len(s) {
		r, _ := utf8.DecodeRuneInString(s[to:])
		if isLatinOrDigit(r) || r == '-' || r == '_' || r == '/' {
			return true
		}
		if r == '.' && to+1 < len(s) && s[to+1] >= '0' && s[to+1] <= '9' {
			return true
		}
	}
	return false
}

func isLatinOrDigit(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}

// countable reports whether Chinese numerals at s[:to] are used as a
// quantity: followed by a classifier or unit ("五个", "两台", "三百元"),
// not part of a word like "一下" or "一起".
func countable(s string, to int) bool {
	r, _ := utf8.DecodeRuneInString(s[to:])
	return strings.ContainsRune("个台元块次份张条位天", r)
}

var chineseDigits = map[rune]int{'零': 0, '一': 1, '二': 2, '两': 2, '三': 3, '四': 4, '五': 5,
	'六': 6, '七': 7, '八': 8, '九': 9}

// chineseNumber parses Chinese numerals up to the thousands: 七, 十,
// 十五, 三十, 二百五十, 两千.
func chineseNumber(s string) (int, bool) {
	total, digit := 0, -1
	for _, r := range s {
		if d, ok := chineseDigits[r]; ok {
			digit = d
			continue
		}
		unit := 0
		switch r {
		case '十':
			unit = 10
		case '百':
			unit = 100
		case '千':
			unit = 1000
		default:
			return 0, false
		}
		if digit < 0 {
			digit = 1 // 十五: the leading 一 is implied
		}
		total += digit * unit
		digit = -1
	}
	if digit > 0 {
		total += digit
	}
	return total, total > 0 || strings.ContainsRune(s, '零')
}

var englishCounts = map[string]int{"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
	"seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
	"fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
	"forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100,
	"dozen": 12, "a dozen": 12}

// parseCount reads a count written in digits, Chinese numerals or an
// English number word.
func parseCount(s string) (int, bool) {
	if n, err := strconv.Atoi(s); err == nil {
		return n, true
	}
	if n, ok := englishCounts[s]; ok {
		return n, true
	}
	return chineseNumber(s)
}

// magnitudeWord reads " million" and the like after a number: "213
// million" is 213000000, the value a schema's integer wants.
func magnitudeWord(s string, to int) (int, float64) {
	rest := s[to:]
	trimmed := strings.TrimLeft(rest, " ")
	if len(trimmed) == len(rest) {
		return 0, 0
	}
	for _, w := range [...]struct {
		word  string
		scale float64
	}{{"thousand", 1e3}, {"million", 1e6}, {"billion", 1e9}} {
		if len(trimmed) >= len(w.word) && strings.EqualFold(trimmed[:len(w.word)], w.word) &&
			(len(trimmed) == len(w.word) || !isLatinOrDigit(rune(trimmed[len(w.word)]))) {
			return len(rest) - len(trimmed) + len(w.word), w.scale
		}
	}
	return 0, 0
}

// clockTime reports whether a number is part of a time of day ("6:30"):
// its hours and minutes are not two quantities.
func clockTime(s string, from, to int) bool {
	digit := func(i int) bool { return i >= 0 && i < len(s) && s[i] >= '0' && s[i] <= '9' }
	return to < len(s) && s[to] == ':' && digit(to+1) || from > 0 && s[from-1] == ':' && digit(from-2)
}
