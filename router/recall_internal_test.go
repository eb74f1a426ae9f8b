package router

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	g "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router/registry"
)

// wordVector embeds text as word counts hashed into 64 buckets: sparse and
// not of unit length, as the builtin embedder's buckets are sparse.
func wordVector(_ context.Context, text string) ([]float32, error) {
	v := make([]float32, 64)
	for _, w := range strings.Fields(strings.ToLower(text)) {
		h := fnv.New32a()
		h.Write([]byte(w))
		v[h.Sum32()%64] += 1 + float32(len(w))/7
	}
	return v, nil
}

// denseVector embeds text as a pseudo-random dense vector seeded by the
// text, as a remote embedder's vectors are dense.
func denseVector(_ context.Context, text string) ([]float32, error) {
	h := fnv.New64a()
	h.Write([]byte(text))
	rng := rand.New(rand.NewPCG(h.Sum64(), 7))
	v := make([]float32, 48)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	return v, nil
}

var _ = g.Describe("recall scores", func() {
	skills := []*registry.Skill{
		{Name: "list_invoices", Description: "list the invoices of a customer", WhenToUse: []string{"user asks for bills or invoices"},
			Examples: []registry.Example{{Input: "show me last month's invoices"}, {Input: "which bills are unpaid"}}},
		{Name: "restart_service", Description: "restart a service in one zone",
			Examples: []registry.Example{{Input: "restart the payment service"}, {Input: "bounce the cache in zone b"}}},
		{Name: "empty_skill"}, // nothing to index: always scores 0
		{Name: "send_report", Description: "email the weekly report to a team", WhenToUse: []string{"user wants a report sent"}},
	}
	texts := []string{"restart the invoices service", "send the report to finance", "unpaid bills please", "zone b cache", "nothing matches here"}

	for _, embed := range []struct {
		name string
		fn   EmbeddingFunc
	}{{"sparse", wordVector}, {"dense", denseVector}} {
		g.It("equal chromem's own query, skill by skill, with a "+embed.name+" embedder", func(ctx g.SpecContext) {
			ix, coll, err := buildIndexIn(ctx, skills, embed.fn)
			Expect(err).NotTo(HaveOccurred())
			n := coll.Count()
			for _, text := range texts {
				q, err := embed.fn(ctx, text)
				Expect(err).NotTo(HaveOccurred())
				res, err := coll.QueryEmbedding(ctx, q, n, nil, nil)
				Expect(err).NotTo(HaveOccurred())
				want := make([]float32, len(skills))
				seen := make([]bool, len(skills))
				for _, r := range res { // similarity order: a skill's first hit is its best
					i := ix.order[r.Metadata["skill"]]
					if !seen[i] {
						seen[i], want[i] = true, r.Similarity
					}
				}
				got, err := ix.scores(ctx, text, nil)
				Expect(err).NotTo(HaveOccurred())
				Expect(got).To(Equal(want), text)
				Expect(seen[2]).To(BeFalse())
			}
		})
	}

	g.It("are the same with an embedder that writes into a lent buffer, request after request", func(ctx g.SpecContext) {
		for _, embed := range []EmbeddingFunc{wordVector, denseVector} {
			plain, err := buildIndex(ctx, skills, embed)
			Expect(err).NotTo(HaveOccurred())
			lent, err := buildIndex(ctx, skills, embed)
			Expect(err).NotTo(HaveOccurred())
			lent.embedInto = func(ctx context.Context, text string, dst []float32) ([]float32, error) {
				v, err := embed(ctx, text)
				return append(dst, v...), err
			}
			buf := new(routeScratch) // reused, as the router reuses it
			for _, text := range append(texts, texts...) {
				want, err := plain.scores(ctx, text, nil)
				Expect(err).NotTo(HaveOccurred())
				got, err := lent.scores(ctx, text, buf)
				Expect(err).NotTo(HaveOccurred())
				Expect(got).To(Equal(want), text)
			}
			Expect(cap(buf.query)).To(BeNumerically(">", 0))
		}
	})

	g.It("rank the allowed skills only, ties by registry order, a skill without documents at 0", func(ctx g.SpecContext) {
		ix, err := buildIndex(ctx, skills, wordVector)
		Expect(err).NotTo(HaveOccurred())
		best := []float32{0.5, 0.5, 0, 0.9}
		got := ix.rank(best, []*registry.Skill{skills[1], skills[2], skills[0]}, 0, nil)
		Expect(got).To(Equal([]Candidate{{Skill: "list_invoices", Score: 0.5}, {Skill: "restart_service", Score: 0.5}, {Skill: "empty_skill", Score: 0}}))
		Expect(ix.rank(nil, skills, 2, nil)).To(Equal([]Candidate{{Skill: "list_invoices"}, {Skill: "restart_service"}}))
	})

	g.It("rank many skills with tied scores, and one the index does not know, by registry order", func() {
		ix := &recallIndex{order: map[string]int{}}
		var all []*registry.Skill
		for i := range 40 {
			s := &registry.Skill{Name: "skill_" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + string(rune('a'+i/26))}
			ix.order[s.Name] = i
			all = append(all, s)
		}
		all = append(all, &registry.Skill{Name: "not_indexed"})
		rng := rand.New(rand.NewPCG(6, 1))
		for range 50 {
			best := make([]float32, 40)
			for i := range best {
				best[i] = float32(rng.IntN(3)) / 4 // few values: many ties
			}
			allowed := append([]*registry.Skill(nil), all...)
			rng.Shuffle(len(allowed), func(i, j int) { allowed[i], allowed[j] = allowed[j], allowed[i] })
			allowed = allowed[:10+rng.IntN(31)]
			want := rankedByDefinition(ix, best, allowed)
			Expect(ix.rank(best, allowed, 7, nil)).To(Equal(want[:7]))
		}
	})

	g.It("rank the top few of many skills by selection as sorting them all would, ties and all", func() {
		ix := &recallIndex{order: map[string]int{}}
		var all []*registry.Skill
		for i := range 300 {
			s := &registry.Skill{Name: fmt.Sprintf("skill_%03d", i)}
			ix.order[s.Name] = i
			ix.skills = append(ix.skills, s)
			all = append(all, s)
		}
		rng := rand.New(rand.NewPCG(21, 4))
		for trial := range 100 {
			best := make([]float32, len(all))
			for i := range best {
				best[i] = float32(rng.IntN(9)) / 8 // few values: ties across the k-th place
			}
			allowed := append([]*registry.Skill(nil), all...)
			if trial%2 == 0 {
				rng.Shuffle(len(allowed), func(i, j int) { allowed[i], allowed[j] = allowed[j], allowed[i] })
			}
			allowed = allowed[:150+rng.IntN(151)]
			k := 1 + rng.IntN(selectMax)
			want := rankedByDefinition(ix, best, allowed)
			Expect(ix.rank(best, allowed, k, nil)).To(Equal(want[:k]), "trial %d, k %d", trial, k)
		}
	})

	g.It("rank by identity as by name: negative scores, rounded zeros keeping their sign, a stranger of a known name", func() {
		ix := &recallIndex{order: map[string]int{}}
		var all []*registry.Skill
		for i := range 30 {
			s := &registry.Skill{Name: "skill_" + string(rune('a'+i%26)) + string(rune('a'+i/26))}
			ix.order[s.Name] = i
			ix.skills = append(ix.skills, s)
			all = append(all, s)
		}
		// Another skill of a known name: found by name, as before.
		all = append(all, &registry.Skill{Name: all[3].Name}, &registry.Skill{Name: "not_indexed"})
		rng := rand.New(rand.NewPCG(15, 2))
		for trial := range 200 {
			best := make([]float32, 30)
			for i := range best {
				switch rng.IntN(4) {
				case 0:
					best[i] = -float32(rng.IntN(3)) / 1e5 // rounds to -0 or 0
				case 1:
					best[i] = float32(rng.IntN(5)-2) / 4
				default:
					best[i] = float32(rng.NormFloat64())
				}
			}
			allowed := append([]*registry.Skill(nil), all...)
			if trial%2 == 0 {
				rng.Shuffle(len(allowed), func(i, j int) { allowed[i], allowed[j] = allowed[j], allowed[i] })
			}
			allowed = allowed[:1+rng.IntN(len(allowed))]
			want := rankedByDefinition(ix, best, allowed)
			k := 1 + rng.IntN(len(allowed))
			got := ix.rank(best, allowed, k, nil)
			Expect(got).To(Equal(want[:k]))
			for i := range got {
				Expect(math.Signbit(got[i].Score)).To(Equal(math.Signbit(want[i].Score)), "trial %d place %d", trial, i)
			}
		}
	})

	g.It("rank a score too large for the packed key by comparison, as any other", func() {
		ix := &recallIndex{order: map[string]int{"a": 0, "b": 1, "c": 2}}
		skills := []*registry.Skill{{Name: "a"}, {Name: "b"}, {Name: "c"}}
		ix.skills = skills
		got := ix.rank([]float32{0.5, 1e30, -1e30}, skills, 0, nil)
		Expect(got).To(Equal([]Candidate{{Skill: "b", Score: round4(float64(float32(1e30)))}, {Skill: "a", Score: 0.5}, {Skill: "c", Score: round4(float64(float32(-1e30)))}}))
	})

	g.It("score nothing for a text that embeds to nothing, and refuse a vector of another length", func(ctx g.SpecContext) {
		ix, err := buildIndex(ctx, skills, wordVector)
		Expect(err).NotTo(HaveOccurred())
		Expect(ix.scores(ctx, "", nil)).To(BeNil())
		ix.embed = func(context.Context, string) ([]float32, error) { return make([]float32, 3), nil }
		_, err = ix.scores(ctx, "anything", nil)
		Expect(err).To(MatchError(ContainSubstring("3 dimensions, the index has 64")))
	})
})

var _ = g.Describe("building the recall index", func() {
	skills := []*registry.Skill{
		{Name: "book_room", Description: "book a meeting room", Examples: []registry.Example{{Input: "reserve room 4 at noon"}, {Input: "!!!"}}},
		{Name: "cancel_room", Description: "cancel a room booking", Examples: []registry.Example{{Input: "drop my 3pm booking"}, {Input: "cancel room 4"}}},
	}
	// failOn fails (or answers with a shorter vector) for the texts named,
	// whatever worker embeds them.
	failOn := func(fail map[string]bool, short map[string]bool) EmbeddingFunc {
		return func(ctx context.Context, text string) ([]float32, error) {
			if fail[text] {
				return nil, errors.New("embedder unavailable")
			}
			v, err := wordVector(ctx, text)
			if short[text] {
				v = v[:32]
			}
			return v, err
		}
	}

	g.It("names the first failing document in registry order, however the work was spread", func(ctx g.SpecContext) {
		for range 20 { // the workers finish in varying order
			_, err := buildIndex(ctx, skills, failOn(map[string]bool{"cancel room 4": true, "reserve room 4 at noon": true}, nil))
			Expect(err).To(MatchError(ContainSubstring("embed book_room#example0 of skill book_room: embedder unavailable")))
		}
	})

	g.It("refuses a document whose embedding has another length than the others", func(ctx g.SpecContext) {
		_, err := buildIndex(ctx, skills, failOn(nil, map[string]bool{"drop my 3pm booking": true}))
		Expect(err).To(MatchError("embed cancel_room#example0 of skill cancel_room: 32 dimensions, other documents have 64"))
	})

	g.It("leaves out a document the embedder sees nothing in, and keeps each skill's rows together", func(ctx g.SpecContext) {
		nothing := func(ctx context.Context, text string) ([]float32, error) {
			if text == "!!!" {
				return make([]float32, 64), nil
			}
			return wordVector(ctx, text)
		}
		ix, coll, err := buildIndexIn(ctx, skills, nothing)
		Expect(err).NotTo(HaveOccurred())
		Expect(coll.Count()).To(Equal(5))
		Expect(ix.rows).To(Equal([][2]int{{0, 2}, {2, 5}}))
		Expect(ix.nrows).To(Equal(5))
		// Word buckets are sparse: kept by dimension only.
		Expect(ix.post).NotTo(BeNil())
		Expect(ix.vecs).To(BeEmpty())
		Expect(ix.post.row).To(ContainElement(int32(4)))
		Expect(ix.post.row).NotTo(ContainElement(int32(5)))
	})

	g.It("keeps a dense embedder's vectors row by row, without postings", func(ctx g.SpecContext) {
		ix, err := buildIndex(ctx, skills, denseVector)
		Expect(err).NotTo(HaveOccurred())
		Expect(ix.post).To(BeNil())
		Expect(ix.nrows).To(Equal(6))
		Expect(ix.vecs).To(HaveLen(6 * ix.dim))
	})

	g.It("refuses a document or a request whose embedding is not finite", func(ctx g.SpecContext) {
		nan := func(ctx context.Context, text string) ([]float32, error) {
			v, err := wordVector(ctx, text)
			if strings.Contains(text, "noon") || strings.Contains(text, "broken") {
				v[3] = float32(math.NaN())
			}
			return v, err
		}
		_, err := buildIndex(ctx, skills, nan)
		Expect(err).To(MatchError("embed book_room#example0 of skill book_room: the embedding holds a NaN or infinite entry"))
		ix, err := buildIndex(ctx, skills[1:], nan)
		Expect(err).NotTo(HaveOccurred())
		_, err = ix.scores(ctx, "a broken request", nil)
		Expect(err).To(MatchError("embed request: the embedding holds a NaN or infinite entry"))
	})
})

// rankedByDefinition is recall's ranking by its definition: score first,
// then registry order (0 for a skill the index does not know), stable
// otherwise.
func rankedByDefinition(ix *recallIndex, best []float32, allowed []*registry.Skill) []Candidate {
	var want []Candidate
	for _, s := range allowed {
		var sc float32
		if i, ok := ix.order[s.Name]; ok {
			sc = best[i]
		}
		want = append(want, Candidate{Skill: s.Name, Score: round4(float64(sc))})
	}
	slices.SortStableFunc(want, func(a, b Candidate) int {
		if a.Score != b.Score {
			return cmp.Compare(b.Score, a.Score)
		}
		return ix.order[a.Skill] - ix.order[b.Skill]
	})
	return want
}
