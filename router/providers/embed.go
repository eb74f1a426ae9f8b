package providers

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	chromem "github.com/philippgille/chromem-go"

	"github.com/routebench/routebench/router"
)

// chromem-go's embedding functions build their own http.Client on
// http.DefaultTransport and take only a base URL. To put them behind the
// gateway's cassettes and limits unchanged, they are given a base URL of a
// private scheme; the default transport hands that scheme to embedRouter,
// which rewrites the URL to the real server and sends the request through
// the gateway's client.
const embedScheme = "routebench-embed"

var (
	embedOnce   sync.Once
	embedErr    error
	embedRoutes sync.Map // route id -> *embedRoute
	embedSeq    atomic.Int64
)

type embedRoute struct {
	base   *url.URL
	client *http.Client
}

type embedRouter struct{}

func (embedRouter) RoundTrip(req *http.Request) (*http.Response, error) {
	v, ok := embedRoutes.Load(req.URL.Host)
	if !ok {
		return nil, fmt.Errorf("embedder route %q is not registered", req.URL.Host)
	}
	route := v.(*embedRoute)
	u := *route.base
	u.Path = strings.TrimRight(u.Path, "/") + req.URL.Path
	u.RawPath = ""
	u.RawQuery = req.URL.RawQuery
	r := req.Clone(req.Context())
	r.URL = &u
	r.Host = ""
	return route.client.Transport.RoundTrip(r)
}

func registerEmbedScheme() error {
	embedOnce.Do(func() {
		t, ok := http.DefaultTransport.(*http.Transport)
		if !ok {
			embedErr = errors.New("http.DefaultTransport is not an *http.Transport, so chromem-go embedders cannot be routed through cassettes and limits")
			return
		}
		t.RegisterProtocol(embedScheme, embedRouter{})
	})
	return embedErr
}

// Default base URLs of the embedding providers.
const (
	defaultOpenAIBase = "https://api.openai.com/v1"
	defaultOllamaBase = "http://localhost:11434/api"
)

// ollamaBase turns OLLAMA_HOST ("127.0.0.1:11434"), a server root, or an
// OpenAI-compatible ".../v1" base into Ollama's native ".../api" base.
func ollamaBase(host string) string {
	host = strings.TrimRight(strings.TrimSpace(host), "/")
	if host == "" {
		return ""
	}
	if !strings.Contains(host, "://") {
		host = "http://" + host
	}
	host = strings.TrimSuffix(host, "/v1")
	if !strings.HasSuffix(host, "/api") {
		host += "/api"
	}
	return host
}

// newEmbedder wraps chromem-go's own embedding function for the provider:
// NewEmbeddingFuncOpenAICompat (POST {base}/embeddings, {"input","model"})
// or NewEmbeddingFuncOllama (POST {base}/embeddings, {"model","prompt"},
// Ollama's /api/embeddings endpoint in chromem-go v0.7.0).
func (g *Gateway) newEmbedder(provider, model string) (router.EmbeddingFunc, error) {
	if err := registerEmbedScheme(); err != nil {
		return nil, err
	}
	base := g.baseURL(provider)
	switch {
	case provider == Ollama && base == "":
		base = defaultOllamaBase
	case provider == Ollama:
		base = ollamaBase(base)
	case base == "":
		base = defaultOpenAIBase
	}
	u, err := url.Parse(strings.TrimRight(base, "/"))
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("embedder %s:%s: base URL %q: want http(s)://host[:port]/path", provider, model, base)
	}
	id := "r" + strconv.FormatInt(embedSeq.Add(1), 10)
	embedRoutes.Store(id, &embedRoute{base: u, client: g.HTTPClient(provider)})
	routed := embedScheme + "://" + id

	var embed chromem.EmbeddingFunc
	if provider == Ollama {
		embed = chromem.NewEmbeddingFuncOllama(model, routed)
	} else {
		embed = chromem.NewEmbeddingFuncOpenAICompat(routed, g.apiKey(OpenAI), model, nil)
	}
	name := provider + ":" + model
	return func(ctx context.Context, text string) ([]float32, error) {
		ex := &exchange{Label: text, Kind: "embedding", Model: model}
		v, err := embed(withExchange(ctx, ex), text)
		if err != nil {
			return nil, g.redact.Error(fmt.Errorf("embedder %s: %w", name, err))
		}
		return normalize(v), nil
	}, nil
}

// normalize scales v to unit length, as chromem's cosine search assumes.
// Servers differ in whether they normalize; doing it always keeps vectors
// from every server comparable. A zero vector stays zero.
func normalize(v []float32) []float32 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	out := make([]float32, len(v))
	if sum == 0 {
		return out
	}
	n := math.Sqrt(sum)
	for i, x := range v {
		out[i] = float32(float64(x) / n)
	}
	return out
}
