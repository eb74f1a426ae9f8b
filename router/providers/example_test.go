package providers_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"time"

	"github.com/routebench/routebench/router/providers"
)

// A gateway pointed at an OpenAI-compatible server (here a stand-in for
// Ollama's or vLLM's /v1), recording every exchange to a cassette
// directory, with a $0.50 budget the runner checks before each case.
func Example() {
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, chatToolCall("none", `{"confidence":0.9,"reason":"no skill books flights"}`))
	}))
	defer server.Close()
	dir, _ := os.MkdirTemp("", "cassettes")
	defer os.RemoveAll(dir)

	budget := providers.NewBudget(0.50)
	g, err := providers.New(providers.Options{
		BaseURL:     server.URL + "/v1",
		Cassettes:   providers.CassettesAuto,
		CassetteDir: dir,
		Concurrency: 4,
		RPM:         600,
		Timeout:     30 * time.Second,
		Budget:      budget,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	judge, err := g.Judge("openai:gpt-4o-mini")
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := budget.Check(); err != nil {
		fmt.Println("stop the run:", err)
		return
	}
	resp, err := judge.Judge(context.Background(), judgeRequest("book me a flight to Shanghai"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Raw)
	fmt.Printf("%d tokens in, %d out, $%.6f\n", resp.Usage.InputTokens, resp.Usage.OutputTokens, resp.Usage.CostUSD)
	// Output:
	// {"skill":"none","confidence":0.9,"params":{},"reason":"no skill books flights"}
	// 1200 tokens in, 30 out, $0.000198
}
