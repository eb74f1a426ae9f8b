package providers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	base    *url.URL
	client  *http.Client
	maxBody int64
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
	resp, err := route.client.Transport.RoundTrip(r)
	if err != nil || resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp, err
	}
	// chromem-go keeps only the first vector of an answer and cannot say
	// what else it held; read the sizes of all of them here, for the
	// embedder to check (the body is already buffered and bounded below).
	data, err := readBody(resp.Body, route.maxBody)
	resp.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("read embedding response: %w", err)
	}
	exchangeFrom(req.Context()).noteDims(vectorSizes(data))
	resp.Body = io.NopCloser(bytes.NewReader(data))
	resp.ContentLength = int64(len(data))
	return resp, nil
}

// vectorSizes lists the length of every vector in an OpenAI embeddings
// answer ({"data":[{"embedding":[...]}, ...]}) or an Ollama one
// ({"embedding":[...]}); nil when the body is neither.
func vectorSizes(body []byte) []int {
	var v struct {
		Data []struct {
			Embedding []json.RawMessage `json:"embedding"`
		} `json:"data"`
		Embedding []json.RawMessage `json:"embedding"`
	}
	if json.Unmarshal(body, &v) != nil {
		return nil
	}
	var sizes []int
	for _, d := range v.Data {
		sizes = append(sizes, len(d.Embedding))
	}
	if v.Embedding != nil {
		sizes = append(sizes, len(v.Embedding))
	}
	return sizes
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
	embedRoutes.Store(id, &embedRoute{base: u, client: g.HTTPClient(provider), maxBody: g.opts.MaxResponseBytes})
	routed := embedScheme + "://" + id

	var embed chromem.EmbeddingFunc
	if provider == Ollama {
		embed = chromem.NewEmbeddingFuncOllama(model, routed)
	} else {
		embed = chromem.NewEmbeddingFuncOpenAICompat(routed, g.apiKey(OpenAI), model, nil)
	}
	name := provider + ":" + model
	// dims is the size of the first vector this embedder returned: every
	// vector of one recall index must have it, or chromem's cosine fails
	// deep inside a query with a message that names neither model nor size.
	var dims atomic.Int64
	return func(ctx context.Context, text string) ([]float32, error) {
		ex := &exchange{Label: text, Kind: "embedding", Model: model}
		v, err := guard(name, func() ([]float32, error) { return embed(withExchange(ctx, ex), text) })
		if err == nil {
			err = checkDims(ex.vectorSizes(), len(v), &dims)
		}
		if err != nil {
			return nil, g.redact.Error(fmt.Errorf("embedder %s: %w", name, err))
		}
		return normalize(v), nil
	}, nil
}

// checkDims holds every vector of one embedder to one size: within one
// answer (sizes, all its vectors) and across answers (the first size
// seen, kept in dims).
func checkDims(sizes []int, got int, dims *atomic.Int64) error {
	for _, n := range sizes {
		if n != sizes[0] {
			return badResponse("one answer holds vectors of %d and %d dimensions", sizes[0], n)
		}
	}
	if got == 0 {
		return badResponse("the answer holds an empty vector")
	}
	if dims.CompareAndSwap(0, int64(got)) {
		return nil
	}
	if want := dims.Load(); int64(got) != want {
		return badResponse("a vector of %d dimensions, but earlier answers had %d; one index needs one size: check the model name and that every server behind the base URL runs the same model", got, want)
	}
	return nil
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
