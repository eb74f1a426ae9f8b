package providers_test

import (
	"context"
	"errors"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/providers"
)

// Each server here speaks HTTP 200 with a body that is valid JSON (or
// nearly) but not an answer of the provider's documented wire format: the
// chat completions response for OpenAI, the Messages API response for
// Anthropic. Each must come back as an error (the router's provider_error),
// answered by exactly one request, and never as a panic.
var _ = Describe("Degenerate answers", func() {
	// noAnswer is the body of each table: the judge spec served under path
	// (with its key in env) answers body once, and it must be an error.
	noAnswer := func(spec, path, env, key string) func(body string, ours bool) {
		return func(body string, ours bool) {
			setenv(env, key)
			server := newFakeProvider(func(w http.ResponseWriter, r *http.Request, n int) { writeJSON(w, 200, body) })
			j, err := newGateway(fastOptions(server.URL + path)).Judge(spec)
			Expect(err).NotTo(HaveOccurred())
			var resp router.JudgeResponse
			Expect(func() { resp, err = j.Judge(context.Background(), judgeRequest("orders east")) }).NotTo(Panic())
			Expect(err).To(HaveOccurred())
			Expect(err.Error()).To(HavePrefix("judge " + spec + ": "))
			if ours {
				Expect(errors.Is(err, providers.ErrBadResponse)).To(BeTrue(), "%v", err)
			}
			Expect(resp.Raw).To(BeEmpty())
			Expect(server.Count()).To(Equal(1), "a 200 is not retried")
		}
	}

	// bad says the judge itself recognised the answer as malformed; the
	// other entries fail inside the SDK's decoder, which is just as fine.
	const bad, sdk = true, false

	DescribeTable("an OpenAI-compatible 200 that holds no answer",
		noAnswer("openai:gpt-4o-mini", "/v1", "OPENAI_API_KEY", testKey),
		Entry("null", `null`, bad),
		Entry("an empty object", `{}`, bad),
		Entry("an array", `[]`, sdk),
		Entry("a string", `"x"`, sdk),
		Entry("a number", `42`, sdk),
		Entry("null choices", `{"id":"c","object":"chat.completion","choices":null,"usage":{"prompt_tokens":5,"completion_tokens":0,"total_tokens":5}}`, bad),
		Entry("empty choices", `{"id":"c","object":"chat.completion","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":0,"total_tokens":5}}`, bad),
		Entry("a null choice", `{"id":"c","object":"chat.completion","choices":[null]}`, bad),
		Entry("a choice without a message", `{"id":"c","object":"chat.completion","choices":[{"index":0,"finish_reason":"stop"}]}`, bad),
		Entry("an empty message", `{"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":null,"tool_calls":[]}}]}`, bad),
		Entry("null tool calls and content", `{"id":"c","choices":[{"message":{"role":"assistant","content":"","tool_calls":[null]}}]}`, bad),
		Entry("negative usage", `{"id":"c","choices":[{"message":{"role":"assistant","content":"hi"}}],"usage":{"prompt_tokens":-5000000,"completion_tokens":1}}`, bad),
	)

	DescribeTable("an Anthropic 200 that holds no answer",
		noAnswer("anthropic:claude-haiku-4-5", "", "ANTHROPIC_API_KEY", "sk-ant-api03-SECRETSECRETSECRET"),
		Entry("null", `null`, bad),
		Entry("an empty object", `{}`, bad),
		Entry("an array", `[]`, sdk),
		Entry("a string", `"x"`, sdk),
		Entry("null content", `{"id":"m","type":"message","role":"assistant","content":null,"usage":{"input_tokens":5,"output_tokens":0}}`, bad),
		Entry("empty content", `{"id":"m","type":"message","role":"assistant","content":[],"usage":{"input_tokens":5,"output_tokens":0}}`, bad),
		Entry("a null block", `{"id":"m","type":"message","content":[null]}`, bad),
		Entry("an empty text block", `{"id":"m","type":"message","content":[{"type":"text","text":""}]}`, bad),
		Entry("tool_use with null input", `{"id":"m","type":"message","content":[{"type":"tool_use","id":"t","name":"query_orders_by_region","input":null}]}`, bad),
		Entry("tool_use without input", `{"id":"m","type":"message","content":[{"type":"tool_use","id":"t","name":"query_orders_by_region"}]}`, bad),
		Entry("tool_use with an array input", `{"id":"m","type":"message","content":[{"type":"tool_use","id":"t","name":"none","input":[1]}]}`, bad),
		Entry("negative cache usage", `{"id":"m","type":"message","content":[{"type":"text","text":"x"}],"usage":{"input_tokens":5,"output_tokens":1,"cache_read_input_tokens":-9}}`, bad),
	)

	It("is a provider_error decision inside the router, not a panic or a refusal", func() {
		setenv("OPENAI_API_KEY", testKey)
		server := newFakeProvider(func(w http.ResponseWriter, r *http.Request, n int) { writeJSON(w, 200, `null`) })
		rt, tools := opsRouter(server.URL + "/v1")
		var d router.Decision
		Expect(func() {
			var err error
			d, err = rt.Route(context.Background(), router.Request{
				Text: "看看华东区上周的订单", Now: testNow, Tools: tools,
				Caller: router.Caller{Scopes: []string{"orders:read", "alerts:read"}},
			})
			Expect(err).NotTo(HaveOccurred())
		}).NotTo(Panic())
		Expect(d.Action).To(Equal(router.Fail), "%+v", d)
		Expect(d.Errors).To(HaveLen(1))
		Expect(d.Errors[0].Category).To(Equal(router.CatProviderError))
		Expect(d.Errors[0].Message).To(ContainSubstring("the response body is null"))
		Expect(server.Count()).To(Equal(1), "no repair attempt for a provider failure")
	})
})
