package providers_test

import (
	"context"
	"encoding/json"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/providers"
)

// A made-up two-turn conversation: the router asked which greenhouse, the
// user answers. The judge must see the earlier exchange before the
// current request, with its system prompt unchanged.
func conversationRequest() router.JudgeRequest {
	req := judgeRequest("the north greenhouse")
	req.Turns = []router.Turn{
		{Text: "water the tomatoes", Decision: router.Decision{
			Action: router.Clarify, Skill: "water_beds", Params: map[string]any{"crop": "tomato"},
			Candidates: []router.Candidate{{Skill: "water_beds", Score: 0.9}, {Skill: "log_harvest", Score: 0.2}},
			Message:    "To use water_beds, please give greenhouse.",
		}},
		{Text: "", Decision: router.Decision{Action: router.Refuse, Message: "The request is empty; say what you need."}},
	}
	return req
}

var _ = Describe("a model judge in a conversation", func() {
	var server *fakeProvider
	BeforeEach(func() {
		setenv("OPENAI_API_KEY", testKey)
		setenv("ANTHROPIC_API_KEY", testKey)
	})

	It("sends each earlier turn as the user's text and a summary of the decision, before the request (openai)", func() {
		server = newFakeProvider(func(w http.ResponseWriter, r *http.Request, n int) {
			writeJSON(w, 200, chatToolCall("query_orders_by_region", `{"region":"east","confidence":0.9}`))
		})
		judge, err := newGateway(fastOptions(server.URL + "/v1")).Judge("openai:gpt-4o-mini")
		Expect(err).NotTo(HaveOccurred())
		req := conversationRequest()
		_, err = judge.Judge(context.Background(), req)
		Expect(err).NotTo(HaveOccurred())

		msgs := server.Requests()[0].JSON()["messages"].([]any)
		role := func(i int) any { return msgs[i].(map[string]any)["role"] }
		content := func(i int) any { return msgs[i].(map[string]any)["content"] }
		Expect(msgs).To(HaveLen(6))
		Expect(role(0)).To(Equal("system"))
		Expect(content(0)).To(Equal(req.SystemPrompt), "the system prompt is unchanged")
		Expect([]any{role(1), content(1)}).To(Equal([]any{"user", "water the tomatoes"}))
		Expect(role(2)).To(Equal("assistant"))
		Expect(content(2)).To(Equal(`Router decision: clarify water_beds with params {"crop":"tomato"}; offered water_beds and log_harvest. Question to the user: To use water_beds, please give greenhouse.`))
		Expect([]any{role(3), content(3)}).To(Equal([]any{"user", "(no answer)"}))
		Expect(content(4)).To(Equal("Router decision: refuse. Message: The request is empty; say what you need."))
		Expect(role(5)).To(Equal("user"))
		Expect(content(5)).To(ContainSubstring("the north greenhouse"))
	})

	It("sends the same history to anthropic, before the request", func() {
		server = newFakeProvider(func(w http.ResponseWriter, r *http.Request, n int) {
			writeJSON(w, 200, messagesToolUse("query_alerts_by_zone", `{"zone":"east","confidence":0.8}`))
		})
		judge, err := newGateway(fastOptions(server.URL)).Judge("anthropic:claude-haiku-4-5")
		Expect(err).NotTo(HaveOccurred())
		req := conversationRequest()
		_, err = judge.Judge(context.Background(), req)
		Expect(err).NotTo(HaveOccurred())
		var body struct {
			System []struct {
				Text string `json:"text"`
			} `json:"system"`
			Messages []struct {
				Role    string `json:"role"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"messages"`
		}
		Expect(json.Unmarshal(server.Requests()[0].Body, &body)).To(Succeed())
		Expect(body.System[0].Text).To(Equal(req.SystemPrompt))
		Expect(body.Messages).To(HaveLen(5))
		var roles, texts []string
		for _, m := range body.Messages {
			roles = append(roles, m.Role)
			texts = append(texts, m.Content[0].Text)
		}
		Expect(roles).To(Equal([]string{"user", "assistant", "user", "assistant", "user"}))
		Expect(texts[0]).To(Equal("water the tomatoes"))
		Expect(texts[1]).To(HavePrefix("Router decision: clarify water_beds"))
		Expect(texts[4]).To(ContainSubstring("the north greenhouse"))
	})

	It("sends a request on its own exactly as before: no history messages", func() {
		server = newFakeProvider(func(w http.ResponseWriter, r *http.Request, n int) {
			writeJSON(w, 200, chatToolCall("none", `{"confidence":0.9}`))
		})
		judge, err := newGateway(fastOptions(server.URL + "/v1")).Judge(providers.OpenAI + ":gpt-4o-mini")
		Expect(err).NotTo(HaveOccurred())
		_, err = judge.Judge(context.Background(), judgeRequest("the north greenhouse"))
		Expect(err).NotTo(HaveOccurred())
		Expect(server.Requests()[0].JSON()["messages"]).To(HaveLen(2))
	})
})
