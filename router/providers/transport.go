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
	// Sensitive are the x-sensitive param names of the judge's candidates:
	// their values are masked in the cassette (cassetteMask).
	Sensitive map[string]bool

	// bill charges live attempts to the budget; nil for calls that are
	// not charged (embeddings).
	bill *billing
	// bare exchanges (a --target router's) need no redacted copy of the
	// request for a trace, so with cassettes off nothing is computed.
	bare bool

	mu       sync.Mutex
	prompt   string // redacted canonical body of the last request sent
	key      string
	replayed bool
	dims     []int // vector sizes of an embeddings answer
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

// noteDims records the sizes of the vectors of an embeddings answer.
func (ex *exchange) noteDims(sizes []int) {
	ex.mu.Lock()
	ex.dims = sizes
	ex.mu.Unlock()
}

func (ex *exchange) vectorSizes() []int {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	return ex.dims
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

// retryTransport enforces the limits, the budget and the single retry. It
// buffers request and response bodies: the request so it can be sent
// twice, the response so the per-attempt timeout also covers a body that
// stalls. Response bodies are read up to maxBody bytes and no further.
type retryTransport struct {
	provider string
	next     http.RoundTripper
	limits   *limiter
	timeout  time.Duration
	backoff  time.Duration
	retryCap time.Duration
	maxBody  int64
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
	// Reserved after the slot is taken, so calls queued behind the
	// concurrency limit do not hold budget they are not using yet.
	res, err := exchangeFrom(req.Context()).bill.reserve(len(body))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.provider, err)
	}
	ctx, cancel := context.WithTimeout(req.Context(), t.timeout)
	defer cancel()
	r := req.Clone(ctx)
	setRequestBody(r, body)
	resp, err := t.next.RoundTrip(r)
	if err != nil {
		if neverSent(err) {
			res.Settle(0)
		} else {
			res.SettleWorst() // the provider may have answered and billed it
		}
		return nil, err
	}
	var data []byte
	if limit := bodyLimit(t.maxBody); resp.ContentLength > limit {
		err = fmt.Errorf("response body of %d bytes is over %d bytes (Options.MaxResponseBytes), not read: %w", resp.ContentLength, limit, ErrResponseTooLarge)
	} else {
		data, err = readBody(resp.Body, limit)
	}
	resp.Body.Close()
	ok := resp.StatusCode >= 200 && resp.StatusCode <= 299
	if !ok {
		// Providers do not bill rejected requests (4xx, 429, 5xx).
		res.Settle(0)
	}
	if err != nil {
		if ok {
			res.SettleWorst()
		}
		return nil, fmt.Errorf("%s: read response of %s %s: %w", t.provider, req.Method, req.URL.Path, err)
	}
	// A 2xx stays open: the judge settles it at the usage it reports.
	resp.Body = io.NopCloser(bytes.NewReader(data))
	resp.ContentLength = int64(len(data))
	return resp, nil
}

// DefaultMaxResponseBytes bounds every provider response body read; a
// judge answer or an embedding is a few kilobytes, so a body this large
// is a broken or hostile server, and reading it whole could exhaust memory.
const DefaultMaxResponseBytes = 16 << 20

// ErrResponseTooLarge is wrapped when a body passes the read limit.
var ErrResponseTooLarge = errors.New("response body too large")

// readBody reads at most limit bytes of r; one more byte is an error, and
// nothing past it is read.
func readBody(r io.Reader, limit int64) ([]byte, error) {
	limit = bodyLimit(limit)
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("response body over %d bytes (Options.MaxResponseBytes), not read further: %w", limit, ErrResponseTooLarge)
	}
	return data, nil
}

func bodyLimit(limit int64) int64 {
	if limit <= 0 {
		return DefaultMaxResponseBytes
	}
	return limit
}

// neverSent reports errors that certainly happened before the provider
// saw the request (a refused or failed dial), so the attempt cost nothing.
func neverSent(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
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
