package prefilter_test

import (
	"math/rand/v2"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router/internal/prefilter"
)

// lowerASCII lowers ASCII letters only, as a case-folded needle is searched.
func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

var _ = Describe("a case-folded needle", func() {
	It("is found in any ASCII case, wherever it starts", func() {
		needles := []prefilter.Needle{{S: "inv-", Fold: true}, {S: "void", Fold: true}, {S: "退款", Fold: true},
			{S: "a", Fold: true}, {S: "x-ray", Fold: true}, {S: "v", Fold: true}}
		pieces := []string{"INV-", "inv", "Inv-", "-", "VOID", "vOiD", "voi", "d", "退款", "退", "款", "x-RAY", "X", "-ray",
			"a", "A", "v", "V", " ", "\u212a", "é"}
		rng := rand.New(rand.NewPCG(5, 8))
		found := 0
		for range 5000 {
			var b strings.Builder
			for range rng.IntN(9) {
				b.WriteString(pieces[rng.IntN(len(pieces))])
			}
			text := b.String()
			for _, n := range needles {
				want := strings.Contains(lowerASCII(text), n.S)
				Expect(n.In(text)).To(Equal(want), "%q in %q", n.S, text)
				if want {
					found++
				}
			}
		}
		Expect(found).To(BeNumerically(">", 5000))
	})
})
