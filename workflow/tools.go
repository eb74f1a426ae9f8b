package workflow

import (
	"context"
	"time"
)

// ToolCall is one call of a skill, as the engine makes it.
type ToolCall struct {
	Skill  string
	Node   string
	Params map[string]any
	// IdempotencyKey is derived by the engine from run id, node id and input
	// hash; never taken from the model. It is empty for read skills.
	IdempotencyKey string
	Attempt        int
}

// ToolResult is what a tool answered: an output or an error.
type ToolResult struct {
	// Output is the result as JSON values; nil with Err nil is an empty result.
	Output any
	// ExternalID is the id the tool gives a side effect (a ticket id, a
	// refund id), copied into the receipt.
	ExternalID string
	Err        *ToolError
}

// ToolError is a tool's failure, kept verbatim: the outcome shows Code and
// Message exactly as the tool gave them.
type ToolError struct {
	// Code is the tool's error code: an HTTP-like status ("409", "429",
	// "503") or a word ("timeout", "unavailable").
	Code    string `json:"code"`
	Message string `json:"message"`
	// Status is the HTTP-like status when there is one (0 otherwise).
	Status int `json:"status,omitempty"`
	// Timeout marks a call that did not answer in time.
	Timeout bool `json:"timeout,omitempty"`
	// RetryAfter is how long a 429 asks to wait.
	RetryAfter time.Duration `json:"retry_after,omitempty"`
}

func (e *ToolError) Error() string { return e.Code + ": " + e.Message }

// Retryable reports whether one retry is allowed: a timeout, a 429 or a
// 5xx. Every other error (4xx, params, permission, malformed, unavailable)
// stops the node at once.
func (e *ToolError) Retryable() bool {
	return e.Timeout || e.Status == 429 || (e.Status >= 500 && e.Status <= 599)
}

// Preview is a tool's dry-run answer: how many items a call would affect
// and some of them. The batch gate shows Count and up to SampleSize items.
type Preview struct {
	Count int   `json:"count"`
	Items []any `json:"items,omitempty"`
}

// Tools runs skills for the engine. Implementations must be safe for
// concurrent use: read nodes are called from several goroutines.
type Tools interface {
	// Call runs one call. It returns a ToolResult, never a Go error: a
	// failure is data (ToolResult.Err) that the outcome reports verbatim.
	Call(ctx context.Context, call ToolCall) ToolResult
	// Preview answers a dry run of a side-effect call; nil when the tool
	// cannot preview, in which case the count comes from the params.
	Preview(ctx context.Context, call ToolCall) *Preview
	// Discover returns which of the named skills' sources are reachable. An
	// error means none are (fail closed).
	Discover(ctx context.Context, skills []string) ([]string, error)
}

// FailClosed narrows candidates to the skills discovery reports available.
// The result is a subset of candidates in their order: a name discovery
// returns that was not a candidate is never added, and a discovery error
// leaves no candidate at all.
func FailClosed(ctx context.Context, tools Tools, candidates []string) []string {
	avail, err := tools.Discover(ctx, candidates)
	if err != nil {
		return []string{}
	}
	ok := make(map[string]bool, len(avail))
	for _, a := range avail {
		ok[a] = true
	}
	out := []string{}
	for _, c := range candidates {
		if ok[c] {
			out = append(out, c)
		}
	}
	return out
}

// Clock is the engine's time: checkpoint times and Retry-After waits.
// Tests and the harness use a ManualClock so nothing ever sleeps.
type Clock interface {
	Now() time.Time
	Sleep(ctx context.Context, d time.Duration) error
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }
func (realClock) Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
