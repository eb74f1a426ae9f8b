package models

import (
	"sync"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/providers"
)

// Provider models from router/providers: judges openai:<model> and
// anthropic:<model>, embedders openai:<model> and ollama:<model>. They all
// share one providers.Gateway per process, so the concurrency and
// requests-per-minute limits, the cassette store and the --max-cost budget
// hold across every version and per-case tool set of a run.
func init() {
	RegisterJudge(providers.OpenAI, providerJudge(providers.OpenAI))
	RegisterJudge(providers.Anthropic, providerJudge(providers.Anthropic))
	RegisterEmbedder(providers.OpenAI, providerEmbedder(providers.OpenAI))
	RegisterEmbedder(providers.Ollama, providerEmbedder(providers.Ollama))
}

var (
	gatewayMu sync.Mutex
	gateway   *providers.Gateway
)

// ConfigureProviders sets the options (cassette mode and directory, limits,
// timeouts, prices, secret patterns, base URL, budget) that provider models
// built after this call use. The CLI calls it once after parsing its flags
// and before Factory; without it, options come from
// providers.OptionsFromEnv on first use.
func ConfigureProviders(o providers.Options) (*providers.Gateway, error) {
	g, err := providers.New(o)
	if err != nil {
		return nil, err
	}
	gatewayMu.Lock()
	gateway = g
	gatewayMu.Unlock()
	return g, nil
}

// ProviderGateway returns the shared gateway, building it from the
// environment if ConfigureProviders was not called.
func ProviderGateway() (*providers.Gateway, error) {
	gatewayMu.Lock()
	defer gatewayMu.Unlock()
	if gateway != nil {
		return gateway, nil
	}
	o, err := providers.OptionsFromEnv()
	if err != nil {
		return nil, err
	}
	g, err := providers.New(o)
	if err != nil {
		return nil, err
	}
	gateway = g
	return g, nil
}

func providerJudge(provider string) func(model string) (router.Judge, error) {
	return func(model string) (router.Judge, error) {
		g, err := ProviderGateway()
		if err != nil {
			return nil, err
		}
		return g.Judge(provider + ":" + model)
	}
}

func providerEmbedder(provider string) func(model string) (router.EmbeddingFunc, error) {
	return func(model string) (router.EmbeddingFunc, error) {
		g, err := ProviderGateway()
		if err != nil {
			return nil, err
		}
		return g.Embedder(provider + ":" + model)
	}
}
