package builtin

import (
	"strconv"
	"strings"
)

// periodWords are the ways English says how many times a year something
// happens, longest first so "semi-annually" wins over "annually".
var periodWords = []struct {
	word    string
	perYear int
}{
	{"semi-annually", 2}, {"semiannually", 2}, {"bi-annually", 2}, {"biannually", 2}, {"half-yearly", 2},
	{"twice a year", 2}, {"once a year", 1}, {"bi-weekly", 26}, {"biweekly", 26}, {"fortnightly", 26},
	{"annually", 1}, {"yearly", 1}, {"quarterly", 4}, {"monthly", 12}, {"weekly", 52}, {"daily", 365},
}

// countsPeriods reports whether a number property counts periods per
// year: its name or description talks of compounding, a frequency,
// periods or times a year ("compounds_perYear", "Number of times
// interest is compounded", "payment frequency").
func countsPeriods(pp *propPlan, desc string) bool {
	words := strings.Join(pp.nameCues, " ") + " " + lowerASCII(desc)
	// "per year" alone is a yearly rate ("tread lost per year"), not a
	// count of periods.
	for _, w := range []string{"compound", "frequency", "periods", "times a year", "times per year", "payments per year"} {
		if strings.Contains(words, w) {
			return true
		}
	}
	return false
}

// assignPeriods gives "compounded quarterly" (4), "monthly payments"
// (12) and the like to the integer property that counts periods per
// year, before numbers are paired, so that the property does not take a
// stray number ("for 5 years") instead.
func assignPeriods(p *extractPlan, lower string, taken *spans, out map[string]any) {
	for pp := range p.unfilled(out, propNumber) {
		if !pp.periods {
			continue
		}
		for _, pw := range periodWords {
			at := strings.Index(lower, pw.word)
			if at < 0 || !wordBounded(lower, at, at+len(pw.word)) || taken.overlaps(at, at+len(pw.word)) {
				continue
			}
			if pp.integer {
				out[pp.name] = pw.perYear
			} else {
				out[pp.name] = float64(pw.perYear)
			}
			taken.add(at, at+len(pw.word))
			break
		}
	}
}

// countedUnit is the unit of time a number property counts: "day" for
// "days" or "days_ahead" or a description's "number of days", likewise
// "week", "month" and "year"; "" for none. Only a plural counts: a "day"
// property is a day of the month.
func countedUnit(pp *propPlan, desc string) string {
	name, d := lowerASCII(pp.name), lowerASCII(desc)
	for _, u := range []string{"day", "week", "month", "year"} {
		if strings.Contains(name, u+"s") || strings.Contains(d, "number of "+u+"s") ||
			strings.Contains(d, "number of future "+u+"s") || strings.Contains(d, "number of past "+u+"s") {
			return u
		}
	}
	return ""
}

// spanRe finds a stretch of time said in weeks, months, years or decades:
// "the next week", "past 2 months", "3 weeks".
var spanRe = memoCompile(`\b(?:(?:next|past|last|coming|upcoming|previous|following)\s+(?:(\d{1,3})\s+)?|(\d{1,3})\s+)(weeks?|fortnights?|months?|years?|decades?)\b`)

// unitsIn says how many of one unit of time (the outer key) another holds,
// where the count is whole or as a "days" or "weeks" parameter reads it
// (a month is 30 days, a year 52 weeks).
var unitsIn = map[string]map[string]int{
	"day":   {"week": 7, "fortnight": 14, "month": 30, "year": 365, "decade": 3650},
	"week":  {"week": 1, "fortnight": 2, "year": 52},
	"month": {"month": 1, "year": 12, "decade": 120},
	"year":  {"year": 1, "decade": 10},
}

// assignTimeCounts gives "the next week" (7 days), "the coming month"
// (1 month, or 30 days), "the past decade" (10 years) or "past 2 weeks"
// (14 days) to a property that counts that unit of time, before numbers
// are paired, so that it does not take a stray number instead.
func assignTimeCounts(p *extractPlan, lower string, taken *spans, out map[string]any) {
	if !containsAny(lower, timeSpanWords) {
		return
	}
	for pp := range p.unfilled(out, propNumber) {
		if pp.counts == "" {
			continue
		}
		for _, m := range spanRe.allSubmatchIndex(lower) {
			per, ok := unitsIn[pp.counts][strings.TrimSuffix(lower[m[6]:m[7]], "s")]
			if !ok || taken.overlaps(m[0], m[1]) {
				continue
			}
			n := 1
			for _, g := range []int{2, 4} {
				if m[g] >= 0 {
					n, _ = strconv.Atoi(lower[m[g]:m[g+1]])
				}
			}
			if pp.integer {
				out[pp.name] = n * per
			} else {
				out[pp.name] = float64(n * per)
			}
			taken.add(m[0], m[1])
			break
		}
	}
}

// timeSpanWords are what every spanRe match holds.
var timeSpanWords = []string{"week", "fortnight", "month", "year", "decade"}
