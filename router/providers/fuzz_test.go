package providers

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/openai/openai-go/v3"

	"github.com/routebench/routebench/router/registry"
)

// Fuzz targets for everything that reads what a provider sent. Seeds live
// in testdata/fuzz/<Target>/ and in the f.Add calls; run one with
//
//	go test -run '^$' -fuzz '^FuzzOpenAIResponse$' -fuzztime 20s ./router/providers/
//
// Each asserts, for every input: no panic; an error wraps ErrBadResponse
// (or comes from the SDK's decoder); a success is a well-formed answer.

func fuzzTools() toolSet {
	return buildTools([]*registry.Skill{
		{Name: "query_orders_by_region", ParamsSchema: map[string]any{"type": "object", "properties": map[string]any{"region": map[string]any{"type": "string"}}}},
		{Name: "ops.restart-service", ParamsSchema: map[string]any{"type": "object", "properties": map[string]any{"confidence": map[string]any{"type": "string"}}}},
	})
}

// checkAnswer holds for every successful parse: usage is not negative,
// and an answer made from tool arguments is contract JSON.
func checkAnswer(t *testing.T, a answer, err error, fromTool bool) {
	t.Helper()
	if err != nil {
		if a.Raw != "" {
			t.Fatalf("an error (%v) with an answer %q", err, a.Raw)
		}
		return
	}
	if !a.Decoded || a.In < 0 || a.Out < 0 {
		t.Fatalf("success with decoded=%v in=%d out=%d", a.Decoded, a.In, a.Out)
	}
	if a.Raw == "" {
		t.Fatalf("success with an empty answer")
	}
	if fromTool {
		checkContract(t, a.Raw)
	}
}

// checkContract: a tool call turned into an answer is a JSON object with
// a string skill and an object of params.
func checkContract(t *testing.T, raw string) {
	t.Helper()
	var c struct {
		Skill  *string         `json:"skill"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal([]byte(raw), &c); err != nil || c.Skill == nil || !strings.HasPrefix(string(c.Params), "{") {
		t.Fatalf("tool answer %q is not contract JSON (err %v)", raw, err)
	}
}

func FuzzOpenAIResponse(f *testing.F) {
	f.Add([]byte(`{"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"t","type":"function","function":{"name":"query_orders_by_region","arguments":"{\"region\":\"east\",\"confidence\":0.9}"}}]}}],"usage":{"prompt_tokens":12,"completion_tokens":3}}`))
	f.Add([]byte(`{"choices":[{"message":{"content":"{\"skill\":\"none\",\"confidence\":0.5,\"params\":{}}"}}]}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"choices":[null]}`))
	f.Add([]byte(`{"choices":[{"message":{"tool_calls":[{"function":{"name":"none","arguments":"null"}}]}}],"usage":{"prompt_tokens":-1}}`))
	tools := fuzzTools()
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, toolsOff := range []bool{false, true} {
			resp, err := decodeLikeSDK[openai.ChatCompletion](body)
			if err != nil {
				continue // the SDK's own error, returned to the router as it is
			}
			a, err := openAIResult(resp, tools, toolsOff)
			if err != nil && !errors.Is(err, ErrBadResponse) {
				t.Fatalf("error %v does not wrap ErrBadResponse", err)
			}
			fromTool := false
			if err == nil && !toolsOff && len(resp.Choices) > 0 {
				for _, tc := range resp.Choices[0].Message.ToolCalls {
					if tc.Function.Name != "" {
						fromTool = json.Valid([]byte(tc.Function.Arguments)) && strings.HasPrefix(strings.TrimSpace(tc.Function.Arguments), "{")
						break
					}
				}
			}
			checkAnswer(t, a, err, fromTool)
			again, err2 := openAIResult(resp, tools, toolsOff)
			if !reflect.DeepEqual(a, again) || (err == nil) != (err2 == nil) {
				t.Fatalf("two parses of one body differ")
			}
		}
	})
}

func FuzzAnthropicResponse(f *testing.F) {
	f.Add([]byte(`{"id":"m","type":"message","role":"assistant","content":[{"type":"text","text":"Routing."},{"type":"tool_use","id":"t","name":"query_orders_by_region","input":{"region":"east","confidence":0.8}}],"usage":{"input_tokens":10,"output_tokens":4,"cache_read_input_tokens":2}}`))
	f.Add([]byte(`{"content":[{"type":"text","text":"I am not sure."}]}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"content":[]}`))
	f.Add([]byte(`{"content":[{"type":"tool_use","name":"none","input":null}]}`))
	f.Add([]byte(`{"content":[{"type":"tool_use","name":"none","input":{"confidence":1,"reason":"x"}}],"usage":{"input_tokens":5,"cache_creation_input_tokens":-9}}`))
	tools := fuzzTools()
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, toolsOff := range []bool{false, true} {
			msg, err := decodeLikeSDK[anthropic.Message](body)
			if err != nil {
				continue
			}
			a, err := anthropicResult(msg, tools, toolsOff)
			if err != nil && !errors.Is(err, ErrBadResponse) {
				t.Fatalf("error %v does not wrap ErrBadResponse", err)
			}
			fromTool := false
			if err == nil && !toolsOff {
				for _, b := range msg.Content {
					if b.Type == "tool_use" {
						fromTool = true
						break
					}
				}
			}
			checkAnswer(t, a, err, fromTool)
		}
	})
}

// FuzzToolArguments checks the one place a model's own function arguments
// are rewritten: an object becomes contract JSON that keeps every
// argument, anything else comes back verbatim.
func FuzzToolArguments(f *testing.F) {
	f.Add("query_orders_by_region", []byte(`{"region":"east","confidence":0.9}`))
	f.Add("none", []byte(`{"confidence":0.9,"reason":"no skill fits"}`))
	f.Add("ops_restart-service", []byte(`{"confidence":"high","routing_confidence":0.4}`))
	f.Add("unknown_tool", []byte(`{"a":[1,2,{"b":null}]}`))
	f.Add("none", []byte(`null`))
	f.Add("query_orders_by_region", []byte(`{"region": "east", "confidence": 0.9`))
	f.Add("x", []byte(`{"a":1,"a":2}`))
	tools := fuzzTools()
	f.Fuzz(func(t *testing.T, name string, args []byte) {
		out := tools.answer(name, args)
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(args, &obj); err != nil || obj == nil {
			if out != string(args) {
				t.Fatalf("arguments that are not an object came back changed: %q -> %q", args, out)
			}
			return
		}
		var c struct {
			Skill      string                     `json:"skill"`
			Confidence json.RawMessage            `json:"confidence"`
			Params     map[string]json.RawMessage `json:"params"`
			Reason     json.RawMessage            `json:"reason"`
		}
		if err := json.Unmarshal([]byte(out), &c); err != nil {
			if out == string(args) {
				return // an argument that does not re-encode: left for the router to reject
			}
			t.Fatalf("answer %q is not JSON: %v", out, err)
		}
		want := name
		key := confidenceKey
		if tl, ok := tools.byName[name]; ok {
			want, key = tl.Skill, tl.ConfKey
		}
		// JSON carries only UTF-8: a name with invalid bytes comes back as
		// JSON spells it (the SDKs' decoders never produce one anyway).
		spelled, _ := json.Marshal(want)
		_ = json.Unmarshal(spelled, &want)
		if c.Skill != want {
			t.Fatalf("skill %q, want %q", c.Skill, want)
		}
		n := len(c.Params)
		if len(c.Confidence) > 0 {
			n++
		}
		if len(c.Reason) > 0 {
			n++
		}
		if _, ok := obj[key]; ok != (len(c.Confidence) > 0) {
			t.Fatalf("confidence present in arguments %v, in answer %v", ok, len(c.Confidence) > 0)
		}
		if n != len(obj) {
			t.Fatalf("%d arguments became %d fields: %q -> %q", len(obj), n, args, out)
		}
	})
}

// FuzzRedactJSON checks that redaction and the cassette store's final
// scan agree: whatever a body holds, the redacted body is still JSON when
// it was, redacting again changes nothing, and no secret survives in any
// spelling the scan knows.
func FuzzRedactJSON(f *testing.F) {
	const key = "sk-test-SECRETSECRETSECRET0123456789"
	f.Add([]byte(`{"note":"sk\u002dtest-SECRETSECRETSECRET0123456789"}`))
	f.Add([]byte(`{"args":"{\"n\":\"sk\\u002dtest-SECRETSECRETSECRET0123456789\"}"}`))
	f.Add([]byte(`{"\u0073k-test-SECRETSECRETSECRET0123456789":[1,"Bearer abcdefghij"]}`))
	f.Add([]byte(`{"id":"AKIAIOSFODNN7EXAMPLE","n":1.50e3,"s":"gw\/0123456789abcdef"}`))
	f.Add([]byte(`"sk-abcdefghijklmnopqrstu"`))
	f.Add([]byte(`not json sk\u002dtest-SECRETSECRETSECRET0123456789`))
	red, err := NewRedactor(DefaultSecretPatterns, key, "gw/0123456789abcdef")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		out := red.JSON(body)
		if _, ok := decodeJSON(body); ok {
			if _, ok := decodeJSON(out); !ok {
				t.Fatalf("redacting JSON %q gave non-JSON %q", body, out)
			}
			if where, leaked := red.leak(out); leaked {
				t.Fatalf("a secret survives in %s: %q -> %q", where, body, out)
			}
		}
		if again := red.JSON(out); string(again) != string(out) {
			t.Fatalf("redaction is not idempotent: %q -> %q -> %q", body, out, again)
		}
	})
}
