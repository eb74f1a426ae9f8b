package providers

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/routebench/routebench/router"
)

// call is what a provider-specific judge does once: send the request and
// read the answer out of the SDK's response.
type call func(ctx context.Context) (answer, error)

// judgeOnce wraps one provider call with what every judge shares: the
// budget, the exchange context the transport fills in, usage and cost,
// redaction of everything returned, and a last guard against panics.
// Cassette replays never reach the network, so they reserve nothing and
// cost nothing against the budget, but report the recorded usage: a
// replayed run's results equal the recorded run's.
func (g *Gateway) judgeOnce(ctx context.Context, name, model string, req router.JudgeRequest, do call) (router.JudgeResponse, error) {
	ex := &exchange{Label: req.Text, Kind: "judge request", Model: model, bill: g.billing(model),
		Sensitive: router.SensitiveParamNames(req.Candidates)}
	if req.Version != nil {
		ex.Fingerprint = req.Version.Fingerprint
	}
	a, err := guard(name, func() (answer, error) { return do(withExchange(ctx, ex)) })
	prompt, _ := ex.result()
	var usage *router.Usage
	if a.Decoded {
		usage = g.opts.Prices.Usage(model, a.In, a.Out)
	}
	ex.bill.finish(usage)
	if err != nil {
		return router.JudgeResponse{Prompt: prompt}, g.redact.Error(fmt.Errorf("judge %s: %w", name, err))
	}
	if usage == nil {
		usage = &router.Usage{}
	}
	return router.JudgeResponse{Raw: g.redact.String(a.Raw), Prompt: prompt, Usage: usage}, nil
}

// guard runs a provider call and turns a panic into an error wrapping
// ErrProviderPanic. The parsers check what they read, so a panic here is
// a bug; recovering keeps it to one case's provider_error instead of
// killing a run of thousands, and the site in the message finds the bug.
func guard[T any](name string, f func() (T, error)) (v T, err error) {
	defer func() {
		if p := recover(); p != nil {
			var zero T
			v, err = zero, fmt.Errorf("%s: %w: %v (at %s); please report it", name, ErrProviderPanic, p, panicSite())
		}
	}()
	return f()
}

// panicSite is the innermost frame outside the runtime when a deferred
// recover runs: the line that panicked.
func panicSite() string {
	pcs := make([]uintptr, 32)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs)])
	for {
		f, more := frames.Next()
		if !strings.HasPrefix(f.Function, "runtime.") {
			return fmt.Sprintf("%s %s:%d", f.Function, filepath.Base(f.File), f.Line)
		}
		if !more {
			return "unknown"
		}
	}
}

// billing charges one judge call's HTTP attempts to the budget. The
// transport reserves each attempt's worst case before sending it and
// settles the attempts whose outcome it knows (not sent, rejected, lost
// in flight); a 2xx stays open until finish, which settles it at the
// usage the judge read from it, or at its reservation when that usage is
// unknown.
type billing struct {
	budget *Budget
	worst  func(requestBytes int) float64

	mu   sync.Mutex
	open []*Reservation
}

// promptOverheadTokens covers what a provider adds to the request body's
// text when it builds the prompt (role markers, tool-definition framing).
// Byte-level BPE tokens are at least one byte each, so body bytes plus
// this bound the prompt tokens from above.
const promptOverheadTokens = 256

func (g *Gateway) billing(model string) *billing {
	if g.opts.Budget == nil {
		return nil
	}
	price, _ := g.opts.Prices.Lookup(model)
	maxOut := float64(g.opts.MaxTokens)
	return &billing{
		budget: g.opts.Budget,
		worst: func(n int) float64 {
			return (float64(n+promptOverheadTokens)*price.InputPerM + maxOut*price.OutputPerM) / 1e6
		},
	}
}

func (b *billing) reserve(requestBytes int) (*Reservation, error) {
	if b == nil {
		return nil, nil
	}
	r, err := b.budget.Reserve(b.worst(requestBytes))
	if err != nil || r == nil {
		return nil, err
	}
	b.mu.Lock()
	b.open = append(b.open, r)
	b.mu.Unlock()
	return r, nil
}

// finish settles what the transport left open. Only the last attempt can
// have produced the usage the judge read; any earlier open one was lost
// and may have been billed.
func (b *billing) finish(usage *router.Usage) {
	if b == nil {
		return
	}
	b.mu.Lock()
	open := b.open
	b.open = nil
	b.mu.Unlock()
	for i, r := range open {
		if i == len(open)-1 && usage != nil {
			r.Settle(usage.CostUSD)
		} else {
			r.SettleWorst() // no-op for the ones the transport settled
		}
	}
}

// previousAnswer is the rejected output as the model is shown it again;
// providers refuse empty assistant messages.
func previousAnswer(r *router.Repair) string {
	if strings.TrimSpace(r.Raw) == "" {
		return "(empty answer)"
	}
	return r.Raw
}

// earlierText is an earlier turn's user text as the model is shown it; an
// unanswered turn is said to be one, since providers refuse empty messages.
func earlierText(t router.Turn) string {
	if strings.TrimSpace(t.Text) == "" {
		return "(no answer)"
	}
	return t.Text
}
