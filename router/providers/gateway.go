package providers

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/routebench/routebench/router"
)

// Provider names, the prefixes of judge and embedder specs
// ("openai:gpt-4o-mini", "anthropic:claude-haiku-4-5", "ollama:nomic-embed-text").
const (
	OpenAI    = "openai"
	Anthropic = "anthropic"
	Ollama    = "ollama"
)

// Gateway owns everything model calls share: the options, the secret
// redactor, the cassette store, and one limited transport per provider.
// Build one per run and ask it for judges and embedders; the factory that
// builds models per skill set gets the same judge back each time, so limits
// hold across the whole run.
type Gateway struct {
	opts   Options
	redact *Redactor
	store  *cassetteStore
	base   http.RoundTripper

	mu        sync.Mutex
	clients   map[string]*http.Client
	judges    map[string]router.Judge
	embedders map[string]router.EmbeddingFunc
}

// maxIdlePerHost is how many idle connections to one host are kept.
const maxIdlePerHost = 64

// New builds a gateway. Secret patterns are compiled here, so a bad
// pattern fails before any call is made.
func New(opts Options) (*Gateway, error) {
	opts = opts.Defaults()
	red, err := NewRedactor(opts.SecretPatterns, keysInEnv(opts)...)
	if err != nil {
		return nil, err
	}
	base := http.DefaultTransport
	if t, ok := base.(*http.Transport); ok {
		t = t.Clone()
		// Calls to one host run --provider-concurrency (or a run's
		// --concurrency) at once; with net/http's default of 2 idle
		// connections per host, the rest would be dialled anew each time.
		t.MaxIdleConnsPerHost = maxIdlePerHost
		base = t
	}
	return &Gateway{
		opts:      opts,
		redact:    red,
		store:     &cassetteStore{dir: opts.CassetteDir, redact: red, maxFile: 4 * opts.MaxResponseBytes},
		base:      base,
		clients:   map[string]*http.Client{},
		judges:    map[string]router.Judge{},
		embedders: map[string]router.EmbeddingFunc{},
	}, nil
}

// Options returns the gateway's options with defaults applied.
func (g *Gateway) Options() Options { return g.opts }

// Redactor returns the redactor every written text goes through, for
// callers (reports, error output) that print provider text themselves.
func (g *Gateway) Redactor() *Redactor { return g.redact }

// keysInEnv lists every API key the gateway might send, so the redactor
// removes them verbatim wherever they turn up.
func keysInEnv(o Options) []string {
	var keys []string
	for _, name := range []string{o.APIKeyEnv, "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"} {
		if name == "" {
			continue
		}
		if v := os.Getenv(name); v != "" {
			keys = append(keys, v)
		}
	}
	return keys
}

// apiKey reads the key for a provider from the environment.
func (g *Gateway) apiKey(provider string) string {
	if g.opts.APIKeyEnv != "" {
		return os.Getenv(g.opts.APIKeyEnv)
	}
	switch provider {
	case OpenAI:
		return os.Getenv("OPENAI_API_KEY")
	case Anthropic:
		return os.Getenv("ANTHROPIC_API_KEY")
	}
	return ""
}

// requireKey fails early when a hosted API would be called without a key:
// better one clear message before the run than a 401 for every case.
// Local servers (any base URL) and cassette replays need no key.
func (g *Gateway) requireKey(provider string) error {
	if provider == Ollama || g.opts.Cassettes == CassettesReplay || g.baseURL(provider) != "" || g.apiKey(provider) != "" {
		return nil
	}
	env := g.opts.APIKeyEnv
	if env == "" {
		env = map[string]string{OpenAI: "OPENAI_API_KEY", Anthropic: "ANTHROPIC_API_KEY"}[provider]
	}
	if env == "" {
		return nil
	}
	return fmt.Errorf("%s is not set: export it, point the base URL at a local server, or replay cassettes (--cassettes replay)", env)
}

// baseURL resolves a provider's base URL: the option, then the provider's
// environment variable, then empty (the SDK's default).
func (g *Gateway) baseURL(provider string) string {
	if g.opts.BaseURL != "" {
		return g.opts.BaseURL
	}
	switch provider {
	case OpenAI:
		return os.Getenv("OPENAI_BASE_URL")
	case Anthropic:
		return os.Getenv("ANTHROPIC_BASE_URL")
	case Ollama:
		return ollamaBase(os.Getenv("OLLAMA_HOST"))
	}
	return ""
}

// HTTPClient returns the client every call to a provider goes through:
// cassettes outside, then limits and the single retry, then the network.
func (g *Gateway) HTTPClient(provider string) *http.Client {
	g.mu.Lock()
	defer g.mu.Unlock()
	if c, ok := g.clients[provider]; ok {
		return c
	}
	limited := &retryTransport{
		provider: provider,
		next:     g.base,
		limits:   newLimiter(g.opts.Concurrency, g.opts.RPM),
		timeout:  g.opts.Timeout,
		backoff:  g.opts.RetryBackoff,
		retryCap: g.opts.RetryCap,
		maxBody:  g.opts.MaxResponseBytes,
		now:      time.Now,
	}
	c := &http.Client{Transport: &recorder{mode: g.opts.Cassettes, store: g.store, redact: g.redact, maxBody: g.opts.MaxResponseBytes, next: limited}}
	g.clients[provider] = c
	return c
}

// SplitSpec splits "openai:gpt-4o-mini" into provider and model.
func SplitSpec(spec string) (provider, model string, err error) {
	provider, model, ok := strings.Cut(spec, ":")
	if !ok || provider == "" || model == "" {
		return "", "", fmt.Errorf("model %q: write provider:model, e.g. openai:gpt-4o-mini", spec)
	}
	return provider, model, nil
}

// Judge returns the judge for a spec such as "openai:gpt-4o-mini" or
// "anthropic:claude-haiku-4-5", built once per gateway.
func (g *Gateway) Judge(spec string) (router.Judge, error) {
	provider, model, err := SplitSpec(spec)
	if err != nil {
		return nil, err
	}
	g.mu.Lock()
	j, ok := g.judges[spec]
	g.mu.Unlock()
	if ok {
		return j, nil
	}
	if err := g.requireKey(provider); err != nil {
		return nil, fmt.Errorf("judge %q: %w", spec, err)
	}
	switch provider {
	case OpenAI:
		j = g.NewOpenAIJudge(model)
	case Anthropic:
		j = g.NewAnthropicJudge(model)
	default:
		return nil, fmt.Errorf("judge %q: unknown provider %q; use openai:<model> or anthropic:<model>", spec, provider)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if prev, ok := g.judges[spec]; ok {
		return prev, nil
	}
	g.judges[spec] = j
	return j, nil
}

// Embedder returns the embedder for "openai:<model>" or "ollama:<model>",
// built once per gateway.
func (g *Gateway) Embedder(spec string) (router.EmbeddingFunc, error) {
	provider, model, err := SplitSpec(spec)
	if err != nil {
		return nil, err
	}
	if provider != OpenAI && provider != Ollama {
		return nil, fmt.Errorf("embedder %q: unknown provider %q; use openai:<model> or ollama:<model>", spec, provider)
	}
	if err := g.requireKey(provider); err != nil {
		return nil, fmt.Errorf("embedder %q: %w", spec, err)
	}
	g.mu.Lock()
	e, ok := g.embedders[spec]
	g.mu.Unlock()
	if ok {
		return e, nil
	}
	if e, err = g.newEmbedder(provider, model); err != nil {
		return nil, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if prev, ok := g.embedders[spec]; ok {
		return prev, nil
	}
	g.embedders[spec] = e
	return e, nil
}
