package harness_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/workflow"
)

// decodedBothWays decodes line with harness.DecodeResult and with
// json.Unmarshal, and ReadCases' way with and without the fast path.
type decodedBothWays struct {
	fast, slow          harness.Result
	fastErr, slowErr    error
	cases, casesJSON    harness.Result
	casesErr, casesJErr error
}

func decodeBothWays(line []byte) decodedBothWays {
	var d decodedBothWays
	d.fastErr = harness.DecodeResult(line, &d.fast)
	d.slowErr = json.Unmarshal(line, &d.slow)
	d.cases, d.casesErr = harness.DecodeCaseLine(line)
	d.casesJSON, d.casesJErr = harness.UnmarshalCaseLine(line)
	return d
}

// expectSameAsEncodingJSON checks that both decodings of line give the
// same value, or the same error.
func expectSameAsEncodingJSON(line []byte) {
	GinkgoHelper()
	d := decodeBothWays(line)
	if d.slowErr != nil {
		Expect(d.fastErr).To(MatchError(d.slowErr.Error()), "%s", line)
	} else {
		Expect(d.fastErr).NotTo(HaveOccurred(), "%s", line)
	}
	Expect(d.fast).To(Equal(d.slow), "%s", line)
	if d.casesJErr != nil {
		Expect(d.casesErr).To(MatchError(d.casesJErr.Error()), "%s", line)
	} else {
		Expect(d.casesErr).NotTo(HaveOccurred(), "%s", line)
	}
	Expect(d.cases).To(Equal(d.casesJSON), "%s", line)
}

// expectFastAndSame checks a line routebench would write: the fast path
// reads it whole (no fallback), in both modes, to encoding/json's value.
func expectFastAndSame(line []byte) {
	GinkgoHelper()
	expectSameAsEncodingJSON(line)
	var want harness.Result
	Expect(json.Unmarshal(line, &want)).To(Succeed())
	got, ok := harness.DecodeResultFast(line, false)
	Expect(ok).To(BeTrue(), "fell back to encoding/json on %s", line)
	Expect(got).To(Equal(want))
	_, ok = harness.DecodeResultFast(line, true)
	Expect(ok).To(BeTrue(), "ReadCases fell back to encoding/json on %s", line)
}

func eachLine(path string, fn func(line []byte)) {
	GinkgoHelper()
	f, err := os.Open(path)
	Expect(err).NotTo(HaveOccurred())
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		fn(append(sc.Bytes(), '\n'))
	}
	Expect(sc.Err()).NotTo(HaveOccurred())
}

// everyField is a made-up result with every field of every type a line
// holds set, some to values that need escapes.
func everyField() harness.Result {
	kept, conf, side := 3, 0.5, 1
	calls, retries := []string{"a", "b"}, map[string]int{"n1": 1}
	return harness.Result{
		Version: "v9@0badf00d", Case: "c-<every>-field", CaseHash: "ab12", Suite: harness.SuiteBoundary,
		Tags: []string{"zh", "标签"}, Input: "say \"hi\" & <bye>\n\ttab \u2028 😀 \x01",
		Caller: router.Caller{Scopes: []string{"orders:read"}, Disabled: []string{"refund_order"}},
		Expect: harness.Expect{Action: router.Confirm, Skill: "refund_order", Gate: "batch",
			Params: map[string]harness.ParamMatcher{
				"id":     {Equals: "ORD-1"},
				"n":      {Equals: 2.5},
				"obj":    {Equals: map[string]any{"k": []any{1.0, "x", nil, true}}},
				"choice": {AnyOf: []any{"a", 1e21, -0.000001}, Optional: true},
				"re":     {Regex: `^\d+$`},
				"gone":   {Absent: true},
			},
			Candidates: []string{"x", "y"}, Never: []string{"delete_test_data"},
			Outcome: "completed", StoppedAt: "n1", Reason: "tool_error", ErrorCode: "409",
			Calls: &calls, Retries: &retries, SideEffects: &side, SkillUsed: "x",
			Resume: &harness.ResumeExpect{Outcome: "completed", Skipped: &[]string{}, Calls: &calls}},
		Decision: router.Decision{Action: router.Clarify, Skill: "x", Params: map[string]any{"to": "***", "amount": 12.0, "deep": map[string]any{"a": []any{}}},
			Confidence: 0.1479, Stage: "judge", Gate: "normal",
			Candidates: []router.Candidate{{Skill: "x", Score: 0.9}, {Skill: "y", Score: 1e-7}},
			Errors:     []router.Error{{Category: router.CatParams, Layer: router.LayerSchema, Path: "/to", Rule: "format", Message: "not <an> email"}},
			Message:    "ask", Version: "v9@0badf00d", Model: "fake", LatencyUS: 12,
			Usage: &router.Usage{InputTokens: 10, OutputTokens: 2, CostUSD: 0.0001},
			Trace: []router.TraceStep{
				{Stage: "policy", Kept: &kept, Dropped: []string{"a"}},
				{Stage: "rules", Matched: []string{"refund"}},
				{Stage: "recall", Top: []string{"x", "y"}, Scores: []router.Candidate{{Skill: "x", Score: 0.3}}},
				{Stage: "judge", Provider: "fake", Choice: "x", Confidence: &conf, Attempt: 2, Prompt: "p", Raw: `{"skill":"x"}`,
					Usage: &router.Usage{InputTokens: 1}, Errors: []router.Error{{Category: "schema_error", Message: "m"}}, Note: "clarify at >= 0.55"},
			}},
		Failure: "wrong_band", LatencyUS: 99,
		Workflow: &workflow.Outcome{Format: 1, RunID: "r1", Workflow: "wf", Outcome: workflow.Completed,
			Calls:       []workflow.Call{{Node: "n1", Skill: "x", Params: map[string]any{"a": 1.0}, Attempt: 1, Status: "ok"}},
			Retries:     map[string]int{"n1": 0},
			Checkpoints: workflow.CheckpointLog{Written: []workflow.Checkpoint{{Node: "n1", Time: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)}}}},
		Resume:    &workflow.Outcome{Format: 1, RunID: "r2", Outcome: workflow.Stopped},
		RequestID: "c-<every>-field", ConversationID: "conv-1",
		Masked: map[string]string{"to": "ok"}, Seq: 7,
		Turns: []harness.TurnResult{
			{Input: "first", Expect: harness.Expect{Action: router.Clarify}, Decision: router.Decision{Action: router.Clarify, Params: map[string]any{}}, Pass: true},
			{Input: "", Expect: harness.Expect{Action: router.Refuse}, Decision: router.Decision{Action: router.Execute, Skill: "x"}, Failure: "missed_refusal",
				Masked: map[string]string{"to": "value"}},
		},
		FailedTurn: 2,
	}
}

var _ = Describe("DecodeResult", func() {
	It("reads lines of a real run without encoding/json, to the values encoding/json gives", func() {
		n := 0
		eachLine("testdata/results/sample.jsonl", func(line []byte) { expectFastAndSame(line); n++ })
		Expect(n).To(Equal(4))
		// A whole run, e.g. 10,000 generated cases × 3 versions:
		// ROUTEBENCH_RESULTS=/tmp/cases/out/results.jsonl go test ./harness -run TestHarness
		if path := os.Getenv("ROUTEBENCH_RESULTS"); path != "" {
			eachLine(path, expectFastAndSame)
		}
	})

	It("reads every field routebench writes, escapes, workflow runs and conversation turns included", func() {
		var buf bytes.Buffer
		r := everyField()
		Expect(harness.WriteResults(&buf, []harness.Result{r, {Version: "v", Case: "minimal"}})).To(Succeed())
		lines := bytes.SplitAfter(buf.Bytes(), []byte("\n"))
		for _, line := range lines[:2] {
			expectFastAndSame(line)
		}
		got, _ := harness.DecodeResultFast(lines[0], false)
		r.Format = harness.FormatVersion
		Expect(got).To(Equal(r))
		// ReadCases leaves out the decision, the caller and the runs,
		// and keeps the rest, the turns' own decisions included.
		cases, ok := harness.DecodeResultFast(lines[0], true)
		Expect(ok).To(BeTrue())
		Expect(cases.Decision).To(BeZero())
		Expect(cases.Caller).To(BeZero())
		Expect(cases.Workflow).To(BeNil())
		Expect(cases.Resume).To(BeNil())
		Expect(cases.Turns).To(Equal(r.Turns))
		Expect(cases.Expect).To(Equal(r.Expect))
	})

	DescribeTable("leaves what routebench does not write to encoding/json: same value, same error",
		func(line string, fast bool) {
			expectSameAsEncodingJSON([]byte(line))
			_, ok := harness.DecodeResultFast([]byte(line), false)
			Expect(ok).To(Equal(fast), "fast path finished it")
		},
		Entry("nulls everywhere", `{"format":1,"version":"v","case":"c","tags":null,"caller":null,"expect":null,"decision":{"params":null,"candidates":null,"trace":[null,{"kept":null,"confidence":null}],"usage":null},"pass":null,"workflow":null,"masked":null,"turns":null}`, true),
		Entry("empty lists and objects", `{"format":1,"version":"v","case":"c","tags":[],"caller":{"scopes":[]},"expect":{"params":{},"calls":[],"retries":{}},"decision":{"params":{},"errors":[],"trace":[{}]},"masked":{},"turns":[]}`, true),
		Entry("whitespace between tokens", " {\t\"format\" : 1 ,\r\n \"version\":\"v\" , \"case\" : \"c\" } \n", true),
		Entry("escapes in values and map keys", `{"format":1,"version":"v\u00e9","case":"c\"\\\/\b\f\n\r\t","masked":{"k\u0041":"ok"}}`, true),
		Entry("a repeated key inside params (the later wins)", `{"format":1,"version":"v","case":"c","decision":{"params":{"a":1,"a":"two"}}}`, true),
		Entry("huge integers in params stay float64", `{"format":1,"version":"v","case":"c","decision":{"params":{"n":123456789012345678901234567890}}}`, true),
		Entry("an unknown key", `{"format":1,"version":"v","case":"c","extra":{"x":[1]}}`, false),
		Entry("a key in other case", `{"Format":1,"VERSION":"v","case":"c"}`, false),
		Entry("an escaped key", `{"\u0066ormat":1,"version":"v","case":"c"}`, false),
		Entry("a repeated field", `{"format":1,"version":"v","case":"c","masked":{"a":"ok"},"masked":{"b":"type"}}`, false),
		Entry("a repeated nested field", `{"format":1,"version":"v","case":"c","decision":{"skill":"a","skill":"b"}}`, false),
		Entry("a string where a number goes", `{"format":"1","version":"v","case":"c"}`, false),
		Entry("a fraction for an integer", `{"format":1.0,"version":"v","case":"c"}`, false),
		Entry("an integer too big", `{"format":1,"version":"v","case":"c","seq":99999999999999999999}`, false),
		Entry("a number out of range", `{"format":1,"version":"v","case":"c","decision":{"confidence":1e999}}`, false),
		Entry("a bool as a string", `{"format":1,"version":"v","case":"c","pass":"true"}`, false),
		Entry("an object for a list", `{"format":1,"version":"v","case":"c","tags":{"a":1}}`, false),
		Entry("a surrogate pair", `{"format":1,"version":"v","case":"c","input":"\ud83d\ude00"}`, false),
		Entry("a lone surrogate", `{"format":1,"version":"v","case":"c","input":"\ud83d"}`, false),
		Entry("invalid UTF-8", "{\"format\":1,\"version\":\"v\",\"case\":\"c\",\"input\":\"\xff\xfe\"}", false),
		Entry("a control character in a string", "{\"format\":1,\"version\":\"v\",\"case\":\"c\",\"input\":\"a\tb\"}", false),
		Entry("a bad escape", `{"format":1,"version":"v","case":"c","input":"\q"}`, false),
		Entry("a trailing comma", `{"format":1,"version":"v","case":"c",}`, false),
		Entry("text after the object", `{"format":1,"version":"v","case":"c"} x`, false),
		Entry("two objects", `{"format":1}{"format":1}`, false),
		Entry("a cut-off line", `{"format":1,"version":"v","case":"c","decision":{"skill":"a`, false),
		Entry("not an object", `[1,2]`, false),
		Entry("null, an empty result", `null`, true),
		Entry("nothing", ``, false),
		Entry("a bad workflow run", `{"format":1,"version":"v","case":"c","workflow":{"calls":"x"}}`, false),
		Entry("a bad checkpoint time", `{"format":1,"version":"v","case":"c","workflow":{"checkpoints":{"written":[{"time":"yesterday"}]}}}`, false),
		Entry("a leading zero", `{"format":01,"version":"v","case":"c"}`, false),
	)
})

// expectMarshalsAsEncodingJSON checks that r encodes to json.Marshal's
// bytes, or fails with its error; fast says the encoder needs no
// fallback.
func expectMarshalsAsEncodingJSON(r harness.Result, fast bool) {
	GinkgoHelper()
	want, werr := json.Marshal(&r)
	got, err := harness.MarshalResult(&r)
	if werr != nil {
		Expect(err).To(MatchError(werr.Error()))
	} else {
		Expect(err).NotTo(HaveOccurred())
		Expect(string(got)).To(Equal(string(want)))
	}
	_, ok := harness.MarshalResultFast(&r)
	Expect(ok).To(Equal(fast), "encoded without json.Marshal")
}

var _ = Describe("encoding a result", func() {
	It("writes json.Marshal's bytes for real and made-up results without calling it", func() {
		eachLine("testdata/results/sample.jsonl", func(line []byte) {
			var r harness.Result
			Expect(json.Unmarshal(line, &r)).To(Succeed())
			expectMarshalsAsEncodingJSON(r, true)
			got, _ := harness.MarshalResult(&r)
			Expect(string(got) + "\n").To(Equal(string(line)))
		})
		expectMarshalsAsEncodingJSON(everyField(), true)
		expectMarshalsAsEncodingJSON(harness.Result{}, true)
	})

	withParam := func(v any) harness.Result {
		r := everyField()
		r.Decision.Params = map[string]any{"p": v}
		return r
	}
	cyclic := map[string]any{}
	cyclic["self"] = cyclic
	DescribeTable("leaves other values to json.Marshal: same bytes, same error",
		func(r harness.Result, fast bool) { expectMarshalsAsEncodingJSON(r, fast) },
		Entry("floats at the edges of the plain format", withParam([]any{1e-6, 9.99e-7, 1e21, 999999999999999900000.0, -0.0, 5e-324, 1.7976931348623157e308}), true),
		Entry("a nil map and a nil list inside params", withParam([]any{map[string]any(nil), []any(nil)}), true),
		Entry("strings that need escapes", withParam("<a href=\"x\">&amp;</a> \u2028\u2029 \x00\x1f \xff"), true),
		Entry("an int in params", withParam(3), true),
		Entry("a typed list in params", withParam([]string{"a", "b"}), true),
		Entry("a json.Number in params", withParam(json.Number("12.50")), true),
		Entry("a time in params", withParam(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)), true),
		Entry("NaN", withParam(math.NaN()), false),
		Entry("infinity as a confidence", func() harness.Result { r := everyField(); r.Decision.Confidence = math.Inf(1); return r }(), false),
		Entry("a bad json.Number", withParam(json.Number("twelve")), false),
		Entry("a cycle", withParam(cyclic), false),
	)
})
