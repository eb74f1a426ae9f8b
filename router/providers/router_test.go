package providers_test

import (
	"context"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

// These specs put the OpenAI judge inside the real router with the ops demo
// version v2, against a local server speaking the chat completions wire
// format, and check that each kind of answer is scored as DESIGN §1 and §4
// say: a schema failure is a schema_error after one repair, a provider
// failure is a provider_error after one retry, never a refusal.
var _ = Describe("A provider judge inside the router", func() {
	var (
		server  *fakeProvider
		answers []string // the n-th request gets answers[min(n, len)-1]
		rt      *router.Router
		tools   *registry.Registry
	)
	good := chatToolCall("query_orders_by_region", `{"region":"east","start":"2026-11-23","end":"2026-11-29","confidence":0.93}`)
	broken := chatToolCall("query_orders_by_region", `{"region":"east",`)

	BeforeEach(func() {
		setenv("OPENAI_API_KEY", testKey)
		answers = []string{good}
		server = newFakeProvider(func(w http.ResponseWriter, r *http.Request, n int) {
			a := answers[min(n, len(answers))-1]
			if strings.HasPrefix(a, "status:") {
				writeJSON(w, 500, `{"error":{"message":"upstream failed"}}`)
				return
			}
			writeJSON(w, 200, a)
		})
		rt, tools = opsRouter(server.URL)
	})

	route := func(text string) router.Decision {
		d, err := rt.Route(context.Background(), router.Request{
			Text: text, Now: testNow, Tools: tools,
			Caller: router.Caller{Scopes: []string{"orders:read", "alerts:read"}},
		})
		Expect(err).NotTo(HaveOccurred())
		return d
	}
	categories := func(d router.Decision) []string {
		var out []string
		for _, e := range d.Errors {
			out = append(out, e.Category)
		}
		return out
	}

	It("executes a valid tool call with its params, usage and a redacted prompt in the trace", func() {
		d := route("看看华东区上周的订单 (token sk-live-0123456789abcdefghij)")
		Expect(d.Action).To(Equal(router.Execute), "%+v", d)
		Expect(d.Skill).To(Equal("query_orders_by_region"))
		Expect(d.Params).To(HaveKeyWithValue("region", "east"))
		Expect(d.Usage).NotTo(BeNil())
		Expect(d.Usage.InputTokens).To(Equal(1200))
		var prompts []string
		for _, s := range d.Trace {
			if s.Stage == "judge" {
				Expect(s.Provider).To(Equal("openai:gpt-4o-mini"))
				prompts = append(prompts, s.Prompt)
			}
		}
		Expect(prompts).To(HaveLen(1))
		Expect(prompts[0]).To(ContainSubstring("token [REDACTED]"))
		Expect(prompts[0]).NotTo(ContainSubstring("sk-live"))
	})

	It("repairs unparseable arguments once, sending the errors back", func() {
		answers = []string{broken, good}
		d := route("看看华东区上周的订单")
		Expect(d.Action).To(Equal(router.Execute), "%+v", d)
		Expect(server.Count()).To(Equal(2))
		Expect(server.Requests()[1].JSON()["messages"]).To(HaveLen(4))
	})

	It("scores output that stays unparseable as a schema_error, never a refusal", func() {
		answers = []string{broken}
		d := route("看看华东区上周的订单")
		Expect(d.Action).To(Equal(router.Fail))
		Expect(categories(d)).To(ConsistOf(router.CatSchemaError))
		Expect(server.Count()).To(Equal(2), "one call and exactly one repair attempt")
	})

	It("scores a provider that keeps failing as a provider_error after one retry", func() {
		answers = []string{"status:500"}
		d := route("看看华东区上周的订单")
		Expect(d.Action).To(Equal(router.Fail))
		Expect(categories(d)).To(ConsistOf(router.CatProviderError))
		Expect(server.Count()).To(Equal(2))
	})

	It("refuses on a none answer", func() {
		answers = []string{chatToolCall("none", `{"confidence":0.95,"reason":"no skill books flights"}`)}
		d := route("帮我订一张去上海的机票")
		Expect(d.Action).To(Equal(router.Refuse))
		Expect(d.Errors).To(BeEmpty())
	})

	It("rejects a skill that is not a candidate as invalid_skill and repairs an unambiguous case slip", func() {
		answers = []string{chatToolCall("delete_test_data", `{"dataset":"orders","confidence":0.99}`)}
		d := route("看看华东区上周的订单")
		Expect(d.Action).To(Equal(router.Fail), "never acted on, and never a refusal")
		Expect(categories(d)).To(ConsistOf(router.CatSchemaError))
		Expect(d.Errors[0].Rule).To(Equal(router.RuleInvalidSkill))

		answers = []string{chatToolCall("Query_Orders_By_Region", `{"region":"east","start":"2026-11-23","end":"2026-11-29","confidence":0.93}`)}
		server.mu.Lock()
		server.requests = nil
		server.mu.Unlock()
		d = route("看看华东区上周的订单")
		Expect(d.Skill).To(Equal("query_orders_by_region"))
		Expect(d.Action).To(Equal(router.Execute), "%+v", d)
	})
})

// opsRouter is the ops demo version v2 routing through the OpenAI judge at
// base, with two per-case tools. A constant embedder makes recall rank
// nothing, so both tools reach the judge and the judge alone decides.
func opsRouter(base string) (*router.Router, *registry.Registry) {
	judge, err := newGateway(fastOptions(base)).Judge("openai:gpt-4o-mini")
	Expect(err).NotTo(HaveOccurred())
	return opsRouterWith(judge)
}
