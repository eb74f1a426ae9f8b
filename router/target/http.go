package target

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/providers"
	"github.com/routebench/routebench/router/registry"
)

// clientName is the provider name a target's traffic goes under in the
// gateway: one limiter for the target, whatever the version.
const clientName = "target"

// httpTarget POSTs the request JSON and reads a Decision. Its client is the
// gateway's: cassettes outside (keyed by the version fingerprint, the
// target URL and the request body, secrets redacted), then the limits and
// the single retry on timeout, 429 and 5xx honouring Retry-After.
type httpTarget struct {
	url     string
	v       *registry.Version
	client  *http.Client
	redact  *providers.Redactor
	maxBody int64
	// sensitive are the version's x-sensitive params, masked in cassettes.
	sensitive map[string]bool
}

func newHTTPTarget(spec Spec, v *registry.Version, o Options) *httpTarget {
	return &httpTarget{url: spec.URL, v: v, client: o.Gateway.HTTPClient(clientName), redact: o.Gateway.Redactor(), maxBody: o.MaxAnswerBytes,
		sensitive: router.SensitiveParamNames(v.Registry.Skills)}
}

func (t *httpTarget) exchange(ctx context.Context, req router.Request, body []byte) ([]byte, string, string, error) {
	sensitive := t.sensitive
	if req.Tools != nil {
		sensitive = router.SensitiveParamNames(req.Tools.Skills)
	}
	ctx, replayed := providers.WithCall(ctx, providers.Call{
		Label: req.Text, Kind: "target request", Fingerprint: t.v.Fingerprint, Model: ModelPrefix + t.url,
		Sensitive: sensitive,
	})
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, bytes.NewReader(body))
	if err != nil {
		return nil, "", "", err
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	hreq.Header.Set(VersionHeader, t.v.ID())
	resp, err := t.client.Do(hreq)
	if err != nil {
		return nil, "", "", t.redact.Error(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, t.maxBody+1))
	if err != nil {
		return nil, "", "", t.redact.Error(fmt.Errorf("read the answer: %w", err))
	}
	if int64(len(data)) > t.maxBody {
		return nil, "", "", fmt.Errorf("answer over %d bytes, not read further: %w", t.maxBody, providers.ErrResponseTooLarge)
	}
	note := ""
	if replayed() {
		note = " (replayed from a cassette)"
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		// The retry, when the status earned one, has happened already.
		return nil, note, "", fmt.Errorf("answered HTTP %d: %s", resp.StatusCode, t.redact.String(bounded(string(bytes.TrimSpace(data)), 512)))
	}
	return data, note, "", nil
}

func (t *httpTarget) close() error { return nil }
