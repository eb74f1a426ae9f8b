package router

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"testing"
)

// FuzzDecodeDecision holds the target-answer decoder to its promise on any
// bytes another router may send: it never panics; it either names the
// field at fault (*WireError) or returns a decision that passes its own
// format check and survives encoding and decoding again unchanged.
func FuzzDecodeDecision(f *testing.F) {
	for _, seed := range []string{
		`{"action":"execute","skill":"get_order","params":{"order_id":"ORD-1"},"confidence":0.9}`,
		`{"action":"clarify","confidence":0.4,"candidates":[{"skill":"a","score":0.4},{"skill":"b","score":0.3}],"message":"which one?"}`,
		`{"action":"error","confidence":0,"errors":[{"category":"provider_error","message":"down"}]}`,
		`{"action":"confirm","skill":"refund","gate":"batch","confidence":1,"params":{"ids":[1,2,3]}}`,
		`{"action":"refuse","confidence":0.1,"extra":true}`,
		`{"action":"execute","confidence":1.5}`, `null`, `[]`, `{"action":1}`, `{}`, "{\"action\":\"refuse\",\"confidence\":0}\n{}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := DecodeDecision(data)
		if err != nil {
			var we *WireError
			if !errors.As(err, &we) {
				t.Fatalf("error %T is not a *WireError: %v", err, err)
			}
			return
		}
		if err := checkDecision(d, "", false); err != nil {
			t.Fatalf("decoded decision fails its own check: %v", err)
		}
		line, err := EncodeDecision(d)
		if err != nil {
			t.Fatalf("encode a decoded decision: %v", err)
		}
		again, err := DecodeDecision(line)
		if err != nil {
			t.Fatalf("decode %s again: %v", line, err)
		}
		a, _ := json.Marshal(d)
		b, _ := json.Marshal(again)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("round trip changed the decision:\n%s\n%s", a, b)
		}
	})
}

// FuzzDecodeRequest does the same for the request bodies `serve` accepts:
// never a panic, a *WireError for what the sender must fix, and a decoded
// request that encodes and decodes to the same request.
func FuzzDecodeRequest(f *testing.F) {
	for _, seed := range []string{
		`{"id":"c1","text":"refund PAY-1","caller":{"scopes":["billing:write"],"disabled":[]},"now":"2026-11-30T10:00:00+08:00"}`,
		`{"text":"","caller":{}}`,
		`{"text":"yes","caller":{"scopes":[]},"turns":[{"text":"refund it","decision":{"action":"confirm","skill":"refund","confidence":0.9}}]}`,
		`{"text":"x","caller":{"scopes":[]},"now":"yesterday"}`,
		`{"text":"x","caller":{"scopes":[]},"tools":[{"name":"a b"}]}`,
		`{"text":"x"}`, `{"caller":{}}`, `null`, `"text"`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		req, err := DecodeRequest(data, nil)
		if err != nil {
			var we *WireError
			if !errors.As(err, &we) {
				// Tools are loaded as skills.yaml and report as the loader does.
				if req.Text != "" || req.Tools != nil {
					t.Fatalf("a failed decode returned a request: %+v", req)
				}
			}
			return
		}
		line, err := EncodeRequest(req)
		if err != nil {
			t.Fatalf("encode a decoded request: %v", err)
		}
		again, err := DecodeRequest(line, nil)
		if err != nil {
			t.Fatalf("decode %s again: %v", line, err)
		}
		if again.Text != req.Text || !again.Now.Equal(req.Now) || !slices.Equal(again.Caller.Scopes, req.Caller.Scopes) || !slices.Equal(again.Caller.Disabled, req.Caller.Disabled) || len(again.Turns) != len(req.Turns) {
			t.Fatalf("round trip changed the request:\n%+v\n%+v", req, again)
		}
	})
}
