package reports_test

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/reports"
	"github.com/routebench/routebench/router"
)

var _ = Describe("the case data writer", func() {
	It("writes exactly what json.Marshal writes for a realistic run", func() {
		results := syntheticRun(500, 3)
		// Hostile and unusual text in every string-carrying place.
		nasty := "</script><b>&amp;\u2028\u2029\x00\x1f\t\n\"\\ \xff\xfe 华东 😀"
		results[0].Input = nasty
		results[1].Decision.Message = nasty
		results[2].Decision.Errors = []router.Error{{Category: router.CatParams, Layer: router.LayerRule, Path: "/start", Rule: nasty, Message: nasty}}
		results[3].Decision.Trace[3].Raw = nasty
		results[3].Pass = false
		results[4].Expect.Params = map[string]harness.ParamMatcher{"a": {Equals: nasty}, "b": {AnyOf: []any{1, 2.5, "x"}},
			"c": {Regex: "^<x>$"}, "d": {Absent: true}, "e": {Equals: map[string]any{"z": 1e-7, "y": []any{true, nil}}}}
		// A value only encoding/json writes (an int64) sends the whole
		// map through it.
		results[10].Expect.Params = map[string]harness.ParamMatcher{"n": {Equals: int64(7)}, "m": {AnyOf: []any{"<a>"}}}
		results[5].Decision.Params = map[string]any{"amount": 1e21, "note": nasty}
		results[11].Decision.Params = map[string]any{"limit": int64(3), "note": "x"}
		results[6].Decision.Confidence = 1e-9
		results[7].Decision.Candidates = nil
		results[8].Tags = nil
		// Trace steps of every shape: errors with and without a
		// confidence, top skills without scores, scores with a
		// confidence, and words alone.
		conf := 0.81234
		results[9].Decision.Trace = append(results[9].Decision.Trace,
			router.TraceStep{Stage: "validate", Errors: []router.Error{{Category: router.CatParams, Message: nasty}}},
			router.TraceStep{Stage: "judge", Confidence: &conf, Errors: []router.Error{{Category: "judge", Message: "bad json"}}, Note: nasty},
			router.TraceStep{Stage: "recall", Top: []string{"get_order", nasty}},
			router.TraceStep{Stage: "recall", Scores: []router.Candidate{{Skill: "get_order", Score: 0.33333}, {Skill: nasty, Score: 1e-9}}, Confidence: &conf},
			router.TraceStep{Stage: "rules", Matched: []string{nasty}})
		versions := []string{results[0].Version}
		for _, r := range results {
			if r.Version != versions[len(versions)-1] {
				versions = append(versions, r.Version)
			}
		}
		own, reference, err := reports.CaseDataForTest(versions, results)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(own)).To(Equal(string(reference)))
	})

	It("writes the same rows from the views kept while collecting, however a case's results are laid out", func() {
		// CaseDataForTest fails when the rows written from views differ
		// from the writer's; these are the layouts where a view's parts
		// meet: a version without the case, a repeated result, a changed
		// input, a result with nothing decided, a conversation beside a
		// single request, a version the list does not name, and results
		// that do not come version by version.
		results := syntheticRun(40, 3)
		v1, v2, v3 := results[0].Version, results[40].Version, results[80].Version
		results[45].Input = "the same case, other text in this version"
		results[90].Input = results[10].Input + " (changed)"
		repeated := results[50]
		repeated.Decision.Skill, repeated.Pass, repeated.Failure = "another_skill", false, harness.FailureCategories[0]
		results = append(results, repeated)
		results[51] = harness.Result{Format: 1, Version: v2, Case: results[11].Case, Suite: "boundary", Input: "x"}
		results[95] = harness.Result{Format: 1, Version: v3, Case: results[15].Case, Suite: results[15].Suite, Input: results[15].Input}
		conv := convResult(v3)
		conv.Case = results[12].Case
		results = append(results, conv, convResult(v1), convResult(v2))
		stray := results[13]
		stray.Version = "v9@00000009"
		results = append(results, stray)
		results = slices.Delete(results, 20, 22) // v1 without two cases
		rng := rand.New(rand.NewPCG(7, 8))
		rng.Shuffle(len(results), func(i, j int) { results[i], results[j] = results[j], results[i] })
		for _, versions := range [][]string{{v1, v2, v3}, {v3, v1, v2}} {
			own, reference, err := reports.CaseDataForTest(versions, results)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(own)).To(Equal(string(reference)))
			Expect(string(own)).To(ContainSubstring(`"df":1`))
			Expect(string(own)).To(ContainSubstring(`"in":"the same case, other text in this version"`))
			Expect(string(own)).To(MatchRegexp(`[\[,]\{"sv":\d\}`), "a result with nothing decided")
		}
	})

	It("writes null for no cases, as json.Marshal does", func() {
		own, reference, err := reports.CaseDataForTest(nil, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(own)).To(Equal(string(reference)))
		Expect(string(own)).To(ContainSubstring(`"c":null`))
	})

	It("escapes strings as json.Marshal does, byte for byte", func() {
		rng := rand.New(rand.NewPCG(3, 4))
		alphabet := []string{"a", "Z", "<", ">", "&", "\"", "\\", "/", "\x00", "\x07", "\b", "\f", "\n", "\r", "\t", "\x1f", "\x7f",
			"\u2028", "\u2029", "é", "华", "😀", "\xff", "\xc3", "\xe2\x80", "\ufffd", " "}
		for range 3000 {
			var b strings.Builder
			for range rng.IntN(12) {
				b.WriteString(alphabet[rng.IntN(len(alphabet))])
			}
			s := b.String()
			want, err := json.Marshal(s)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(reports.JSONStringForTest(s))).To(Equal(string(want)), "%q", s)
		}
	})

	It("formats floats as json.Marshal does and refuses NaN and infinities", func() {
		rng := rand.New(rand.NewPCG(5, 6))
		values := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 0.001, 1e-6, 9.99e-7, 1e-7, 1e-10, 1e20, 1e21, 123456789012345678901234.0,
			0.1 + 0.2, 1.0 / 3, -2.5e-8, math.MaxFloat64, math.SmallestNonzeroFloat64}
		for range 2000 {
			values = append(values, math.Float64frombits(rng.Uint64()), rng.Float64(), math.Round(rng.Float64()*1000)/1000)
		}
		for _, x := range values {
			got, err := reports.JSONFloatForTest(x)
			want, wantErr := json.Marshal(x)
			if wantErr != nil {
				Expect(err).To(HaveOccurred(), "%v", x)
				continue
			}
			Expect(err).NotTo(HaveOccurred())
			Expect(string(got)).To(Equal(string(want)), "%v", x)
		}
		for _, x := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
			_, err := reports.JSONFloatForTest(x)
			Expect(err).To(HaveOccurred())
		}
	})

	It("matches json.Marshal on a real run's results when ROUTEBENCH_RESULTS names one", func() {
		path := os.Getenv("ROUTEBENCH_RESULTS")
		if path == "" {
			Skip("set ROUTEBENCH_RESULTS to a results.jsonl")
		}
		results, err := harness.ReadResults(path)
		Expect(err).NotTo(HaveOccurred())
		in := reports.Input{Results: results, Meta: reports.MetaFromResults(results)}
		var versions []string
		for _, v := range in.Meta.Versions {
			versions = append(versions, v.ID)
		}
		own, reference, err := reports.CaseDataForTest(versions, results)
		Expect(err).NotTo(HaveOccurred())
		Expect(own).To(Equal(reference))
	})
})
