package compare_test

import (
	"encoding/hex"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness/compare"
)

var _ = Describe("a collected case hash", func() {
	digits := "00ff7a19c3d4e5b6a7980112233445566778899aabbccddeeff0012345678abc"

	It("is the 32 bytes of 64 lower-case hex digits", func() {
		want, err := hex.DecodeString(digits)
		Expect(err).NotTo(HaveOccurred())
		Expect(compare.CompactHashForTest(digits)).To(Equal(string(want)))
	})

	It("is kept as it is when it is not 64 lower-case hex digits", func() {
		for _, h := range []string{
			strings.ToUpper(digits), // decoding would lose the case
			digits[:63] + "G",       // not a hex digit
			digits[:62] + "é",       // not ASCII
			digits[:63],             // too short
			digits + "0",            // too long
			"",
		} {
			Expect(compare.CompactHashForTest(h)).To(Equal(h), h)
		}
	})
})
