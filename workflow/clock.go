package workflow

import (
	"context"
	"sync"
	"time"
)

// ManualClock is a Clock whose Sleep returns at once after moving the time
// forward, so Retry-After waits are exact and cost nothing in tests and in
// simulated runs.
type ManualClock struct {
	mu    sync.Mutex
	now   time.Time
	slept []time.Duration
}

// NewManualClock starts a ManualClock at t.
func NewManualClock(t time.Time) *ManualClock { return &ManualClock{now: t} }

func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *ManualClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.slept = append(c.slept, d)
	return nil
}

// Slept lists every wait asked of the clock, in order.
func (c *ManualClock) Slept() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.slept...)
}
