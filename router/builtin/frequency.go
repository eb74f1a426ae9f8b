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
// year: its name or description talks of compounding, a frequency or
// periods ("compounds_perYear", "Number of times interest is
// compounded", "payment frequency").
func countsPeriods(pp *propPlan, desc string) bool {
	words := strings.Join(pp.nameCues, " ") + " " + lowerASCII(desc)
	for _, w := range []string{"compound", "frequency", "periods", "per year", "times a year", "per annum"} {
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
	for i := range p.props {
		pp := &p.props[i]
		if pp.kind != propNumber || !pp.periods {
			continue
		}
		if _, done := out[pp.name]; done {
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

// countsDays reports whether a number property counts days: its name says
// days ("days", "days_ahead") or its description "number of days".
func countsDays(pp *propPlan, desc string) bool {
	// The name's plural: a "day" property is a day of the month.
	return strings.Contains(lowerASCII(pp.name), "days") || strings.Contains(lowerASCII(desc), "number of days")
}

// spanRe finds a stretch of time said in weeks, months or years: "the
// next week", "past 2 months", "3 weeks".
var spanRe = memoCompile(`\b(?:(?:next|past|last|coming|upcoming|previous|following)\s+(?:(\d{1,3})\s+)?|(\d{1,3})\s+)(weeks?|fortnights?|months?|years?)\b`)

// daysIn is how many days a week, fortnight, month and year count for:
// a month is 30, as a "days" parameter is read.
var daysIn = map[string]int{"week": 7, "fortnight": 14, "month": 30, "year": 365}

// assignDaySpans gives "the next week" (7), "the upcoming month" (30) or
// "past 2 weeks" (14) to a property that counts days, before numbers are
// paired, so that it does not take a stray number instead.
func assignDaySpans(p *extractPlan, lower string, taken *spans, out map[string]any) {
	if !strings.Contains(lower, "week") && !strings.Contains(lower, "month") && !strings.Contains(lower, "year") && !strings.Contains(lower, "fortnight") {
		return
	}
	for i := range p.props {
		pp := &p.props[i]
		if pp.kind != propNumber || !pp.days {
			continue
		}
		if _, done := out[pp.name]; done {
			continue
		}
		for _, m := range spanRe.allSubmatchIndex(lower) {
			if taken.overlaps(m[0], m[1]) {
				continue
			}
			n := 1
			for _, g := range []int{2, 4} {
				if m[g] >= 0 {
					n, _ = strconv.Atoi(lower[m[g]:m[g+1]])
				}
			}
			days := n * daysIn[strings.TrimSuffix(lower[m[6]:m[7]], "s")]
			if pp.integer {
				out[pp.name] = days
			} else {
				out[pp.name] = float64(days)
			}
			taken.add(m[0], m[1])
			break
		}
	}
}
