package providers

import "context"

// Call describes an HTTP exchange that code outside this package sends
// through a Gateway's client (HTTPClient): a router behind `--target`.
// It gets the same stack as a model call: cassettes keyed by content hash
// with secrets redacted, the concurrency and requests-per-minute limits,
// and the single retry on timeout, 429 and 5xx honouring Retry-After.
type Call struct {
	// Label is what a missing cassette entry names (the request's text).
	Label string
	// Kind says what the exchange is in messages ("target request").
	Kind string
	// Fingerprint and Model join the request body in the cassette key:
	// the version under test and who answers (the target's address).
	Fingerprint, Model string
	// Sensitive are x-sensitive param names, masked in the stored answer.
	Sensitive map[string]bool
}

// WithCall returns ctx carrying c for the client's transport, and a
// function telling, once the exchange is done, whether its answer came
// from a cassette.
func WithCall(ctx context.Context, c Call) (context.Context, func() (replayed bool)) {
	ex := &exchange{Label: c.Label, Kind: c.Kind, Fingerprint: c.Fingerprint, Model: c.Model, Sensitive: c.Sensitive, bare: true}
	return withExchange(ctx, ex), func() bool {
		_, replayed := ex.result()
		return replayed
	}
}

// Limits bounds calls that do not go through HTTP (an `exec:` target's
// process) by the rules a Gateway's client applies per attempt: at most
// concurrency at once and rpm a minute (0 = unlimited).
type Limits struct{ l *limiter }

// NewLimits builds limits; 0 leaves a bound off.
func NewLimits(concurrency, rpm int) *Limits { return &Limits{l: newLimiter(concurrency, rpm)} }

// Acquire waits for a slot and a rate token; call release when done.
func (l *Limits) Acquire(ctx context.Context) (release func(), err error) {
	return l.l.acquire(ctx)
}
