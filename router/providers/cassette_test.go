package providers_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/providers"
)

// Secrets that must never be written: one in the Authorization header (the
// key), one pasted into the user's text, one echoed back by the model.
const (
	promptSecret   = "AKIAIOSFODNN7EXAMPLE"
	responseSecret = "sk-proj-abcdefghijklmnopqrstuvwx"
)

// readDir returns every cassette file's content, by name.
func readDir(dir string) map[string]string {
	out := map[string]string{}
	entries, err := os.ReadDir(dir)
	Expect(err).NotTo(HaveOccurred())
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		Expect(err).NotTo(HaveOccurred())
		out[e.Name()] = string(data)
	}
	return out
}

// The server speaks the OpenAI chat completions wire format; the model's
// arguments echo a secret so redaction of responses is exercised too.
var _ = Describe("Cassettes", func() {
	var server *fakeProvider
	var dir string
	text := "send the deploy key " + promptSecret + " to ops on slack"

	BeforeEach(func() {
		setenv("OPENAI_API_KEY", testKey)
		dir = GinkgoT().TempDir()
		server = newFakeProvider(func(w http.ResponseWriter, r *http.Request, n int) {
			writeJSON(w, 200, chatToolCall("query_orders_by_region", `{"region":"east","note":"`+responseSecret+`","confidence":0.9}`))
		})
	})

	judgeWith := func(mode providers.CassetteMode, d string) router.Judge {
		o := fastOptions(server.URL)
		o.Cassettes, o.CassetteDir = mode, d
		j, err := newGateway(o).Judge("openai:gpt-4o-mini")
		Expect(err).NotTo(HaveOccurred())
		return j
	}

	It("replays a recorded run byte for byte with the server down and no key", func() {
		recorded, err := judgeWith(providers.CassettesRecord, dir).Judge(context.Background(), judgeRequest(text))
		Expect(err).NotTo(HaveOccurred())
		Expect(server.Count()).To(Equal(1))
		server.Close()
		setenv("OPENAI_API_KEY", "")

		replayed, err := judgeWith(providers.CassettesReplay, dir).Judge(context.Background(), judgeRequest(text))
		Expect(err).NotTo(HaveOccurred())
		a, _ := json.Marshal(recorded)
		b, _ := json.Marshal(replayed)
		Expect(string(b)).To(Equal(string(a)))
		Expect(replayed.Usage.InputTokens).To(Equal(1200))
	})

	It("writes one pretty, deterministic file per exchange, named by its content hash", func() {
		other := GinkgoT().TempDir()
		_, err := judgeWith(providers.CassettesRecord, dir).Judge(context.Background(), judgeRequest(text))
		Expect(err).NotTo(HaveOccurred())
		_, err = judgeWith(providers.CassettesRecord, other).Judge(context.Background(), judgeRequest(text))
		Expect(err).NotTo(HaveOccurred())

		files := readDir(dir)
		Expect(files).To(HaveLen(1))
		Expect(readDir(other)).To(Equal(files), "recording twice writes the same bytes")
		for name, content := range files {
			Expect(name).To(MatchRegexp(`^[0-9a-f]{64}\.json$`))
			Expect(content).To(ContainSubstring("\n  \"request\": {"))
			var entry map[string]any
			Expect(json.Unmarshal([]byte(content), &entry)).To(Succeed())
			Expect(entry["fingerprint"]).To(Equal(judgeRequest(text).Version.Fingerprint))
			Expect(entry["model"]).To(Equal("gpt-4o-mini"))
			Expect(strings.TrimSuffix(name, ".json")).To(Equal(entry["key"]))
		}
	})

	It("keys on the version fingerprint: another version misses", func() {
		_, err := judgeWith(providers.CassettesRecord, dir).Judge(context.Background(), judgeRequest(text))
		Expect(err).NotTo(HaveOccurred())
		req := judgeRequest(text)
		req.Version.Fingerprint = "0000"
		_, err = judgeWith(providers.CassettesReplay, dir).Judge(context.Background(), req)
		Expect(errors.Is(err, providers.ErrCassetteMissing)).To(BeTrue())
	})

	It("fails a replay with no entry, naming the case text, without calling the server", func() {
		_, err := judgeWith(providers.CassettesReplay, dir).Judge(context.Background(), judgeRequest("看看华南区本月退款的订单"))
		Expect(err).To(HaveOccurred())
		Expect(errors.Is(err, providers.ErrCassetteMissing)).To(BeTrue())
		Expect(err.Error()).To(ContainSubstring(`"看看华南区本月退款的订单"`))
		Expect(err.Error()).To(ContainSubstring("--cassettes record or auto"))
		Expect(server.Count()).To(Equal(0))
	})

	It("redacts secrets from a missing-entry error too", func() {
		_, err := judgeWith(providers.CassettesReplay, dir).Judge(context.Background(), judgeRequest(text))
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).NotTo(ContainSubstring(promptSecret))
		Expect(err.Error()).To(ContainSubstring(providers.Redacted))
	})

	It("in auto mode calls once and replays afterwards", func() {
		j := judgeWith(providers.CassettesAuto, dir)
		first, err := j.Judge(context.Background(), judgeRequest(text))
		Expect(err).NotTo(HaveOccurred())
		second, err := j.Judge(context.Background(), judgeRequest(text))
		Expect(err).NotTo(HaveOccurred())
		Expect(server.Count()).To(Equal(1))
		Expect(second).To(Equal(first))
	})

	It("does not charge the budget for replays", func() {
		_, err := judgeWith(providers.CassettesRecord, dir).Judge(context.Background(), judgeRequest(text))
		Expect(err).NotTo(HaveOccurred())
		o := fastOptions(server.URL)
		o.Cassettes, o.CassetteDir, o.Budget = providers.CassettesReplay, dir, providers.NewBudget(1)
		j, err := newGateway(o).Judge("openai:gpt-4o-mini")
		Expect(err).NotTo(HaveOccurred())
		resp, err := j.Judge(context.Background(), judgeRequest(text))
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Usage.CostUSD).To(BeNumerically(">", 0), "the recorded usage is still reported")
		Expect(o.Budget.Spent()).To(BeZero())
	})

	It("records only successful answers", func() {
		server.respond = func(w http.ResponseWriter, r *http.Request, n int) {
			writeJSON(w, 400, `{"error":{"message":"bad request"}}`)
		}
		_, err := judgeWith(providers.CassettesRecord, dir).Judge(context.Background(), judgeRequest(text))
		Expect(err).To(HaveOccurred())
		Expect(readDir(dir)).To(BeEmpty())
	})

	It("never writes the key, the Authorization header or secret-looking text", func() {
		resp, err := judgeWith(providers.CassettesRecord, dir).Judge(context.Background(), judgeRequest(text))
		Expect(err).NotTo(HaveOccurred())
		Expect(server.Requests()[0].Header.Get("Authorization")).To(Equal("Bearer "+testKey), "the provider did get the key")
		Expect(string(server.Requests()[0].Body)).To(ContainSubstring(promptSecret), "and the user's text as written")

		files := readDir(dir)
		Expect(files).NotTo(BeEmpty())
		for name, content := range files {
			for _, secret := range []string{testKey, promptSecret, responseSecret, "Bearer", "Authorization"} {
				Expect(content).NotTo(ContainSubstring(secret), "cassette %s leaks %q", name, secret)
			}
			Expect(content).To(ContainSubstring(providers.Redacted))
		}
		trace, _ := json.Marshal(resp)
		for _, secret := range []string{testKey, promptSecret, responseSecret} {
			Expect(string(trace)).NotTo(ContainSubstring(secret), "the judge response (trace) leaks %q", secret)
		}
		Expect(resp.Prompt).To(ContainSubstring("send the deploy key " + providers.Redacted))
	})

	It("redacts configured patterns and keys from other variables", func() {
		setenv("MY_GATEWAY_KEY", "gw-0123456789abcdef")
		o := fastOptions(server.URL)
		o.Cassettes, o.CassetteDir = providers.CassettesRecord, dir
		o.APIKeyEnv = "MY_GATEWAY_KEY"
		o.SecretPatterns = []string{`ticket-secret-\d+`}
		j, err := newGateway(o).Judge("openai:gpt-4o-mini")
		Expect(err).NotTo(HaveOccurred())
		_, err = j.Judge(context.Background(), judgeRequest("look at ticket-secret-42 and gw-0123456789abcdef"))
		Expect(err).NotTo(HaveOccurred())
		Expect(server.Requests()[0].Header.Get("Authorization")).To(Equal("Bearer gw-0123456789abcdef"))
		for _, content := range readDir(dir) {
			Expect(content).NotTo(ContainSubstring("ticket-secret-42"))
			Expect(content).NotTo(ContainSubstring("gw-0123456789abcdef"))
		}
	})
})

// decodedStrings lists every key and string of a JSON document, decoding
// JSON held in strings too (a tool call's arguments), as a reader of the
// cassette would see them after json.Unmarshal.
func decodedStrings(data []byte) []string {
	var v any
	if json.Unmarshal(data, &v) != nil {
		return []string{string(data)}
	}
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch t := v.(type) {
		case string:
			out = append(out, t)
			var inner any
			if json.Unmarshal([]byte(t), &inner) == nil {
				walk(inner)
			}
		case map[string]any:
			for k, val := range t {
				out = append(out, k)
				walk(val)
			}
		case []any:
			for _, val := range t {
				walk(val)
			}
		}
	}
	walk(v)
	return out
}

// The server speaks the chat completions wire format and echoes the key
// it was sent, spelled with JSON escapes a byte-level redaction misses.
var _ = Describe("Cassettes and escaped secrets", func() {
	DescribeTable("never write a key the model echoed, however the JSON spells it",
		func(keyEnv, key, echoedArgs string) {
			setenv(keyEnv, key)
			dir := GinkgoT().TempDir()
			server := newFakeProvider(func(w http.ResponseWriter, r *http.Request, n int) {
				// Built by hand: json.Marshal would undo the escapes.
				writeJSON(w, 200, `{"id":"c","object":"chat.completion","created":1,"model":"gpt-4o-mini",
"choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,
"tool_calls":[{"id":"call_1","type":"function","function":{"name":"query_orders_by_region","arguments":"`+echoedArgs+`"}}]}}],
"usage":{"prompt_tokens":10,"completion_tokens":3,"total_tokens":13}}`)
			})
			o := fastOptions(server.URL)
			o.Cassettes, o.CassetteDir, o.APIKeyEnv = providers.CassettesRecord, dir, keyEnv
			j, err := newGateway(o).Judge("openai:gpt-4o-mini")
			Expect(err).NotTo(HaveOccurred())
			resp, err := j.Judge(context.Background(), judgeRequest("orders east"))
			Expect(err).NotTo(HaveOccurred())

			files := readDir(dir)
			Expect(files).To(HaveLen(1))
			for name, content := range files {
				Expect(content).NotTo(ContainSubstring(key), "cassette %s has the key as written", name)
				for _, s := range decodedStrings([]byte(content)) {
					Expect(s).NotTo(ContainSubstring(key), "cassette %s has the key once decoded", name)
				}
				Expect(content).To(ContainSubstring(providers.Redacted))
			}
			Expect(resp.Raw).NotTo(ContainSubstring(key))
			for _, s := range decodedStrings([]byte(resp.Raw)) {
				Expect(s).NotTo(ContainSubstring(key), "the trace has the key once decoded")
			}
		},
		Entry("an escaped dash", "OPENAI_API_KEY", testKey,
			`{\"note\":\"sk\\u002dtest-SECRETSECRETSECRET0123456789\",\"confidence\":0.9}`),
		Entry("escaped letters", "OPENAI_API_KEY", testKey,
			`{\"note\":\"\\u0073\\u006b-test-\\u0053ECRETSECRETSECRET0123456789\",\"confidence\":0.9}`),
		Entry("an escaped slash in a gateway key", "MY_GATEWAY_KEY", "gw/0123456789abcdef",
			`{\"note\":\"gw\\\/0123456789abcdef\",\"confidence\":0.9}`),
		Entry("escapes in the arguments string itself", "OPENAI_API_KEY", testKey,
			`{\"note\":\"sk\u002dtest-SECRETSECRETSECRET0123456789\",\"confidence\":0.9}`),
	)

	It("refuses to write (and fails the call) when a configured pattern cannot be applied to the decoded text", func() {
		// A pattern that spans JSON syntax matches the encoded file but no
		// decoded string, so redaction cannot remove it: the store refuses.
		setenv("OPENAI_API_KEY", testKey)
		dir := GinkgoT().TempDir()
		server := newFakeProvider(func(w http.ResponseWriter, r *http.Request, n int) {
			writeJSON(w, 200, chatText(`ok`))
		})
		o := fastOptions(server.URL)
		o.Cassettes, o.CassetteDir = providers.CassettesRecord, dir
		o.SecretPatterns = []string{`"content":\s*"ok"`}
		j, err := newGateway(o).Judge("openai:gpt-4o-mini")
		Expect(err).NotTo(HaveOccurred())
		_, err = j.Judge(context.Background(), judgeRequest("orders east"))
		Expect(errors.Is(err, providers.ErrSecretInCassette)).To(BeTrue(), "%v", err)
		Expect(readDir(dir)).To(BeEmpty())
	})
})
