package harness_test

import (
	"context"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

// oddRouter is fakeRouter with decisions holding values whose results.jsonl
// lines read back as something else: an int param (float64), a []string
// param ([]any), a typed nil map (nil), text that is not UTF-8 (U+FFFD),
// and trace lists that are empty but not nil (left out, read back nil).
type oddRouter struct{ fakeRouter }

func (o *oddRouter) Route(ctx context.Context, req router.Request) (router.Decision, error) {
	d, err := o.fakeRouter.Route(ctx, req)
	if err != nil {
		return d, err
	}
	switch n := len(req.Text); {
	case strings.Contains(req.Text, "orders") && n%3 == 0:
		d.Params = map[string]any{"region": "east", "limit": 3, "fields": []string{"id", "amount"}}
	case strings.Contains(req.Text, "orders") && n%3 == 1:
		d.Params = map[string]any{"region": "east", "filter": map[string]any(nil), "nested": map[string]any{"a": []any{1.5, "x"}}}
	case strings.Contains(req.Text, "refund"):
		d.Message = "bad byte \xff in a message"
	}
	// Most traces of the builtin router hold such lists.
	d.Trace = append([]router.TraceStep{{Stage: "policy", Dropped: []string{}, Matched: []string{}}}, d.Trace...)
	d.Trace[len(d.Trace)-1].Scores = []router.Candidate{}
	return d, nil
}

const liveConvSuite = `suite: boundary
defaults:
  caller: {scopes: [orders:read, alerts:read, orders:write, ops:write]}
  now: "2026-11-30T10:00:00+08:00"
  tags: [conversation]
cases:
  - id: lw-conv-1
    turns:
      - input: which orders do we have
        expect: {action: clarify, candidates: [query_orders_by_region, query_alerts_by_zone]}
      - input: the west orders
        expect: {action: execute, skill: query_orders_by_region, params: {region: west}}
  - id: lw-conv-2
    turns:
      - {input: refund ORD-55554444 please, expect: {action: confirm, skill: refund_order}}
      - {input: "", expect: {action: refuse, never: [refund_order]}}
`

// handedRun runs cfg with every result handed on as it is written, and
// returns the handed results with the run's outcome.
func handedRun(cfg harness.RunConfig) ([]*harness.Result, *harness.RunOutcome, error) {
	var handed []*harness.Result
	cfg.Written = func(i int, r *harness.Result) {
		Expect(i).To(Equal(len(handed)), "results are handed on in file order")
		handed = append(handed, r)
	}
	out, err := harness.Run(context.Background(), cfg)
	return handed, out, err
}

// fileResults is results.jsonl of dir as FileStream.Each decodes it.
func fileResults(dir string) []harness.Result {
	var rs []harness.Result
	err := harness.NewFileStream(filepath.Join(dir, harness.ResultsFile)).Each(func(_ int, r *harness.Result) error {
		rs = append(rs, *r)
		return nil
	})
	Expect(err).NotTo(HaveOccurred())
	return rs
}

// expectHandedAsRead checks that the results handed on are the file's, as
// reading it gives them, value for value, and that the outcome's stream
// is the file indexed and digested.
func expectHandedAsRead(dir string, handed []*harness.Result, out *harness.RunOutcome) {
	GinkgoHelper()
	read := fileResults(dir)
	Expect(handed).To(HaveLen(len(read)))
	for i := range read {
		Expect(*handed[i]).To(Equal(read[i]), "result %d (%s/%s)", i, read[i].Version, read[i].Case)
	}
	Expect(out.Stream).NotTo(BeNil())
	path := filepath.Join(dir, harness.ResultsFile)
	want, err := harness.DigestResultsFile(path)
	Expect(err).NotTo(HaveOccurred())
	digest, ok := out.Stream.Digest()
	Expect(ok).To(BeTrue())
	Expect(digest).To(Equal(want))
	n, err := out.Stream.Len()
	Expect(err).NotTo(HaveOccurred())
	Expect(n).To(Equal(len(read)))
	var got []harness.Result
	Expect(out.Stream.Read([]int{n - 1, 0}, func(_ int, r *harness.Result) error {
		got = append(got, *r)
		return nil
	})).To(Succeed())
	Expect(got).To(Equal([]harness.Result{read[n-1], read[0]}))
}

var _ = Describe("a run handing each result on as it writes it (RunConfig.Written)", func() {
	It("hands on what reading results.jsonl gives, in its order, and the file indexed and digested", func() {
		conv, err := harness.ParseSuite("conv.yaml", []byte(liveConvSuite), testRegistry())
		Expect(err).NotTo(HaveOccurred())
		cases := append(runCases(60), conv...)
		dir := GinkgoT().TempDir()
		cfg := runConfig(dir, cases, 3)
		cfg.KeepResults = false
		cfg.NewRouter = func(v *registry.Version) (harness.Router, error) {
			return &oddRouter{fakeRouter{version: v.ID()}}, nil
		}
		handed, out, err := handedRun(cfg)
		Expect(err).NotTo(HaveOccurred())
		expectHandedAsRead(dir, handed, out)
		// The odd values were there to be read back.
		lines := string(readFile(filepath.Join(dir, harness.ResultsFile)))
		for _, odd := range []string{`"limit":3`, `"fields":["id","amount"]`, `"filter":null`, `bad byte \ufffd`, `"turns":[`} {
			Expect(lines).To(ContainSubstring(odd))
		}
		Expect(lines).NotTo(ContainSubstring(`"dropped":[]`))
	})

	It("hands on workflow cases as their lines read back", func() {
		dir := GinkgoT().TempDir()
		cases := wfCases(wfCase(holdInput, happyTools, "{action: confirm, skill: hold_and_mail, outcome: completed}") +
			strings.Replace(wfCase("find Dune", "", "{action: execute, skill: find_book}"), "id: c1", "id: c2", 1))
		handed, out, err := handedRun(harness.RunConfig{Versions: []*registry.Version{wfVersion()}, Cases: cases, OutDir: dir,
			NewRouter: func(*registry.Version) (harness.Router, error) { return libRouter, nil }})
		Expect(err).NotTo(HaveOccurred())
		Expect(handed[0].Workflow).NotTo(BeNil())
		expectHandedAsRead(dir, handed, out)
	})

	It("hands nothing on once a run keeps earlier results, leaving results.jsonl to be read", func() {
		cases := runCases(80)
		dir := GinkgoT().TempDir()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		cfg := runConfig(dir, cases, 4)
		cfg.NewRouter = func(v *registry.Version) (harness.Router, error) {
			return &fakeRouter{version: v.ID(), onCall: func(n int64) {
				if n == 30 {
					cancel()
				}
			}}, nil
		}
		handedBefore := 0
		cfg.Written = func(int, *harness.Result) { handedBefore++ }
		out, err := harness.Run(ctx, cfg)
		Expect(err).To(MatchError(harness.ErrInterrupted))
		Expect(out.Stream).To(BeNil(), "an interrupted run's file is not all there")
		Expect(handedBefore).To(BeNumerically("<=", out.Done))

		cfg = runConfig(dir, cases, 4)
		cfg.Resume = true
		handed, out, err := handedRun(cfg)
		Expect(err).NotTo(HaveOccurred())
		Expect(out.Resumed).To(BeNumerically(">", 0))
		Expect(handed).To(BeEmpty())
		Expect(out.Stream).To(BeNil())
	})

	It("hands everything on when --resume finds nothing to keep", func() {
		dir := GinkgoT().TempDir()
		cfg := runConfig(dir, runCases(20), 2)
		cfg.Resume = true
		handed, out, err := handedRun(cfg)
		Expect(err).NotTo(HaveOccurred())
		Expect(out.Resumed).To(Equal(0))
		expectHandedAsRead(dir, handed, out)
	})
})

var _ = Describe("the results encoder's word on reading a line back", func() {
	base := func() harness.Result {
		d := withParams(decide(router.Execute, "query_orders_by_region", 0.9), map[string]any{"region": "east", "n": 2.5})
		return harness.Result{Format: 1, Version: "v1@aaaa", Case: "c1", CaseHash: "h", Suite: "normal", Tags: []string{},
			Input: "orders <east> & \"more\" 订单", Caller: fullCaller,
			Expect: harness.Expect{Action: router.Execute, Skill: "query_orders_by_region",
				Params: map[string]harness.ParamMatcher{"region": eq("east"), "n": {AnyOf: []any{2.5, "x"}}}},
			Decision: d, Pass: true, LatencyUS: 42, RequestID: "c1", Masked: map[string]string{"n": "ok"}, Seq: 3}
	}

	It("says a result of JSON's own values reads back as itself", func() {
		r := base()
		line, exact, err := harness.MarshalResultExact(&r)
		Expect(err).NotTo(HaveOccurred())
		Expect(exact).To(BeTrue())
		var back harness.Result
		Expect(harness.DecodeResult(line, &back)).To(Succeed())
		Expect(back).To(Equal(r))
	})

	DescribeTable("says a result reads back as something else",
		func(change func(r *harness.Result)) {
			r := base()
			change(&r)
			line, exact, err := harness.MarshalResultExact(&r)
			Expect(err).NotTo(HaveOccurred())
			Expect(exact).To(BeFalse())
			var back harness.Result
			Expect(harness.DecodeResult(line, &back)).To(Succeed())
			Expect(back).NotTo(Equal(r), "the encoder had reason to say so")
		},
		Entry("an int param", func(r *harness.Result) { r.Decision.Params["n"] = 2 }),
		Entry("a []string param", func(r *harness.Result) { r.Decision.Params["n"] = []string{"a"} }),
		Entry("a typed nil map", func(r *harness.Result) { r.Decision.Params["n"] = map[string]any(nil) }),
		Entry("a typed nil list", func(r *harness.Result) { r.Decision.Params["n"] = []any(nil) }),
		Entry("an expected value of YAML's int", func(r *harness.Result) { r.Expect.Params["n"] = eq(7) }),
		Entry("text that is not UTF-8", func(r *harness.Result) { r.Input = "a\xffb" }),
		Entry("escaped text that is not UTF-8", func(r *harness.Result) { r.Decision.Message = "<a>\n\xff" }),
		Entry("a map key that is not UTF-8", func(r *harness.Result) { r.Decision.Params["\xfe"] = "x" }),
		Entry("empty tags of a caller", func(r *harness.Result) { r.Caller.Scopes = []string{} }),
		Entry("empty expected candidates", func(r *harness.Result) { r.Expect.Candidates = []string{} }),
		Entry("empty expected params", func(r *harness.Result) { r.Expect.Params = map[string]harness.ParamMatcher{} }),
		Entry("an empty any_of", func(r *harness.Result) { r.Expect.Params["n"] = harness.ParamMatcher{AnyOf: []any{}} }),
		Entry("empty masked params", func(r *harness.Result) { r.Masked = map[string]string{} }),
		Entry("empty turns", func(r *harness.Result) { r.Turns = []harness.TurnResult{} }),
		Entry("expected calls that are a nil list", func(r *harness.Result) { r.Expect.Calls = new([]string) }),
		Entry("expected retries that are a nil map", func(r *harness.Result) { r.Expect.Retries = new(map[string]int) }),
	)
})
