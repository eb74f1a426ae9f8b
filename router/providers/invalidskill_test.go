package providers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

// messagesText is an Anthropic Messages API response holding one text
// block, as a model answers when no tools are offered.
func messagesText(text string) string {
	t, _ := json.Marshal(text)
	return fmt.Sprintf(`{"id":"msg_03","type":"message","role":"assistant","model":"claude-haiku-4-5",
"content":[{"type":"text","text":%s}],"stop_reason":"end_turn","stop_sequence":null,
"usage":{"input_tokens":800,"output_tokens":20}}`, t)
}

// A judge that answers with a skill outside the candidates, through either
// provider's wire format and either answer mode, acts on nothing and is
// scored as a judge failure (DESIGN §6): schema_error with rule
// invalid_skill, action error, a failed judge output in schema_pass_rate,
// counted in invalid_skill_rate, and never a refusal a case expecting one
// could pass with.
var _ = Describe("A provider judge naming a skill that is not a candidate", func() {
	type mode struct {
		provider string // "openai" or "anthropic"
		toolsOff bool
	}
	// reply is the provider's wire answer naming skill with params.
	reply := func(m mode, skill, params string) string {
		args := fmt.Sprintf(`{%s"confidence":0.97}`, params)
		contractJSON := fmt.Sprintf(`{"skill":%q,"confidence":0.97,"params":{%s}}`, skill, trimComma(params))
		switch {
		case m.provider == "openai" && m.toolsOff:
			return chatText(contractJSON)
		case m.provider == "openai":
			return chatToolCall(skill, args)
		case m.toolsOff:
			return messagesText(contractJSON)
		default:
			return messagesToolUse(skill, args)
		}
	}
	// routeWith routes text through the ops demo version v2 with a judge of
	// the mode against a local server answering answer every time.
	routeWith := func(m mode, answer string) (router.Decision, *fakeProvider, *registry.Registry) {
		setenv("OPENAI_API_KEY", testKey)
		setenv("ANTHROPIC_API_KEY", "sk-ant-api03-SECRETSECRETSECRET")
		server := newFakeProvider(func(w http.ResponseWriter, r *http.Request, n int) { writeJSON(w, 200, answer) })
		o := fastOptions(server.URL)
		o.ToolsOff = m.toolsOff
		model := map[string]string{"openai": "openai:gpt-4o-mini", "anthropic": "anthropic:claude-haiku-4-5"}[m.provider]
		judge, err := newGateway(o).Judge(model)
		Expect(err).NotTo(HaveOccurred())
		rt, tools := opsRouterWith(judge)
		d, err := rt.Route(context.Background(), router.Request{
			Text: "看看华东区上周的订单", Now: testNow, Tools: tools,
			Caller: router.Caller{Scopes: []string{"orders:read", "alerts:read"}},
		})
		Expect(err).NotTo(HaveOccurred())
		return d, server, tools
	}

	DescribeTable("is an invalid_skill schema_error, action error, scored as a failure",
		func(m mode, skill string) {
			d, server, tools := routeWith(m, reply(m, skill, `"dataset":"orders",`))
			Expect(d.Action).To(Equal(router.Fail), "%+v", d)
			Expect(d.Skill).To(BeEmpty())
			Expect(d.Errors).To(ConsistOf(And(
				HaveField("Category", router.CatSchemaError),
				HaveField("Rule", router.RuleInvalidSkill),
				HaveField("Message", ContainSubstring(skill)))))
			Expect(server.Count()).To(Equal(1), "the case repair is the only repair of a skill name; the model is not asked again")

			// A case expecting a refusal is not passed by the judge's failure.
			c := &harness.Case{ID: "made-up-1", Suite: harness.SuiteAdversarial,
				Caller: router.Caller{Scopes: []string{"orders:read", "alerts:read"}},
				Expect: harness.Expect{Action: router.Refuse}}
			v := harness.Check(c, d, tools)
			Expect(v.Pass).To(BeFalse())
			Expect(v.Failure).To(Equal(harness.FailSchemaError))
			ind := harness.Indicators(harness.Result{Expect: c.Expect, Decision: d, Failure: v.Failure})
			Expect(ind).To(HaveKeyWithValue(harness.SchemaPassRate, false))
			Expect(ind).To(HaveKeyWithValue(harness.InvalidSkillRate, true))
			Expect(ind).To(HaveKeyWithValue(harness.RefusalRecall, false))
			Expect(ind).To(HaveKeyWithValue(harness.RefusalAccuracy, false))
			Expect(ind).NotTo(HaveKey(harness.RefusalPrecision), "an error is not a refusal, so it is not in refusal_precision's denominator")
		},
		Entry("OpenAI, tool call of a tool never offered", mode{"openai", false}, "delete_test_data"),
		Entry("OpenAI, JSON answer naming an invented skill", mode{"openai", true}, "export_all_orders"),
		Entry("Anthropic, tool_use of a tool never offered", mode{"anthropic", false}, "delete_test_data"),
		Entry("Anthropic, JSON answer naming an invented skill", mode{"anthropic", true}, "export_all_orders"),
	)

	DescribeTable("still repairs an unambiguous case slip of a candidate's name, which scores as a valid answer",
		func(m mode) {
			d, _, _ := routeWith(m, reply(m, "QUERY_ORDERS_BY_REGION", `"region":"east","start":"2026-11-23","end":"2026-11-29",`))
			Expect(d.Action).To(Equal(router.Execute), "%+v", d)
			Expect(d.Skill).To(Equal("query_orders_by_region"))
			ind := harness.Indicators(harness.Result{Expect: harness.Expect{Action: router.Execute, Skill: "query_orders_by_region"}, Decision: d})
			Expect(ind).To(HaveKeyWithValue(harness.SchemaPassRate, true))
			Expect(ind).To(HaveKeyWithValue(harness.InvalidSkillRate, false))
		},
		Entry("OpenAI tools", mode{"openai", false}),
		Entry("OpenAI JSON", mode{"openai", true}),
		Entry("Anthropic tools", mode{"anthropic", false}),
		Entry("Anthropic JSON", mode{"anthropic", true}),
	)
})

// trimComma drops the trailing comma of a params fragment.
func trimComma(s string) string {
	if n := len(s); n > 0 && s[n-1] == ',' {
		return s[:n-1]
	}
	return s
}

// opsRouterWith is opsRouter with any judge.
func opsRouterWith(judge router.Judge) (*router.Router, *registry.Registry) {
	v, err := registry.Load("../../fixtures/ops/prompts/v2")
	Expect(err).NotTo(HaveOccurred())
	tools, err := registry.New([]*registry.Skill{v.Registry.Skill("query_orders_by_region"), v.Registry.Skill("query_alerts_by_zone")})
	Expect(err).NotTo(HaveOccurred())
	flat := func(context.Context, string) ([]float32, error) { return []float32{1, 0}, nil }
	rt, err := router.New(v, func(*registry.Version, *registry.Registry) (router.Models, error) {
		return router.Models{Judge: judge, Embedder: flat, EmbedderName: "flat"}, nil
	})
	Expect(err).NotTo(HaveOccurred())
	return rt, tools
}
