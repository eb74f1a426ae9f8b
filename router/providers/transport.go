package providers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// exchange travels in a request's context from a judge or embedder down to
// the transport: what the call is about (for cassette keys and for error
// messages that name the case) and, on the way back, what the transport
// did with it.
type exchange struct {
	Label       string // the case text; named when a cassette entry is missing
	Kind        string // "judge request" or "embedding"
	Fingerprint string // version fingerprint; empty for embeddings
	Model       string

	mu       sync.Mutex
	prompt   string // redacted canonical body of the last request sent
	key      string
	replayed bool
}

type exchangeCtxKey struct{}

func withExchange(ctx context.Context, ex *exchange) context.Context {
	return context.WithValue(ctx, exchangeCtxKey{}, ex)
}

func exchangeFrom(ctx context.Context) *exchange {
	ex, _ := ctx.Value(exchangeCtxKey{}).(*exchange)
	if ex == nil {
		ex = &exchange{Kind: "request"}
	}
	return ex
}

func (ex *exchange) noteRequest(prompt, key string) {
	ex.mu.Lock()
	ex.prompt, ex.key = prompt, key
	ex.mu.Unlock()
}

func (ex *exchange) noteReplay() {
	ex.mu.Lock()
	ex.replayed = true
	ex.mu.Unlock()
}

// result returns the redacted request body and whether it was replayed.
func (ex *exchange) result() (prompt string, replayed bool) {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	return ex.prompt, ex.replayed
}

// retryTransport enforces the limits and the single retry. It buffers
// request and response bodies: the request so it can be sent twice, the
// response so the per-attempt timeout also covers a body that stalls.
type retryTransport struct {
	provider string
	next     http.RoundTripper
	limits   *limiter
	timeout  time.Duration
	backoff  time.Duration
	retryCap time.Duration
	now      func() time.Time
}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	body, err := drainRequest(req)
	if err != nil {
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		resp, err := t.attempt(req, body)
		timedOut := err != nil && isTimeout(err) && ctx.Err() == nil
		retry := timedOut || (err == nil && retryableStatus(resp.StatusCode))
		if !retry || attempt == 2 {
			if timedOut {
				return nil, fmt.Errorf("%s: no answer within %s after %d attempts: %w", t.provider, t.timeout, attempt, err)
			}
			return resp, err
		}
		var header http.Header
		if resp != nil {
			header = resp.Header
			resp.Body.Close()
		}
		if err := sleep(ctx, retryWait(header, t.backoff, t.retryCap, t.now())); err != nil {
			return nil, err
		}
	}
}

func (t *retryTransport) attempt(req *http.Request, body []byte) (*http.Response, error) {
	release, err := t.limits.acquire(req.Context())
	if err != nil {
		return nil, err
	}
	defer release()
	ctx, cancel := context.WithTimeout(req.Context(), t.timeout)
	defer cancel()
	r := req.Clone(ctx)
	setRequestBody(r, body)
	resp, err := t.next.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("%s: read response of %s %s: %w", t.provider, req.Method, req.URL.Path, err)
	}
	resp.Body = io.NopCloser(bytes.NewReader(data))
	resp.ContentLength = int64(len(data))
	return resp, nil
}

func isTimeout(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// drainRequest reads the request body and puts a rewindable copy back.
func drainRequest(req *http.Request) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	data, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("read request body: %w", err)
	}
	setRequestBody(req, data)
	return data, nil
}

func setRequestBody(req *http.Request, body []byte) {
	if body == nil {
		req.Body = http.NoBody
		req.ContentLength = 0
		req.GetBody = nil
		return
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
}
