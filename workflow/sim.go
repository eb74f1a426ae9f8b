package workflow

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/routebench/routebench/router/registry"
)

// Fault is a scripted failure of a simulated tool (DESIGN §11).
type Fault string

const (
	FaultTimeout     Fault = "timeout"      // no answer in time (retryable)
	FaultRateLimited Fault = "rate_limited" // 429 with retry_after (retryable)
	FaultServerError Fault = "server_error" // 5xx (retryable)
	FaultClientError Fault = "client_error" // 4xx with code and message (stops at once)
	FaultEmpty       Fault = "empty"        // a successful answer with no data
	FaultMalformed   Fault = "malformed"    // an answer that fails the skill's result_schema
	FaultUnavailable Fault = "unavailable"  // the skill's source cannot be reached
)

// Faults lists every fault, in the order of DESIGN §11.
var Faults = []Fault{FaultTimeout, FaultRateLimited, FaultServerError, FaultClientError, FaultEmpty, FaultMalformed, FaultUnavailable}

// SimResponse is one scripted answer of a simulated tool: OK, or a Fault.
type SimResponse struct {
	OK    any   `json:"ok,omitempty"`
	Fault Fault `json:"fault,omitempty"`
	// Code is the status of a client_error (4xx, default 400) or a
	// server_error (5xx, default 500).
	Code    int    `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
	// RetryAfter is what a rate_limited answer asks to wait (default 1s).
	RetryAfter time.Duration `json:"retry_after,omitempty"`
	// Body is what a malformed answer returns (default an HTML error page).
	Body       any    `json:"body,omitempty"`
	ExternalID string `json:"external_id,omitempty"`
	// When limits the answer to calls whose params hold these values.
	When map[string]any `json:"when,omitempty"`
	// Preview is what a dry run of the call answers.
	Preview *Preview     `json:"preview,omitempty"`
	Pos     registry.Pos `json:"-"`
}

// SimScript is each skill's answers. Calls take the first unused answer
// whose When matches, in order; once all matching answers are used the
// last one repeats. A skill without answers fails with code "unscripted".
type SimScript map[string][]SimResponse

// SimTools is a Tools whose answers are scripted. It behaves like an
// idempotent server: a key that already acted never acts again.
type SimTools struct {
	mu       sync.Mutex
	script   SimScript
	used     map[string][]bool
	ok       map[string]bool // idempotency keys answered with success
	received []ToolCall
	dupSends int
	ids      int
}

// NewSimTools answers calls from script.
func NewSimTools(script SimScript) *SimTools {
	t := &SimTools{script: script, used: map[string][]bool{}, ok: map[string]bool{}}
	for skill, list := range script {
		t.used[skill] = make([]bool, len(list))
	}
	return t
}

// pick returns the index of the answer for a call, or -1; consume marks it used.
func (t *SimTools) pick(skill string, params map[string]any, consume bool) int {
	list := t.script[skill]
	last := -1
	for i, resp := range list {
		if !subset(resp.When, params) {
			continue
		}
		last = i
		if !t.used[skill][i] {
			if consume {
				t.used[skill][i] = true
			}
			return i
		}
	}
	return last
}

func subset(want map[string]any, got map[string]any) bool {
	for k, v := range want {
		g, ok := got[k]
		if !ok || string(mustCanonical(g)) != string(mustCanonical(v)) {
			return false
		}
	}
	return true
}

func (t *SimTools) Discover(_ context.Context, skills []string) ([]string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := []string{}
	for _, s := range skills {
		if list := t.script[s]; len(list) > 0 && list[0].Fault == FaultUnavailable {
			continue
		}
		out = append(out, s)
	}
	return out, nil
}

func (t *SimTools) Preview(_ context.Context, call ToolCall) *Preview {
	t.mu.Lock()
	defer t.mu.Unlock()
	if i := t.pick(call.Skill, call.Params, false); i >= 0 && t.script[call.Skill][i].Preview != nil {
		pv := *t.script[call.Skill][i].Preview
		return &pv
	}
	return nil
}

func (t *SimTools) Call(_ context.Context, call ToolCall) ToolResult {
	t.mu.Lock()
	defer t.mu.Unlock()
	key := call.IdempotencyKey
	if key != "" && t.ok[key] {
		t.dupSends++ // a client that honours receipts never sends this
	}
	c := call
	c.Params, _ = deepCopy(call.Params).(map[string]any)
	t.received = append(t.received, c)
	i := t.pick(call.Skill, call.Params, true)
	if i < 0 {
		return ToolResult{Err: &ToolError{Code: "unscripted", Message: fmt.Sprintf("no scripted answer for %s; add it to tools_sim", call.Skill)}}
	}
	resp := t.script[call.Skill][i]
	res := t.answer(call, resp)
	if key != "" && res.Err == nil {
		t.ok[key] = true
	}
	return res
}

func (t *SimTools) answer(call ToolCall, resp SimResponse) ToolResult {
	msg := func(def string) string {
		if resp.Message != "" {
			return resp.Message
		}
		return def
	}
	switch resp.Fault {
	case FaultTimeout:
		return ToolResult{Err: &ToolError{Code: "timeout", Timeout: true, Message: msg(call.Skill + " did not answer in time")}}
	case FaultRateLimited:
		wait := resp.RetryAfter
		if wait <= 0 {
			wait = time.Second
		}
		return ToolResult{Err: &ToolError{Code: "429", Status: 429, RetryAfter: wait, Message: msg(fmt.Sprintf("rate limited; retry after %s", wait))}}
	case FaultServerError:
		code := resp.Code
		if code == 0 {
			code = 500
		}
		return ToolResult{Err: &ToolError{Code: fmt.Sprint(code), Status: code, Message: msg("internal server error")}}
	case FaultClientError:
		code := resp.Code
		if code == 0 {
			code = 400
		}
		return ToolResult{Err: &ToolError{Code: fmt.Sprint(code), Status: code, Message: msg("bad request")}}
	case FaultUnavailable:
		return ToolResult{Err: &ToolError{Code: "unavailable", Message: msg(call.Skill + "'s source is unavailable")}}
	case FaultEmpty:
		return ToolResult{ExternalID: t.externalID(call, resp)}
	case FaultMalformed:
		body := resp.Body
		if body == nil {
			body = "<html><body>502 Bad Gateway</body></html>"
		}
		return ToolResult{Output: deepCopy(body), ExternalID: t.externalID(call, resp)}
	}
	return ToolResult{Output: deepCopy(resp.OK), ExternalID: t.externalID(call, resp)}
}

func (t *SimTools) externalID(call ToolCall, resp SimResponse) string {
	if resp.ExternalID != "" || call.IdempotencyKey == "" {
		return resp.ExternalID
	}
	t.ids++
	return fmt.Sprintf("sim-%s-%d", call.Skill, t.ids)
}

// Received lists every call the tools were sent, in arrival order.
func (t *SimTools) Received() []ToolCall {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]ToolCall(nil), t.received...)
}

// DuplicateSends counts calls sent with a key that had already succeeded:
// what an engine that ignores its ledger would do.
func (t *SimTools) DuplicateSends() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.dupSends
}

func deepCopy(v any) any {
	if v == nil {
		return nil
	}
	out, err := normalize(v)
	if err != nil {
		return v
	}
	return out
}
