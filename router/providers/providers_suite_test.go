package providers_test

import (
	"bytes"
	"encoding/json"
	"github.com/routebench/routebench/internal/specrun"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/providers"
	"github.com/routebench/routebench/router/registry"
)

func TestProviders(t *testing.T) {
	RegisterFailHandler(Fail)
	specrun.RunSpecs(t, "Providers Suite")
}

// testKey looks like a real OpenAI key so the default secret patterns
// match it too; the tests grep cassette files for it.
const testKey = "sk-test-SECRETSECRETSECRET0123456789"

// captured is one request a fake provider received.
type captured struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
}

// JSON decodes the captured body.
func (c captured) JSON() map[string]any {
	var m map[string]any
	ExpectWithOffset(1, json.Unmarshal(c.Body, &m)).To(Succeed(), string(c.Body))
	return m
}

// fakeProvider is a local HTTP server standing in for a provider. Each
// test's respond func writes that provider's documented wire format; n is
// the 1-based number of the request.
type fakeProvider struct {
	*httptest.Server
	mu       sync.Mutex
	requests []captured
	respond  func(w http.ResponseWriter, r *http.Request, n int)
}

func newFakeProvider(respond func(w http.ResponseWriter, r *http.Request, n int)) *fakeProvider {
	f := &fakeProvider{respond: respond}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body)) // respond may read it again
		f.mu.Lock()
		f.requests = append(f.requests, captured{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
		n := len(f.requests)
		f.mu.Unlock()
		f.respond(w, r, n)
	}))
	DeferCleanup(f.Server.Close)
	return f
}

func (f *fakeProvider) Requests() []captured {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]captured(nil), f.requests...)
}

func (f *fakeProvider) Count() int { return len(f.Requests()) }

// requestText is the user's text in a chat completions request: the
// line(s) after "User request:" in the last user message.
func requestText(r *http.Request) string {
	var body struct {
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	data, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(data, &body)
	for i := len(body.Messages) - 1; i >= 0; i-- {
		if m := body.Messages[i]; m.Role == "user" {
			_, after, _ := strings.Cut(m.Content, "User request:\n")
			text, _, _ := strings.Cut(after, "\n\n")
			return text
		}
	}
	return ""
}

func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// setenv sets an environment variable for one spec.
func setenv(name, value string) {
	old, had := os.LookupEnv(name)
	Expect(os.Setenv(name, value)).To(Succeed())
	DeferCleanup(func() {
		if had {
			os.Setenv(name, old)
		} else {
			os.Unsetenv(name)
		}
	})
}

// fastOptions keeps every wait in the tests to milliseconds.
func fastOptions(base string) providers.Options {
	return providers.Options{
		BaseURL:      base,
		Timeout:      2 * time.Second,
		RetryCap:     40 * time.Millisecond,
		RetryBackoff: 5 * time.Millisecond,
		Prices:       providers.PriceTable{"gpt-4o-mini": {InputPerM: 0.15, OutputPerM: 0.60}, "claude-haiku-4-5": {InputPerM: 1, OutputPerM: 5}},
	}
}

func newGateway(o providers.Options) *providers.Gateway {
	g, err := providers.New(o)
	Expect(err).NotTo(HaveOccurred())
	return g
}

// opsSkills are three candidates from the ops demo domain, one with a name
// that is not a valid function name so the mapping back is exercised.
func opsSkills() []*registry.Skill {
	dateRange := func(extra map[string]any) map[string]any {
		props := map[string]any{
			"start": map[string]any{"type": "string", "format": "date"},
			"end":   map[string]any{"type": "string", "format": "date"},
		}
		for k, v := range extra {
			props[k] = v
		}
		return props
	}
	return []*registry.Skill{
		{
			Name:         "query_orders_by_region",
			Description:  "Look up orders of one sales region in a date range.",
			WhenToUse:    []string{"the user wants orders of a region"},
			WhenNotToUse: []string{"alerts or logs (use query_alerts_by_zone)"},
			SideEffect:   registry.Read,
			ParamsSchema: map[string]any{
				"type":     "object",
				"required": []any{"region", "start", "end"},
				"properties": dateRange(map[string]any{"region": map[string]any{
					"type": "string", "enum": []any{"east", "south", "north", "west"},
					"x-synonyms": map[string]any{"east": []any{"华东"}},
				}}),
			},
		},
		{
			Name:        "query_alerts_by_zone",
			Description: "List monitoring alerts of one zone in a date range.",
			SideEffect:  registry.Read,
			ParamsSchema: map[string]any{
				"type":       "object",
				"required":   []any{"zone", "start", "end"},
				"properties": dateRange(map[string]any{"zone": map[string]any{"type": "string"}}),
			},
		},
		{
			Name:        "ops.restart-service",
			Description: "Restart a service.",
			SideEffect:  registry.Write,
			ParamsSchema: map[string]any{
				"type":       "object",
				"required":   []any{"service"},
				"properties": map[string]any{"service": map[string]any{"type": "string"}},
			},
		},
	}
}

var testNow = time.Date(2026, 11, 30, 10, 0, 0, 0, time.FixedZone("CST", 8*3600))

func judgeRequest(text string) router.JudgeRequest {
	return router.JudgeRequest{
		Text:         text,
		Now:          testNow,
		SystemPrompt: "You route requests of the ops team.\n\n## Limits\nAct only through the listed candidates.",
		Candidates:   opsSkills(),
		Version: &registry.Version{
			Name:        "v2",
			Fingerprint: "3f9a1c2e00000000000000000000000000000000000000000000000000000000",
			ContractRaw: []byte(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","required":["skill","confidence","params"],"properties":{"skill":{"type":"string"},"confidence":{"type":"number","minimum":0,"maximum":1},"params":{"type":"object"},"reason":{"type":"string"}}}`),
		},
	}
}

// contract decodes a Raw answer that must be contract JSON.
func contract(raw string) map[string]any {
	var m map[string]any
	ExpectWithOffset(1, json.Unmarshal([]byte(raw), &m)).To(Succeed(), raw)
	return m
}
