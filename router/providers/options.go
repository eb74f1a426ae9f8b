// Package providers connects the router to real models: OpenAI-compatible
// and Anthropic judges, OpenAI-compatible and Ollama embedders. All model
// traffic of a Gateway goes through one HTTP transport stack that records
// and replays cassettes, redacts secrets, limits concurrency and request
// rate, and retries once on timeout, 429 and 5xx — so every provider obeys
// the same rules and the SDKs' own retries stay off.
package providers

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// CassetteMode says how model exchanges use the cassette store.
type CassetteMode string

const (
	// CassettesOff neither reads nor writes cassettes.
	CassettesOff CassetteMode = "off"
	// CassettesReplay answers only from the store: no network, no key; a
	// missing entry is an error naming what was asked.
	CassettesReplay CassetteMode = "replay"
	// CassettesRecord always calls the provider and stores each answer.
	CassettesRecord CassetteMode = "record"
	// CassettesAuto replays what is stored and records what is not.
	CassettesAuto CassetteMode = "auto"
)

// ParseCassetteMode accepts "", off, replay, record or auto.
func ParseCassetteMode(s string) (CassetteMode, error) {
	switch m := CassetteMode(strings.ToLower(strings.TrimSpace(s))); m {
	case "":
		return CassettesOff, nil
	case CassettesOff, CassettesReplay, CassettesRecord, CassettesAuto:
		return m, nil
	}
	return "", fmt.Errorf("cassette mode %q: use one of off, replay, record, auto", s)
}

// DefaultCassetteDir is where cassettes live unless told otherwise.
const DefaultCassetteDir = "fixtures/cassettes"

// DefaultSecretPatterns are redacted from every cassette, trace and error:
// OpenAI-style keys, bearer tokens and AWS access key ids.
var DefaultSecretPatterns = []string{
	`sk-[A-Za-z0-9_-]{16,}`,
	`(?i)bearer\s+[A-Za-z0-9._~+/=-]{8,}`,
	`AKIA[0-9A-Z]{16}`,
}

// Options configure a Gateway. The zero value is usable: Defaults fills in
// what is unset. API keys are deliberately not a field: they are read from
// the environment when a client is built and never stored or printed.
type Options struct {
	// BaseURL overrides the provider's base URL for every provider of the
	// gateway (OPENAI_BASE_URL, ANTHROPIC_BASE_URL, OLLAMA_HOST otherwise).
	// For OpenAI-compatible servers it includes the /v1 suffix
	// (http://localhost:11434/v1 for Ollama, http://localhost:8000/v1 for vLLM).
	BaseURL string
	// APIKeyEnv names the environment variable holding the key; empty means
	// the provider's usual one (OPENAI_API_KEY, ANTHROPIC_API_KEY).
	APIKeyEnv string

	Cassettes   CassetteMode
	CassetteDir string

	// RPM limits requests per minute per provider (0 = unlimited).
	RPM int
	// Concurrency limits requests in flight per provider (0 = unlimited).
	Concurrency int
	// Timeout bounds one HTTP attempt, including reading the body.
	Timeout time.Duration
	// RetryCap bounds the wait before the single retry, whatever
	// Retry-After asks for.
	RetryCap time.Duration
	// RetryBackoff is the wait before retrying a timeout or a 5xx without
	// Retry-After (still bounded by RetryCap).
	RetryBackoff time.Duration

	// Prices maps model names to USD per 1M tokens. Nil means DefaultPrices.
	Prices PriceTable
	// SecretPatterns are regexes redacted before anything is written. Nil
	// means DefaultSecretPatterns; the keys in use are always redacted too.
	SecretPatterns []string
	// ToolsOff makes judges ask for a JSON answer following the version's
	// contract schema instead of offering candidates as tools.
	ToolsOff bool
	// MaxTokens bounds a judge's answer (sent to every provider, so the
	// budget knows a call's worst case). 0 = 1024.
	MaxTokens int
	// MaxResponseBytes bounds every response body read from a provider.
	// 0 = DefaultMaxResponseBytes (16 MiB).
	MaxResponseBytes int64
	// Budget, when set, is charged with the cost of every live judge call
	// and refuses calls whose worst case would exceed it.
	Budget *Budget
}

// Defaults returns o with every unset field given its default.
func (o Options) Defaults() Options {
	if o.Cassettes == "" {
		o.Cassettes = CassettesOff
	}
	if o.CassetteDir == "" {
		o.CassetteDir = DefaultCassetteDir
	}
	if o.Timeout <= 0 {
		o.Timeout = 60 * time.Second
	}
	if o.RetryCap <= 0 {
		o.RetryCap = 30 * time.Second
	}
	if o.RetryBackoff <= 0 {
		o.RetryBackoff = time.Second
	}
	if o.Prices == nil {
		o.Prices = DefaultPrices()
	}
	if o.SecretPatterns == nil {
		o.SecretPatterns = append([]string(nil), DefaultSecretPatterns...)
	}
	if o.MaxTokens <= 0 {
		o.MaxTokens = 1024
	}
	if o.MaxResponseBytes <= 0 {
		o.MaxResponseBytes = DefaultMaxResponseBytes
	}
	return o
}

// Environment variables read by OptionsFromEnv (besides the providers' own
// OPENAI_*, ANTHROPIC_* and OLLAMA_HOST, read when a client is built).
const (
	EnvCassettes   = "ROUTEBENCH_CASSETTES"
	EnvCassetteDir = "ROUTEBENCH_CASSETTE_DIR"
	EnvRPM         = "ROUTEBENCH_RPM"
	EnvConcurrency = "ROUTEBENCH_CONCURRENCY"
	EnvTimeout     = "ROUTEBENCH_TIMEOUT"
	EnvRetryCap    = "ROUTEBENCH_RETRY_CAP"
	EnvToolsOff    = "ROUTEBENCH_TOOLS_OFF"
	EnvPrices      = "ROUTEBENCH_PRICES"
)

// OptionsFromEnv returns defaulted options with the ROUTEBENCH_* variables
// applied. Flags set by the CLI are applied on top of this.
func OptionsFromEnv() (Options, error) {
	var o Options
	var err error
	if v := os.Getenv(EnvCassettes); v != "" {
		if o.Cassettes, err = ParseCassetteMode(v); err != nil {
			return o, fmt.Errorf("%s: %w", EnvCassettes, err)
		}
	}
	o.CassetteDir = os.Getenv(EnvCassetteDir)
	if o.RPM, err = envInt(EnvRPM); err != nil {
		return o, err
	}
	if o.Concurrency, err = envInt(EnvConcurrency); err != nil {
		return o, err
	}
	if o.Timeout, err = envDuration(EnvTimeout); err != nil {
		return o, err
	}
	if o.RetryCap, err = envDuration(EnvRetryCap); err != nil {
		return o, err
	}
	if v := os.Getenv(EnvToolsOff); v != "" {
		if o.ToolsOff, err = strconv.ParseBool(v); err != nil {
			return o, fmt.Errorf("%s=%q: want true or false", EnvToolsOff, v)
		}
	}
	if v := os.Getenv(EnvPrices); v != "" {
		extra, err := ParsePrices(v)
		if err != nil {
			return o, fmt.Errorf("%s: %w", EnvPrices, err)
		}
		o.Prices = DefaultPrices().With(extra)
	}
	return o.Defaults(), nil
}

func envInt(name string) (int, error) {
	v := os.Getenv(name)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s=%q: want a whole number >= 0", name, v)
	}
	return n, nil
}

func envDuration(name string) (time.Duration, error) {
	v := os.Getenv(name)
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%s=%q: want a duration such as 30s", name, v)
	}
	return d, nil
}
