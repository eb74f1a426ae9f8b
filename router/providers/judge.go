package providers

import (
	"context"
	"fmt"
	"strings"

	"github.com/routebench/routebench/router"
)

// call is what a provider-specific judge does once: send the request and
// return the raw answer and the token counts the provider reported.
type call func(ctx context.Context) (raw string, inputTokens, outputTokens int, err error)

// judgeOnce wraps one provider call with what every judge shares: the
// budget, the exchange context the transport fills in, usage and cost,
// and redaction of everything returned. Cassette replays cost nothing
// against the budget but report the recorded usage, so a replayed run's
// results equal the recorded run's.
func (g *Gateway) judgeOnce(ctx context.Context, name, model string, req router.JudgeRequest, do call) (router.JudgeResponse, error) {
	settle, err := g.opts.Budget.Reserve()
	if err != nil {
		return router.JudgeResponse{}, fmt.Errorf("judge %s: %w", name, err)
	}
	ex := &exchange{Label: req.Text, Kind: "judge request", Model: model}
	if req.Version != nil {
		ex.Fingerprint = req.Version.Fingerprint
	}
	raw, in, out, err := do(withExchange(ctx, ex))
	prompt, replayed := ex.result()
	if err != nil {
		settle(0)
		return router.JudgeResponse{Prompt: prompt}, g.redact.Error(fmt.Errorf("judge %s: %w", name, err))
	}
	usage := g.opts.Prices.Usage(model, in, out)
	if replayed {
		settle(0)
	} else {
		settle(usage.CostUSD)
	}
	return router.JudgeResponse{Raw: g.redact.String(raw), Prompt: prompt, Usage: usage}, nil
}

// previousAnswer is the rejected output as the model is shown it again;
// providers refuse empty assistant messages.
func previousAnswer(r *router.Repair) string {
	if strings.TrimSpace(r.Raw) == "" {
		return "(empty answer)"
	}
	return r.Raw
}
