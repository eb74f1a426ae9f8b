package harness_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
)

// historySummary is a made-up summary: two versions, v2 with a
// conversation rate, v1 without.
func historySummary(acc float64, violations int) harness.Summary {
	lo, hi := acc-0.05, acc+0.05
	group := func(extra bool) map[string]harness.Group {
		m := map[string]harness.Rate{
			harness.DecisionAccuracy:   {Value: acc, Lo: &lo, Hi: &hi, N: 40, K: int(acc * 40)},
			harness.WrongExecutionRate: {Value: 0.05, N: 40},
			harness.RefusalRecall:      {Value: 1, N: 8},
			harness.PolicyViolations:   {Value: float64(violations), N: 40},
			harness.SkillAccuracy:      {Value: 0.5, N: 40}, // not a headline metric
			harness.TaskSuccessRate:    {Value: 0, N: 0},    // measured over nothing
		}
		if extra {
			m[harness.ConversationSuccessRate] = harness.Rate{Value: 0.75, N: 4}
		}
		return map[string]harness.Group{"all": {N: 40, Metrics: m}, "suite:normal": {N: 20}}
	}
	return harness.Summary{Format: 1, Versions: []harness.VersionSummary{
		{Name: "v1", Version: "v1@aaaa1111", Groups: group(false)},
		{Name: "v2", Version: "v2@bbbb2222", Groups: group(true)},
	}}
}

var historyClock = time.Date(2026, 11, 30, 18, 4, 5, 0, time.FixedZone("CST", 8*3600))

var _ = Describe("History", func() {
	It("records the headline metrics of every version, in UTC, with the commit and command", func() {
		e := harness.NewHistoryEntry(harness.HistoryGate, historyClock, "0123abcd", historySummary(0.9, 1))
		b, err := json.Marshal(e)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(Equal(`{"format":1,"time":"2026-11-30T10:04:05Z","commit":"0123abcd","command":"gate","versions":[` +
			`{"name":"v1","version":"v1@aaaa1111","metrics":{"decision_accuracy":{"value":0.9,"lo":0.85,"hi":0.9500000000000001,"n":40},"policy_violations":{"value":1,"n":40},"refusal_recall":{"value":1,"n":8},"wrong_execution_rate":{"value":0.05,"n":40}}},` +
			`{"name":"v2","version":"v2@bbbb2222","metrics":{"conversation_success_rate":{"value":0.75,"n":4},"decision_accuracy":{"value":0.9,"lo":0.85,"hi":0.9500000000000001,"n":40},"policy_violations":{"value":1,"n":40},"refusal_recall":{"value":1,"n":8},"wrong_execution_rate":{"value":0.05,"n":40}}}]}`))
	})

	It("appends one line per run, never rewriting earlier lines, and reads back the last ones", func() {
		path := filepath.Join(GinkgoT().TempDir(), "deep", "history.jsonl")
		for i := range 5 {
			e := harness.NewHistoryEntry(harness.HistoryRun, historyClock.Add(time.Duration(i)*time.Hour), "c", historySummary(0.8+float64(i)/100, 0))
			Expect(harness.AppendHistory(path, e)).To(Succeed())
		}
		data, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(strings.Count(string(data), "\n")).To(Equal(5))

		entries, total, err := harness.ReadHistory(path, 2)
		Expect(err).NotTo(HaveOccurred())
		Expect(total).To(Equal(5))
		Expect(entries).To(HaveLen(2))
		Expect(entries[0].Time).To(Equal("2026-11-30T13:04:05Z"))
		Expect(entries[1].Time).To(Equal("2026-11-30T14:04:05Z"))
	})

	It("keeps concurrent appends whole, one line each", func() {
		path := filepath.Join(GinkgoT().TempDir(), "history.jsonl")
		var wg sync.WaitGroup
		for i := range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				e := harness.NewHistoryEntry(harness.HistoryRun, historyClock, strings.Repeat("x", i), historySummary(0.9, 0))
				Expect(harness.AppendHistory(path, e)).To(Succeed())
			}()
		}
		wg.Wait()
		entries, total, err := harness.ReadHistory(path, 0)
		Expect(err).NotTo(HaveOccurred())
		Expect(total).To(Equal(16))
		Expect(entries).To(HaveLen(16))
	})

	It("starts a new line after a cut-off one and names the cut line with file:line", func() {
		path := filepath.Join(GinkgoT().TempDir(), "history.jsonl")
		Expect(harness.AppendHistory(path, harness.NewHistoryEntry(harness.HistoryRun, historyClock, "", historySummary(0.9, 0)))).To(Succeed())
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		Expect(err).NotTo(HaveOccurred())
		_, err = f.WriteString(`{"format":1,"time":"2026-`)
		Expect(err).NotTo(HaveOccurred())
		Expect(f.Close()).To(Succeed())
		Expect(harness.AppendHistory(path, harness.NewHistoryEntry(harness.HistoryRun, historyClock, "", historySummary(0.9, 0)))).To(Succeed())

		_, _, err = harness.ReadHistory(path, 10)
		Expect(err).To(MatchError(ContainSubstring(path + ":2: not a history entry")))
		Expect(err).To(MatchError(ContainSubstring("fix or delete the line")))
		lines := strings.Split(strings.TrimSuffix(readString(path), "\n"), "\n")
		Expect(lines).To(HaveLen(3))
		Expect(lines[2]).To(HavePrefix(`{"format":1,`))
	})

	It("refuses entries of another format, over-long lines and non-regular files by name", func() {
		dir := GinkgoT().TempDir()
		path := filepath.Join(dir, "history.jsonl")
		Expect(os.WriteFile(path, []byte("\n"+`{"format":9,"versions":[]}`+"\n"), 0o644)).To(Succeed())
		_, _, err := harness.ReadHistory(path, 10)
		Expect(err).To(MatchError(ContainSubstring(path + ":2: history format 9")))

		Expect(os.WriteFile(path, []byte(strings.Repeat("x", 2<<20)+"\n"), 0o644)).To(Succeed())
		_, _, err = harness.ReadHistory(path, 10)
		Expect(err).To(MatchError(ContainSubstring(path + ":1: line longer than")))

		_, _, err = harness.ReadHistory(dir, 10)
		Expect(err).To(MatchError(ContainSubstring("not a regular file")))
		Expect(harness.AppendHistory(dir, harness.HistoryEntry{})).To(MatchError(ContainSubstring("append history")))
	})

	It("follows each version's metrics oldest first with the delta from the run before", func() {
		var entries []harness.HistoryEntry
		for i, acc := range []float64{0.80, 0.85, 0.83, 0.90} {
			s := historySummary(acc, i%2)
			if i == 3 {
				s.Versions[1].Version = "v2@cccc3333" // the prompt changed
				s.Versions = s.Versions[1:]           // and v1 was not run
			}
			entries = append(entries, harness.NewHistoryEntry(harness.HistoryRun, historyClock, "c", s))
		}
		t := harness.NewTrend(entries, 14, 3)
		Expect(t.First).To(Equal(11))
		Expect(t.Last).To(Equal(14))
		Expect(t.Versions).To(HaveLen(2))
		v2 := t.Versions[1]
		Expect(v2.Name).To(Equal("v2"))
		Expect(v2.IDs).To(Equal([]string{"v2@bbbb2222", "v2@cccc3333"}))
		var names []string
		for _, m := range v2.Metrics {
			names = append(names, m.Metric)
		}
		Expect(names).To(Equal([]string{"decision_accuracy", "wrong_execution_rate", "refusal_recall", "policy_violations", "conversation_success_rate"}))
		acc := v2.Metrics[0]
		Expect(acc.Points).To(HaveLen(3))
		Expect(acc.Points[0].Run).To(Equal(12))
		Expect(acc.Points[2].Version).To(Equal("v2@cccc3333"))
		Expect(*acc.Delta).To(BeNumerically("~", 0.07, 1e-9))
		Expect(v2.Metrics[3].Count).To(BeTrue())

		v1 := t.Versions[0]
		Expect(v1.Metrics[0].Points).To(HaveLen(3))
		Expect(v1.Metrics[0].Points[2].Run).To(Equal(13))

		one := harness.NewTrend(entries[:1], 1, 10)
		Expect(one.Versions[0].Metrics[0].Delta).To(BeNil())
	})
})

func readString(path string) string {
	b, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	return string(b)
}
