package builtin

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A string property holds a date or a time of day when its schema says
// so: format date, date-time or time, a name such as "birth_date" or
// "check_in", or a description that writes the format ("YYYY-MM-DD",
// "in the format MM/DD/YYYY", an example such as '2024-03-15'). The value
// is written the way the description asks; ISO 8601 when it does not say.

// dateLayoutRe finds a written date format in a description.
var dateLayoutRe = regexp.MustCompile(`(?i)\b(YYYY|MM|DD|YY)([-/. ])(MM|DD|YYYY|YY)([-/. ])(YYYY|MM|DD|YY)\b|%[Yymd][-/. ]%[Yymd][-/. ]%[Yymd]`)

// exampleDateRe finds an example date in a description: '2022-04-28',
// "04/28/2022".
var exampleDateRe = regexp.MustCompile(`\b(\d{4})([-/.])(\d{2})([-/.])(\d{2})\b|\b(\d{2})([-/.])(\d{2})([-/.])(\d{4})\b`)

// timeLayoutRe finds a written time format: HH:MM, HH:MM:SS, hh:mm a.
var timeLayoutRe = regexp.MustCompile(`(?i)\b(hh|h):mm(:ss)?(\s*(?:am/pm|a|pm|am))?`)

// wordLayoutRe finds a date format written in words: "(month-day-year)",
// "in day/month/year format".
var wordLayoutRe = regexp.MustCompile(`(?i)\b(year|month|day)([-/. ])(year|month|day)([-/. ])(year|month|day)\b`)

// dateLayoutOf is the Go layout of the dates a description asks for, or
// "" when it names none.
func dateLayoutOf(desc string) string {
	if m := wordLayoutRe.FindStringSubmatch(desc); m != nil {
		part := map[string]string{"year": "2006", "month": "01", "day": "02"}
		return part[strings.ToLower(m[1])] + m[2] + part[strings.ToLower(m[3])] + m[4] + part[strings.ToLower(m[5])]
	}
	if m := dateLayoutRe.FindString(desc); m != "" {
		r := strings.NewReplacer("%Y", "2006", "%y", "06", "%m", "01", "%d", "02")
		if strings.Contains(m, "%") {
			return r.Replace(m)
		}
		u := strings.ToUpper(m)
		return strings.NewReplacer("YYYY", "2006", "YY", "06", "MM", "01", "DD", "02").Replace(u)
	}
	if m := exampleDateRe.FindStringSubmatch(desc); m != nil {
		if m[1] != "" {
			return "2006" + m[2] + "01" + m[4] + "02"
		}
		// dd/mm or mm/dd: the day is the part above 12; US order if neither is.
		a, _ := strconv.Atoi(m[6])
		if a > 12 {
			return "02" + m[7] + "01" + m[9] + "2006"
		}
		return "01" + m[7] + "02" + m[9] + "2006"
	}
	return ""
}

// timeLayoutOf is the Go layout of the times a description asks for.
func timeLayoutOf(desc string) string {
	m := timeLayoutRe.FindStringSubmatch(desc)
	if m == nil {
		return "15:04"
	}
	layout := "15:04"
	if strings.EqualFold(m[1], "hh") && m[3] != "" || strings.EqualFold(m[1], "h") {
		layout = "03:04"
		if m[1] == "h" {
			layout = "3:04"
		}
	}
	if m[2] != "" {
		layout += ":05"
	}
	if m[3] != "" {
		layout += " PM"
	}
	return layout
}

// dateNameWords in a string property's name make it a date.
var dateNameWords = []string{"date", "day", "birthday", "birthdate", "dob", "deadline", "checkin", "checkout"}

// timeNameWords make it a time of day.
var timeNameWords = []string{"time", "hour", "clock"}

// dateKindOf says whether a string property holds a date, a date and a
// time, or a time of day, and how to write it.
func dateKindOf(schema map[string]any, parts []string, desc string) (kind propKind, layout string, ok bool) {
	format, _ := schema["format"].(string)
	d := lowerASCII(desc)
	describedDate := dateLayoutOf(desc)
	switch format {
	case "date":
		return propDate, orDefault(describedDate, "2006-01-02"), true
	case "date-time":
		return propDateTime, "2006-01-02T15:04:05", true
	case "time":
		return propTime, timeLayoutOf(desc), true
	}
	descWords := strings.FieldsFunc(d, func(r rune) bool { return !(r >= 'a' && r <= 'z') })
	isDate := describedDate != "" || slices.ContainsFunc(parts, func(p string) bool { return slices.Contains(dateNameWords, p) }) ||
		slices.Contains(descWords, "date") && !slices.Contains(descWords, "range")
	isTime := slices.ContainsFunc(parts, func(p string) bool { return slices.Contains(timeNameWords, p) }) ||
		timeLayoutRe.MatchString(desc)
	// "time" also names durations ("time in seconds", "travel time"): a
	// string described in units of time is not a clock reading.
	if isTime && !timeLayoutRe.MatchString(desc) && slices.ContainsFunc([]string{"second", "minute", "duration", "how long", "zone", "period", "elapsed"},
		func(w string) bool { return strings.Contains(d, w) }) {
		isTime = false
	}
	switch {
	case isDate && isTime:
		return propDateTime, orDefault(describedDate, "2006-01-02") + " 15:04", true
	case isDate:
		if strings.Contains(d, "year") && !strings.Contains(d, "month") && !strings.Contains(d, "day") && describedDate == "" {
			return 0, "", false // a year alone is a year, not a date
		}
		return propDate, orDefault(describedDate, "2006-01-02"), true
	case isTime:
		return propTime, timeLayoutOf(desc), true
	}
	return 0, "", false
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// clockRe finds a time of day: "15:30", "3:30 pm", "3pm", "noon".
var clockRe = memoCompile(`(?i)\b(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*(a\.?m\.?|p\.?m\.?)(?:\W|$)|\b(\d{1,2}):(\d{2})(?::(\d{2}))?\b|\b(noon|midnight)\b`)

// clockTimes lists the times of day written in text.
type clockMention struct {
	span
	hour, minute, second int
}

func findClockTimes(text string, taken *spans) []clockMention {
	var out []clockMention
	for _, m := range clockRe.allSubmatchIndex(text) {
		from, to := m[0], m[1]
		g := func(k int) string {
			if m[2*k] < 0 {
				return ""
			}
			return text[m[2*k]:m[2*k+1]]
		}
		var c clockMention
		switch {
		case g(8) != "":
			c.hour = 12
			if strings.EqualFold(g(8), "midnight") {
				c.hour = 0
			}
		case g(4) != "":
			c.hour, _ = strconv.Atoi(g(1))
			c.minute, _ = strconv.Atoi(g(2))
			c.second, _ = strconv.Atoi(g(3))
			pm := strings.HasPrefix(strings.ToLower(g(4)), "p")
			if c.hour > 12 {
				continue
			}
			if pm && c.hour < 12 {
				c.hour += 12
			}
			if !pm && c.hour == 12 {
				c.hour = 0
			}
			to = m[9]
		default:
			c.hour, _ = strconv.Atoi(g(5))
			c.minute, _ = strconv.Atoi(g(6))
			c.second, _ = strconv.Atoi(g(7))
		}
		if c.hour > 23 || c.minute > 59 || c.second > 59 || taken.overlaps(from, to) {
			continue
		}
		c.span = span{from, to}
		out = append(out, c)
	}
	return out
}

// assignDateTimes fills string properties that hold a date, a date and
// time, or a time of day, in their own layouts. Dates come from the same
// date spans as format: date properties; a start/end pair takes a
// range's ends.
func assignDateTimes(p *extractPlan, text string, ds []dateSpan, taken *spans, out map[string]any) {
	var clocks []clockMention
	for i := range p.props {
		if k := p.props[i].kind; k == propTime || k == propDateTime {
			clocks = findClockTimes(text, taken)
			break
		}
	}
	nextClock := 0
	for i := range p.props {
		pp := &p.props[i]
		if _, done := out[pp.name]; done {
			continue
		}
		switch pp.kind {
		case propTime:
			if nextClock < len(clocks) {
				c := clocks[nextClock]
				nextClock++
				out[pp.name] = time.Date(2000, 1, 1, c.hour, c.minute, c.second, 0, time.UTC).Format(pp.layout)
				taken.add(c.from, c.to)
			}
		case propDateTime:
			day, ok := dateFor(pp, ds)
			if !ok {
				continue
			}
			if nextClock < len(clocks) {
				c := clocks[nextClock]
				nextClock++
				day = day.Add(time.Duration(c.hour)*time.Hour + time.Duration(c.minute)*time.Minute + time.Duration(c.second)*time.Second)
				taken.add(c.from, c.to)
				out[pp.name] = day.Format(pp.layout)
			} else {
				out[pp.name] = day.Format(strings.TrimSuffix(strings.TrimSuffix(pp.layout, " 15:04"), "T15:04:05"))
			}
		}
	}
}

// dateFor is the day a date property takes from the request's dates: a
// range's start or end by the property's role, else the first date.
func dateFor(pp *propPlan, ds []dateSpan) (time.Time, bool) {
	if len(ds) == 0 {
		return time.Time{}, false
	}
	start, end := ds[0].start, ds[0].end
	if len(ds) >= 2 {
		end = ds[1].end
	}
	if pp.date == dateEnd {
		return end, true
	}
	return start, true
}
