package workflow

import (
	"context"
	"sync"
	"time"
)

// Answer is a person's answer to a confirmation.
type Answer string

const (
	Yes     Answer = "yes"
	No      Answer = "no"
	Timeout Answer = "timeout" // nobody answered in time: a refusal
	Pending Answer = "pending" // nobody can answer now: the run suspends
)

// ConfirmRequest is what a person is shown before a side effect or at a
// confirm node. A batch gate carries the count and up to SampleSize items.
type ConfirmRequest struct {
	Node    string        `json:"node"`
	Skill   string        `json:"skill,omitempty"`
	Gate    string        `json:"gate"` // normal | batch | irreversible | confirm
	Count   int           `json:"count,omitempty"`
	Sample  []any         `json:"sample,omitempty"`
	Message string        `json:"message,omitempty"`
	Params  any           `json:"params,omitempty"`
	Timeout time.Duration `json:"timeout,omitempty"`
}

// ConfirmResponse is the answer, and the scopes the caller lost while the
// question was open; the engine re-checks permissions after every yes.
type ConfirmResponse struct {
	Answer  Answer
	Revoked []string
}

// Confirmer asks a person. It must answer Timeout itself when
// ConfirmRequest.Timeout passes; the engine treats that as a refusal.
type Confirmer interface {
	Confirm(ctx context.Context, req ConfirmRequest) ConfirmResponse
}

// ScriptedConfirmer answers from a list in order; once the list is used
// up the last answer repeats. An empty script answers Timeout: a question
// nobody scripted is never taken as a yes.
type ScriptedConfirmer struct {
	mu      sync.Mutex
	answers []ConfirmResponse
	next    int
	asked   []ConfirmRequest
}

// NewScriptedConfirmer answers with the given responses in order.
func NewScriptedConfirmer(answers ...ConfirmResponse) *ScriptedConfirmer {
	return &ScriptedConfirmer{answers: answers}
}

func (c *ScriptedConfirmer) Confirm(_ context.Context, req ConfirmRequest) ConfirmResponse {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asked = append(c.asked, req)
	if len(c.answers) == 0 {
		return ConfirmResponse{Answer: Timeout}
	}
	i := min(c.next, len(c.answers)-1)
	c.next++
	return c.answers[i]
}

// Asked lists every request put to the confirmer, in order.
func (c *ScriptedConfirmer) Asked() []ConfirmRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]ConfirmRequest(nil), c.asked...)
}
