package providers

import (
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("token bucket", func() {
	It("allows one second's worth at once, then spaces requests at rpm/60 per second", func() {
		clock := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
		b := newTokenBucket(120, func() time.Time { return clock }) // 2 per second
		Expect(b.reserve()).To(BeZero())
		Expect(b.reserve()).To(BeZero())
		Expect(b.reserve()).To(Equal(500 * time.Millisecond))
		Expect(b.reserve()).To(Equal(time.Second), "callers queue in order")
		clock = clock.Add(10 * time.Second)
		Expect(b.reserve()).To(BeZero(), "refilled, but never beyond the burst")
		Expect(b.reserve()).To(BeZero())
		Expect(b.reserve()).To(Equal(500 * time.Millisecond))
	})

	It("keeps a burst of one for slow limits", func() {
		clock := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
		b := newTokenBucket(6, func() time.Time { return clock }) // one per 10s
		Expect(b.reserve()).To(BeZero())
		Expect(b.reserve()).To(Equal(10 * time.Second))
	})
})

var _ = Describe("Retry-After", func() {
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	header := func(v string) http.Header { return http.Header{"Retry-After": []string{v}} }

	DescribeTable("the wait before the retry",
		func(h http.Header, want time.Duration) {
			Expect(retryWait(h, 200*time.Millisecond, 30*time.Second, now)).To(Equal(want))
		},
		Entry("delay-seconds", header("7"), 7*time.Second),
		Entry("fractional seconds", header("0.5"), 500*time.Millisecond),
		Entry("an HTTP date", header(now.Add(12*time.Second).Format(http.TimeFormat)), 12*time.Second),
		Entry("a date in the past", header(now.Add(-time.Minute).Format(http.TimeFormat)), time.Duration(0)),
		Entry("beyond the cap", header("3600"), 30*time.Second),
		Entry("absurdly large", header("1e300"), 30*time.Second),
		Entry("unreadable: backoff", header("soon"), 200*time.Millisecond),
		Entry("absent: backoff", http.Header{}, 200*time.Millisecond),
		Entry("no response (timeout): backoff", http.Header(nil), 200*time.Millisecond),
	)

	It("retries only 429 and 5xx", func() {
		for _, code := range []int{429, 500, 502, 503, 504} {
			Expect(retryableStatus(code)).To(BeTrue(), "%d", code)
		}
		for _, code := range []int{200, 400, 401, 403, 404, 409, 422} {
			Expect(retryableStatus(code)).To(BeFalse(), "%d", code)
		}
	})
})

var _ = Describe("tool schemas", func() {
	It("drops x- keywords but keeps params whose names start with x-", func() {
		in := map[string]any{
			"type": "object",
			"properties": map[string]any{
				"x-request-id": map[string]any{"type": "string", "x-permission": map[string]any{"a": "b"}},
				"env":          map[string]any{"enum": []any{"prod"}, "x-permission": map[string]any{"prod": []any{"ops:prod"}}},
			},
			"x-note": "internal",
		}
		out := stripExtensions(in, false).(map[string]any)
		Expect(out).NotTo(HaveKey("x-note"))
		props := out["properties"].(map[string]any)
		Expect(props).To(HaveKey("x-request-id"))
		Expect(props["x-request-id"]).To(Equal(map[string]any{"type": "string"}))
		Expect(props["env"]).To(Equal(map[string]any{"enum": []any{"prod"}}))
		Expect(in["properties"].(map[string]any)["env"]).To(HaveKey("x-permission"), "the registry's schema is not modified")
	})

	It("gives canonical JSON sorted keys and unchanged numbers", func() {
		Expect(string(canonicalJSON([]byte(`{"b": 1.50, "a": {"d": "<x>", "c": [3, 2]}}`)))).
			To(Equal(`{"a":{"c":[3,2],"d":"<x>"},"b":1.50}`))
		Expect(string(canonicalJSON([]byte(`not json`)))).To(Equal("not json"))
	})
})
