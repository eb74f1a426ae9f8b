package providers_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router/providers"
)

// Fault injection. Each entry runs the OpenAI judge, recording cassettes
// under a budget, against a local server that speaks the OpenAI chat
// completions wire format (POST /v1/chat/completions, the documented
// response object) until it fails in one way. Every entry asserts the
// kind of error, that nothing panicked, how many requests were sent (one
// retry only on timeout, 429 and 5xx), what the budget was charged, and
// that no secret reached the cassette directory.
var _ = Describe("Fault injection", Label("faults"), func() {
	// echoKey is what the model answers in the escaped-secrets fault: the
	// key it was sent, spelled with a JSON escape.
	echoKey := `{\"note\":\"sk\\u002dtest-SECRETSECRETSECRET0123456789\",\"confidence\":0.9}`
	okReply := chatToolCall("query_orders_by_region", `{"region":"east","confidence":0.9}`)

	// fault is one way a server fails; respond gets the request number.
	type fault struct {
		respond  func(w http.ResponseWriter, r *http.Request, n int, f *faultServer)
		timeout  time.Duration
		requests int
		// billed is how many attempts the budget charges at their
		// reservation; -1 means the call succeeded and was charged its usage.
		billed int
		check  func(err error)
		// files is how many cassettes the call leaves: only a usable
		// answer is recorded.
		files int
		// streamed is the size of a body the server tried to send whole.
		streamed int64
	}

	DescribeTable("one failure each",
		func(f fault) {
			setenv("OPENAI_API_KEY", testKey)
			fs := newFaultServer(f.respond)
			dir := GinkgoT().TempDir()
			o := fastOptions(fs.URL + "/v1")
			o.Timeout = f.timeout
			o.Cassettes, o.CassetteDir = providers.CassettesRecord, dir
			o.Budget = providers.NewBudget(10)
			fs.budget = o.Budget
			j, err := newGateway(o).Judge("openai:gpt-4o-mini")
			Expect(err).NotTo(HaveOccurred())

			Expect(func() { _, err = j.Judge(context.Background(), judgeRequest("orders east")) }).NotTo(Panic())
			f.check(err)
			Expect(fs.Count()).To(Equal(f.requests), "requests sent")

			Expect(o.Budget.Reserved()).To(BeZero(), "no reservation left open")
			if f.billed >= 0 {
				Expect(o.Budget.Spent()).To(BeNumerically("~", float64(f.billed)*fs.worst(), 1e-12),
					"%d attempt(s) that may have been billed, at %g each", f.billed, fs.worst())
			} else {
				Expect(o.Budget.Spent()).To(BeNumerically("~", (1200*0.15+30*0.60)/1e6, 1e-12))
			}
			expectNoSecretIn(dir)
			Expect(readDir(dir)).To(HaveLen(f.files))
			if f.streamed > 0 {
				// The handler returns once the client hangs up; it must not
				// have got the whole body out.
				Eventually(fs.written).WithTimeout(20 * time.Second).Should(Receive(BeNumerically("<", f.streamed)))
			}
		},
		Entry("a null body", fault{
			respond:  func(w http.ResponseWriter, r *http.Request, n int, f *faultServer) { writeJSON(w, 200, "null") },
			timeout:  5 * time.Second,
			requests: 1, billed: 1,
			check: func(err error) {
				Expect(errors.Is(err, providers.ErrBadResponse)).To(BeTrue(), "%v", err)
			},
		}),
		Entry("truncated JSON", fault{
			respond: func(w http.ResponseWriter, r *http.Request, n int, f *faultServer) {
				writeJSON(w, 200, okReply[:len(okReply)/2])
			},
			timeout:  5 * time.Second,
			requests: 1, billed: 1,
			check: func(err error) {
				Expect(err).To(MatchError(ContainSubstring("error parsing response json")))
			},
		}),
		Entry("a 64 MiB body, streamed", fault{
			respond:  func(w http.ResponseWriter, r *http.Request, n int, f *faultServer) { f.stream(w, 64<<20, false) },
			timeout:  20 * time.Second, // reading 16 MiB must never be the thing that times out
			requests: 1, billed: 1, streamed: 64 << 20,
			check: func(err error) {
				Expect(errors.Is(err, providers.ErrResponseTooLarge)).To(BeTrue(), "%v", err)
				Expect(err.Error()).To(ContainSubstring("response body over 16777216 bytes"))
			},
		}),
		Entry("a 400 MB body, declared", fault{
			respond:  func(w http.ResponseWriter, r *http.Request, n int, f *faultServer) { f.stream(w, 400<<20, true) },
			timeout:  5 * time.Second,
			requests: 1, billed: 1, streamed: 400 << 20,
			check: func(err error) {
				Expect(errors.Is(err, providers.ErrResponseTooLarge)).To(BeTrue(), "%v", err)
				Expect(err.Error()).To(ContainSubstring("response body of 419430400 bytes is over 16777216 bytes"))
			},
		}),
		Entry("a slow drip, slower than the timeout", fault{
			respond:  func(w http.ResponseWriter, r *http.Request, n int, f *faultServer) { f.drip(w, r, okReply) },
			timeout:  300 * time.Millisecond, // the drip never ends, so any timeout expires
			requests: 2, billed: 2,
			check: func(err error) {
				Expect(errors.Is(err, context.DeadlineExceeded)).To(BeTrue(), "%v", err)
				Expect(err.Error()).To(ContainSubstring("no answer within 300ms after 2 attempts"))
			},
		}),
		Entry("a connection reset", fault{
			respond:  func(w http.ResponseWriter, r *http.Request, n int, f *faultServer) { reset(w) },
			timeout:  5 * time.Second,
			requests: 1, billed: 1,
			check: func(err error) {
				Expect(err).To(HaveOccurred())
				Expect(errors.Is(err, providers.ErrBadResponse)).To(BeFalse())
				Expect(errors.Is(err, context.DeadlineExceeded)).To(BeFalse())
			},
		}),
		Entry("a 503, twice", fault{
			respond: func(w http.ResponseWriter, r *http.Request, n int, f *faultServer) {
				writeJSON(w, 503, `{"error":{"message":"overloaded"}}`)
			},
			timeout:  5 * time.Second,
			requests: 2, billed: 0,
			check: func(err error) { Expect(err).To(MatchError(ContainSubstring("503"))) },
		}),
		Entry("a 429, then an answer", fault{
			respond: func(w http.ResponseWriter, r *http.Request, n int, f *faultServer) {
				if n == 1 {
					writeJSON(w, 429, `{"error":{"message":"slow down"}}`)
					return
				}
				writeJSON(w, 200, okReply)
			},
			timeout:  5 * time.Second,
			requests: 2, billed: -1, files: 1,
			check: func(err error) { Expect(err).NotTo(HaveOccurred()) },
		}),
		Entry("a 401", fault{
			respond: func(w http.ResponseWriter, r *http.Request, n int, f *faultServer) {
				writeJSON(w, 401, `{"error":{"message":"Incorrect API key provided: sk-test-*****6789"}}`)
			},
			timeout:  5 * time.Second,
			requests: 1, billed: 0,
			check: func(err error) { Expect(err).To(MatchError(ContainSubstring("401"))) },
		}),
		Entry("escaped secrets in the answer", fault{
			respond: func(w http.ResponseWriter, r *http.Request, n int, f *faultServer) {
				writeJSON(w, 200, strings.Replace(okReply, `"arguments":"{\"region\":\"east\",\"confidence\":0.9}"`, `"arguments":"`+echoKey+`"`, 1))
			},
			timeout:  5 * time.Second,
			requests: 1, billed: -1, files: 1,
			check: func(err error) { Expect(err).NotTo(HaveOccurred()) },
		}),
	)
})

// faultServer is a fakeProvider that also remembers what one call
// reserved and how much of a streamed body it managed to write.
type faultServer struct {
	*fakeProvider
	budget *providers.Budget

	mu       sync.Mutex
	reserved []float64
	written  chan int64
}

func newFaultServer(respond func(w http.ResponseWriter, r *http.Request, n int, f *faultServer)) *faultServer {
	fs := &faultServer{written: make(chan int64, 4)}
	fs.fakeProvider = newFakeProvider(func(w http.ResponseWriter, r *http.Request, n int) {
		// Attempts are sequential, so exactly the current one is open.
		fs.mu.Lock()
		fs.reserved = append(fs.reserved, fs.budget.Reserved())
		fs.mu.Unlock()
		respond(w, r, n, fs)
	})
	return fs
}

// worst is what one attempt reserved (every attempt sends the same body).
func (fs *faultServer) worst() float64 {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	Expect(fs.reserved).NotTo(BeEmpty())
	return fs.reserved[0]
}

// stream writes a body of size bytes from one reused 64 KiB chunk, so the
// test never holds it, and stops when the client stops reading. declared
// sends a Content-Length up front; otherwise the body is chunked and the
// client only learns its size by reading. What got written is reported on
// fs.written.
func (fs *faultServer) stream(w http.ResponseWriter, size int64, declared bool) {
	w.Header().Set("Content-Type", "application/json")
	if declared {
		w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
	}
	w.WriteHeader(200)
	head := []byte(`{"id":"chatcmpl-huge","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"`)
	chunk := bytes.Repeat([]byte("a"), 64<<10)
	var n int64
	m, err := w.Write(head)
	n += int64(m)
	for err == nil && n < size {
		m, err = w.Write(chunk[:min(int64(len(chunk)), size-n)])
		n += int64(m)
	}
	fs.written <- n
}

// drip trickles body one byte per 50ms, never finishing before the client
// gives up, however slow or fast the machine is.
func (fs *faultServer) drip(w http.ResponseWriter, r *http.Request, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(200)
	for i := 0; ; i = (i + 1) % len(body) {
		if _, err := io.WriteString(w, body[i:i+1]); err != nil {
			return
		}
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
			return
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// reset hijacks the connection and closes it with an RST (linger 0)
// before any response byte is written.
func reset(w http.ResponseWriter) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		return
	}
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
	_ = conn.Close()
}

// expectNoSecretIn checks every file under dir, as written and decoded.
func expectNoSecretIn(dir string) {
	secrets := []string{testKey, "sk-test-SECRET", "SECRETSECRETSECRET0123456789"}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		for _, s := range append([]string{string(data)}, decodedStrings(data)...) {
			for _, secret := range secrets {
				ExpectWithOffset(2, s).NotTo(ContainSubstring(secret), "%s", path)
			}
		}
		return nil
	})
	Expect(err).NotTo(HaveOccurred())
}
