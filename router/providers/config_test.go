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
	It("reserves each call's worst case and settles it to the actual cost", func() {
		b := providers.NewBudget(0.010)
		r1, err := b.Reserve(0.004)
		Expect(err).NotTo(HaveOccurred())
		r2, err := b.Reserve(0.004)
		Expect(err).NotTo(HaveOccurred())
		Expect(b.Reserved()).To(BeNumerically("~", 0.008, 1e-12))
		_, err = b.Reserve(0.004)
		Expect(errors.Is(err, providers.ErrBudgetExceeded)).To(BeTrue(), "0.008 reserved + 0.004 > 0.010")

		r1.Settle(0.001)
		r1.Settle(0.001) // settling twice counts once
		r2.SettleWorst()
		Expect(b.Spent()).To(BeNumerically("~", 0.005, 1e-12))
		Expect(b.Reserved()).To(BeZero())
		Expect(b.Calls()).To(Equal(2))
	})

	It("never reserves less than the largest actual cost seen", func() {
		b := providers.NewBudget(0.010)
		r, err := b.Reserve(0.001)
		Expect(err).NotTo(HaveOccurred())
		r.Settle(0.004) // the server billed more than the estimate
		r, err = b.Reserve(0.001)
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Worst()).To(BeNumerically("~", 0.004, 1e-12))
	})

	It("says what was spent, on how many calls, and the limit", func() {
		b := providers.NewBudget(0.50)
		for range 2 {
			r, err := b.Reserve(0.15)
			Expect(err).NotTo(HaveOccurred())
			r.Settle(0.1499)
		}
		open, err := b.Reserve(0.15)
		Expect(err).NotTo(HaveOccurred())
		_, err = b.Reserve(0.15)
		Expect(err).To(MatchError(providers.ErrBudgetExceeded))
		Expect(err.Error()).To(Equal("budget of $0.50 reached: spent $0.2998 on 2 calls, 1 in flight hold $0.1500, " +
			"and the next call may cost up to $0.1500; raise --max-cost or replay recorded answers with --cassettes replay"))
		var be *providers.BudgetError
		Expect(errors.As(b.Check(), &be)).To(BeTrue())
		Expect(be.Limit).To(Equal(0.50))
		open.Settle(0)
		Expect(b.Check()).To(Succeed(), "0.2998 + 0.15 fits again once the open call cost nothing")
	})

	It("is unlimited at zero and when nil", func() {
		Expect(providers.NewBudget(0).Check()).To(Succeed())
		var b *providers.Budget
		Expect(b.Check()).To(Succeed())
		r, err := b.Reserve(1)
		Expect(err).NotTo(HaveOccurred())
		r.Settle(1)
		Expect(b.Spent()).To(BeZero())
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
