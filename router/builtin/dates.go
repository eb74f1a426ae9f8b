package builtin

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// dateSpan is a date expression found in a request: the days it covers
// (inclusive) and where it is in the text.
type dateSpan struct {
	span
	start, end time.Time
	// absolute is true for a written calendar date (2026-11-03, 11月3日),
	// false for a relative one (上周, last 7 days).
	absolute bool
}

// dateRule turns one regexp match into a date span. m holds the
// submatch byte offsets; today is midnight of the request's day in its
// time zone.
type dateRule struct {
	re    *memoRegexp
	parse func(lower string, m []int, today time.Time) (start, end time.Time, ok bool)
	abs   bool
	// The regexp runs only on text holding a digit (when digit is set),
	// one of need (when need is set) and the shape every match has (when
	// shape is set): most requests name no date, and a substring test
	// costs nanoseconds where a regexp costs microseconds.
	digit bool
	need  []string
	shape func(lower string) bool
	// phrases are re's when it is an alternation of fixed phrases
	// (fixedPhrasesOf), searched without the regexp engine; nil otherwise.
	phrases []fixedPhrase
	// needs has a bit per word of need, in dateWords.
	needs uint64
}

// monthAlt matches a month's name or its abbreviation.
const monthAlt = `jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?`

var monthStems = []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}

// Relative date semantics (brief, "Relative date semantics"): weeks start
// on Monday; "this week"/"this month" run to today; "last N days" ends
// today and spans N days.
var dateRules = []dateRule{
	{re: memoCompile(`(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})`), abs: true, parse: parseYMD, digit: true, shape: yearFirstShape},
	{re: memoCompile(`(?:(\d{4})\s*年\s*)?(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]?`), abs: true, parse: parseChineseMonthDay, digit: true, need: []string{"月"}, shape: digitThen("月")},
	{re: memoCompile(`\b(` + monthAlt + `)(?:\.\s*|\s+)(\d{1,2})(?:st|nd|rd|th)?\b(?:(?:,\s*|\s+)(\d{4})\b)?`), abs: true, parse: parseMonthNameDay, digit: true, need: monthStems},
	{re: memoCompile(`\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(` + monthAlt + `)\b(?:(?:,\s*|\s+)(\d{4})\b)?`), abs: true, parse: parseDayMonthName, digit: true, need: monthStems},
	{re: memoCompile(`\b(\d{4}),?\s+(` + monthAlt + `)\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b`), abs: true, parse: parseYearMonthNameDay, digit: true, need: monthStems},
	// Month-first numeric dates, as US forms write them ("01-31-1980");
	// day-first when the first part cannot be a month.
	{re: memoCompile(`\b(\d{1,2})[-/.](\d{1,2})[-/.](\d{4})\b`), abs: true, parse: parseMDY, digit: true, shape: yearLastShape},
	// A range of days written without their month ("1号到15号", "the 1st
	// to the 15th"), as a user answers "which dates?".
	{re: memoCompile(`(\d{1,2})\s*[日号]\s*(?:到|至|~|～|-|—)\s*(\d{1,2})\s*[日号]`), abs: true, parse: dayRange, digit: true, need: []string{"日", "号"}, shape: both(digitThen("日", "号"), containsOne(continuedDayWords))},
	{re: memoCompile(`\b(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)\s*(?:to|until|till|through|-)\s*(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)\b`), abs: true, parse: dayRange, digit: true, shape: ordinalShape},
	{re: memoCompile(`今天|今日|\btoday\b`), parse: days(0, 0), need: []string{"今天", "今日", "today"}},
	{re: memoCompile(`昨天|昨日|\byesterday\b`), parse: days(1, 1), need: []string{"昨天", "昨日", "yesterday"}},
	{re: memoCompile(`前天|\bthe day before yesterday\b`), parse: days(2, 2), need: []string{"前天", "the day before yesterday"}},
	{re: memoCompile(`上周|上个?星期|上个?礼拜|\blast week\b|\bprevious week\b`), parse: lastWeek, need: []string{"上周", "上星期", "上个星期", "上礼拜", "上个礼拜", "last week", "previous week"}},
	{re: memoCompile(`本周|这周|这个?星期|本星期|\bthis week\b`), parse: thisWeek, need: []string{"本周", "这周", "这星期", "这个星期", "本星期", "this week"}},
	{re: memoCompile(`(?:最近|近|过去)\s*([0-9]+|[零一二两三四五六七八九十百]+)\s*(?:个)?\s*(?:天|日)`), parse: lastNDays, need: []string{"近", "过去"}},
	{re: memoCompile(`(?:最近|近|过去)\s*(?:一|1)\s*(?:周|星期)`), parse: days(6, 0), need: []string{"近", "过去"}, shape: containsOne([]string{"周", "星期"})},
	{re: memoCompile(`\b(?:last|past|previous)\s+([0-9]+|[a-z]+)\s+days?\b`), parse: lastNDays, need: []string{"last", "past", "previous"}, shape: contains("day")},
	{re: memoCompile(`本月|这个月|\bthis month\b`), parse: thisMonth, need: []string{"本月", "这个月", "this month"}},
	{re: memoCompile(`上个?月|\blast month\b|\bprevious month\b`), parse: lastMonth, need: []string{"上个月", "上月", "last month", "previous month"}},
}

// continuedDay matches a range's second day written without its month:
// the "到9日" of "11月3日到9日". Its range words are continuedDayWords,
// which mayContinueDay looks for first.
var continuedDay = regexp.MustCompile(`^\s*(?:` + quotedAlternation(continuedDayWords) + `)\s*(\d{1,2})\s*[日号]`)

// quotedAlternation is words as a regexp alternation of literals.
func quotedAlternation(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = regexp.QuoteMeta(w)
	}
	return strings.Join(quoted, "|")
}

// findDates lists the date expressions of lower (lowercased text) in text
// order; where two overlap the longer wins.
func findDates(lower string, now time.Time) []dateSpan {
	return appendDates(nil, lower, now)
}

// appendDates is findDates in dst's memory (an empty slice with room).
func appendDates(dst []dateSpan, lower string, now time.Time) []dateSpan {
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, now.Location())
	found := dst[:0]
	may := lastMayMatch.recall(lower, mayMatchRules)
	for i, r := range dateRules {
		if may&(1<<i) == 0 {
			continue
		}
		var matches [][]int
		if r.phrases != nil {
			matches = fixedPhraseMatches(r.phrases, lower)
		} else {
			matches = r.re.allSubmatchIndex(lower)
		}
		for _, m := range matches {
			if !digitBoundary(lower, m[0], m[1]) {
				continue
			}
			start, end, ok := r.parse(lower, m, today)
			if !ok {
				continue
			}
			found = append(found, dateSpan{span: span{m[0], m[1]}, start: start, end: end, absolute: r.abs})
		}
	}
	slices.SortFunc(found, func(a, b dateSpan) int {
		if a.from != b.from {
			return a.from - b.from
		}
		return (b.to - b.from) - (a.to - a.from)
	})
	// Kept in place: out never gets ahead of the span being read.
	out := found[:0]
	for _, d := range found {
		if n := len(out); n > 0 && d.from < out[n-1].to {
			if d.to-d.from > out[n-1].to-out[n-1].from {
				out[n-1] = d
			}
			continue
		}
		out = append(out, d)
	}
	// "from 2031 May 2nd to May 6th": a date written without its year
	// takes the year of the date written before it.
	year := -1
	for i, d := range out {
		if !d.absolute {
			continue
		}
		if writtenYear.MatchString(lower[d.from:d.to]) {
			year = d.start.Year()
			continue
		}
		if year >= 0 && d.start.Year() != year {
			if t, ok := makeDate(year, int(d.start.Month()), d.start.Day(), d.start.Location()); ok && d.start.Equal(d.end) {
				out[i].start, out[i].end = t, t
			}
		}
	}
	// "11月3日到9日": the second day inherits the first's month.
	for i := 0; i < len(out); i++ {
		d := out[i]
		if !d.absolute {
			continue
		}
		if !mayContinueDay(lower[d.to:]) {
			continue
		}
		m := continuedDay.FindStringSubmatchIndex(lower[d.to:])
		if m == nil {
			continue
		}
		day, _ := strconv.Atoi(lower[d.to+m[2] : d.to+m[3]])
		end, ok := makeDate(d.start.Year(), int(d.start.Month()), day, d.start.Location())
		if !ok || (i+1 < len(out) && out[i+1].from < d.to+m[1]) {
			continue
		}
		second := dateSpan{span: span{d.to + m[2], d.to + m[1]}, start: end, end: end, absolute: true}
		out = slices.Insert(out, i+1, second)
		i++
	}
	return out
}

func init() {
	for i := range dateRules {
		dateRules[i].phrases = fixedPhrasesOf(dateRules[i].re.String())
	}
}

// writtenYear finds a year written inside a date.
var writtenYear = regexp.MustCompile(`\d{4}`)

// dateProbe is the moment date spans are parsed against when only their
// place matters (tokenizing): any fixed day will do.
var dateProbe = time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)

// lastMayMatch remembers which rules may match the last texts: the
// embedder and the judge look for the same request's dates.
var lastMayMatch memoOf[uint32]

// mayMatchRules has bit i set when dateRules[i] may match lower (a spec
// holds the rules to 32).
func mayMatchRules(lower string) uint32 {
	digit := strings.ContainsAny(lower, "0123456789")
	words := dateWords.holds(lower)
	var may uint32
	for i, r := range dateRules {
		if r.digit && !digit || r.need != nil && words&r.needs == 0 {
			continue
		}
		if r.shape == nil || r.shape(lower) {
			may |= 1 << i
		}
	}
	return may
}

// dateWords finds every date rule's needed words in one pass; a rule's
// needs are the bits of its own.
var dateWords = func() *wordScan {
	var words []string
	for i := range dateRules {
		r := &dateRules[i]
		for _, w := range r.need {
			k := slices.Index(words, w)
			if k < 0 {
				k = len(words)
				words = append(words, w)
			}
			r.needs |= 1 << k
		}
	}
	return newWordScan(words)
}()

// yearFirstShape is what every year-first numeric date holds: four
// digits, a separator ("-", "/" or "."), a digit; "05/06/2031", a
// year-last date, does not hold it.
func yearFirstShape(s string) bool {
	for i := 0; i+5 < len(s); i++ {
		if isDigitByte(s[i]) && isDigitByte(s[i+1]) && isDigitByte(s[i+2]) && isDigitByte(s[i+3]) &&
			isDateSep(s[i+4]) && isDigitByte(s[i+5]) {
			return true
		}
	}
	return false
}

// yearLastShape is what every year-last numeric date holds: a digit, a
// separator, four digits.
func yearLastShape(s string) bool {
	for i := 0; i+5 < len(s); i++ {
		if isDigitByte(s[i]) && isDateSep(s[i+1]) && isDigitByte(s[i+2]) && isDigitByte(s[i+3]) &&
			isDigitByte(s[i+4]) && isDigitByte(s[i+5]) {
			return true
		}
	}
	return false
}

// ordinalShape: a digit right before "st", "nd", "rd" or "th".
func ordinalShape(s string) bool {
	for i := 0; i+2 < len(s); i++ {
		if isDigitByte(s[i]) {
			switch s[i+1 : i+3] {
			case "st", "nd", "rd", "th":
				return true
			}
		}
	}
	return false
}

// digitThen is the shape of a digit followed, after any \s, by one of
// words. It reads from each place a word is written, back over the \s
// before it: a digit there is one the word follows (a text of many
// digits, a log line, holds few of the words).
func digitThen(words ...string) func(string) bool {
	return func(s string) bool {
		for _, w := range words {
			for from := 0; ; {
				k := strings.Index(s[from:], w)
				if k < 0 {
					break
				}
				at := from + k
				j := at
				for j > 0 && isSpaceByte(s[j-1]) {
					j--
				}
				if j > 0 && isDigitByte(s[j-1]) {
					return true
				}
				from = at + len(w)
			}
		}
		return false
	}
}

// trimSpaceClass drops the leading \s of a regexp ([\t\n\f\r ]), byte
// by byte: strings.TrimLeft with a cutset builds its set on every call,
// and a shape check calls it at every digit.
func trimSpaceClass(s string) string {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\f' || s[i] == '\r') {
		i++
	}
	return s[i:]
}

// mayContinueDay is false for text continuedDay cannot match: one that,
// past its leading \s, does not start with a range word or dash.
func mayContinueDay(s string) bool {
	rest := trimSpaceClass(s)
	for _, w := range continuedDayWords {
		if strings.HasPrefix(rest, w) {
			return true
		}
	}
	return false
}

// continuedDayWords are the ways a range's second day is joined to its
// first: continuedDay's alternatives.
var continuedDayWords = []string{"到", "至", "~", "～", "-", "—"}

// containsOne is the shape of text holding one of subs.
func containsOne(subs []string) func(string) bool {
	return func(s string) bool { return containsAny(s, subs) }
}

// both is the shape of text that has both shapes.
func both(a, b func(string) bool) func(string) bool {
	return func(s string) bool { return a(s) && b(s) }
}

func contains(sub string) func(string) bool {
	return func(s string) bool { return strings.Contains(s, sub) }
}

func isDigitByte(b byte) bool { return b >= '0' && b <= '9' }

func isDateSep(b byte) bool { return b == '-' || b == '/' || b == '.' }

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// dateSpans lists where lower (lowercased text) mentions dates.
func dateSpans(lower string) []span {
	found := findDates(lower, dateProbe)
	if len(found) == 0 {
		return nil
	}
	return appendSpans(make([]span, 0, len(found)), found)
}

// appendSpans appends where the dates are to dst.
func appendSpans(dst []span, dates []dateSpan) []span {
	for _, d := range dates {
		dst = append(dst, d.span)
	}
	return dst
}

// digitBoundary rejects matches glued to more digits ("12026-11-03").
func digitBoundary(s string, from, to int) bool {
	isDigit := func(b byte) bool { return b >= '0' && b <= '9' }
	return (from == 0 || !isDigit(s[from-1])) && (to == len(s) || !isDigit(s[to]))
}

func makeDate(y, m, d int, loc *time.Location) (time.Time, bool) {
	if m < 1 || m > 12 || d < 1 || d > 31 {
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, loc)
	if t.Day() != d { // February 30th and the like
		return time.Time{}, false
	}
	return t, true
}

func group(s string, m []int, g int) string {
	if m[2*g] < 0 {
		return ""
	}
	return s[m[2*g]:m[2*g+1]]
}

func parseYMD(s string, m []int, today time.Time) (time.Time, time.Time, bool) {
	y, _ := strconv.Atoi(group(s, m, 1))
	mo, _ := strconv.Atoi(group(s, m, 2))
	d, _ := strconv.Atoi(group(s, m, 3))
	t, ok := makeDate(y, mo, d, today.Location())
	return t, t, ok
}

func parseChineseMonthDay(s string, m []int, today time.Time) (time.Time, time.Time, bool) {
	y := today.Year()
	if g := group(s, m, 1); g != "" {
		y, _ = strconv.Atoi(g)
	}
	mo, _ := strconv.Atoi(group(s, m, 2))
	d, _ := strconv.Atoi(group(s, m, 3))
	// "3月" followed by digits without 日 is still a date only when the
	// day marker or a year is present; "11月3" alone is accepted too.
	t, ok := makeDate(y, mo, d, today.Location())
	return t, t, ok
}

var monthNames = map[string]int{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
	"jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12}

func parseMonthNameDay(s string, m []int, today time.Time) (time.Time, time.Time, bool) {
	return monthDayYear(group(s, m, 1), group(s, m, 2), group(s, m, 3), today)
}

func parseDayMonthName(s string, m []int, today time.Time) (time.Time, time.Time, bool) {
	return monthDayYear(group(s, m, 2), group(s, m, 1), group(s, m, 3), today)
}

func parseYearMonthNameDay(s string, m []int, today time.Time) (time.Time, time.Time, bool) {
	return monthDayYear(group(s, m, 2), group(s, m, 3), group(s, m, 1), today)
}

func parseMDY(s string, m []int, today time.Time) (time.Time, time.Time, bool) {
	a, _ := strconv.Atoi(group(s, m, 1))
	b, _ := strconv.Atoi(group(s, m, 2))
	y, _ := strconv.Atoi(group(s, m, 3))
	if a > 12 {
		a, b = b, a
	}
	t, ok := makeDate(y, a, b, today.Location())
	return t, t, ok
}

func monthDayYear(month, day, year string, today time.Time) (time.Time, time.Time, bool) {
	y := today.Year()
	if year != "" {
		y, _ = strconv.Atoi(year)
	}
	d, _ := strconv.Atoi(day)
	t, ok := makeDate(y, monthNames[month[:3]], d, today.Location())
	return t, t, ok
}

// days covers today-from .. today-to.
func days(from, to int) func(string, []int, time.Time) (time.Time, time.Time, bool) {
	return func(_ string, _ []int, today time.Time) (time.Time, time.Time, bool) {
		return today.AddDate(0, 0, -from), today.AddDate(0, 0, -to), true
	}
}

// monday is the Monday of today's week.
func monday(today time.Time) time.Time {
	return today.AddDate(0, 0, -((int(today.Weekday()) + 6) % 7))
}

func lastWeek(_ string, _ []int, today time.Time) (time.Time, time.Time, bool) {
	mon := monday(today)
	return mon.AddDate(0, 0, -7), mon.AddDate(0, 0, -1), true
}

func thisWeek(_ string, _ []int, today time.Time) (time.Time, time.Time, bool) {
	return monday(today), today, true
}

func lastNDays(s string, m []int, today time.Time) (time.Time, time.Time, bool) {
	n, ok := parseCount(group(s, m, 1))
	if !ok || n < 1 || n > 3660 {
		return time.Time{}, time.Time{}, false
	}
	return today.AddDate(0, 0, -(n - 1)), today, true
}

func thisMonth(_ string, _ []int, today time.Time) (time.Time, time.Time, bool) {
	return today.AddDate(0, 0, 1-today.Day()), today, true
}

func lastMonth(_ string, _ []int, today time.Time) (time.Time, time.Time, bool) {
	first := today.AddDate(0, 0, 1-today.Day())
	return first.AddDate(0, -1, 0), first.AddDate(0, 0, -1), true
}

// dayRange reads a range of days of a month the text does not name: this
// month's, or last month's when this month has not reached the first day
// yet. Days right after a month ("11月3日到9日", "nov 3rd to the 9th") are
// left to the month's own rules.
func dayRange(s string, m []int, today time.Time) (time.Time, time.Time, bool) {
	before := strings.TrimRight(s[:m[0]], " \t")
	if strings.HasSuffix(before, "月") || slices.ContainsFunc(monthStems, func(stem string) bool {
		return strings.HasSuffix(before, stem) || strings.Contains(lastWord(before), stem)
	}) {
		return time.Time{}, time.Time{}, false
	}
	from, _ := strconv.Atoi(group(s, m, 1))
	to, _ := strconv.Atoi(group(s, m, 2))
	first := today.AddDate(0, 0, 1-today.Day())
	if from > today.Day() {
		first = first.AddDate(0, -1, 0)
	}
	start, ok1 := makeDate(first.Year(), int(first.Month()), from, today.Location())
	end, ok2 := makeDate(first.Year(), int(first.Month()), to, today.Location())
	if !ok1 || !ok2 || end.Before(start) {
		return time.Time{}, time.Time{}, false
	}
	return start, end, true
}

func lastWord(s string) string {
	if i := strings.LastIndexAny(s, " \t"); i >= 0 {
		return s[i+1:]
	}
	return s
}
