package builtin

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("numeric date pre-check", func() {
	It("passes only text with a digit right before a separator", func() {
		Expect(hasDigitSep("due 2031-05-02")).To(BeTrue())
		Expect(hasDigitSep("on 5/2/2031")).To(BeTrue())
		Expect(hasDigitSep("v1.2")).To(BeTrue())
		Expect(hasDigitSep("PKG-20310502 and a/b")).To(BeFalse())
		Expect(hasDigitSep("9")).To(BeFalse())
	})

	It("still finds numeric dates, and none after an id", func() {
		now := time.Date(2031, 5, 10, 9, 0, 0, 0, time.UTC)
		ds := findDates("ship between 2031-05-02 and 05/06/2031", now)
		Expect(ds).To(HaveLen(2))
		Expect(ds[0].start).To(Equal(time.Date(2031, 5, 2, 0, 0, 0, 0, time.UTC)))
		Expect(ds[1].start).To(Equal(time.Date(2031, 5, 6, 0, 0, 0, 0, time.UTC)))
		Expect(findDates("where is pkg-20310502", now)).To(BeEmpty())
	})
})
