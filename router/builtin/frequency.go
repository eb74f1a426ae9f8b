package builtin

import "strings"

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
