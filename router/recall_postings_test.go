package router

import (
	"math"
	"math/rand/v2"

	g "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The postings path must give the row scan's scores bit for bit, for a
// sparse request and for a dense one (a sparse index keeps no rows).
var _ = g.Describe("recall postings", func() {
	g.It("score every row as the row scan does", func() {
		rng := rand.New(rand.NewPCG(15, 3))
		buf := new(routeScratch) // reused trial after trial, as the router reuses it request after request
		const dim = 128
		for trial := range 100 {
			ix := &recallIndex{dim: dim}
			var docs []storedDoc
			var rows [][]float32
			nnz := 0
			for range 1 + rng.IntN(12) {
				n := rng.IntN(5) // a skill may have no rows
				ix.rows = append(ix.rows, [2]int{ix.nrows, ix.nrows + n})
				for range n {
					v := make([]float32, dim)
					for range 1 + rng.IntN(12) {
						v[rng.IntN(dim)] = float32(rng.NormFloat64())
					}
					d := storedDoc{vec: v}
					for j, x := range v {
						if x != 0 {
							d.nonZero = append(d.nonZero, int32(j))
						}
					}
					nnz += len(d.nonZero)
					docs = append(docs, d)
					if rng.IntN(6) == 0 {
						docs = append(docs, storedDoc{}) // a document left out takes no row
					}
					rows = append(rows, v)
					ix.nrows++
				}
			}
			ix.post = newPostings(docs, ix.dim, nnz)
			q := make([]float32, dim)
			if trial%2 == 0 {
				for range 1 + rng.IntN(20) {
					q[rng.IntN(dim)] = float32(rng.NormFloat64())
				}
			} else {
				for j := range q {
					q[j] = float32(rng.NormFloat64())
				}
			}
			got := ix.postingScores(q, appendNonZero(nil, q), buf)
			want := make([]float32, len(ix.rows))
			for i, r := range ix.rows {
				if r[0] == r[1] {
					continue
				}
				top := float32(math.Inf(-1))
				for row := r[0]; row < r[1]; row++ {
					var dot float32
					for j, x := range q {
						dot += float32(x * rows[row][j])
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
})

// normNonZero leaves zeros out of the sum; its norm and dimensions must be
// those of reading every entry.
var _ = g.Describe("a request embedding's norm and non-zero dimensions", func() {
	g.It("are those of reading every entry, whatever the zeros, signed zeros and length", func() {
		rng := rand.New(rand.NewPCG(15, 4))
		for trial := range 2000 {
			v := make([]float32, rng.IntN(70))
			for j := range v {
				switch rng.IntN(8) {
				case 0:
					v[j] = float32(rng.NormFloat64())
				case 1:
					v[j] = float32(math.Copysign(0, -1))
				case 2:
					v[j] = math.SmallestNonzeroFloat32
				}
			}
			var sum float64
			var want []int32
			for j, x := range v {
				sum += float64(x) * float64(x)
				if x != 0 {
					want = append(want, int32(j))
				}
			}
			n, got := normNonZero(v, nil)
			Expect(math.Float64bits(n)).To(Equal(math.Float64bits(math.Sqrt(sum))), "trial %d", trial)
			Expect(got).To(Equal(want), "trial %d", trial)
			Expect(appendNonZero(nil, v)).To(Equal(want), "trial %d", trial)
		}
	})
})
