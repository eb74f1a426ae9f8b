package router

import (
	"math"
	"math/rand/v2"

	g "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The postings path must give the row scan's scores bit for bit.
var _ = g.Describe("recall postings", func() {
	g.It("score every row as the row scan does", func() {
		rng := rand.New(rand.NewPCG(15, 3))
		buf := new(routeScratch) // reused trial after trial, as the router reuses it request after request
		const dim = 128
		for trial := range 50 {
			ix := &recallIndex{dim: dim}
			row := 0
			for range 1 + rng.IntN(12) {
				n := rng.IntN(5) // a skill may have no rows
				ix.rows = append(ix.rows, [2]int{row, row + n})
				for range n {
					v := make([]float32, dim)
					for range 1 + rng.IntN(12) {
						v[rng.IntN(dim)] = float32(rng.NormFloat64())
					}
					ix.vecs = append(ix.vecs, v...)
					row++
				}
			}
			ix.post = newPostings(ix.vecs, ix.dim)
			if len(ix.vecs) == 0 {
				Expect(ix.post).To(BeNil())
				continue
			}
			Expect(ix.post).NotTo(BeNil(), "trial %d", trial)
			q := make([]float32, dim)
			for range 1 + rng.IntN(20) {
				q[rng.IntN(dim)] = float32(rng.NormFloat64())
			}
			got := ix.postingScores(q, buf)
			want := make([]float32, len(ix.rows))
			for i, r := range ix.rows {
				if r[0] == r[1] {
					continue
				}
				top := float32(math.Inf(-1))
				for row := r[0]; row < r[1]; row++ {
					var dot float32
					for j, x := range q {
						if x != 0 {
							dot += float32(x * ix.vecs[row*dim+j])
						}
					}
					top = max(top, dot)
				}
				want[i] = top
			}
			for i := range want {
				Expect(math.Float32bits(got[i])).To(Equal(math.Float32bits(want[i])), "trial %d skill %d", trial, i)
			}
		}
	})

	g.It("are not kept for dense vectors", func() {
		Expect(newPostings([]float32{1, 2, 3, 4, 0, 1, 1, 1}, 4)).To(BeNil())
	})
})
