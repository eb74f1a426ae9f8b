package providers_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/providers"
)

// These specs run the OpenAI judge against a local server speaking the
// chat completions wire format, failing in the ways real servers fail.
var _ = Describe("Limits and the single retry", func() {
	okReply := chatToolCall("query_orders_by_region", `{"region":"east","confidence":0.9}`)

	judgeAgainst := func(o providers.Options) router.Judge {
		j, err := newGateway(o).Judge("openai:gpt-4o-mini")
		Expect(err).NotTo(HaveOccurred())
		return j
	}

	It("waits out a 429's Retry-After (up to the cap) and retries once", func() {
		server := newFakeProvider(func(w http.ResponseWriter, r *http.Request, n int) {
			if n == 1 {
				w.Header().Set("Retry-After", "1")
				writeJSON(w, 429, `{"error":{"message":"rate limited","type":"rate_limit_error"}}`)
				return
			}
			writeJSON(w, 200, okReply)
		})
		o := fastOptions(server.URL)
		start := time.Now()
		resp, err := judgeAgainst(o).Judge(context.Background(), judgeRequest("orders east"))
		Expect(err).NotTo(HaveOccurred())
		Expect(contract(resp.Raw)["skill"]).To(Equal("query_orders_by_region"))
		Expect(server.Count()).To(Equal(2))
		Expect(time.Since(start)).To(BeNumerically(">=", o.RetryCap), "Retry-After honoured up to the cap")
		Expect(time.Since(start)).To(BeNumerically("<", time.Second), "the cap bounds a 1s Retry-After")
	})

	It("gives up after one retry of a 500: exactly 2 requests and an error", func() {
		server := newFakeProvider(func(w http.ResponseWriter, r *http.Request, n int) {
			writeJSON(w, 500, `{"error":{"message":"internal error","type":"server_error"}}`)
		})
		_, err := judgeAgainst(fastOptions(server.URL)).Judge(context.Background(), judgeRequest("orders east"))
		Expect(err).To(MatchError(ContainSubstring("500")))
		Expect(err.Error()).To(ContainSubstring("judge openai:gpt-4o-mini"))
		Expect(server.Count()).To(Equal(2))
	})

	It("recovers from one 503", func() {
		server := newFakeProvider(func(w http.ResponseWriter, r *http.Request, n int) {
			if n == 1 {
				writeJSON(w, 503, `{"error":{"message":"overloaded"}}`)
				return
			}
			writeJSON(w, 200, okReply)
		})
		_, err := judgeAgainst(fastOptions(server.URL)).Judge(context.Background(), judgeRequest("orders east"))
		Expect(err).NotTo(HaveOccurred())
		Expect(server.Count()).To(Equal(2))
	})

	It("never retries another 4xx", func() {
		server := newFakeProvider(func(w http.ResponseWriter, r *http.Request, n int) {
			writeJSON(w, 400, `{"error":{"message":"bad request: tools[0].function.parameters is invalid","type":"invalid_request_error"}}`)
		})
		_, err := judgeAgainst(fastOptions(server.URL)).Judge(context.Background(), judgeRequest("orders east"))
		Expect(err).To(MatchError(ContainSubstring("400")))
		Expect(server.Count()).To(Equal(1))
	})

	It("times out a hung connection and retries once", func() {
		server := newFakeProvider(func(w http.ResponseWriter, r *http.Request, n int) {
			if n == 1 {
				<-r.Context().Done() // hang until the client gives up
				return
			}
			writeJSON(w, 200, okReply)
		})
		o := fastOptions(server.URL)
		o.Timeout = 250 * time.Millisecond
		_, err := judgeAgainst(o).Judge(context.Background(), judgeRequest("orders east"))
		Expect(err).NotTo(HaveOccurred())
		Expect(server.Count()).To(Equal(2))
	})

	It("fails after the retry of a hung connection also times out", func() {
		server := newFakeProvider(func(w http.ResponseWriter, r *http.Request, n int) {
			<-r.Context().Done()
		})
		o := fastOptions(server.URL)
		o.Timeout = 80 * time.Millisecond
		_, err := judgeAgainst(o).Judge(context.Background(), judgeRequest("orders east"))
		Expect(err).To(MatchError(ContainSubstring("no answer within 80ms after 2 attempts")))
		Expect(errors.Is(err, context.DeadlineExceeded)).To(BeTrue())
		Expect(server.Count()).To(Equal(2))
	})

	It("times out a body that stalls halfway", func() {
		server := newFakeProvider(func(w http.ResponseWriter, r *http.Request, n int) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(200)
			_, _ = io.WriteString(w, okReply[:40])
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		})
		o := fastOptions(server.URL)
		o.Timeout = 80 * time.Millisecond
		_, err := judgeAgainst(o).Judge(context.Background(), judgeRequest("orders east"))
		Expect(err).To(HaveOccurred())
		Expect(server.Count()).To(Equal(2))
	})

	DescribeTable("a 200 whose body is not a chat completion is an error, not retried",
		func(body string) {
			server := newFakeProvider(func(w http.ResponseWriter, r *http.Request, n int) { writeJSON(w, 200, body) })
			_, err := judgeAgainst(fastOptions(server.URL)).Judge(context.Background(), judgeRequest("orders east"))
			Expect(err).To(HaveOccurred())
			Expect(server.Count()).To(Equal(1))
		},
		Entry("truncated JSON", okReply[:len(okReply)/2]),
		Entry("malformed JSON", `{"id": "x", "choices": [}`),
		Entry("no choices", `{"id":"x","object":"chat.completion","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":0,"total_tokens":1}}`),
	)

	It("does not retry when the caller cancels", func() {
		server := newFakeProvider(func(w http.ResponseWriter, r *http.Request, n int) { <-r.Context().Done() })
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
		defer cancel()
		_, err := judgeAgainst(fastOptions(server.URL)).Judge(ctx, judgeRequest("orders east"))
		Expect(err).To(HaveOccurred())
		Expect(server.Count()).To(Equal(1))
	})

	It("keeps at most Concurrency requests in flight", func() {
		var inFlight, peak atomic.Int32
		server := newFakeProvider(func(w http.ResponseWriter, r *http.Request, n int) {
			now := inFlight.Add(1)
			for {
				p := peak.Load()
				if now <= p || peak.CompareAndSwap(p, now) {
					break
				}
			}
			time.Sleep(50 * time.Millisecond)
			inFlight.Add(-1)
			writeJSON(w, 200, okReply)
		})
		o := fastOptions(server.URL)
		o.Concurrency = 2
		j := judgeAgainst(o)
		var wg sync.WaitGroup
		for i := 0; i < 6; i++ {
			wg.Add(1)
			go func() {
				defer GinkgoRecover()
				defer wg.Done()
				_, err := j.Judge(context.Background(), judgeRequest("orders east "+strconv.Itoa(i)))
				Expect(err).NotTo(HaveOccurred())
			}()
		}
		wg.Wait()
		Expect(server.Count()).To(Equal(6))
		Expect(peak.Load()).To(BeEquivalentTo(2))
	})

	It("stops calling before a call's worst case could pass the budget", func() {
		var reserved []float64
		var budget *providers.Budget
		server := newFakeProvider(func(w http.ResponseWriter, r *http.Request, n int) {
			reserved = append(reserved, budget.Reserved()) // requests arrive one at a time here
			writeJSON(w, 200, okReply)
		})
		// A probe call with an unlimited budget shows what one call reserves.
		o := fastOptions(server.URL)
		budget = providers.NewBudget(0)
		o.Budget = budget
		_, err := judgeAgainst(o).Judge(context.Background(), judgeRequest("orders east"))
		Expect(err).NotTo(HaveOccurred())
		worst := reserved[0]
		actual := (1200*0.15 + 30*0.60) / 1e6
		Expect(worst).To(BeNumerically(">", actual), "the worst case bounds the call")
		Expect(budget.Spent()).To(BeNumerically("~", actual, 1e-12), "settled to the actual cost")

		// Room for the worst case plus 2.5 actual calls: the 4th call's
		// worst case would pass the limit, so three calls go.
		budget = providers.NewBudget(worst + 2.5*actual)
		o.Budget = budget
		j := judgeAgainst(o)
		for i := 0; i < 3; i++ {
			_, err := j.Judge(context.Background(), judgeRequest("orders east"))
			Expect(err).NotTo(HaveOccurred())
		}
		Expect(budget.Check()).To(MatchError(providers.ErrBudgetExceeded), "a fourth call could pass the limit")
		_, err = j.Judge(context.Background(), judgeRequest("orders east"))
		Expect(errors.Is(err, providers.ErrBudgetExceeded)).To(BeTrue())
		Expect(err.Error()).To(ContainSubstring("spent $0.000594 on 3 calls"))
		Expect(server.Count()).To(Equal(1+3), "the refused call never reached the server")
		Expect(budget.Spent()).To(BeNumerically("~", 3*actual, 1e-12))
		Expect(budget.Spent()).To(BeNumerically("<=", budget.Limit()))
	})
})
