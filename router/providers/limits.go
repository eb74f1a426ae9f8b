package providers

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// limiter bounds the requests of one provider: a concurrency semaphore and
// a requests-per-minute token bucket. Both apply per HTTP attempt, so a
// retry waits its turn like any other request.
type limiter struct {
	slots  chan struct{} // nil = unlimited concurrency
	bucket *tokenBucket  // nil = unlimited rate
}

func newLimiter(concurrency, rpm int) *limiter {
	l := &limiter{}
	if concurrency > 0 {
		l.slots = make(chan struct{}, concurrency)
	}
	if rpm > 0 {
		l.bucket = newTokenBucket(rpm, time.Now)
	}
	return l
}

// acquire waits for a request slot and a rate token; release the slot with
// the returned func.
func (l *limiter) acquire(ctx context.Context) (release func(), err error) {
	if l.bucket != nil {
		if err := l.bucket.wait(ctx); err != nil {
			return nil, err
		}
	}
	if l.slots == nil {
		return func() {}, nil
	}
	select {
	case l.slots <- struct{}{}:
		return func() { <-l.slots }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// tokenBucket refills at rpm/60 tokens per second and holds at most one
// second's worth (at least one), so a burst never spends the whole minute
// at once and trips the provider's own limiter.
type tokenBucket struct {
	mu     sync.Mutex
	rate   float64 // tokens per second
	burst  float64
	tokens float64
	last   time.Time
	now    func() time.Time
}

func newTokenBucket(rpm int, now func() time.Time) *tokenBucket {
	rate := float64(rpm) / 60
	burst := rate
	if burst < 1 {
		burst = 1
	}
	return &tokenBucket{rate: rate, burst: burst, tokens: burst, last: now(), now: now}
}

// reserve takes a token and says how long to wait before using it. Tokens
// may go negative: later callers queue behind earlier ones in order.
func (b *tokenBucket) reserve() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	b.tokens += now.Sub(b.last).Seconds() * b.rate
	if b.tokens > b.burst {
		b.tokens = b.burst
	}
	b.last = now
	b.tokens--
	if b.tokens >= 0 {
		return 0
	}
	return time.Duration(-b.tokens / b.rate * float64(time.Second))
}

// cancel gives back a token whose wait was abandoned.
func (b *tokenBucket) cancel() {
	b.mu.Lock()
	b.tokens++
	b.mu.Unlock()
}

func (b *tokenBucket) wait(ctx context.Context) error {
	d := b.reserve()
	if d <= 0 {
		return nil
	}
	if err := sleep(ctx, d); err != nil {
		b.cancel()
		return err
	}
	return nil
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// retryableStatus is the one place that decides which answers earn the
// single retry: rate limiting and server errors. Any other 4xx is the
// caller's fault and repeating it cannot help.
func retryableStatus(code int) bool {
	return code == http.StatusTooManyRequests || code >= 500
}

// retryAfter reads a Retry-After header: delay-seconds or an HTTP date.
// ok is false when the header is absent or unreadable.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs < 0 {
			return 0, true
		}
		if secs > 1e9 { // beyond any cap; avoid Duration overflow
			return time.Duration(1<<63 - 1), true
		}
		return time.Duration(secs * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		d := t.Sub(now)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}

// retryWait is how long to wait before the retry: Retry-After when the
// server gave one, the backoff otherwise, never more than the cap.
func retryWait(h http.Header, backoff, limit time.Duration, now time.Time) time.Duration {
	d := backoff
	if h != nil {
		if ra, ok := retryAfter(h, now); ok {
			d = ra
		}
	}
	if d > limit {
		d = limit
	}
	return d
}
