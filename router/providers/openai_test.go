package providers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/providers"
)

// chatToolCall is an OpenAI chat completions response (POST
// /v1/chat/completions) whose assistant message carries one tool call, as
// documented in the Chat Completions API reference: arguments is a JSON
// string, usage counts prompt and completion tokens.
func chatToolCall(name, arguments string) string {
	args, _ := json.Marshal(arguments)
	return fmt.Sprintf(`{"id":"chatcmpl-1","object":"chat.completion","created":1764468000,"model":"gpt-4o-mini",
"choices":[{"index":0,"finish_reason":"tool_calls","logprobs":null,"message":{"role":"assistant","content":null,"refusal":null,
"tool_calls":[{"id":"call_1","type":"function","function":{"name":%q,"arguments":%s}}]}}],
"usage":{"prompt_tokens":1200,"completion_tokens":30,"total_tokens":1230}}`, name, args)
}

// chatText is a chat completions response with plain content.
func chatText(content string) string {
	c, _ := json.Marshal(content)
	return fmt.Sprintf(`{"id":"chatcmpl-2","object":"chat.completion","created":1764468000,"model":"gpt-4o-mini",
"choices":[{"index":0,"finish_reason":"stop","logprobs":null,"message":{"role":"assistant","content":%s,"refusal":null}}],
"usage":{"prompt_tokens":900,"completion_tokens":25,"total_tokens":925}}`, c)
}

var _ = Describe("OpenAI-compatible judge", func() {
	var judge router.Judge
	var server *fakeProvider
	var reply string

	BeforeEach(func() {
		setenv("OPENAI_API_KEY", testKey)
		reply = chatToolCall("query_orders_by_region", `{"region":"east","start":"2026-11-23","end":"2026-11-29","confidence":0.91}`)
		server = newFakeProvider(func(w http.ResponseWriter, r *http.Request, n int) { writeJSON(w, 200, reply) })
		g := newGateway(fastOptions(server.URL + "/v1"))
		var err error
		judge, err = g.Judge("openai:gpt-4o-mini")
		Expect(err).NotTo(HaveOccurred())
	})

	It("offers each candidate and none as tools, requires a tool call, at temperature 0", func() {
		_, err := judge.Judge(context.Background(), judgeRequest("看看华东区上周的订单"))
		Expect(err).NotTo(HaveOccurred())
		Expect(judge.Name()).To(Equal("openai:gpt-4o-mini"))

		reqs := server.Requests()
		Expect(reqs).To(HaveLen(1))
		Expect(reqs[0].Path).To(Equal("/v1/chat/completions"))
		Expect(reqs[0].Header.Get("Authorization")).To(Equal("Bearer " + testKey))
		body := reqs[0].JSON()
		Expect(body["model"]).To(Equal("gpt-4o-mini"))
		Expect(body["temperature"]).To(BeNumerically("==", 0))
		Expect(body["tool_choice"]).To(Equal("required"))

		var names []string
		for _, t := range body["tools"].([]any) {
			fn := t.(map[string]any)["function"].(map[string]any)
			names = append(names, fn["name"].(string))
			params := fn["parameters"].(map[string]any)
			Expect(params["required"]).To(ContainElement("confidence"), "tool %s", fn["name"])
			Expect(params["properties"]).To(HaveKey("confidence"))
		}
		Expect(names).To(Equal([]string{"query_orders_by_region", "query_alerts_by_zone", "ops_restart-service", "none"}))

		first := body["tools"].([]any)[0].(map[string]any)["function"].(map[string]any)
		Expect(first["description"]).To(ContainSubstring("When not to use: alerts or logs"))
		region := first["parameters"].(map[string]any)["properties"].(map[string]any)["region"].(map[string]any)
		Expect(region).NotTo(HaveKey("x-synonyms"), "routebench's extension keywords are not sent to providers")
		Expect(region["enum"]).To(HaveLen(4))

		msgs := body["messages"].([]any)
		Expect(msgs[0].(map[string]any)["role"]).To(Equal("system"))
		Expect(msgs[0].(map[string]any)["content"]).To(ContainSubstring("Act only through the listed candidates."))
		Expect(msgs[1].(map[string]any)["content"]).To(ContainSubstring("看看华东区上周的订单"))
		Expect(msgs[1].(map[string]any)["content"]).To(ContainSubstring("2026-11-30T10:00:00+08:00 (Monday)"))
	})

	It("turns the tool call into contract JSON with usage and cost", func() {
		resp, err := judge.Judge(context.Background(), judgeRequest("看看华东区上周的订单"))
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Raw).To(Equal(`{"skill":"query_orders_by_region","confidence":0.91,"params":{"end":"2026-11-29","region":"east","start":"2026-11-23"}}`))
		Expect(resp.Usage).To(Equal(&router.Usage{InputTokens: 1200, OutputTokens: 30, CostUSD: (1200*0.15 + 30*0.60) / 1e6}))
		Expect(resp.Prompt).To(ContainSubstring(`"tool_choice":"required"`))
	})

	It("maps a sanitized tool name back to the skill", func() {
		reply = chatToolCall("ops_restart-service", `{"service":"gateway","confidence":0.8}`)
		resp, err := judge.Judge(context.Background(), judgeRequest("restart gateway"))
		Expect(err).NotTo(HaveOccurred())
		Expect(contract(resp.Raw)["skill"]).To(Equal("ops.restart-service"))
	})

	It("answers none with its confidence and reason", func() {
		reply = chatToolCall("none", `{"confidence":0.88,"reason":"no skill books flights"}`)
		resp, err := judge.Judge(context.Background(), judgeRequest("book me a flight"))
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Raw).To(Equal(`{"skill":"none","confidence":0.88,"params":{},"reason":"no skill books flights"}`))
	})

	It("passes a skill that was never offered through under its own name", func() {
		reply = chatToolCall("Query_Orders_By_Region", `{"region":"east","confidence":0.7}`)
		resp, err := judge.Judge(context.Background(), judgeRequest("orders east"))
		Expect(err).NotTo(HaveOccurred())
		Expect(contract(resp.Raw)["skill"]).To(Equal("Query_Orders_By_Region"))

		reply = chatToolCall("delete_everything", `{"confidence":0.99}`)
		resp, err = judge.Judge(context.Background(), judgeRequest("orders east"))
		Expect(err).NotTo(HaveOccurred())
		Expect(contract(resp.Raw)["skill"]).To(Equal("delete_everything"))
	})

	It("keeps unparseable arguments verbatim so the router counts a schema_error", func() {
		reply = chatToolCall("query_orders_by_region", `{"region": "east", "confidence": 0.9`)
		resp, err := judge.Judge(context.Background(), judgeRequest("orders east"))
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Raw).To(Equal(`{"region": "east", "confidence": 0.9`))
	})

	It("does not invent a missing confidence", func() {
		reply = chatToolCall("query_orders_by_region", `{"region":"east"}`)
		resp, err := judge.Judge(context.Background(), judgeRequest("orders east"))
		Expect(err).NotTo(HaveOccurred())
		Expect(contract(resp.Raw)).NotTo(HaveKey("confidence"))
	})

	It("passes text through when the server ignored tool_choice", func() {
		reply = chatText(`{"skill":"query_alerts_by_zone","confidence":0.6,"params":{}}`)
		resp, err := judge.Judge(context.Background(), judgeRequest("alerts east"))
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Raw).To(Equal(`{"skill":"query_alerts_by_zone","confidence":0.6,"params":{}}`))
	})

	It("sends the rejected answer and its structured errors back on the repair attempt", func() {
		req := judgeRequest("orders east last week")
		req.Repair = &router.Repair{
			Raw:    `{"skill":"query_orders_by_region","confidence":0.9,"params":{"region":"华东"}}`,
			Errors: []router.Error{{Category: router.CatParams, Layer: router.LayerSchema, Path: "/region", Message: "value must be one of east, south, north, west"}},
		}
		_, err := judge.Judge(context.Background(), req)
		Expect(err).NotTo(HaveOccurred())
		msgs := server.Requests()[0].JSON()["messages"].([]any)
		Expect(msgs).To(HaveLen(4))
		Expect(msgs[2].(map[string]any)["role"]).To(Equal("assistant"))
		Expect(msgs[2].(map[string]any)["content"]).To(Equal(req.Repair.Raw))
		Expect(msgs[3].(map[string]any)["role"]).To(Equal("user"))
		Expect(msgs[3].(map[string]any)["content"]).To(ContainSubstring(`"path": "/region"`))
		Expect(msgs[3].(map[string]any)["content"]).To(ContainSubstring("value must be one of east"))
	})

	It("asks for contract JSON through response_format when tools are off", func() {
		o := fastOptions(server.URL + "/v1")
		o.ToolsOff = true
		j, err := newGateway(o).Judge("openai:gpt-4o-mini")
		Expect(err).NotTo(HaveOccurred())
		reply = chatText(`{"skill":"none","confidence":0.4,"params":{}}`)
		resp, err := j.Judge(context.Background(), judgeRequest("hello"))
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Raw).To(Equal(`{"skill":"none","confidence":0.4,"params":{}}`))

		body := server.Requests()[0].JSON()
		Expect(body).NotTo(HaveKey("tools"))
		rf := body["response_format"].(map[string]any)
		Expect(rf["type"]).To(Equal("json_schema"))
		schema := rf["json_schema"].(map[string]any)["schema"].(map[string]any)
		Expect(schema["required"]).To(Equal([]any{"skill", "confidence", "params"}))
		Expect(schema).NotTo(HaveKey("$schema"))
	})

	It("fails early when the hosted API would be called without a key", func() {
		setenv("OPENAI_API_KEY", "")
		setenv("OPENAI_BASE_URL", "")
		_, err := newGateway(fastOptions("")).Judge("openai:gpt-4o-mini")
		Expect(err).To(MatchError(ContainSubstring("OPENAI_API_KEY is not set")))

		o := fastOptions("")
		o.Cassettes = providers.CassettesReplay
		_, err = newGateway(o).Judge("openai:gpt-4o-mini")
		Expect(err).NotTo(HaveOccurred(), "replay needs no key")
		_, err = newGateway(fastOptions("http://localhost:11434/v1")).Judge("openai:qwen2.5")
		Expect(err).NotTo(HaveOccurred(), "a local server needs no key")
	})

	It("rejects unknown providers with a message saying what to write", func() {
		g := newGateway(fastOptions(server.URL))
		_, err := g.Judge("gemini:pro")
		Expect(err).To(MatchError(ContainSubstring("use openai:<model> or anthropic:<model>")))
		_, err = g.Judge("openai")
		Expect(err).To(MatchError(ContainSubstring("write provider:model")))
		p, m, err := providers.SplitSpec("openai:qwen2.5:7b")
		Expect(err).NotTo(HaveOccurred())
		Expect([]string{p, m}).To(Equal([]string{"openai", "qwen2.5:7b"}), "Ollama model tags keep their colon")
	})
})
