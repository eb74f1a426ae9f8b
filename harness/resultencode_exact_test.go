package harness

import (
	"reflect"
	"testing"

	"github.com/routebench/routebench/router"
)

// appendResult's exact must mean DecodeResult(line) equals the result
// (its traces as readBackTrace gives them): a live-scored run is scored on
// the very result only then. Made-up results with every awkward value the
// encoder must notice (empty against nil lists, escapes, bad UTF-8, turns).
func TestExactResultsReadBack(t *testing.T) {
	kept := 3
	conf := 0.5
	empty := []string{}
	emptyMap := map[string]int{}
	base := func() Result {
		return Result{Format: 3, Version: "v1@x", Case: "c1", CaseHash: "h", Suite: "normal", Tags: []string{"a"}, Input: "in",
			Decision: router.Decision{Action: "execute", Skill: "s", Params: map[string]any{"a": "b"}, Confidence: 0.5,
				Trace: []router.TraceStep{{Stage: "recall", Kept: &kept, Confidence: &conf}}}}
	}
	cases := map[string]func(r *Result){
		"empty tags":           func(r *Result) { r.Tags = []string{} },
		"nil tags":             func(r *Result) { r.Tags = nil },
		"empty params":         func(r *Result) { r.Decision.Params = map[string]any{} },
		"nil params":           func(r *Result) { r.Decision.Params = nil },
		"empty nested map":     func(r *Result) { r.Decision.Params = map[string]any{"m": map[string]any{}} },
		"empty nested list":    func(r *Result) { r.Decision.Params = map[string]any{"l": []any{}} },
		"nested nil in list":   func(r *Result) { r.Decision.Params = map[string]any{"l": []any{nil, "x", 1.5, true}} },
		"empty candidates":     func(r *Result) { r.Decision.Candidates = []router.Candidate{} },
		"empty errors":         func(r *Result) { r.Decision.Errors = []router.Error{} },
		"empty trace":          func(r *Result) { r.Decision.Trace = []router.TraceStep{} },
		"nil trace":            func(r *Result) { r.Decision.Trace = nil },
		"calls empty":          func(r *Result) { r.Expect.Calls = &empty },
		"retries empty":        func(r *Result) { r.Expect.Retries = &emptyMap },
		"resume expect":        func(r *Result) { r.Expect.Resume = &ResumeExpect{} },
		"resume expect empty":  func(r *Result) { r.Expect.Resume = &ResumeExpect{Skipped: &empty} },
		"matcher equals empty": func(r *Result) { r.Expect.Params = map[string]ParamMatcher{"p": {Equals: ""}} },
		"matcher equals list":  func(r *Result) { r.Expect.Params = map[string]ParamMatcher{"p": {Equals: []any{}}} },
		"matcher equals map":   func(r *Result) { r.Expect.Params = map[string]ParamMatcher{"p": {Equals: map[string]any{}}} },
		"matcher empty":        func(r *Result) { r.Expect.Params = map[string]ParamMatcher{"p": {}} },
		"matcher anyof":        func(r *Result) { r.Expect.Params = map[string]ParamMatcher{"p": {AnyOf: []any{"x", nil}}} },
		"string escapes":       func(r *Result) { r.Input = "a\"b\\c\n\u2028\x01<>&" },
		"string bad utf8":      func(r *Result) { r.Input = "a\xffb" },
		"string bad utf8 key":  func(r *Result) { r.Decision.Params = map[string]any{"\xff": "x"} },
		"string nul":           func(r *Result) { r.Input = "a\x00" },
		"negative zero":        func(r *Result) { r.Decision.Confidence = -0.0 * -1 },
		"big float":            func(r *Result) { r.Decision.Params = map[string]any{"f": 1e300} },
		"empty masked":         func(r *Result) { r.Masked = map[string]string{} },
		"empty turns":          func(r *Result) { r.Turns = []TurnResult{} },
		"turn": func(r *Result) {
			r.Turns = []TurnResult{{Input: "x", Decision: router.Decision{Params: map[string]any{}}}}
		},
		"turn empty trace lists": func(r *Result) {
			r.Turns = []TurnResult{{Input: "x", Decision: router.Decision{Trace: []router.TraceStep{{Dropped: []string{}}}}}}
		},
		"scopes empty":      func(r *Result) { r.Caller.Scopes = []string{} },
		"usage":             func(r *Result) { r.Decision.Usage = &router.Usage{} },
		"step errors empty": func(r *Result) { r.Decision.Trace = []router.TraceStep{{Errors: []router.Error{}}} },
		"step scores":       func(r *Result) { r.Decision.Trace = []router.TraceStep{{Scores: []router.Candidate{{Skill: "x"}}}} },
		"tags dup":          func(r *Result) { r.Tags = []string{"a", "a"} },
		"version weird":     func(r *Result) { r.Version = ""; r.Suite = ""; r.Failure = "" },
		"case empty":        func(r *Result) { r.Case = "" },
		"request id":        func(r *Result) { r.RequestID = "c1"; r.ConversationID = "c1" },
		"long string":       func(r *Result) { r.Input = string(make([]byte, 70000)) },
		"many tags":         func(r *Result) { r.Tags = make([]string, 300) },
	}
	for name, mod := range cases {
		r := base()
		mod(&r)
		b, exact, err := appendResult(nil, &r)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		var got Result
		if err := DecodeResult(b, &got); err != nil {
			t.Errorf("%s: decode: %v", name, err)
			continue
		}
		want := r
		want.Decision.Trace = readBackTrace(r.Decision.Trace)
		if len(r.Turns) > 0 {
			want.Turns = append([]TurnResult(nil), r.Turns...)
			for k := range want.Turns {
				want.Turns[k].Decision.Trace = readBackTrace(want.Turns[k].Decision.Trace)
			}
		}
		same := reflect.DeepEqual(got, want)
		t.Logf("%-22s exact=%v same=%v", name, exact, same)
		if exact && !same {
			t.Errorf("%s: exact but reads back %#v\nwant %#v\nline %s", name, got, want, b)
		}
	}
}
