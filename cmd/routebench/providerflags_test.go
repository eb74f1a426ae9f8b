package main

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/internal/exitcode"
)

// The server speaks OpenAI's documented chat completions wire format: a
// tool call of the explicit "none" tool, with a usage block that makes each
// call cost $0.15 at gpt-4o-mini's default price (1M input tokens).
func TestRunMaxCostStopsCleanlyBeforeTheBudget(t *testing.T) {
	g := NewWithT(t)
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o-mini",
"choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,
"tool_calls":[{"id":"call_1","type":"function","function":{"name":"none","arguments":"{\"confidence\":0.9,\"reason\":\"no fit\"}"}}]}}],
"usage":{"prompt_tokens":1000000,"completion_tokens":0,"total_tokens":1000000}}`))
	}))
	defer srv.Close()
	t.Setenv("OPENAI_API_KEY", "sk-test-not-a-key")
	t.Setenv("ROUTEBENCH_CASSETTES", "off")
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := runCLI("run", "--config", "../../routebench.yaml", "--versions", "../../fixtures/ops/prompts/v2",
		"--suites", "../../suites/ops/normal.yaml", "--judge", "openai:gpt-4o-mini", "--base-url", srv.URL+"/v1",
		"--concurrency", "1", "--max-cost", "0.5", "--out", out)
	g.Expect(code).To(Equal(exitcode.RunError), stderr)
	g.Expect(stderr).To(ContainSubstring("stopped before exceeding --max-cost"))
	g.Expect(calls.Load()).To(BeNumerically("<=", 3), "0.15 per call: a fourth call could pass 0.50")
	results, err := harness.ReadResults(filepath.Join(out, harness.ResultsFile))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(results).NotTo(BeEmpty(), "finished cases are kept")
	g.Expect(len(results)).To(BeNumerically("<", 120))
	for _, r := range results {
		g.Expect(harness.IsProviderError(r.Decision)).To(BeFalse(), "the budget stops the run; it does not turn cases into provider errors")
	}
}

func TestProviderFlagsRejectBadValues(t *testing.T) {
	g := NewWithT(t)
	for _, args := range [][]string{
		{"route", "--version", "../../fixtures/ops/prompts/v2", "--cassettes", "sometimes", "hi"},
		{"route", "--version", "../../fixtures/ops/prompts/v2", "--max-cost", "-1", "hi"},
		{"route", "--version", "../../fixtures/ops/prompts/v2", "--prices", "gpt=abc", "hi"},
	} {
		code, _, stderr := runCLI(args...)
		g.Expect(code).To(Equal(exitcode.Usage), "%v: %s", args, stderr)
	}
}
