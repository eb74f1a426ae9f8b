package builtin

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// mayMatch is the plain reading of rule r's pre-checks, one word search
// each, that mayMatchRules's one-pass mask must agree with: false only for
// text r's regexp cannot match; digit says whether lower holds an ASCII
// digit.
func (r dateRule) mayMatch(lower string, digit bool) bool {
	return (digit || !r.digit) && (r.need == nil || containsAny(lower, r.need)) && (r.shape == nil || r.shape(lower))
}

var _ = Describe("date pre-checks", func() {
	It("see the shapes numeric dates, ordinals and day markers have", func() {
		Expect(yearFirstShape("due 2031-05-02")).To(BeTrue())
		Expect(yearFirstShape("on 5/2/2031")).To(BeFalse())
		Expect(yearLastShape("on 5/2/2031")).To(BeTrue())
		Expect(yearLastShape("due 2031-05-02")).To(BeFalse())
		Expect(yearLastShape("v1.2031")).To(BeTrue())
		Expect(yearFirstShape("v1.2")).To(BeFalse())
		Expect(yearLastShape("v1.2")).To(BeFalse())
		Expect(yearFirstShape("PKG-20310502 and a/b")).To(BeFalse())
		Expect(yearLastShape("PKG-20310502 and a/b")).To(BeFalse())
		Expect(ordinalShape("the 1st to the 5th")).To(BeTrue())
		Expect(ordinalShape("the first and the fifth")).To(BeFalse())
		Expect(digitThen("日", "号")("3 \t号到9号")).To(BeTrue())
		Expect(digitThen("日", "号")("今日 3 天")).To(BeFalse())
	})

	It("still find numeric dates, and none after an id", func() {
		now := time.Date(2031, 5, 10, 9, 0, 0, 0, time.UTC)
		ds := findDates("ship between 2031-05-02 and 05/06/2031", now)
		Expect(ds).To(HaveLen(2))
		Expect(ds[0].start).To(Equal(time.Date(2031, 5, 2, 0, 0, 0, 0, time.UTC)))
		Expect(ds[1].start).To(Equal(time.Date(2031, 5, 6, 0, 0, 0, 0, time.UTC)))
		Expect(findDates("where is pkg-20310502", now)).To(BeEmpty())
	})

	It("fit in the bits of the mask that remembers them", func() {
		Expect(len(dateRules)).To(BeNumerically("<=", 32))
		Expect(mayMatchRules("2031-05-02 today")).To(Equal(uint32(1<<0|1<<8)), "a year-first numeric date, today")
		Expect(mayMatchRules("05/02/2031 today")).To(Equal(uint32(1<<5|1<<8)), "a year-last numeric date, today")
	})

	// A pre-check may only skip text its rule's regexp does not match:
	// made-up texts glued from date-like pieces, each rule's regexp run
	// on every one of them.
	It("never skip a text the rule's regexp matches", func() {
		pieces := strings.Split("2031|05|5|12|-|/|.|:| |  |\t|\n|年|月|日|号|到|至|~|—|st|nd|rd|th|the |of |to|until|"+
			"last|past|previous|day|days|week|month|this|上|个|星期|礼拜|周|本|这|近|最近|过去|一|两|十|1|7|天|"+
			"今天|今日|昨天|昨日|前天|today|yesterday|before |jan|may|sept|nov|ember|x|a|ORD-|,", "|")
		rng := rand.New(rand.NewPCG(15, 2))
		skipped := 0
		for range 30000 {
			var b strings.Builder
			for range 1 + rng.IntN(8) {
				b.WriteString(pieces[rng.IntN(len(pieces))])
			}
			lower := lowerASCII(b.String())
			digit := strings.ContainsAny(lower, "0123456789")
			may := mayMatchRules(lower)
			for i, r := range dateRules {
				Expect(may&(1<<i) != 0).To(Equal(r.mayMatch(lower, digit)), "rule %d's bit for %q", i, lower)
				if !r.mayMatch(lower, digit) {
					skipped++
					Expect(r.re.MatchString(lower)).To(BeFalse(), "rule %d skipped %q", i, lower)
				}
			}
		}
		Expect(skipped).To(BeNumerically(">", 100000))
	})
})

var _ = Describe("the day-range pre-checks", func() {
	It("turn away only text the regexps cannot match", func() {
		texts := madeUpTexts(11, 30000, strings.Split("到|至|~|～|-|—| |\t|\n|\f|\r|\v|3|12|日|号|x|月|\u00a0|中", "|"))
		continued, shaped, months := 0, 0, 0
		dayMarker := regexp.MustCompile(`\d\s*(?:日|号)`)
		monthMarker := regexp.MustCompile(`\d\s*月`)
		for _, t := range texts {
			if continuedDay.MatchString(t) {
				continued++
				Expect(mayContinueDay(t)).To(BeTrue(), "%q", t)
			}
			if dayMarker.MatchString(t) {
				shaped++
			}
			Expect(digitThen("日", "号")(t)).To(Equal(dayMarker.MatchString(t)), "%q", t)
			if monthMarker.MatchString(t) {
				months++
			}
			Expect(digitThen("月")(t)).To(Equal(monthMarker.MatchString(t)), "%q", t)
			Expect(trimSpaceClass(t)).To(Equal(strings.TrimLeft(t, "\t\n\f\r ")), "%q", t)
		}
		Expect(continued).To(BeNumerically(">", 100))
		Expect(shaped).To(BeNumerically(">", 100))
		Expect(months).To(BeNumerically(">", 100))
	})
})

// BenchmarkDigitThenLong looks for a digit before 日 or 号 in 50 KB that
// writes 号 thousands of times after spaces and letters, never a digit:
// each is read back over its spaces once.
func BenchmarkDigitThenLong(b *testing.B) {
	text := strings.Repeat("1x   号 日", 5000)
	shape := digitThen("日", "号")
	for b.Loop() {
		if shape(text) {
			b.Fatal("no digit stands before a day mark")
		}
	}
}
