package target_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/providers"
	"github.com/routebench/routebench/router/target"
)

// received is one request a fake target got.
type received struct {
	at     time.Time
	header http.Header
	body   map[string]any
}

// fakeTarget is a local HTTP server standing in for a team's router: it
// reads the request JSON and answers what respond writes; n is the 1-based
// number of the request.
type fakeTarget struct {
	*httptest.Server
	mu       sync.Mutex
	requests []received
}

func newFakeTarget(respond func(w http.ResponseWriter, n int, req map[string]any)) *fakeTarget {
	f := &fakeTarget{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		var req map[string]any
		_ = json.Unmarshal(data, &req)
		f.mu.Lock()
		f.requests = append(f.requests, received{at: time.Now(), header: r.Header.Clone(), body: req})
		n := len(f.requests)
		f.mu.Unlock()
		respond(w, n, req)
	}))
	DeferCleanup(f.Close)
	return f
}

func (f *fakeTarget) got() []received {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]received(nil), f.requests...)
}

// answering always answers body with status 200.
func answering(body string) func(http.ResponseWriter, int, map[string]any) {
	return func(w http.ResponseWriter, _ int, _ map[string]any) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, body)
	}
}

const refusal = `{"action":"refuse","confidence":0.2,"message":"nothing fits"}`

// refuseCase is a made-up case expecting a refusal, scored as the harness
// scores it.
func refuseCase(scopes ...string) *harness.Case {
	return &harness.Case{ID: "c", Input: "x", Caller: router.Caller{Scopes: scopes}, Expect: harness.Expect{Action: router.Refuse}}
}

var _ = Describe("an HTTP target", func() {
	It("POSTs the request JSON with the version under test named, and stamps the answer with that version and the target", func() {
		f := newFakeTarget(answering(`{"action":"execute","skill":"get_order","params":{"order_id":"ORD-20261130"},"confidence":0.97,"stage":"llm","version":"prod-router-7","model":"gpt-x"}`))
		r := newTarget(f.URL+"/route", target.Options{})
		d := ask(r, "where is ORD-20261130", "orders:read")
		Expect(d.Action).To(Equal(router.Execute), describe(d))
		Expect(d.Params).To(HaveKeyWithValue("order_id", "ORD-20261130"))
		Expect(d.Version).To(Equal(routingV2().ID()))
		Expect(d.Model).To(Equal("target:" + f.URL + "/route"))
		Expect(d.Stage).To(Equal("llm"), "the target's own stage is kept")
		Expect(d.Trace[0].Note).To(ContainSubstring(`it calls itself version "prod-router-7"; its model "gpt-x"`))

		reqs := f.got()
		Expect(reqs).To(HaveLen(1))
		Expect(reqs[0].header.Get("Content-Type")).To(Equal("application/json"))
		Expect(reqs[0].header.Get(target.VersionHeader)).To(Equal(routingV2().ID()))
		Expect(reqs[0].body).To(HaveKeyWithValue("text", "where is ORD-20261130"))
		Expect(reqs[0].body).To(HaveKeyWithValue("now", "2026-11-30T10:00:00Z"))
		Expect(reqs[0].body["caller"]).To(Equal(map[string]any{"scopes": []any{"orders:read"}, "disabled": []any{}}))
	})

	DescribeTable("makes an answer that is not a Decision a schema error, never a refusal",
		func(body, rule, says string) {
			f := newFakeTarget(answering(body))
			d := ask(newTarget(f.URL, target.Options{}), "anything at all", "orders:read")
			Expect(d.Action).To(Equal(router.Fail), describe(d))
			e := firstError(d)
			Expect(e.Category).To(Equal(router.CatSchemaError))
			Expect(e.Rule).To(Equal(rule))
			Expect(e.Message).To(ContainSubstring(says))
			Expect(d.Trace[0].Raw).To(Equal(body), "the unusable answer is kept for people to read")

			// Scored: a case expecting a refusal fails it as schema_error,
			// and the output counts as a failed one.
			v := harness.Check(refuseCase("orders:read"), d, routingV2().Registry)
			Expect(v.Pass).To(BeFalse())
			Expect(v.Failure).To(Equal(harness.FailSchemaError))
			calls, passed := harness.JudgeCalls(d)
			Expect([2]int{calls, passed}).To(Equal([2]int{1, 0}))
		},
		Entry("plain text", `Sorry, I can't help with that.`, target.RuleNotADecision, "not a JSON object"),
		Entry("HTML from a proxy", `<html><body>Bad gateway</body></html>`, target.RuleNotADecision, "not a JSON object"),
		Entry("an unknown action", `{"action":"decline","confidence":0.1}`, target.RuleNotADecision, `"decline" is not an action`),
		Entry("no action", `{"skill":"get_order","confidence":0.9}`, target.RuleNotADecision, "action: is missing"),
		Entry("no confidence", `{"action":"refuse"}`, target.RuleNotADecision, "confidence: is missing"),
		Entry("acting on no skill", `{"action":"execute","confidence":0.9}`, target.RuleNotADecision, "skill: is missing"),
		Entry("a skill the version does not have", `{"action":"refuse","skill":"cancel_everything","confidence":0.9}`, router.RuleInvalidSkill, `named skill "cancel_everything", which is not among version v2@`),
		Entry("a candidate the version does not have", `{"action":"clarify","confidence":0.7,"candidates":[{"skill":"get_order","score":0.7},{"skill":"get_orders","score":0.6}]}`, router.RuleInvalidSkill, `did it mean get_order?`),
	)

	It("holds skills to the request's own tools when the case brings them", func() {
		f := newFakeTarget(answering(`{"action":"execute","skill":"get_order","confidence":0.9}`))
		r := newTarget(f.URL, target.Options{})
		d, err := r.Route(bg(), router.Request{ID: "t", Text: "order?", Tools: toolsOf("- {name: ping_host, description: Ping a host, side_effect: read}\n")})
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Action).To(Equal(router.Fail))
		Expect(firstError(d).Message).To(ContainSubstring("not among the request's tools"))
		Expect(f.got()[0].body["tools"]).To(HaveLen(1))
	})

	It("keeps an acting answer on a skill the caller may not use, and the harness scores the policy violation from the case's caller", func() {
		// The target claims a clean policy stage; the caller holds
		// orders:read only, and restart_service needs ops:write.
		f := newFakeTarget(answering(`{"action":"confirm","skill":"restart_service","gate":"normal","params":{"service":"api","env":"staging"},"confidence":0.95,
			"trace":[{"stage":"policy","kept":16,"dropped":[]}]}`))
		d := ask(newTarget(f.URL, target.Options{}), "restart the api in staging", "orders:read")
		Expect(d.Action).To(Equal(router.Confirm), "the adapter does not second-guess a valid answer: %s", describe(d))
		c := refuseCase("orders:read")
		v := harness.Check(c, d, routingV2().Registry)
		Expect(v.Failure).To(Equal(harness.FailPolicyViolation))
		Expect(v.Problems[0]).To(ContainSubstring("without the caller holding scope [ops:write]"))
		// The same answer is clean for a caller who holds the scope.
		Expect(harness.PolicyViolation(router.Caller{Scopes: []string{"ops:write"}}, d, routingV2().Registry)).To(BeEmpty())
	})

	It("retries a 503 once and then takes the answer", func() {
		f := newFakeTarget(func(w http.ResponseWriter, n int, _ map[string]any) {
			if n == 1 {
				http.Error(w, "warming up", http.StatusServiceUnavailable)
				return
			}
			_, _ = io.WriteString(w, refusal)
		})
		d := ask(newTarget(f.URL, target.Options{}), "hello", "orders:read")
		Expect(d.Action).To(Equal(router.Refuse), describe(d))
		Expect(f.got()).To(HaveLen(2))
	})

	It("gives up after the one retry: a provider error naming the status, never a refusal", func() {
		f := newFakeTarget(func(w http.ResponseWriter, _ int, _ map[string]any) {
			http.Error(w, "upstream model overloaded", http.StatusBadGateway)
		})
		d := ask(newTarget(f.URL, target.Options{}), "hello", "orders:read")
		Expect(d.Action).To(Equal(router.Fail))
		Expect(firstError(d).Category).To(Equal(router.CatProviderError))
		Expect(firstError(d).Message).To(ContainSubstring("answered HTTP 502: upstream model overloaded"))
		Expect(f.got()).To(HaveLen(2))
		Expect(harness.IsProviderError(d)).To(BeTrue(), "counted toward exit 3")
	})

	It("does not retry a 400", func() {
		f := newFakeTarget(func(w http.ResponseWriter, _ int, _ map[string]any) {
			http.Error(w, `{"error":"unknown field caller"}`, http.StatusBadRequest)
		})
		d := ask(newTarget(f.URL, target.Options{}), "hello", "orders:read")
		Expect(firstError(d).Message).To(ContainSubstring("answered HTTP 400"))
		Expect(f.got()).To(HaveLen(1))
	})

	It("honours Retry-After on a 429 before its one retry", func() {
		f := newFakeTarget(func(w http.ResponseWriter, n int, _ map[string]any) {
			if n == 1 {
				w.Header().Set("Retry-After", "1")
				http.Error(w, "slow down", http.StatusTooManyRequests)
				return
			}
			_, _ = io.WriteString(w, refusal)
		})
		// The backoff without Retry-After is 5ms: a wait near a second can
		// only come from the header.
		d := ask(newTarget(f.URL, target.Options{}), "hello", "orders:read")
		Expect(d.Action).To(Equal(router.Refuse), describe(d))
		reqs := f.got()
		Expect(reqs).To(HaveLen(2))
		Expect(reqs[1].at.Sub(reqs[0].at)).To(BeNumerically(">=", 900*time.Millisecond))
	})

	It("retries an attempt that times out", func() {
		f := newFakeTarget(func(w http.ResponseWriter, n int, _ map[string]any) {
			if n == 1 {
				time.Sleep(1500 * time.Millisecond)
			}
			_, _ = io.WriteString(w, refusal)
		})
		o := gatewayOpts()
		// Long enough that the retry answers in time on a busy machine,
		// short enough that the first attempt's sleep runs past it.
		o.Timeout = 500 * time.Millisecond
		d := ask(newTarget(f.URL, target.Options{Gateway: newGateway(o)}), "hello")
		Expect(d.Action).To(Equal(router.Refuse), describe(d))
		Expect(f.got()).To(HaveLen(2))
	})

	It("is a provider error when nothing listens", func() {
		f := newFakeTarget(answering(refusal))
		url := f.URL
		f.Close()
		d := ask(newTarget(url, target.Options{}), "hello")
		Expect(d.Action).To(Equal(router.Fail))
		Expect(firstError(d).Category).To(Equal(router.CatProviderError))
		Expect(firstError(d).Message).To(ContainSubstring("connection refused"))
	})

	It("bounds the answer it reads", func() {
		f := newFakeTarget(answering(`{"action":"refuse","confidence":0,"message":"` + strings.Repeat("x", 4096) + `"}`))
		d := ask(newTarget(f.URL, target.Options{MaxAnswerBytes: 1024}), "hello")
		Expect(firstError(d).Category).To(Equal(router.CatProviderError))
		Expect(firstError(d).Message).To(ContainSubstring("over 1024 bytes"))
	})

	It("records answers as cassettes with secrets redacted and replays them offline", func() {
		dir := GinkgoT().TempDir()
		f := newFakeTarget(func(w http.ResponseWriter, _ int, req map[string]any) {
			// Echoes the text, as a router quoting the user might.
			msg, _ := json.Marshal("you said: " + req["text"].(string))
			_, _ = io.WriteString(w, `{"action":"refuse","confidence":0.1,"message":`+string(msg)+`}`)
		})
		url := f.URL + "/route"
		const secret = "sk-live-ABCDEFGHIJKLMNOPQRSTUV"
		texts := []string{"rotate the key " + secret, "anything else"}

		o := gatewayOpts()
		o.Cassettes, o.CassetteDir = providers.CassettesRecord, dir
		recording := newTarget(url, target.Options{Gateway: newGateway(o)})
		var recorded []router.Decision
		for _, t := range texts {
			recorded = append(recorded, ask(recording, t, "orders:read"))
		}
		Expect(f.got()).To(HaveLen(2))
		files, err := filepath.Glob(filepath.Join(dir, "*.json"))
		Expect(err).NotTo(HaveOccurred())
		Expect(files).To(HaveLen(2))
		for _, file := range files {
			data, err := os.ReadFile(file)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(data)).NotTo(ContainSubstring(secret), file)
		}

		f.Close() // offline from here on
		o.Cassettes = providers.CassettesReplay
		replaying := newTarget(url, target.Options{Gateway: newGateway(o)})
		for i, t := range texts {
			d := ask(replaying, t, "orders:read")
			Expect(d.Action).To(Equal(recorded[i].Action))
			Expect(d.Message).To(Equal(recorded[i].Message))
			Expect(d.Trace[0].Note).To(ContainSubstring("replayed from a cassette"))
		}
		Expect(recorded[0].Message).NotTo(ContainSubstring(secret), "the answer is redacted as it is recorded")

		d := ask(replaying, "never recorded", "orders:read")
		Expect(d.Action).To(Equal(router.Fail))
		Expect(firstError(d).Category).To(Equal(router.CatProviderError))
		Expect(firstError(d).Message).To(ContainSubstring("no cassette entry"))
	})
})

var _ = Describe("a target URL", func() {
	It("refuses credentials, in the user part or in a query parameter named like one", func() {
		for _, u := range []string{"http://me:pw@127.0.0.1:9/route", "http://127.0.0.1:9/route?api_key=sk-made-up-123", "https://h/route?access_token=x", "https://h/route?sig=abc"} {
			_, err := target.ParseSpec(u)
			Expect(err).To(MatchError(ContainSubstring("credential")), u)
			Expect(err.Error()).NotTo(ContainSubstring("sk-made-up-123"))
			Expect(err.Error()).NotTo(ContainSubstring("pw@"))
		}
	})

	It("shows its query values masked and sends them as given", func() {
		s, err := target.ParseSpec("http://127.0.0.1:9/route?region=eu-west&mode=fast")
		Expect(err).NotTo(HaveOccurred())
		Expect(s.String()).To(Equal("http://127.0.0.1:9/route?mode=***&region=***"))
		Expect(s.URL).To(Equal("http://127.0.0.1:9/route?region=eu-west&mode=fast"))
	})
})
