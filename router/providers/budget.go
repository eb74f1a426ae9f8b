package providers

import (
	"errors"
	"fmt"
	"sync"
)

// ErrBudgetExceeded is returned (wrapped) when the next call could push the
// spend past the --max-cost limit.
var ErrBudgetExceeded = errors.New("cost budget exhausted")

// Budget is a --max-cost limit in USD shared by every call of a run. The
// cost of a call is only known after it returns, so the budget projects the
// next call's cost as the largest one seen so far and stops before spend,
// calls in flight and that projection would pass the limit. A runner calls
// Check before each case to stop cleanly; judges Reserve before each call as
// a safety net.
type Budget struct {
	mu       sync.Mutex
	limit    float64
	spent    float64
	inFlight int
	maxCall  float64
}

// NewBudget returns a budget of limit USD; limit <= 0 means unlimited.
func NewBudget(limit float64) *Budget { return &Budget{limit: limit} }

// Limit is the configured maximum in USD (0 = unlimited).
func (b *Budget) Limit() float64 { return b.limit }

// Spent is what live calls have cost so far.
func (b *Budget) Spent() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent
}

// Check reports ErrBudgetExceeded when one more call could exceed the limit.
func (b *Budget) Check() error {
	if b == nil || b.limit <= 0 {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.checkLocked()
}

func (b *Budget) checkLocked() error {
	projected := b.spent + float64(b.inFlight+1)*b.maxCall
	if projected > b.limit {
		return fmt.Errorf("%w: spent $%.6f of $%.6f, next call may cost up to $%.6f", ErrBudgetExceeded, b.spent, b.limit, b.maxCall)
	}
	return nil
}

// Reserve claims room for one call; settle it with the call's actual cost
// (0 when the call failed or was replayed from a cassette).
func (b *Budget) Reserve() (settle func(costUSD float64), err error) {
	if b == nil {
		return func(float64) {}, nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.limit > 0 {
		if err := b.checkLocked(); err != nil {
			return nil, err
		}
	}
	b.inFlight++
	var once sync.Once
	return func(cost float64) {
		once.Do(func() {
			b.mu.Lock()
			defer b.mu.Unlock()
			b.inFlight--
			b.spent += cost
			if cost > b.maxCall {
				b.maxCall = cost
			}
		})
	}, nil
}
