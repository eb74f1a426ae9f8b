package providers_test

import (
	"errors"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router/providers"
)

var _ = Describe("Prices", func() {
	It("finds dated snapshots by their family and charges per million tokens", func() {
		t := providers.DefaultPrices()
		p, ok := t.Lookup("gpt-4o-mini-2024-07-18")
		Expect(ok).To(BeTrue())
		Expect(p).To(Equal(providers.Price{InputPerM: 0.15, OutputPerM: 0.60}), "the longest prefix wins over gpt-4o")
		u := t.Usage("gpt-4o-mini", 2_000_000, 1_000_000)
		Expect(u.CostUSD).To(BeNumerically("~", 0.90, 1e-12))
	})

	It("records usage at zero cost for unknown models", func() {
		u := providers.DefaultPrices().Usage("qwen2.5:7b", 500, 20)
		Expect(u.InputTokens).To(Equal(500))
		Expect(u.OutputTokens).To(Equal(20))
		Expect(u.CostUSD).To(BeZero())
	})

	It("parses a price flag and says how to write a bad one", func() {
		t, err := providers.ParsePrices("my-local=0/0; gpt-4o-mini=0.2/0.8")
		Expect(err).NotTo(HaveOccurred())
		Expect(t.String()).To(Equal("gpt-4o-mini=0.2/0.8,my-local=0/0"))
		_, err = providers.ParsePrices("gpt-4o-mini=cheap")
		Expect(err).To(MatchError(ContainSubstring("write model=input/output")))
		_, err = providers.ParsePrices("m=-1/2")
		Expect(err).To(MatchError(ContainSubstring(">= 0")))
	})
})

var _ = Describe("Budget", func() {
	It("projects the largest call so far, counting calls in flight", func() {
		b := providers.NewBudget(0.010)
		settle, err := b.Reserve()
		Expect(err).NotTo(HaveOccurred(), "the first call's cost is unknown, so it may go")
		settle(0.004)
		Expect(b.Check()).To(Succeed())

		s1, err := b.Reserve()
		Expect(err).NotTo(HaveOccurred())
		_, err = b.Reserve()
		Expect(errors.Is(err, providers.ErrBudgetExceeded)).To(BeTrue(), "0.004 spent + 2 in flight x 0.004 > 0.010")
		s1(0.004)
		s1(0.004) // settling twice counts once
		Expect(b.Spent()).To(BeNumerically("~", 0.008, 1e-12))
		Expect(b.Check()).To(MatchError(ContainSubstring("spent $0.008000 of $0.010000")))
	})

	It("is unlimited at zero and when nil", func() {
		Expect(providers.NewBudget(0).Check()).To(Succeed())
		var b *providers.Budget
		Expect(b.Check()).To(Succeed())
		settle, err := b.Reserve()
		Expect(err).NotTo(HaveOccurred())
		settle(1)
	})
})

var _ = Describe("Redactor", func() {
	It("removes the default patterns and literal keys, idempotently", func() {
		r, err := providers.NewRedactor(providers.DefaultSecretPatterns, "plain-key-123456")
		Expect(err).NotTo(HaveOccurred())
		in := "key sk-abcdefghijklmnopqrstu, header Authorization: Bearer eyJhbGciOi.J9x, aws AKIAIOSFODNN7EXAMPLE, literal plain-key-123456, short abc"
		out := r.String(in)
		Expect(out).To(Equal("key [REDACTED], header Authorization: [REDACTED], aws [REDACTED], literal [REDACTED], short abc"))
		Expect(r.String(out)).To(Equal(out))
	})

	It("reports a bad pattern", func() {
		_, err := providers.NewRedactor([]string{"("})
		Expect(err).To(MatchError(ContainSubstring(`secret pattern "("`)))
	})
})

var _ = Describe("Options from the environment", func() {
	It("reads ROUTEBENCH_* and fills defaults", func() {
		setenv(providers.EnvCassettes, "Replay")
		setenv(providers.EnvRPM, "60")
		setenv(providers.EnvTimeout, "5s")
		setenv(providers.EnvPrices, "my-model=1/2")
		o, err := providers.OptionsFromEnv()
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Cassettes).To(Equal(providers.CassettesReplay))
		Expect(o.CassetteDir).To(Equal(providers.DefaultCassetteDir))
		Expect(o.RPM).To(Equal(60))
		Expect(o.Timeout).To(Equal(5 * time.Second))
		Expect(o.RetryCap).To(Equal(30 * time.Second))
		Expect(o.Prices).To(HaveKeyWithValue("my-model", providers.Price{InputPerM: 1, OutputPerM: 2}))
		Expect(o.Prices).To(HaveKey("gpt-4o-mini"))
	})

	It("names the variable and what to write", func() {
		setenv(providers.EnvCassettes, "sometimes")
		_, err := providers.OptionsFromEnv()
		Expect(err).To(MatchError(ContainSubstring("use one of off, replay, record, auto")))
		setenv(providers.EnvCassettes, "")
		setenv(providers.EnvConcurrency, "-2")
		_, err = providers.OptionsFromEnv()
		Expect(err).To(MatchError(ContainSubstring("ROUTEBENCH_CONCURRENCY")))
	})
})
