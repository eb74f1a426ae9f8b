package providers

import (
	"context"
	"encoding/json"
	"errors"
	"os"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router"
)

var _ = Describe("the panic guard at the provider call boundary", func() {
	It("turns a panic into an error that says it was one and where", func() {
		var v int
		var err error
		Expect(func() {
			v, err = guard("judge openai:m", func() (int, error) {
				var m map[string]int
				m["x"] = 1 // a nil map write, the kind of bug the guard is for
				return 7, nil
			})
		}).NotTo(Panic())
		Expect(v).To(BeZero())
		Expect(errors.Is(err, ErrProviderPanic)).To(BeTrue())
		Expect(err.Error()).To(HavePrefix("judge openai:m: provider call panicked: assignment to entry in nil map (at "))
		Expect(err.Error()).To(ContainSubstring("guard_internal_test.go:"))
	})

	It("settles the budget of a call that panicked at its reservation", func() {
		budget := NewBudget(1)
		g, err := New(Options{Budget: budget, Prices: PriceTable{"m": {InputPerM: 1, OutputPerM: 1}}})
		Expect(err).NotTo(HaveOccurred())
		resp, err := g.judgeOnce(context.Background(), "openai:m", "m", router.JudgeRequest{Text: "x"}, func(ctx context.Context) (answer, error) {
			// The transport reserved and sent the request; then the answer
			// handling blew up.
			_, rerr := exchangeFrom(ctx).bill.reserve(1000)
			Expect(rerr).NotTo(HaveOccurred())
			panic("boom")
		})
		Expect(errors.Is(err, ErrProviderPanic)).To(BeTrue())
		Expect(resp.Raw).To(BeEmpty())
		Expect(budget.Reserved()).To(BeZero(), "nothing stays open")
		Expect(budget.Spent()).To(BeNumerically("~", (1000+promptOverheadTokens+1024)/1e6, 1e-12), "it may have been billed")
	})
})

var _ = Describe("the cassette store's last check", func() {
	const key = "sk-test-SECRETSECRETSECRET0123456789"
	var store *cassetteStore

	BeforeEach(func() {
		red, err := NewRedactor(DefaultSecretPatterns, key)
		Expect(err).NotTo(HaveOccurred())
		store = &cassetteStore{dir: GinkgoT().TempDir(), redact: red}
	})

	entry := func(body string) *cassetteEntry {
		return &cassetteEntry{
			Format: cassetteFormat, Key: "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", Model: "m",
			Response: cassetteResponse{Status: 200, Body: json.RawMessage(body)},
		}
	}

	DescribeTable("refuses to write a secret that got past redaction, in any spelling",
		func(body, where string) {
			_, err := store.save(entry(body))
			Expect(errors.Is(err, ErrSecretInCassette)).To(BeTrue(), "%v", err)
			Expect(err.Error()).To(ContainSubstring(where))
			Expect(err.Error()).NotTo(ContainSubstring("SECRETSECRET"), "the error does not print the secret")
			files, _ := os.ReadDir(store.dir)
			Expect(files).To(BeEmpty(), "not even a temporary file is left")
		},
		Entry("as written", `{"note":"`+key+`"}`, "the file's bytes"),
		Entry("with an escaped dash", `{"note":"sk\u002dtest-SECRETSECRETSECRET0123456789"}`, "response.body.note"),
		Entry("with escaped letters", `{"note":"\u0073\u006b-test-SECRETSECRETSECRET0123456789"}`, "response.body.note"),
		Entry("in a key", `{"sk\u002dtest-SECRETSECRETSECRET0123456789":1}`, "response.body (a key)"),
		Entry("in JSON inside a string", `{"args":"{\"n\":\"sk\\u002dtest-SECRETSECRETSECRET0123456789\"}"}`, "response.body.args"),
		Entry("matching a pattern only once decoded", `{"auth":"Bearer\u0020abcdefghijkl"}`, "response.body.auth"),
	)

	It("writes an entry whose secrets were redacted", func() {
		saved, err := store.save(entry(string(store.redact.JSON([]byte(`{"args":"{\"n\":\"sk\\u002dtest-SECRETSECRETSECRET0123456789\"}"}`)))))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(saved.Response.Body)).To(ContainSubstring(Redacted))
	})
})
