package providers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router"
)

// messagesToolUse is an Anthropic Messages API response (POST /v1/messages)
// whose content holds one tool_use block, as documented in the Messages API
// reference: input is a JSON object, usage counts input and output tokens.
func messagesToolUse(name, input string) string {
	return fmt.Sprintf(`{"id":"msg_01","type":"message","role":"assistant","model":"claude-haiku-4-5",
"content":[{"type":"text","text":"Routing the request."},{"type":"tool_use","id":"toolu_01","name":%q,"input":%s}],
"stop_reason":"tool_use","stop_sequence":null,
"usage":{"input_tokens":1000,"output_tokens":40,"cache_creation_input_tokens":0,"cache_read_input_tokens":200}}`, name, input)
}

var _ = Describe("Anthropic judge", func() {
	var judge router.Judge
	var server *fakeProvider
	var reply string

	BeforeEach(func() {
		setenv("ANTHROPIC_API_KEY", "sk-ant-api03-SECRETSECRETSECRET")
		reply = messagesToolUse("query_alerts_by_zone", `{"zone":"east","start":"2026-11-23","end":"2026-11-29","confidence":0.87}`)
		server = newFakeProvider(func(w http.ResponseWriter, r *http.Request, n int) { writeJSON(w, 200, reply) })
		var err error
		judge, err = newGateway(fastOptions(server.URL)).Judge("anthropic:claude-haiku-4-5")
		Expect(err).NotTo(HaveOccurred())
	})

	It("sends the system prompt, the candidates as tools with tool_choice any, at temperature 0", func() {
		_, err := judge.Judge(context.Background(), judgeRequest("华东区上周的告警"))
		Expect(err).NotTo(HaveOccurred())
		reqs := server.Requests()
		Expect(reqs).To(HaveLen(1))
		Expect(reqs[0].Path).To(Equal("/v1/messages"))
		Expect(reqs[0].Header.Get("X-Api-Key")).To(Equal("sk-ant-api03-SECRETSECRETSECRET"))
		Expect(reqs[0].Header.Get("Anthropic-Version")).NotTo(BeEmpty())

		body := reqs[0].JSON()
		Expect(body["model"]).To(Equal("claude-haiku-4-5"))
		Expect(body["temperature"]).To(BeNumerically("==", 0))
		Expect(body["max_tokens"]).To(BeNumerically("==", 1024))
		Expect(body["system"].([]any)[0].(map[string]any)["text"]).To(ContainSubstring("Act only through the listed candidates."))
		Expect(body["tool_choice"]).To(HaveKeyWithValue("type", "any"))

		var names []string
		for _, t := range body["tools"].([]any) {
			tool := t.(map[string]any)
			names = append(names, tool["name"].(string))
			schema := tool["input_schema"].(map[string]any)
			Expect(schema["type"]).To(Equal("object"))
			Expect(schema["required"]).To(ContainElement("confidence"))
		}
		Expect(names).To(Equal([]string{"query_orders_by_region", "query_alerts_by_zone", "ops_restart-service", "none"}))
	})

	It("turns the tool_use block into contract JSON with usage and cost", func() {
		resp, err := judge.Judge(context.Background(), judgeRequest("华东区上周的告警"))
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Raw).To(Equal(`{"skill":"query_alerts_by_zone","confidence":0.87,"params":{"end":"2026-11-29","start":"2026-11-23","zone":"east"}}`))
		Expect(resp.Usage.InputTokens).To(Equal(1200), "cache reads count as input")
		Expect(resp.Usage.OutputTokens).To(Equal(40))
		Expect(resp.Usage.CostUSD).To(BeNumerically("~", (1200*1.0+40*5.0)/1e6, 1e-12))
	})

	It("answers none", func() {
		reply = messagesToolUse("none", `{"confidence":0.93,"reason":"nothing books flights"}`)
		resp, err := judge.Judge(context.Background(), judgeRequest("book a flight"))
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Raw).To(Equal(`{"skill":"none","confidence":0.93,"params":{},"reason":"nothing books flights"}`))
	})

	It("passes an unknown tool name through", func() {
		reply = messagesToolUse("query_orders", `{"confidence":0.5}`)
		resp, err := judge.Judge(context.Background(), judgeRequest("orders"))
		Expect(err).NotTo(HaveOccurred())
		Expect(contract(resp.Raw)["skill"]).To(Equal("query_orders"))
	})

	It("returns the text when the model wrote no tool_use block", func() {
		reply = `{"id":"msg_02","type":"message","role":"assistant","model":"claude-haiku-4-5","content":[{"type":"text","text":"I am not sure."}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":5}}`
		resp, err := judge.Judge(context.Background(), judgeRequest("hmm"))
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Raw).To(Equal("I am not sure."))
	})

	It("sends the repair as assistant and user turns", func() {
		req := judgeRequest("restart")
		req.Repair = &router.Repair{Raw: "not json", Errors: []router.Error{{Category: router.CatSchemaError, Message: "output is not JSON"}}}
		_, err := judge.Judge(context.Background(), req)
		Expect(err).NotTo(HaveOccurred())
		var body struct {
			Messages []struct {
				Role    string `json:"role"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"messages"`
		}
		Expect(json.Unmarshal(server.Requests()[0].Body, &body)).To(Succeed())
		Expect(body.Messages).To(HaveLen(3))
		Expect(body.Messages[1].Role).To(Equal("assistant"))
		Expect(body.Messages[1].Content[0].Text).To(Equal("not json"))
		Expect(body.Messages[2].Content[0].Text).To(ContainSubstring("output is not JSON"))
	})

	It("works without any key (replay needs none) and fails as a provider error on 401", func() {
		setenv("ANTHROPIC_API_KEY", "")
		server.respond = func(w http.ResponseWriter, r *http.Request, n int) {
			writeJSON(w, 401, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`)
		}
		j, err := newGateway(fastOptions(server.URL)).Judge("anthropic:claude-haiku-4-5")
		Expect(err).NotTo(HaveOccurred())
		_, err = j.Judge(context.Background(), judgeRequest("x"))
		Expect(err).To(MatchError(ContainSubstring("401")))
		Expect(server.Count()).To(Equal(1), "a 401 is not retried")
		Expect(server.Requests()[0].Header.Get("X-Api-Key")).To(BeEmpty())
	})
})
