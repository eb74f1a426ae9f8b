package builtin

import (
	"math/rand/v2"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("a set of feature hashes", func() {
	It("holds exactly the hashes it was built from, colliding slots and 0 included", func() {
		rng := rand.New(rand.NewPCG(4, 4))
		in := map[uint64]bool{0: true}
		var hashes []uint64
		for range 300 {
			// Low bits shared by many: the probe must walk past them.
			h := rng.Uint64()&^0xff | uint64(rng.IntN(4))
			in[h] = true
			hashes = append(hashes, h, h) // repeated hashes are stored once
		}
		s := newHashSet(append(hashes, 0))
		for h := range in {
			Expect(s.has(h)).To(BeTrue())
		}
		for range 3000 {
			h := rng.Uint64()&^0xff | uint64(rng.IntN(8))
			Expect(s.has(h)).To(Equal(in[h]))
		}
		Expect(newHashSet(nil).has(0)).To(BeFalse())
		Expect(newHashSet([]uint64{7}).has(0)).To(BeFalse())
	})

	It("knows the function words' features", func() {
		Expect(background.has(hashWord("the"))).To(BeTrue())
		Expect(background.has(hashWord("triangle"))).To(BeFalse())
	})
})
