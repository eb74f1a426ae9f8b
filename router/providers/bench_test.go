package providers_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/routebench/routebench/router/providers"
)

// benchServer answers every chat completion with the same tool call.
func benchServer(b *testing.B) *httptest.Server {
	reply := chatToolCall("query_orders_by_region", `{"region":"east","start":"2026-11-23","end":"2026-11-29","confidence":0.93}`)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, reply)
	}))
	b.Cleanup(s.Close)
	return s
}

func benchJudge(b *testing.B, mode providers.CassetteMode, base, dir string) func() {
	g, err := providers.New(providers.Options{BaseURL: base, Cassettes: mode, CassetteDir: dir, APIKeyEnv: "ROUTEBENCH_BENCH_NO_KEY"})
	if err != nil {
		b.Fatal(err)
	}
	j, err := g.Judge("openai:gpt-4o-mini")
	if err != nil {
		b.Fatal(err)
	}
	req := judgeRequest("看看华东区上周的订单")
	return func() {
		if _, err := j.Judge(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJudgeLive is one judge call through the SDK, the gateway's
// transport and a local server: the overhead routebench adds to a model
// call (which itself takes hundreds of milliseconds).
func BenchmarkJudgeLive(b *testing.B) {
	call := benchJudge(b, providers.CassettesOff, benchServer(b).URL, "")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		call()
	}
}

// BenchmarkJudgeReplay is one judge call answered from a cassette, the
// cost per case of an offline CI run.
func BenchmarkJudgeReplay(b *testing.B) {
	dir := b.TempDir()
	benchJudge(b, providers.CassettesRecord, benchServer(b).URL, dir)()
	call := benchJudge(b, providers.CassettesReplay, "http://127.0.0.1:9", dir)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		call()
	}
}
