package target_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/target"
)

// call sends one HTTP request to the server and returns status, headers
// and the decoded JSON body.
func call(method, url, body string) (int, http.Header, map[string]any) {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	resp, err := http.DefaultClient.Do(req)
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	var m map[string]any
	if method != http.MethodHead {
		ExpectWithOffset(1, json.Unmarshal(data, &m)).To(Succeed(), "every answer is JSON: %s", data)
	}
	return resp.StatusCode, resp.Header, m
}

// apiErr is the {"error": {...}} object of an error answer.
func apiErr(m map[string]any) map[string]any {
	e, ok := m["error"].(map[string]any)
	ExpectWithOffset(1, ok).To(BeTrue(), "no error object in %v", m)
	return e
}

var _ = Describe("routebench's router served over HTTP", func() {
	var url string
	var own *router.Router

	BeforeEach(func() {
		own = builtinV2()
		s := &target.Server{Router: own, Version: routingV2(), Judge: "builtin", Embedder: "builtin", MaxRequestBytes: 4096}
		srv := httptest.NewServer(s.Handler())
		DeferCleanup(srv.Close)
		url = srv.URL
	})

	It("answers POST /route with the Decision routebench's router makes in process", func() {
		body := `{"id":"r1","text":"看看华东区上周已发货的订单","caller":{"scopes":["orders:read"],"disabled":[]},"now":"2026-11-30T10:00:00+08:00"}`
		status, header, m := call(http.MethodPost, url+"/route", body)
		Expect(status).To(Equal(http.StatusOK))
		Expect(header.Get("Content-Type")).To(Equal("application/json"))
		req, err := router.DecodeRequest([]byte(body), nil)
		Expect(err).NotTo(HaveOccurred())
		want, err := own.Route(bg(), req)
		Expect(err).NotTo(HaveOccurred())
		Expect(m["action"]).To(BeEquivalentTo(want.Action))
		Expect(m["skill"]).To(Equal(want.Skill))
		Expect(m["confidence"]).To(Equal(want.Confidence))
		Expect(m["version"]).To(Equal(routingV2().ID()))
		Expect(m["params"]).To(HaveKeyWithValue("region", "east"))
	})

	It("answers GET /healthz and GET /version", func() {
		status, _, m := call(http.MethodGet, url+"/healthz", "")
		Expect(status).To(Equal(http.StatusOK))
		Expect(m).To(Equal(map[string]any{"status": "ok"}))
		status, _, m = call(http.MethodGet, url+"/version", "")
		Expect(status).To(Equal(http.StatusOK))
		v := routingV2()
		Expect(m).To(Equal(map[string]any{"version": v.ID(), "name": "v2", "fingerprint": v.Fingerprint, "dir": opsV2, "judge": "builtin", "embedder": "builtin"}))
	})

	DescribeTable("answers bad requests with a JSON error naming what to fix",
		func(method, path, body string, status int, code, field, says string) {
			got, header, m := call(method, url+path, body)
			Expect(got).To(Equal(status))
			e := apiErr(m)
			Expect(e["code"]).To(Equal(code))
			Expect(e["message"]).To(ContainSubstring(says))
			if field != "" {
				Expect(e["field"]).To(Equal(field))
			}
			if status == http.StatusMethodNotAllowed {
				Expect(header.Get("Allow")).NotTo(BeEmpty())
			}
		},
		Entry("not JSON", "POST", "/route", `text=hi`, 400, target.CodeInvalidRequest, "", "not a JSON object"),
		Entry("broken JSON", "POST", "/route", `{"text": "hi",`, 400, target.CodeInvalidRequest, "", "cut off"),
		Entry("no caller", "POST", "/route", `{"text":"hi"}`, 400, target.CodeInvalidRequest, "caller", "missing"),
		Entry("an unknown field", "POST", "/route", `{"text":"hi","caller":{},"prompt":"x"}`, 400, target.CodeInvalidRequest, "prompt", "not a request field"),
		Entry("a bad now", "POST", "/route", `{"text":"hi","caller":{},"now":"tomorrow"}`, 400, target.CodeInvalidRequest, "now", "RFC 3339"),
		Entry("bad tools", "POST", "/route", `{"text":"hi","caller":{},"tools":[{"name":"x"}]}`, 400, target.CodeInvalidRequest, "tools", "description"),
		Entry("GET /route", "GET", "/route", ``, 405, target.CodeMethodNotAllowed, "", "use POST"),
		Entry("POST /healthz", "POST", "/healthz", `{}`, 405, target.CodeMethodNotAllowed, "", "use GET"),
		Entry("an unknown path", "GET", "/decide", ``, 404, target.CodeNotFound, "", "POST /route"),
		Entry("a body over the limit", "POST", "/route", `{"text":"`+strings.Repeat("a", 5000)+`","caller":{}}`, 413, target.CodeTooLarge, "", "at most 4096"),
	)

	It("answers 413 to a body over the limit sent without a length", func() {
		pr, pw := io.Pipe()
		go func() {
			_, _ = io.WriteString(pw, `{"text":"`+strings.Repeat("b", 8000)+`","caller":{}}`)
			pw.Close()
		}()
		req, err := http.NewRequest(http.MethodPost, url+"/route", pr)
		Expect(err).NotTo(HaveOccurred())
		resp, err := http.DefaultClient.Do(req)
		Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		Expect(resp.ContentLength).NotTo(BeZero())
		Expect(resp.StatusCode).To(Equal(http.StatusRequestEntityTooLarge))
	})
})

// gatedRouting answers once released, so a spec holds a request in flight.
type gatedRouting struct {
	entered chan struct{}
	release chan struct{}
}

func (g gatedRouting) Route(ctx context.Context, _ router.Request) (router.Decision, error) {
	g.entered <- struct{}{}
	<-g.release
	return router.Decision{Action: router.Refuse, Params: map[string]any{}, Candidates: []router.Candidate{}, Errors: []router.Error{}, Trace: []router.TraceStep{}, Version: "held"}, nil
}

var _ = Describe("Serve", func() {
	It("stops taking connections when its context ends and lets the request in flight finish", func() {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		addr := "http://" + l.Addr().String()
		g := gatedRouting{entered: make(chan struct{}, 1), release: make(chan struct{})}
		s := &target.Server{Router: g, Version: routingV2()}
		ctx, stop := context.WithCancel(bg())
		served := make(chan error, 1)
		go func() { served <- target.Serve(ctx, l, s.Handler()) }()

		inFlight := make(chan int, 1)
		go func() {
			defer GinkgoRecover()
			resp, err := http.Post(addr+"/route", "application/json", strings.NewReader(`{"text":"hold on","caller":{}}`))
			Expect(err).NotTo(HaveOccurred())
			resp.Body.Close()
			inFlight <- resp.StatusCode
		}()
		Eventually(g.entered).Should(Receive())

		stop() // as SIGTERM does in `routebench serve`
		Eventually(func() error {
			c, err := net.DialTimeout("tcp", l.Addr().String(), 200*time.Millisecond)
			if err == nil {
				c.Close()
			}
			return err
		}).Should(HaveOccurred(), "no new connections once stopping")
		Consistently(served, 200*time.Millisecond).ShouldNot(Receive(), "Serve waits for the request in flight")

		close(g.release)
		Eventually(inFlight).Should(Receive(Equal(http.StatusOK)))
		Eventually(served).Should(Receive(BeNil()))
	})
})
