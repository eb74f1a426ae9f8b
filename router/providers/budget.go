package providers

import (
	"errors"
	"fmt"
	"strings"
	"sync"
)

// ErrBudgetExceeded is wrapped by every *BudgetError: the next call could
// push the spend past the --max-cost limit.
var ErrBudgetExceeded = errors.New("cost budget exhausted")

// Budget is a --max-cost limit in USD shared by every call of a run.
//
// A call's cost is known only after it returns, and calls run
// concurrently, so every live HTTP attempt first reserves its worst case
// (the prompt's token bound plus the maximum output, at the price table)
// and is refused when spend plus every open reservation would pass the
// limit. A finished call settles to its actual cost. A call that may have
// been billed but whose cost is unknown (cancelled, timed out, reset, an
// unreadable answer) settles at its reservation: it is never dropped. So
// spent never passes the limit as long as providers bill no more than the
// worst case they were asked for.
type Budget struct {
	mu       sync.Mutex
	limit    float64
	spent    float64
	calls    int     // settled reservations
	reserved float64 // open reservations' worst cases
	inFlight int
	// largestActual floors every reservation; largestReserved is what
	// Check projects the next call to claim.
	largestActual, largestReserved float64
}

// NewBudget returns a budget of limit USD; limit <= 0 means unlimited.
func NewBudget(limit float64) *Budget { return &Budget{limit: limit} }

// Limit is the configured maximum in USD (0 = unlimited).
func (b *Budget) Limit() float64 { return b.limit }

// Spent is what settled calls have cost so far.
func (b *Budget) Spent() float64 {
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent
}

// Calls is how many calls have been settled.
func (b *Budget) Calls() int {
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.calls
}

// Reserved is the worst-case cost held by calls in flight.
func (b *Budget) Reserved() float64 {
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.reserved
}

// Check reports a *BudgetError when a call as large as the largest seen so
// far (reserved or actual) could not be reserved now. A runner calls it before each case to
// stop cleanly instead of failing a case halfway.
func (b *Budget) Check() error {
	if b == nil || b.limit <= 0 {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.admitLocked(max(b.largestActual, b.largestReserved))
}

func (b *Budget) admitLocked(next float64) error {
	if b.spent+b.reserved+next > b.limit {
		return &BudgetError{Limit: b.limit, Spent: b.spent, Calls: b.calls, InFlight: b.inFlight, Reserved: b.reserved, Next: next}
	}
	return nil
}

// Reserve claims worstUSD for one call before it is sent. The claim is
// never below the largest actual cost seen, so a server whose usage runs
// over the estimate is still projected honestly. Settle the reservation
// exactly once; a nil budget returns a nil reservation, which is fine to
// settle.
func (b *Budget) Reserve(worstUSD float64) (*Reservation, error) {
	if b == nil {
		return nil, nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	worst := max(worstUSD, b.largestActual, 0)
	if b.limit > 0 {
		if err := b.admitLocked(worst); err != nil {
			return nil, err
		}
	}
	b.inFlight++
	b.reserved += worst
	b.largestReserved = max(b.largestReserved, worst)
	return &Reservation{b: b, worst: worst}, nil
}

// Reservation is one call's claim on the budget.
type Reservation struct {
	b     *Budget
	worst float64
	once  sync.Once
}

// Worst is the amount reserved.
func (r *Reservation) Worst() float64 {
	if r == nil {
		return 0
	}
	return r.worst
}

// Settle replaces the reservation with the call's actual cost (0 for a
// call that was certainly not billed). Only the first settlement counts.
func (r *Reservation) Settle(costUSD float64) {
	if r == nil {
		return
	}
	r.once.Do(func() {
		b := r.b
		b.mu.Lock()
		defer b.mu.Unlock()
		b.inFlight--
		b.reserved -= r.worst
		if b.inFlight == 0 {
			b.reserved = 0 // no float drift once nothing is open
		}
		costUSD = max(costUSD, 0)
		b.spent += costUSD
		b.calls++
		b.largestActual = max(b.largestActual, costUSD)
	})
}

// SettleWorst settles a call that may have been billed for an unknown
// amount at its reservation.
func (r *Reservation) SettleWorst() { r.Settle(r.Worst()) }

// BudgetError says the budget stopped a call, with the numbers that
// decided it.
type BudgetError struct {
	Limit    float64 // USD
	Spent    float64 // USD, settled calls
	Calls    int     // settled calls
	InFlight int     // calls holding a reservation
	Reserved float64 // USD held by those calls
	Next     float64 // USD the refused call would have reserved
}

func (e *BudgetError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "budget of %s reached: spent %s on %d calls", usdLimit(e.Limit), usd(e.Spent), e.Calls)
	if e.InFlight > 0 {
		fmt.Fprintf(&b, ", %d in flight hold %s", e.InFlight, usd(e.Reserved))
	}
	fmt.Fprintf(&b, ", and the next call may cost up to %s; raise --max-cost or replay recorded answers with --cassettes replay", usd(e.Next))
	return b.String()
}

// Is makes errors.Is(err, ErrBudgetExceeded) hold for every BudgetError.
func (e *BudgetError) Is(target error) bool { return target == ErrBudgetExceeded }

// usd prints an amount with enough digits to tell calls of a cheap model
// apart: 4 decimals from one cent up, 6 below.
func usd(x float64) string {
	if x != 0 && x < 0.01 {
		return fmt.Sprintf("$%.6f", x)
	}
	return fmt.Sprintf("$%.4f", x)
}

// usdLimit prints the limit as it was most likely written: cents when it
// is a whole number of cents, all its digits otherwise.
func usdLimit(x float64) string {
	if c := x * 100; c == float64(int64(c)) {
		return fmt.Sprintf("$%.2f", x)
	}
	return fmt.Sprintf("$%g", x)
}
