package builtin

import (
	"strings"
	"time"

	"github.com/routebench/routebench/router/registry"
)

// nameStems are the words of a skill's name that say what it does, cut to
// five letters so "calculates" meets "calculate": function words and
// one-letter parts aside.
func nameStems(name string) []string {
	var out []string
	for _, w := range nameParts(name) {
		if len(w) < 2 || background[hashWord(w)] {
			continue
		}
		if len(w) > 5 {
			w = w[:5]
		}
		out = append(out, w)
	}
	return out
}

// nameCover is the share of stems that start a word of lower (1 for a
// name of no such words).
func nameCover(stems []string, lower string) float64 {
	if len(stems) == 0 {
		return 1
	}
	n := 0
	for _, st := range stems {
		found := false
		cueAtMode(lower, st, false, func(int) { found = true })
		if found {
			n++
		}
	}
	return float64(n) / float64(len(stems))
}

// paramCover is the share of the skill's required params that params
// holds (1 when none is required).
func paramCover(s *registry.Skill, params map[string]any) float64 {
	req := s.Required()
	if len(req) == 0 {
		return 1
	}
	n := 0
	for _, r := range req {
		if _, ok := params[r]; ok {
			n++
		}
	}
	return float64(n) / float64(len(req))
}

// coverage reads both covers of skill s for a request; params are the
// skill's params extracted from it (nil when it requires none).
func (f *fitted) coverage(s int, text, lower string, dates []dateSpan) (name, param float64, params map[string]any) {
	name = nameCover(f.stems[s], lower)
	sk := f.skills[s]
	if len(sk.Required()) == 0 {
		return name, 1, nil
	}
	params = extractDated(planFor(sk), text, lower, dates, f.known)
	return name, paramCover(sk, params), params
}

// heldOutCoverage is coverage for a registry text routed in calibration,
// its dates read against a fixed day.
func (f *fitted) heldOutCoverage(s int, text string) (float64, float64) {
	lower := lowerASCII(text)
	var dates []dateSpan
	if len(f.skills[s].Required()) > 0 {
		dates = findDates(lower, dateProbe)
	}
	n, p, _ := f.coverage(s, text, lower, dates)
	return n, p
}

var _ = strings.Contains
var _ = time.Now
