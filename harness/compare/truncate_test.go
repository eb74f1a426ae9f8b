package compare_test

import (
	"math/rand/v2"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness/compare"
)

var _ = Describe("a flip's input", func() {
	It("is cut as []rune cuts it, bad UTF-8 and all, and kept whole when it fits", func() {
		reference := func(s string, limit int) string {
			r := []rune(s)
			if len(r) <= limit {
				return s
			}
			return string(r[:limit-1]) + "…"
		}
		rng := rand.New(rand.NewPCG(4, 9))
		pieces := []string{"a", "Z", " ", "区域", "é", "😀", "\xff", "\xe2\x80", "\x00", "…"}
		for range 5000 {
			var b strings.Builder
			for range rng.IntN(40) {
				b.WriteString(pieces[rng.IntN(len(pieces))])
			}
			s, limit := b.String(), 1+rng.IntN(20)
			Expect(compare.TruncateForTest(s, limit)).To(Equal(reference(s, limit)), "%q cut to %d", s, limit)
		}
		long := strings.Repeat("告", 100)
		Expect(compare.TruncateForTest(long, compare.InputLimit)).To(Equal(strings.Repeat("告", 79) + "…"))
	})
})
