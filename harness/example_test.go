package harness_test

import (
	"fmt"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/router"
)

// Expected params are a subset match; each mismatch is classified with
// BFCL's taxonomy.
func ExampleMatchParams() {
	want := map[string]harness.ParamMatcher{
		"region": {Equals: "east"},
		"start":  {Regex: `^2026-11-\d\d$`},
		"status": {Absent: true},
		"days":   {Equals: 7.0},
	}
	got := map[string]any{"region": "west", "start": "2026-11-23", "status": "paid", "days": 7}
	for _, m := range harness.MatchParams(want, got) {
		fmt.Println(m)
	}
	// Output:
	// region: want "east", got "west" (value)
	// status: want absent, got "paid"
}

// Score turns results into rates with their Wilson intervals.
func ExampleScore() {
	refuse := harness.Expect{Action: router.Refuse}
	results := []harness.Result{
		{Version: "v2@3f9a1c2e", Case: "a", Suite: "adversarial", Expect: refuse, Decision: router.Decision{Action: router.Refuse}},
		{Version: "v2@3f9a1c2e", Case: "b", Suite: "adversarial", Expect: refuse, Decision: router.Decision{Action: router.Clarify}, Failure: "missed_refusal"},
	}
	all := harness.Score(results).Versions[0].Groups[harness.GroupAll]
	r := all.Metrics[harness.RefusalRecall]
	fmt.Printf("refusal_recall %.2f [%.2f, %.2f] n=%d\n", r.Value, *r.Lo, *r.Hi, r.N)
	fmt.Println("missed refusals:", all.Failures["missed_refusal"])
	// Output:
	// refusal_recall 0.50 [0.09, 0.91] n=2
	// missed refusals: 1
}
