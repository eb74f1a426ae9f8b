package providers_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router/providers"
)

var _ = Describe("Budget under concurrent callers", func() {
	It("never lets spent pass the limit, whatever order callers reserve and settle in", func() {
		const limit = 0.50
		b := providers.NewBudget(limit)
		var wg sync.WaitGroup
		var mu sync.Mutex
		var admitted, refused int
		for g := range 16 {
			wg.Go(func() {
				defer GinkgoRecover()
				rng := rand.New(rand.NewPCG(uint64(g), 7)) // each caller's own sequence; the interleaving is the scheduler's
				for range 200 {
					worst := 0.001 + rng.Float64()*0.01
					r, err := b.Reserve(worst)
					if err != nil {
						Expect(errors.Is(err, providers.ErrBudgetExceeded)).To(BeTrue())
						mu.Lock()
						refused++
						mu.Unlock()
						continue
					}
					switch rng.IntN(3) {
					case 0:
						r.Settle(rng.Float64() * worst) // finished: the actual cost
					case 1:
						r.SettleWorst() // cancelled in flight: may have been billed
					default:
						r.Settle(0) // rejected by the provider: not billed
					}
					Expect(b.Spent()).To(BeNumerically("<=", limit))
					mu.Lock()
					admitted++
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		Expect(b.Spent()).To(BeNumerically("<=", limit))
		Expect(b.Reserved()).To(BeZero())
		Expect(b.Calls()).To(Equal(admitted))
		Expect(admitted + refused).To(Equal(16 * 200))
		Expect(refused).To(BeNumerically(">", 0), "the callers wanted more than the limit")
	})

	// The server speaks the chat completions wire format. Requests whose
	// text starts with "hang" never get an answer: the server cancels the
	// caller's context once the request has arrived (so the call was sent
	// and may be billed) and then waits for the client to hang up.
	It("counts cancelled in-flight judge calls at their reservation and stays under the limit", func() {
		setenv("OPENAI_API_KEY", testKey)
		okReply := chatToolCall("query_orders_by_region", `{"region":"east","confidence":0.9}`)
		var mu sync.Mutex
		cancels := map[string]context.CancelFunc{}
		var budget *providers.Budget
		var reserved []float64
		server := newFakeProvider(func(w http.ResponseWriter, r *http.Request, n int) {
			text := requestText(r)
			mu.Lock()
			reserved = append(reserved, budget.Reserved())
			cancel := cancels[text]
			mu.Unlock()
			if strings.HasPrefix(text, "hang") {
				cancel()
				<-r.Context().Done()
				return
			}
			writeJSON(w, 200, okReply)
		})
		o := fastOptions(server.URL)
		o.Budget = providers.NewBudget(0)
		budget = o.Budget
		j, err := newGateway(o).Judge("openai:gpt-4o-mini")
		Expect(err).NotTo(HaveOccurred())

		// A probe shows one call's worst case: every text below has the
		// same length, so every request body has the same size.
		_, err = j.Judge(context.Background(), judgeRequest("orders east 00"))
		Expect(err).NotTo(HaveOccurred())
		worst := reserved[0]
		actual := (1200*0.15 + 30*0.60) / 1e6

		budget = providers.NewBudget(6 * worst)
		o.Budget = budget
		j, err = newGateway(o).Judge("openai:gpt-4o-mini")
		Expect(err).NotTo(HaveOccurred())
		call := func(text string) (cost float64, outcome string) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			mu.Lock()
			cancels[text] = cancel
			mu.Unlock()
			resp, err := j.Judge(ctx, judgeRequest(text))
			switch {
			case err == nil:
				return resp.Usage.CostUSD, "ok"
			case errors.Is(err, providers.ErrBudgetExceeded):
				return 0, "refused"
			case errors.Is(err, context.Canceled):
				return worst, "cancelled"
			}
			Fail("unexpected error: " + err.Error())
			return 0, ""
		}

		// One cancelled call alone: it is counted, not dropped.
		cost, outcome := call("hang!! east 01")
		Expect(outcome).To(Equal("cancelled"))
		Expect(budget.Spent()).To(BeNumerically("~", cost, 1e-12))
		Expect(budget.Calls()).To(Equal(1))

		// Then 24 callers at once, a quarter of them cancelled in flight.
		var wg sync.WaitGroup
		var total float64
		outcomes := map[string]int{}
		for i := range 24 {
			text := "orders east " + twoDigits(i)
			if i%4 == 0 {
				text = "hang!! east " + twoDigits(i)
			}
			wg.Go(func() {
				defer GinkgoRecover()
				c, o := call(text)
				mu.Lock()
				total += c
				outcomes[o]++
				mu.Unlock()
				Expect(budget.Spent()).To(BeNumerically("<=", budget.Limit()))
			})
		}
		wg.Wait()
		Expect(budget.Spent()).To(BeNumerically("<=", budget.Limit()))
		Expect(budget.Spent()).To(BeNumerically("~", cost+total, 1e-9), "every call that was sent is counted: %v", outcomes)
		Expect(budget.Reserved()).To(BeZero())
		// Six cancelled calls at their worst case and eighteen at their actual
		// cost cannot all fit in six worst cases, whatever the order.
		Expect(6*worst + 18*actual).To(BeNumerically(">", budget.Limit()))
		Expect(outcomes["refused"]).To(BeNumerically(">", 0), "%v", outcomes)
	})
})

func twoDigits(i int) string { return string([]byte{byte('0' + i/10), byte('0' + i%10)}) }
