package router_test

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

// bombTools is a 3 KB request whose one tool's params_schema refers to the
// next definition from both branches of an anyOf, 40 levels deep, with an
// example that walks all 2^40 ways unless loading refuses the schema.
var bombTools = func() string {
	var defs strings.Builder
	for i := range 40 {
		defs.WriteString(`"d` + strconv.Itoa(i) + `":{"anyOf":[{"$ref":"#/$defs/d` + strconv.Itoa(i+1) + `"},{"$ref":"#/$defs/d` + strconv.Itoa(i+1) + `"}]},`)
	}
	return `{"text":"hi","caller":{},"tools":[{"name":"x","description":"d","side_effect":"read",` +
		`"params_schema":{"type":"object","properties":{"zz":{"$ref":"#/$defs/d0"}},"$defs":{` + defs.String() + `"d40":{"type":"integer"}}},` +
		`"examples":[{"input":"x","params":{"zz":"x"}}]}]}`
}()

// wireTools is a made-up skill list using every skills.yaml field that
// travels in a request's tools.
const wireTools = `
- name: lend_book
  description: Lend a library book to a member; 借书给读者。
  when_to_use: [a member wants to borrow a book]
  when_not_to_use: [the member only asks whether a book is in]
  side_effect: write
  permission_scope: [desk:lend]
  confirm: batch
  params_schema:
    type: object
    required: [book_ids, member]
    properties:
      book_ids: {type: array, minItems: 1, items: {type: string, pattern: '^BK-\d{4}$'}}
      member: {type: string, x-sensitive: true}
      until: {type: string, format: date}
  result_schema: {type: object, required: [loan_id], properties: {loan_id: {type: string}}}
  rules:
    - expr: "size(params.book_ids) <= 5"
      message: at most five books a loan
  triggers: ['(?i)\bBK-\d{4}\b']
  examples:
    - input: lend BK-1234 to member Ada
      params: {book_ids: [BK-1234]}
    - just a bare example text
  counter_examples: ['is BK-1234 on the shelf?']
  glossary: {loan: 借阅}
  x-affects: size(params.book_ids)
  cost: {latency_ms: 120, quota: 0.5}
- name: find_book
  description: Look a book up by title.
  side_effect: read
`

func wireRegistry() *registry.Registry {
	skills, err := registry.ParseSkills("tools.yaml", []byte(wireTools))
	Expect(err).NotTo(HaveOccurred())
	reg, err := registry.New(skills)
	Expect(err).NotTo(HaveOccurred())
	return reg
}

func decodeErr(err error) *router.WireError {
	var we *router.WireError
	ExpectWithOffset(1, errors.As(err, &we)).To(BeTrue(), "want a *WireError, got %v", err)
	return we
}

var _ = Describe("the request JSON of DESIGN §13", func() {
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.FixedZone("", 8*3600))

	It("is written on one line with the documented fields, empty caller lists as [], and no latency in earlier turns", func() {
		req := router.Request{ID: "conv-1#2", Text: "the east one", Now: now,
			Turns: []router.Turn{{Text: "show me orders", Decision: router.Decision{Action: router.Clarify, LatencyUS: 812, Candidates: []router.Candidate{{Skill: "find_book", Score: 0.4}}}}}}
		data, err := router.EncodeRequest(req)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(data)).NotTo(ContainSubstring("\n"))
		var m map[string]any
		Expect(json.Unmarshal(data, &m)).To(Succeed())
		Expect(m).To(HaveKeyWithValue("id", "conv-1#2"))
		Expect(m).To(HaveKeyWithValue("text", "the east one"))
		Expect(m).To(HaveKeyWithValue("now", "2026-11-30T10:00:00+08:00"))
		Expect(m["caller"]).To(Equal(map[string]any{"scopes": []any{}, "disabled": []any{}}))
		Expect(m).NotTo(HaveKey("tools"))
		turns := m["turns"].([]any)
		Expect(turns).To(HaveLen(1))
		Expect(turns[0].(map[string]any)["decision"]).To(HaveKeyWithValue("latency_us", BeNumerically("==", 0)))

		again, err := router.EncodeRequest(req)
		Expect(err).NotTo(HaveOccurred())
		Expect(again).To(Equal(data), "equal requests must give equal bytes (cassette keys hash them)")
	})

	It("carries per-case tools in skills.yaml's shape and reads them back into the same skills", func() {
		reg := wireRegistry()
		data, err := router.EncodeRequest(router.Request{ID: "c1", Text: "lend BK-0007 to Ada", Now: now,
			Caller: router.Caller{Scopes: []string{"desk:lend"}, Disabled: []string{"find_book"}}, Tools: reg})
		Expect(err).NotTo(HaveOccurred())
		Expect(string(data)).To(ContainSubstring(`"x-affects":"size(params.book_ids)"`))
		Expect(string(data)).To(ContainSubstring(`"permission_scope":["desk:lend"]`))

		req, err := router.DecodeRequest(data, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(req.ID).To(Equal("c1"))
		Expect(req.Now.Equal(now)).To(BeTrue())
		Expect(req.Caller).To(Equal(router.Caller{Scopes: []string{"desk:lend"}, Disabled: []string{"find_book"}}))
		Expect(req.Tools.Names()).To(Equal([]string{"lend_book", "find_book"}))
		got, want := req.Tools.Skill("lend_book"), reg.Skill("lend_book")
		Expect(got.Description).To(Equal(want.Description))
		Expect(got.WhenToUse).To(Equal(want.WhenToUse))
		Expect(got.WhenNotToUse).To(Equal(want.WhenNotToUse))
		Expect(got.SideEffect).To(Equal(registry.Write))
		Expect(got.Confirm).To(Equal(registry.GateBatch))
		Expect(got.ParamsSchema).To(Equal(want.ParamsSchema))
		Expect(got.ResultSchemaRaw).To(Equal(want.ResultSchemaRaw))
		Expect(got.Triggers).To(HaveLen(1))
		Expect(got.Triggers[0].Re.MatchString("bk-0042")).To(BeTrue())
		Expect(got.Examples).To(HaveLen(2))
		Expect(got.Examples[0].Params).To(Equal(want.Examples[0].Params))
		Expect(got.Examples[1].Input).To(Equal("just a bare example text"))
		Expect(got.CounterExamples).To(Equal(want.CounterExamples))
		Expect(got.Glossary).To(Equal(want.Glossary))
		Expect(got.Cost).To(Equal(registry.Cost{LatencyMS: 120, Quota: 0.5}))
		Expect(got.Sensitive()).To(Equal([]string{"member"}))
		n, err := got.Affects.Count(map[string]any{"book_ids": []any{"BK-0001", "BK-0002"}}, now)
		Expect(err).NotTo(HaveOccurred())
		Expect(n).To(Equal(2))
		Expect(got.Rules).To(HaveLen(1))
		ok, err := got.Rules[0].Eval(map[string]any{"book_ids": []any{"a", "b", "c", "d", "e", "f"}}, now)
		Expect(err).NotTo(HaveOccurred())
		Expect(ok).To(BeFalse(), "the rule must still hold six books to its limit")
	})

	It("gives the same registry for the same tools through a ToolsCache, and another for other tools", func() {
		data, err := router.EncodeRequest(router.Request{Text: "x", Tools: wireRegistry()})
		Expect(err).NotTo(HaveOccurred())
		cache := &router.ToolsCache{}
		a, err := router.DecodeRequest(data, cache)
		Expect(err).NotTo(HaveOccurred())
		b, err := router.DecodeRequest(data, cache)
		Expect(err).NotTo(HaveOccurred())
		Expect(b.Tools).To(BeIdenticalTo(a.Tools))
		c, err := router.DecodeRequest(data, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Tools).NotTo(BeIdenticalTo(a.Tools))
	})

	DescribeTable("rejects a request the sender must fix, naming the field",
		func(body, field, says string) {
			_, err := router.DecodeRequest([]byte(body), nil)
			Expect(err).To(HaveOccurred())
			we := decodeErr(err)
			Expect(we.Field).To(Equal(field))
			Expect(we.Error()).To(ContainSubstring(says))
		},
		Entry("not JSON", `text: hi`, "", "not a JSON object"),
		Entry("empty", ``, "", "empty"),
		Entry("cut off", `{"text": "hi", "caller": {`, "", "cut off"),
		Entry("two objects", `{"text":"a","caller":{}} {"text":"b","caller":{}}`, "", "more after"),
		Entry("no text", `{"id":"a","caller":{}}`, "text", "missing"),
		Entry("no caller", `{"id":"a","text":"hi"}`, "caller", "missing"),
		Entry("unknown field", `{"text":"hi","caller":{},"user":"ada"}`, "user", "id, text, caller, now, tools, turns"),
		Entry("scopes not a list", `{"text":"hi","caller":{"scopes":"a:b"}}`, "caller.scopes", "list"),
		Entry("now not RFC 3339", `{"text":"hi","caller":{},"now":"last tuesday"}`, "now", "RFC 3339"),
		Entry("tools as an object", `{"text":"hi","caller":{},"tools":{}}`, "tools", "not a JSON list"),
		Entry("tools with a bad side effect", `{"text":"hi","caller":{},"tools":[{"name":"x","description":"d","side_effect":"explode"}]}`, "tools", "side_effect"),
		Entry("tools not a list", `{"text":"hi","caller":{},"tools":{"name":"x"}}`, "tools", "skills"),
		Entry("tools whose $refs fan out at every level (would hang the server)", bombTools, "tools", "is too costly to validate"),
		Entry("a turn with an unknown action", `{"text":"yes","caller":{},"turns":[{"text":"a","decision":{"action":"maybe"}}]}`, "turns[0].decision.action", "not an action"),
	)
})

var _ = Describe("a Decision read off the wire", func() {
	It("accepts the minimal answer and fills the lists", func() {
		d, err := router.DecodeDecision([]byte(`{"action":"refuse","confidence":0}` + "\n"))
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Action).To(Equal(router.Refuse))
		Expect(d.Params).To(Equal(map[string]any{}))
		Expect(d.Candidates).To(BeEmpty())
		Expect(d.Errors).NotTo(BeNil())
	})

	It("reads back what EncodeDecision writes", func() {
		in := router.Decision{Action: router.Confirm, Skill: "lend_book", Params: map[string]any{"member": "Ada", "book_ids": []any{"BK-0001"}},
			Confidence: 0.93, Stage: "judge", Gate: registry.GateNormal, Candidates: []router.Candidate{{Skill: "lend_book", Score: 0.93}},
			Errors: []router.Error{}, Message: "Lend BK-0001 to Ada? <confirm>", Trace: []router.TraceStep{{Stage: "policy", Kept: new(int)}},
			Version: "v9@12345678", Model: "builtin", LatencyUS: 42, Usage: &router.Usage{InputTokens: 3}}
		data, err := router.EncodeDecision(in)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(data)).To(ContainSubstring("<confirm>"), "HTML characters stay as they are")
		out, err := router.DecodeDecision(data)
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(Equal(in))
	})

	DescribeTable("holds an answer to the format, naming what to change",
		func(body, field, says string) {
			_, err := router.DecodeDecision([]byte(body))
			Expect(err).To(HaveOccurred())
			we := decodeErr(err)
			Expect(we.Field).To(Equal(field))
			Expect(strings.ToLower(we.Error())).To(ContainSubstring(says))
		},
		Entry("plain text", `I would refuse this one`, "", "not a json object"),
		Entry("a list", `[{"action":"refuse"}]`, "", "not a json object"),
		Entry("broken JSON", `{"action": "refuse", "confidence": 0.5,}`, "", "not valid json"),
		Entry("no action", `{"skill":"lend_book","confidence":0.9}`, "action", "missing"),
		Entry("an unknown action", `{"action":"do_it","confidence":0.9}`, "action", "not an action"),
		Entry("no confidence", `{"action":"refuse"}`, "confidence", "missing"),
		Entry("confidence as text", `{"action":"refuse","confidence":"high"}`, "confidence", "a number"),
		Entry("confidence above 1", `{"action":"refuse","confidence":1.5}`, "confidence", "outside [0, 1]"),
		Entry("acting on no skill", `{"action":"execute","confidence":0.9}`, "skill", "missing"),
		Entry("an unknown gate", `{"action":"confirm","skill":"x","confidence":0.9,"gate":"maybe"}`, "gate", "not a gate"),
		Entry("params as a list", `{"action":"execute","skill":"x","confidence":0.9,"params":[1]}`, "params", "an object"),
		Entry("a nameless candidate", `{"action":"clarify","confidence":0.7,"candidates":[{"score":0.7}]}`, "candidates[0].skill", "empty"),
		Entry("an error without errors", `{"action":"error","confidence":0}`, "errors", "empty"),
		Entry("an error without a category", `{"action":"error","confidence":0,"errors":[{"message":"boom"}]}`, "errors[0].category", "missing"),
		Entry("an unknown field", `{"action":"refuse","confidence":0,"reasoning":"no"}`, "reasoning", "not a decision field"),
		Entry("an unknown field inside a trace step", `{"action":"refuse","confidence":0,"trace":[{"stage":"x","latency":3}]}`, "latency", "inside the decision"),
	)
})
