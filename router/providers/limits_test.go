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
				w.Header().Set("Retry-After", "3600")
				writeJSON(w, 429, `{"error":{"message":"rate limited","type":"rate_limit_error"}}`)
				return
			}
			writeJSON(w, 200, okReply)
		})
		o := fastOptions(server.URL)
		// An hour's Retry-After that the cap did not bound would run into
		// this deadline; no tighter bound is needed on a busy machine.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		start := time.Now()
		resp, err := judgeAgainst(o).Judge(ctx, judgeRequest("orders east"))
		Expect(err).NotTo(HaveOccurred())
		Expect(contract(resp.Raw)["skill"]).To(Equal("query_orders_by_region"))
		Expect(server.Count()).To(Equal(2))
		Expect(time.Since(start)).To(BeNumerically(">=", o.RetryCap), "Retry-After honoured up to the cap")
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

	// A hung server answers nothing, so the client cannot know its request
	// arrived; the counts are awaited rather than read once. The timeouts
	// only need to let a localhost request arrive on a loaded machine.
	It("times out a hung connection and retries once", func() {
		server := newFakeProvider(func(w http.ResponseWriter, r *http.Request, n int) {
			if n == 1 {
				<-r.Context().Done() // hang until the client gives up
				return
			}
			writeJSON(w, 200, okReply)
		})
		o := fastOptions(server.URL)
		o.Timeout = time.Second // also all the answering attempt gets
		_, err := judgeAgainst(o).Judge(context.Background(), judgeRequest("orders east"))
		Expect(err).NotTo(HaveOccurred())
		Expect(server.Count()).To(Equal(2))
	})

	It("fails after the retry of a hung connection also times out", func() {
		server := newFakeProvider(func(w http.ResponseWriter, r *http.Request, n int) {
			<-r.Context().Done()
		})
		o := fastOptions(server.URL)
		o.Timeout = 300 * time.Millisecond
		_, err := judgeAgainst(o).Judge(context.Background(), judgeRequest("orders east"))
		Expect(err).To(MatchError(ContainSubstring("no answer within 300ms after 2 attempts")))
		Expect(errors.Is(err, context.DeadlineExceeded)).To(BeTrue())
		Eventually(server.Count).Should(Equal(2))
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
		o.Timeout = 300 * time.Millisecond
		_, err := judgeAgainst(o).Judge(context.Background(), judgeRequest("orders east"))
		Expect(errors.Is(err, context.DeadlineExceeded)).To(BeTrue(), "%v", err)
		Eventually(server.Count).Should(Equal(2))
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
		// The caller cancels once its request has arrived, whatever the
		// scheduler does: no timer decides which happens first.
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		server := newFakeProvider(func(w http.ResponseWriter, r *http.Request, n int) {
			cancel()
			<-r.Context().Done()
		})
		_, err := judgeAgainst(fastOptions(server.URL)).Judge(ctx, judgeRequest("orders east"))
		Expect(errors.Is(err, context.Canceled)).To(BeTrue(), "%v", err)
		Expect(server.Count()).To(Equal(1))
	})

	It("keeps at most Concurrency requests in flight", func() {
		// The first two requests hold their slots until the spec has seen
		// both in flight; only then do all six proceed. No sleep decides
		// whether requests overlap.
		var inFlight, peak atomic.Int32
		release := make(chan struct{})
		server := newFakeProvider(func(w http.ResponseWriter, r *http.Request, n int) {
			now := inFlight.Add(1)
			for {
				p := peak.Load()
				if now <= p || peak.CompareAndSwap(p, now) {
					break
				}
			}
			<-release
			inFlight.Add(-1)
			writeJSON(w, 200, okReply)
		})
		o := fastOptions(server.URL)
		o.Concurrency = 2
		o.Timeout = time.Minute // held requests must not time out and retry
		j := judgeAgainst(o)
		var wg sync.WaitGroup
		for i := 0; i < 6; i++ {
			wg.Go(func() {
				defer GinkgoRecover()
				_, err := j.Judge(context.Background(), judgeRequest("orders east "+strconv.Itoa(i)))
				Expect(err).NotTo(HaveOccurred())
			})
		}
		Eventually(inFlight.Load).Should(BeEquivalentTo(2))
		Consistently(inFlight.Load, 100*time.Millisecond).Should(BeEquivalentTo(2), "a third request would pass the limit")
		close(release)
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
