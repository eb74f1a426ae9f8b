package providers_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/providers"
	"github.com/routebench/routebench/router/registry"
)

// openAIEmbeddings is the OpenAI embeddings response (POST /v1/embeddings)
// as documented in the Embeddings API reference.
const openAIEmbeddings = `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[3,0,4]}],"model":"text-embedding-3-small","usage":{"prompt_tokens":5,"total_tokens":5}}`

// ollamaEmbeddings is Ollama's POST /api/embeddings response
// ({"model","prompt"} in, {"embedding": [...]} out), the endpoint
// chromem-go v0.7.0's NewEmbeddingFuncOllama calls.
const ollamaEmbeddings = `{"embedding":[0,6,8]}`

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

var _ = Describe("Embedders through chromem-go", func() {
	It("embeds with the OpenAI embeddings API and normalizes", func() {
		setenv("OPENAI_API_KEY", testKey)
		server := newFakeProvider(func(w http.ResponseWriter, r *http.Request, n int) { writeJSON(w, 200, openAIEmbeddings) })
		embed, err := newGateway(fastOptions(server.URL + "/v1")).Embedder("openai:text-embedding-3-small")
		Expect(err).NotTo(HaveOccurred())
		v, err := embed(context.Background(), "华东区订单")
		Expect(err).NotTo(HaveOccurred())
		Expect(v).To(Equal([]float32{0.6, 0, 0.8}))

		reqs := server.Requests()
		Expect(reqs).To(HaveLen(1))
		Expect(reqs[0].Path).To(Equal("/v1/embeddings"))
		Expect(reqs[0].Header.Get("Authorization")).To(Equal("Bearer " + testKey))
		Expect(reqs[0].JSON()).To(Equal(map[string]any{"input": "华东区订单", "model": "text-embedding-3-small"}))
	})

	It("embeds with Ollama's native API and normalizes", func() {
		server := newFakeProvider(func(w http.ResponseWriter, r *http.Request, n int) { writeJSON(w, 200, ollamaEmbeddings) })
		// An OpenAI-style /v1 base (shared with an Ollama judge) still finds /api.
		embed, err := newGateway(fastOptions(server.URL + "/v1")).Embedder("ollama:nomic-embed-text")
		Expect(err).NotTo(HaveOccurred())
		v, err := embed(context.Background(), "restart the gateway")
		Expect(err).NotTo(HaveOccurred())
		Expect(norm(v)).To(BeNumerically("~", 1, 1e-6))
		Expect(v[1]).To(BeNumerically("~", 0.6, 1e-6))

		reqs := server.Requests()
		Expect(reqs[0].Path).To(Equal("/api/embeddings"))
		Expect(reqs[0].JSON()).To(Equal(map[string]any{"model": "nomic-embed-text", "prompt": "restart the gateway"}))
	})

	It("reads OLLAMA_HOST when no base URL is given", func() {
		server := newFakeProvider(func(w http.ResponseWriter, r *http.Request, n int) { writeJSON(w, 200, ollamaEmbeddings) })
		setenv("OLLAMA_HOST", server.Listener.Addr().String())
		embed, err := newGateway(fastOptions("")).Embedder("ollama:nomic-embed-text")
		Expect(err).NotTo(HaveOccurred())
		_, err = embed(context.Background(), "x")
		Expect(err).NotTo(HaveOccurred())
		Expect(server.Count()).To(Equal(1))
	})

	It("shares the retry rules: a 500 twice is exactly 2 requests and an error", func() {
		server := newFakeProvider(func(w http.ResponseWriter, r *http.Request, n int) { writeJSON(w, 500, `{"error":"boom"}`) })
		embed, err := newGateway(fastOptions(server.URL)).Embedder("ollama:nomic-embed-text")
		Expect(err).NotTo(HaveOccurred())
		_, err = embed(context.Background(), "x")
		Expect(err).To(MatchError(ContainSubstring("500")))
		Expect(err.Error()).To(ContainSubstring("embedder ollama:nomic-embed-text"))
		Expect(server.Count()).To(Equal(2))
	})

	It("replays recorded embeddings with the server down", func() {
		dir := GinkgoT().TempDir()
		server := newFakeProvider(func(w http.ResponseWriter, r *http.Request, n int) { writeJSON(w, 200, openAIEmbeddings) })
		o := fastOptions(server.URL + "/v1")
		o.Cassettes, o.CassetteDir = providers.CassettesRecord, dir
		embed, err := newGateway(o).Embedder("openai:text-embedding-3-small")
		Expect(err).NotTo(HaveOccurred())
		recorded, err := embed(context.Background(), "alerts in the east zone")
		Expect(err).NotTo(HaveOccurred())
		server.Close()

		o.Cassettes = providers.CassettesReplay
		embed, err = newGateway(o).Embedder("openai:text-embedding-3-small")
		Expect(err).NotTo(HaveOccurred())
		replayed, err := embed(context.Background(), "alerts in the east zone")
		Expect(err).NotTo(HaveOccurred())
		Expect(replayed).To(Equal(recorded))

		_, err = embed(context.Background(), "never embedded")
		Expect(errors.Is(err, providers.ErrCassetteMissing)).To(BeTrue())
		Expect(err.Error()).To(ContainSubstring(`embedding "never embedded"`))
	})

	// vector is an OpenAI embeddings answer holding one vector per size.
	vectors := func(sizes ...int) string {
		var data []string
		for i, n := range sizes {
			v := make([]string, n)
			for k := range v {
				v[k] = "0.5"
			}
			data = append(data, fmt.Sprintf(`{"object":"embedding","index":%d,"embedding":[%s]}`, i, strings.Join(v, ",")))
		}
		return `{"object":"list","data":[` + strings.Join(data, ",") + `],"model":"m","usage":{"prompt_tokens":1,"total_tokens":1}}`
	}

	It("fails, naming both sizes, when a later answer has another size", func() {
		server := newFakeProvider(func(w http.ResponseWriter, r *http.Request, n int) {
			writeJSON(w, 200, vectors([]int{512, 768}[min(n, 2)-1]))
		})
		embed, err := newGateway(fastOptions(server.URL + "/v1")).Embedder("openai:text-embedding-3-small")
		Expect(err).NotTo(HaveOccurred())
		v, err := embed(context.Background(), "first")
		Expect(err).NotTo(HaveOccurred())
		Expect(v).To(HaveLen(512))
		_, err = embed(context.Background(), "second")
		Expect(errors.Is(err, providers.ErrBadResponse)).To(BeTrue(), "%v", err)
		Expect(err.Error()).To(HavePrefix("embedder openai:text-embedding-3-small: "))
		Expect(err.Error()).To(ContainSubstring("768 dimensions, but earlier answers had 512"))
	})

	It("fails, naming both sizes, when one answer holds vectors of two sizes", func() {
		server := newFakeProvider(func(w http.ResponseWriter, r *http.Request, n int) { writeJSON(w, 200, vectors(512, 768)) })
		embed, err := newGateway(fastOptions(server.URL + "/v1")).Embedder("openai:text-embedding-3-small")
		Expect(err).NotTo(HaveOccurred())
		_, err = embed(context.Background(), "x")
		Expect(errors.Is(err, providers.ErrBadResponse)).To(BeTrue(), "%v", err)
		Expect(err.Error()).To(ContainSubstring("one answer holds vectors of 512 and 768 dimensions"))
	})

	It("makes mixed sizes a provider_error of the router, not a failed judge", func() {
		setenv("OPENAI_API_KEY", testKey)
		// The skills' texts embed to 8 dimensions, the request to 12: the
		// index builds, the query cannot be compared with it.
		const query = "看看华东区上周的订单"
		server := newFakeProvider(func(w http.ResponseWriter, r *http.Request, n int) {
			if r.URL.Path == "/v1/embeddings" {
				var in struct{ Input string }
				_ = json.NewDecoder(r.Body).Decode(&in)
				writeJSON(w, 200, vectors(map[bool]int{false: 8, true: 12}[in.Input == query]))
				return
			}
			writeJSON(w, 200, chatToolCall("query_orders_by_region", `{"region":"east","start":"2026-11-23","end":"2026-11-29","confidence":0.93}`))
		})
		g := newGateway(fastOptions(server.URL + "/v1"))
		embed, err := g.Embedder("openai:text-embedding-3-small")
		Expect(err).NotTo(HaveOccurred())
		judge, err := g.Judge("openai:gpt-4o-mini")
		Expect(err).NotTo(HaveOccurred())
		v, err := registry.Load("../../fixtures/ops/prompts/v2")
		Expect(err).NotTo(HaveOccurred())
		rt, err := router.New(v, func(*registry.Version, *registry.Registry) (router.Models, error) {
			return router.Models{Judge: judge, Embedder: router.EmbeddingFunc(embed), EmbedderName: "openai:text-embedding-3-small"}, nil
		})
		Expect(err).NotTo(HaveOccurred())
		var d router.Decision
		Expect(func() {
			d, err = rt.Route(context.Background(), router.Request{Text: query, Now: testNow,
				Caller: router.Caller{Scopes: []string{"orders:read", "alerts:read"}}})
		}).NotTo(Panic())
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Action).To(Equal(router.Fail), "%+v", d)
		Expect(d.Errors).To(HaveLen(1))
		Expect(d.Errors[0].Category).To(Equal(router.CatProviderError))
		Expect(d.Errors[0].Message).To(ContainSubstring("12 dimensions, but earlier answers had 8"))
	})

	It("rejects providers without an embeddings API", func() {
		_, err := newGateway(fastOptions("")).Embedder("anthropic:claude-haiku-4-5")
		Expect(err).To(MatchError(ContainSubstring("use openai:<model> or ollama:<model>")))
	})
})
