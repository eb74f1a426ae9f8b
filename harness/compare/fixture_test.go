package compare_test

import (
	"fmt"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/harness/compare"
	"github.com/routebench/routebench/router"
)

// run is one version's results built by hand, with the indicator terms each
// case should produce: the tests below pin the pairing and statistics, not
// harness.Indicators.
type run struct {
	version string
	results []harness.Result
	terms   map[string]map[string]bool // case id -> metric -> success
}

func newRun(version string) *run {
	return &run{version: version, terms: map[string]map[string]bool{}}
}

// add appends n cases id-000.. with pass and terms, in suite.
func (r *run) add(prefix, suite string, n int, pass bool, terms map[string]bool) *run {
	for i := range n {
		id := fmt.Sprintf("%s-%03d", prefix, i)
		res := harness.Result{
			Format: harness.FormatVersion, Version: r.version, Case: id, CaseHash: "h-" + id,
			Suite: suite, Input: "input of " + id, Pass: pass,
			Expect:   harness.Expect{Action: router.Execute, Skill: "get_order"},
			Decision: router.Decision{Action: router.Execute, Skill: "get_order"},
		}
		if !pass {
			res.Failure = "judge_wrong_skill"
			res.Decision.Skill = "refund_order"
			res.Decision.Action = router.Confirm
		}
		r.results = append(r.results, res)
		r.terms[id] = terms
	}
	return r
}

// indicators serves both runs' terms by version and case.
func indicators(runs ...*run) compare.IndicatorFunc {
	return func(res harness.Result) map[string]bool {
		for _, r := range runs {
			if r.version == res.Version {
				return r.terms[res.Case]
			}
		}
		return nil
	}
}

func ok(metrics ...string) map[string]bool {
	m := map[string]bool{}
	for _, name := range metrics {
		m[name] = true
	}
	return m
}

// with returns m plus metric=value.
func with(m map[string]bool, metric string, value bool) map[string]bool {
	out := map[string]bool{}
	for k, v := range m {
		out[k] = v
	}
	out[metric] = value
	return out
}
