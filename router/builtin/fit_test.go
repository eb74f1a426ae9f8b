package builtin

import (
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("turns at the fit's slots", func() {
	It("hands the slots out by turn number, whatever order the jobs ask in", func() {
		t := newTurns(2)
		var mu sync.Mutex
		var started []int
		var wg sync.WaitGroup
		// Asking last to first, each a moment after the one before: only
		// turns can put them back in order.
		for turn := 5; turn >= 0; turn-- {
			wg.Go(func() {
				t.take(turn)
				mu.Lock()
				started = append(started, turn)
				mu.Unlock()
				t.give()
			})
			time.Sleep(time.Millisecond)
		}
		wg.Wait()
		Expect(started).To(Equal([]int{0, 1, 2, 3, 4, 5}))
	})

	It("never lets more jobs hold a slot at once than there are slots", func() {
		t := newTurns(2)
		var mu sync.Mutex
		held, most := 0, 0
		var wg sync.WaitGroup
		for turn := range 8 {
			wg.Go(func() {
				t.take(turn)
				mu.Lock()
				held++
				most = max(most, held)
				mu.Unlock()
				time.Sleep(time.Millisecond)
				mu.Lock()
				held--
				mu.Unlock()
				t.give()
			})
		}
		wg.Wait()
		Expect(most).To(And(BeNumerically(">", 0), BeNumerically("<=", 2)))
	})
})
