package harness_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

// secretRouter acts on open_locker with the code the text ends with, and
// remembers the ids it was given.
type secretRouter struct{ ids, convs []string }

func (s *secretRouter) Route(_ context.Context, req router.Request) (router.Decision, error) {
	s.ids = append(s.ids, req.ID)
	s.convs = append(s.convs, req.ConversationID)
	code := req.Text[strings.LastIndex(req.Text, " ")+1:]
	return router.Decision{Action: router.Confirm, Skill: "open_locker", Gate: registry.GateNormal, Confidence: 0.95,
		Params:  map[string]any{"locker": "L-9", "code": code},
		Message: "open L-9 with " + code + "?", Stage: harness.StageJudge, Version: "v9@0badc0de",
		Trace: []router.TraceStep{{Stage: harness.StageRecall, Top: []string{"open_locker"}}, {Stage: harness.StageJudge, Choice: "open_locker",
			Raw: `{"skill":"open_locker","confidence":0.95,"params":{"locker":"L-9","code":"` + code + `"}}`}}}, nil
}

// routerFunc is a router written as a function.
type routerFunc func(context.Context, router.Request) (router.Decision, error)

func (f routerFunc) Route(ctx context.Context, req router.Request) (router.Decision, error) {
	return f(ctx, req)
}

func lockerVersion() *registry.Version {
	skills, err := registry.ParseSkills("skills.yaml", []byte(`skills:
  - name: open_locker
    description: open one locker with its code
    side_effect: write
    confirm: normal
    permission_scope: [locker:write]
    params_schema:
      type: object
      properties:
        locker: {type: string}
        code: {type: string, x-sensitive: true}
`))
	Expect(err).NotTo(HaveOccurred())
	reg, err := registry.New(skills)
	Expect(err).NotTo(HaveOccurred())
	return &registry.Version{Name: "v9", Fingerprint: "0badc0de0badc0de", Registry: reg}
}

// plainVersion is a version whose one skill has no sensitive param: a run
// under it takes the no-masking shortcut for its own registry.
func plainVersion() *registry.Version {
	plain, err := registry.ParseSkills("skills.yaml", []byte(`skills:
  - name: wave
    description: wave at the user
    side_effect: read
    params_schema: {type: object, properties: {hand: {type: string}}}
`))
	Expect(err).NotTo(HaveOccurred())
	reg, err := registry.New(plain)
	Expect(err).NotTo(HaveOccurred())
	return &registry.Version{Name: "v8", Fingerprint: "feedfacefeedface", Registry: reg}
}

func lockerCase(id, text, wantCode string) harness.Case {
	return harness.Case{ID: id, Suite: harness.SuiteNormal, Input: text, Caller: router.Caller{Scopes: []string{"locker:write"}},
		Expect: harness.Expect{Action: router.Confirm, Skill: "open_locker",
			Params: map[string]harness.ParamMatcher{"locker": eq("L-9"), "code": eq(wantCode)}}}
}

var _ = Describe("x-sensitive masking and request ids in results", func() {
	It("masks every turn of a conversation, each scored on its real values", func() {
		v, rt := lockerVersion(), &secretRouter{}
		typo, right := lockerCase("t1", "open L-9 code 7731-zetx", "7731-zeta"), lockerCase("t2", "open L-9 code 7731-zeta", "7731-zeta")
		conv := harness.Case{ID: "locker-talk", Suite: harness.SuiteNormal, Caller: typo.Caller,
			Turns: []harness.Turn{{Input: typo.Input, Expect: typo.Expect}, {Input: right.Input, Expect: right.Expect}}}
		dir := GinkgoT().TempDir()
		out, err := harness.Run(context.Background(), harness.RunConfig{Versions: []*registry.Version{v}, Cases: []harness.Case{conv},
			NewRouter: func(*registry.Version) (harness.Router, error) { return rt, nil }, OutDir: dir, Concurrency: 1, KeepResults: true})
		Expect(err).NotTo(HaveOccurred())
		data, err := os.ReadFile(filepath.Join(dir, harness.ResultsFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(data)).NotTo(ContainSubstring("7731-zet"), "no turn leaks the value")
		results, err := harness.ReadResults(filepath.Join(dir, harness.ResultsFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(results).To(HaveLen(1))
		turns := results[0].Turns
		Expect(turns).To(HaveLen(2))
		Expect(turns[0].Masked).To(Equal(map[string]string{"code": harness.MismatchValue}))
		Expect(turns[1].Masked).To(Equal(map[string]string{"code": "ok"}))
		Expect(turns[0].Pass).To(BeFalse())
		Expect(turns[1].Pass).To(BeTrue())
		Expect(harness.Score(results)).To(Equal(harness.Score(out.Results)), "scores read back agree with the run's")
	})

	It("masks sensitive params in the written result but scores the real values", func() {
		v, rt := lockerVersion(), &secretRouter{}
		right := lockerCase("locker-right", "open L-9 code 7731-zeta", "7731-zeta")
		wrong := lockerCase("locker wrong (typo)", "open L-9 code 7731-zetx", "7731-zeta")
		cases := []harness.Case{right, wrong}
		dir := GinkgoT().TempDir()
		out, err := harness.Run(context.Background(), harness.RunConfig{Versions: []*registry.Version{v}, Cases: cases,
			NewRouter: func(*registry.Version) (harness.Router, error) { return rt, nil }, OutDir: dir, Concurrency: 1, KeepResults: true})
		Expect(err).NotTo(HaveOccurred())

		Expect(rt.ids).To(Equal([]string{"locker-right", "locker wrong (typo)"}), "the router gets the case id as request id")
		Expect(rt.convs).To(Equal(rt.ids), "and as conversation id")

		results, err := harness.ReadResults(filepath.Join(dir, harness.ResultsFile))
		Expect(err).NotTo(HaveOccurred())
		for i, r := range results {
			Expect(r.RequestID).To(Equal(cases[i].ID))
			Expect(r.ConversationID).To(Equal(cases[i].ID))
			Expect(r.Decision.Params).To(Equal(map[string]any{"locker": "L-9", "code": "***"}))
			Expect(r.Decision.Message).To(Equal("open L-9 with ***?"))
			Expect(r.Decision.Trace[1].Raw).To(ContainSubstring(`"code":"***"`))
			Expect(r.Expect.Params["code"]).To(Equal(eq("***")), "the expected value is as sensitive")
		}
		Expect(results[0].Input).To(Equal("open L-9 code ***"), "the value is masked where the user typed it too")
		var file bytes.Buffer
		Expect(harness.WriteResults(&file, results)).To(Succeed())
		Expect(file.String()).NotTo(ContainSubstring("7731-zet"))
		Expect(results[0].Pass).To(BeTrue(), "scored on the real code, which matches")
		Expect(results[0].Masked).To(Equal(map[string]string{"code": "ok"}))
		Expect(results[1].Pass).To(BeFalse())
		Expect(results[1].Failure).To(Equal("param_error"))
		Expect(results[1].Masked).To(Equal(map[string]string{"code": harness.MismatchValue}))

		// Scoring read back from the file agrees with the run's.
		Expect(harness.Indicators(results[0])[harness.ParamErrorRate]).To(BeFalse())
		Expect(harness.Indicators(results[1])[harness.ParamErrorRate]).To(BeTrue())
		Expect(harness.Indicators(results[1])[harness.ParamErrorValue]).To(BeTrue())
		Expect(harness.Score(results)).To(Equal(harness.Score(out.Results)))
		Expect(harness.Score(results).Versions[0].Groups["all"].Metrics[harness.ParamErrorRate].Value).To(Equal(0.5))
	})

	It("masks a case's own sensitive tools under a version with no sensitive param", func() {
		v := plainVersion()
		var err error
		own := lockerCase("own-tools", "open L-9 code 7731-zeta", "7731-zeta")
		own.Tools = lockerVersion().Registry
		dir := GinkgoT().TempDir()
		_, err = harness.Run(context.Background(), harness.RunConfig{Versions: []*registry.Version{v}, Cases: []harness.Case{own},
			NewRouter: func(*registry.Version) (harness.Router, error) { return &secretRouter{}, nil }, OutDir: dir, Concurrency: 1})
		Expect(err).NotTo(HaveOccurred())
		results, err := harness.ReadResults(filepath.Join(dir, harness.ResultsFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(results).To(HaveLen(1))
		Expect(results[0].Decision.Params).To(Equal(map[string]any{"locker": "L-9", "code": "***"}))
		Expect(results[0].Masked).To(Equal(map[string]string{"code": "ok"}))
		Expect(results[0].Pass).To(BeTrue())
	})

	It("masks every turn of a conversation with its own sensitive tools under a version with none", func() {
		v := plainVersion()
		var err error
		first, second := lockerCase("t1", "open L-9 code 4410-kilo", "4410-kilo"), lockerCase("t2", "open L-9 code 4410-kilo", "4410-kilo")
		conv := harness.Case{ID: "own-tools-talk", Suite: harness.SuiteNormal, Caller: first.Caller, Tools: lockerVersion().Registry,
			Turns: []harness.Turn{{Input: first.Input, Expect: first.Expect}, {Input: second.Input, Expect: second.Expect}}}
		dir := GinkgoT().TempDir()
		_, err = harness.Run(context.Background(), harness.RunConfig{Versions: []*registry.Version{v}, Cases: []harness.Case{conv},
			NewRouter: func(*registry.Version) (harness.Router, error) { return &secretRouter{}, nil }, OutDir: dir, Concurrency: 1})
		Expect(err).NotTo(HaveOccurred())
		data, err := os.ReadFile(filepath.Join(dir, harness.ResultsFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(data)).NotTo(ContainSubstring("4410-kilo"), "no turn leaks the value")
		results, err := harness.ReadResults(filepath.Join(dir, harness.ResultsFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(results).To(HaveLen(1))
		Expect(results[0].Turns).To(HaveLen(2))
		for _, t := range results[0].Turns {
			Expect(t.Masked).To(Equal(map[string]string{"code": "ok"}))
			Expect(t.Pass).To(BeTrue())
		}
	})

	It("masks an expected value the router never extracted, wherever the result holds text", func() {
		v := lockerVersion()
		// A model that asked back instead: the user's text is in its prompt
		// and its message, and its params name the code under another key.
		var told [][]string
		asking := routerFunc(func(ctx context.Context, req router.Request) (router.Decision, error) {
			told = append(told, router.MaskValuesFrom(ctx))
			return router.Decision{Action: router.Clarify, Skill: "open_locker", Confidence: 0.4, Stage: harness.StageJudge, Version: "v9@0badc0de",
				Message: "did you mean to open a locker? you said: " + req.Text,
				Params:  map[string]any{"note": []any{"heard " + req.Text}},
				Trace: []router.TraceStep{{Stage: harness.StageRecall, Top: []string{"open_locker"}}, {Stage: harness.StageJudge, Choice: "open_locker",
					Prompt: "User request:\n" + req.Text, Raw: `{"skill":"open_locker","confidence":0.4,"reason":"unsure about ` + req.Text + `"}`}}}, nil
		})
		single := lockerCase("asked", "open L-9 code 5093-quill", "5093-quill")
		single.Expect.Params["code"] = harness.ParamMatcher{AnyOf: []any{"5093-quill", "5093-QUILL"}}
		// In a conversation the code is said in one turn and expected in the next.
		said, expected := lockerCase("t1", "my code is 2287-vane", "2287-vane"), lockerCase("t2", "open L-9 now", "2287-vane")
		said.Expect = harness.Expect{Action: router.Clarify}
		conv := harness.Case{ID: "asked-twice", Suite: harness.SuiteNormal, Caller: said.Caller,
			Turns: []harness.Turn{{Input: said.Input, Expect: said.Expect}, {Input: expected.Input, Expect: expected.Expect}}}
		dir := GinkgoT().TempDir()
		out, err := harness.Run(context.Background(), harness.RunConfig{Versions: []*registry.Version{v}, Cases: []harness.Case{single, conv},
			NewRouter: func(*registry.Version) (harness.Router, error) { return asking, nil }, OutDir: dir, Concurrency: 1, KeepResults: true})
		Expect(err).NotTo(HaveOccurred())
		data, err := os.ReadFile(filepath.Join(dir, harness.ResultsFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(data)).NotTo(ContainSubstring("5093-"), "input, expectation, message, params, prompt and raw output")
		Expect(string(data)).NotTo(ContainSubstring("2287-vane"), "a value said in one turn and expected in another")
		Expect(string(data)).To(ContainSubstring("open L-9 code ***"))
		results, err := harness.ReadResults(filepath.Join(dir, harness.ResultsFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(results).To(HaveLen(2))
		Expect(results[0].Expect.Params["code"]).To(Equal(harness.ParamMatcher{AnyOf: []any{"***"}}))
		Expect(results[0].Masked).To(BeEmpty(), "the decision held no sensitive param")
		Expect(results[0].Failure).To(Equal(out.Results[0].Failure), "scored before masking")
		Expect(results[1].Turns[0].Input).To(Equal("my code is ***"))
		Expect(told).To(Equal([][]string{{"5093-quill", "5093-QUILL"}, {"2287-vane"}, {"2287-vane"}}),
			"what a cassette recording the routing must mask, every turn told the whole conversation's")
		Expect(harness.Score(results)).To(Equal(harness.Score(out.Results)), "scores read back agree with the run's")
	})

	It("reads results written before request ids existed", func() {
		line := `{"format":1,"version":"v9@0badc0de","case":"old-1","case_hash":"x","suite":"normal","tags":[],"input":"hi","caller":{},"expect":{"action":"refuse"},"decision":{"action":"refuse"},"pass":true,"failure":"","latency_us":1,"seq":0}` + "\n"
		results, err := harness.DecodeResults(strings.NewReader(line), "old.jsonl")
		Expect(err).NotTo(HaveOccurred())
		Expect(results).To(HaveLen(1))
		Expect(results[0].RequestID).To(BeEmpty())
		Expect(results[0].ConversationID).To(BeEmpty())
	})
})

var _ = Describe("CaseFilter", func() {
	cases := []harness.Case{
		{ID: "refund-001", Suite: harness.SuiteNormal, Input: "x"},
		{ID: "ask (twice) & more", Suite: harness.SuiteBoundary, Input: "y"},
		{ID: "refund-0011", Suite: harness.SuiteNormal, Input: "z"},
	}
	selected := func(expr string) []string {
		match, err := harness.CaseFilter(expr)
		Expect(err).NotTo(HaveOccurred())
		var ids []string
		for i := range cases {
			if match("v1", &cases[i]) {
				ids = append(ids, cases[i].ID)
			}
		}
		return ids
	}
	DescribeTable("selects cases by exact id, alone or with labels",
		func(expr string, want []string) { Expect(selected(expr)).To(Equal(want)) },
		Entry("one id, exactly (not a prefix)", "id:refund-001", []string{"refund-001"}),
		Entry("a quoted id with label operators in it", `id:"ask (twice) & more"`, []string{"ask (twice) & more"}),
		Entry("ids or'd", "id:refund-0011 || id:refund-001", []string{"refund-001", "refund-0011"}),
		Entry("with a label", "(id:refund-001 || id:refund-0011) && !id:refund-001", []string{"refund-0011"}),
		Entry("with a suite label", `suite:boundary || id:refund-0011`, []string{"ask (twice) & more", "refund-0011"}),
		Entry("an unknown id selects nothing", "id:refund", nil),
	)
	It("rejects an empty or badly quoted id", func() {
		_, err := harness.CaseFilter("id: && suite:normal")
		Expect(err).To(MatchError(ContainSubstring("names no case")))
		_, err = harness.CaseFilter(`id:"open`)
		Expect(err).To(MatchError(ContainSubstring(`write id:"CASE ID"`)))
	})
	It("names an unknown id with the nearest one in a no-match error", func() {
		err := harness.NoMatchError("id:refund-01", 3, []string{"suite:normal", "id:refund-001", "id:ask"})
		Expect(err).To(MatchError(ContainSubstring(`no case has id refund-01 (did you mean "id:refund-001"?)`)))
		Expect(err.Error()).NotTo(ContainSubstring("id:ask"), "ids are not listed as labels")
	})
})

var _ = Describe("x-sensitive masking in workflow outcomes", func() {
	// A made-up door service: the workflow passes the door code it was
	// given to the unlock tool and quotes it in a message.
	doorVersion := func(workflowMarksCode bool) *registry.Version {
		skills, err := registry.ParseSkills("skills.yaml", []byte(`skills:
  - name: check_guest
    description: look a guest up
    side_effect: read
    permission_scope: [door:read]
    params_schema: {type: object, required: [guest], properties: {guest: {type: string}}}
  - name: unlock_door
    description: unlock a door with its code
    side_effect: write
    confirm: normal
    permission_scope: [door:write]
    params_schema:
      type: object
      required: [door, code]
      properties:
        door: {type: string}
        code: {type: string, x-sensitive: true}
  - name: tell_guest
    description: send a guest a message
    side_effect: send
    confirm: normal
    permission_scope: [door:write]
    params_schema: {type: object, required: [guest, text], properties: {guest: {type: string}, text: {type: string}}}
`))
		Expect(err).NotTo(HaveOccurred())
		reg, err := registry.New(skills)
		Expect(err).NotTo(HaveOccurred())
		code := "{type: string}"
		if workflowMarksCode {
			code = "{type: string, x-sensitive: true}"
		}
		raw := `workflows:
  - name: let_guest_in
    description: check a guest, unlock their door and tell them
    params_schema:
      type: object
      required: [guest, code]
      properties:
        guest: {type: string}
        code: ` + code + `
    nodes:
      - {id: check, tool: check_guest, params: {guest: "{{params.guest}}"}}
      - {id: unlock, tool: unlock_door, after: [check], params: {door: D-4, code: "{{params.code}}"}}
      - {id: tell, tool: tell_guest, after: [unlock], params: {guest: "{{params.guest}}", text: "door D-4 opened with {{params.code}}"}}
`
		return &registry.Version{Name: "door", Fingerprint: "d00rd00r", Registry: reg, WorkflowsRaw: []byte(raw)}
	}
	run := func(v *registry.Version) string {
		vw, err := harness.PrepareWorkflows(v)
		Expect(err).NotTo(HaveOccurred())
		cases, err := harness.ParseSuite("door.yaml", []byte(`suite: normal
cases:
  - id: door-1
    input: let G-1 in, the code is 9046-pike
    caller: {scopes: [door:read, door:write]}
    tools_sim:
      check_guest: [{ok: {guest: G-1}}]
      unlock_door: [{ok: {unlocked: true}}]
      tell_guest: [{ok: {sent: true}}]
    confirm: {answer: yes}
    expect: {action: confirm, skill: let_guest_in, params: {guest: G-1, code: 9046-pike}, outcome: completed}
`), vw.Routing)
		Expect(err).NotTo(HaveOccurred())
		rt := scriptRouter{"let G-1 in, the code is 9046-pike": withGate(withParams(decide(router.Confirm, "let_guest_in", 0.95),
			map[string]any{"guest": "G-1", "code": "9046-pike"}), registry.GateNormal)}
		dir := GinkgoT().TempDir()
		out, err := harness.Run(context.Background(), harness.RunConfig{Versions: []*registry.Version{v}, Cases: cases,
			NewRouter: func(*registry.Version) (harness.Router, error) { return rt, nil }, OutDir: dir, Concurrency: 1, KeepResults: true})
		Expect(err).NotTo(HaveOccurred())
		Expect(out.Results).To(HaveLen(1))
		Expect(out.Results[0].Pass).To(BeTrue(), "scored on the real code: %s", out.Results[0].Failure)
		data, err := os.ReadFile(filepath.Join(dir, harness.ResultsFile))
		Expect(err).NotTo(HaveOccurred())
		return string(data)
	}

	It("writes the tools' sensitive params as *** and masks the value in every message", func() {
		for _, marked := range []bool{true, false} {
			data := run(doorVersion(marked))
			Expect(data).NotTo(ContainSubstring("9046-pike"), "workflow marks the code sensitive: %v", marked)
			Expect(data).To(ContainSubstring(`"skill":"unlock_door","side_effect":"write","params":{"code":"***","door":"D-4"}`))
			Expect(data).To(ContainSubstring(`"text":"door D-4 opened with ***"`))
			Expect(data).To(ContainSubstring(`"input":"let G-1 in, the code is ***"`))
		}
	})
})
