package builtin

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("a regexp that remembers its last text", func() {
	texts := []string{"ORD-1 and ORD-22", "ORD-1 and ORD-22", "none here", "", "ORD-333", "ORD-1 and ORD-22"}

	It("answers every text as the plain regexp does, whatever came before", func() {
		re := memoCompile(`ORD-(\d+)`)
		for _, t := range texts {
			Expect(re.allSubmatchIndex(t)).To(Equal(re.FindAllStringSubmatchIndex(t, -1)), t)
			Expect(re.allIndex(t)).To(Equal(re.FindAllStringIndex(t, -1)), t)
			Expect(re.firstSubmatchIndex(t)).To(Equal(re.FindStringSubmatchIndex(t)), t)
		}
	})

	It("hands back what it remembered for the same text", func() {
		re := memoCompile(`\d+`)
		first := re.allIndex("a 1 b 22")
		again := re.allIndex("a 1 b 22")
		Expect(&again[0]).To(BeIdenticalTo(&first[0]))
		Expect(re.allIndex("a 333")).To(Equal([][]int{{2, 5}}))
	})

	It("stays right with requests searching at once (go test -race)", func() {
		re := memoCompile(`[a-z]+(\d)`)
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Go(func() {
				defer GinkgoRecover()
				for i := range 500 {
					t := fmt.Sprintf("w%d x%d yy%d", w, i%7, i%3)
					Expect(re.allSubmatchIndex(t)).To(Equal(re.FindAllStringSubmatchIndex(t, -1)))
				}
			})
		}
		wg.Wait()
	})
})

var _ = Describe("a date formatted for a param", func() {
	It("is day.Format(layout), whatever was formatted before", func() {
		east := time.FixedZone("east", 8*3600)
		days := []time.Time{time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC),
			time.Date(2026, 11, 3, 0, 0, 0, 0, east), time.Date(2026, 11, 4, 0, 0, 0, 0, east)}
		for _, layout := range []string{"2006-01-02", "01/02/2006", "2006-01-02T15:04:05Z07:00", "2006-01-02"} {
			for _, d := range days {
				Expect(formatted(d, layout)).To(Equal(d.Format(layout)))
			}
		}
	})

	It("formats a range's start and end once, however often they take turns", func() {
		start, end := time.Date(2031, 5, 2, 0, 0, 0, 0, time.UTC), time.Date(2031, 5, 6, 0, 0, 0, 0, time.UTC)
		formatted(start, "2006-01-02")
		formatted(end, "2006-01-02")
		allocs := testing.AllocsPerRun(100, func() {
			formatted(start, "2006-01-02")
			formatted(end, "2006-01-02")
		})
		Expect(allocs).To(BeZero())
		Expect(formatted(start, "2006-01-02")).To(Equal("2031-05-02"))
		Expect(formatted(end, "2006-01-02")).To(Equal("2031-05-06"))
	})
})

var _ = Describe("a function of a text that remembers", func() {
	It("answers each text as the function does, two texts remembered", func() {
		calls := 0
		upper := func(s string) string { calls++; return strings.ToUpper(s) }
		var m memoOf[string]
		for _, s := range []string{"a", "b", "a", "b", "c", "a", "", ""} {
			Expect(m.recall(s, upper)).To(Equal(strings.ToUpper(s)))
		}
		// a, b, then c and a again, then "" once: the others were remembered.
		Expect(calls).To(Equal(5))
	})
})
