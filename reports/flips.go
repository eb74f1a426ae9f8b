package reports

import (
	"sort"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/harness/compare"
)

// flip is a case whose pass/fail changed between two versions.
type flip struct {
	Case, Suite string
	// Input is the case's whole text; Shown is it cut for the page. Each
	// output cuts it once, so its note gives the whole length.
	Input, Shown string
	// Failures under base and head ("" where the case passed).
	BaseFailure, HeadFailure string
}

// flipSet is the cases whose outcome changed from base to head: how
// many each way, and the first of them in order, as many as a report
// lists.
type flipSet struct {
	Base, Head      string
	FixedN, BrokenN int
	Fixed           []flip
	Broken          []flip
	// Paired is true when the flips come from a paired comparison, false
	// when they were read off the results by case ID.
	Paired   bool
	Warnings []string
}

// flipSets pairs every later version with the first: from the given
// comparison when there is one, else by case ID from the results. Each
// set lists up to shown flips each way (a report lists no more, and a
// large run flips thousands of cases).
func (in *Input) flipSets(versions []string, d *digest, shown int) []flipSet {
	if len(versions) < 2 {
		return nil
	}
	var sets []flipSet
	base := versions[0]
	for _, head := range versions[1:] {
		c := in.comparison(base, head)
		if c == nil {
			sets = append(sets, flipsFromResults(base, head, d.version(base).flips, d.version(head).flips, shown))
			continue
		}
		// A comparison keeps its inputs already cut; the results have
		// them whole (the digest kept those of the flipped cases).
		s := flipSet{Base: base, Head: head, Paired: true, FixedN: len(c.Fixed), BrokenN: len(c.Broken)}
		for _, f := range firstFlips(c.Fixed, shown) {
			s.Fixed = append(s.Fixed, fromCompare(f, head, d.flipInputs))
		}
		for _, f := range firstFlips(c.Broken, shown) {
			s.Broken = append(s.Broken, fromCompare(f, head, d.flipInputs))
		}
		for _, w := range c.Warnings {
			s.Warnings = append(s.Warnings, w.Message)
		}
		sets = append(sets, s)
	}
	return sets
}

// firstFlips is the first n of flips, in the comparison's order.
func firstFlips(flips []compare.Flip, n int) []compare.Flip { return flips[:min(len(flips), n)] }

func fromCompare(f compare.Flip, head string, inputs map[[2]string]string) flip {
	input, ok := inputs[[2]string{head, f.Case}]
	if !ok {
		input = f.Input
	}
	return newFlip(f.Case, f.Suite, input, f.Base.Failure, f.Head.Failure)
}

func newFlip(id, suite, input, baseFailure, headFailure string) flip {
	return flip{Case: id, Suite: suite, Input: input, Shown: truncateRunes(input, compare.InputLimit),
		BaseFailure: baseFailure, HeadFailure: headFailure}
}

// flipsFromResults pairs two versions' results by case ID, for reports
// made without a comparison, and keeps the first shown each way.
func flipsFromResults(base, head string, baseResults, headResults []flipTerms, shown int) flipSet {
	s := flipSet{Base: base, Head: head}
	before := make(map[string]*flipTerms, len(baseResults))
	for i := range baseResults {
		before[baseResults[i].id] = &baseResults[i]
	}
	for i := range headResults {
		r := &headResults[i]
		b, ok := before[r.id]
		if !ok || b.pass == r.pass {
			continue
		}
		f := newFlip(r.id, r.suite, r.input, b.failure, r.failure)
		if r.pass {
			s.Fixed = append(s.Fixed, f)
		} else {
			s.Broken = append(s.Broken, f)
		}
	}
	sortFlips(s.Fixed)
	sortFlips(s.Broken)
	s.FixedN, s.BrokenN = len(s.Fixed), len(s.Broken)
	s.Fixed, s.Broken = s.Fixed[:min(len(s.Fixed), shown)], s.Broken[:min(len(s.Broken), shown)]
	return s
}

// sortFlips orders flips as compare does: adversarial first, then
// boundary, normal, other suites, then by case ID.
func sortFlips(flips []flip) {
	rank := map[string]int{harness.SuiteAdversarial: 0, harness.SuiteBoundary: 1, harness.SuiteNormal: 2}
	r := func(s string) int {
		if v, ok := rank[s]; ok {
			return v
		}
		return 3
	}
	sort.SliceStable(flips, func(i, j int) bool {
		a, b := flips[i], flips[j]
		if r(a.Suite) != r(b.Suite) {
			return r(a.Suite) < r(b.Suite)
		}
		if a.Suite != b.Suite {
			return a.Suite < b.Suite
		}
		return a.Case < b.Case
	})
}
