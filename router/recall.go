package router

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"sync"

	"github.com/philippgille/chromem-go"

	"github.com/routebench/routebench/router/registry"
)

// recallIndex is stage 2: a chromem-go collection holding one document per
// description, when_to_use item and example input of every skill (never the
// params schema, whose field names would pull unrelated requests in). A
// skill's recall score is its best document's cosine similarity.
type recallIndex struct {
	coll  *chromem.Collection
	embed EmbeddingFunc
	// docs counts the documents in coll; chromem refuses nResults above it.
	docs int
	// order is each skill's registry position, the tie-break that keeps
	// rankings deterministic.
	order map[string]int
	// perSkill counts each skill's indexed documents (by registry position).
	perSkill []int
}

// recallDoc is one text a skill is recalled by.
type recallDoc struct {
	id, skill, text string
}

// skillDocs lists a skill's recall documents, skipping empty and repeated texts.
func skillDocs(s *registry.Skill) []recallDoc {
	var out []recallDoc
	seen := map[string]bool{}
	add := func(kind string, i int, text string) {
		if text == "" || seen[text] {
			return
		}
		seen[text] = true
		out = append(out, recallDoc{id: s.Name + "#" + kind + strconv.Itoa(i), skill: s.Name, text: text})
	}
	add("description", 0, s.Description)
	for i, w := range s.WhenToUse {
		add("when_to_use", i, w)
	}
	for i, e := range s.Examples {
		add("example", i, e.Input)
	}
	return out
}

// buildIndex embeds every skill's documents (in parallel: a remote embedder
// is latency-bound, the builtin one CPU-bound) and loads them into chromem.
func buildIndex(ctx context.Context, skills []*registry.Skill, embed EmbeddingFunc) (*recallIndex, error) {
	ix := &recallIndex{embed: embed, order: make(map[string]int, len(skills)), perSkill: make([]int, len(skills))}
	var docs []recallDoc
	for i, s := range skills {
		ix.order[s.Name] = i
		docs = append(docs, skillDocs(s)...)
	}
	db := chromem.NewDB()
	coll, err := db.CreateCollection("skills", nil, chromem.EmbeddingFunc(embed))
	if err != nil {
		return nil, fmt.Errorf("create recall collection: %w", err)
	}
	ix.coll = coll
	vecs := make([][]float32, len(docs))
	errs := make([]error, len(docs))
	workers := min(runtime.NumCPU(), max(len(docs), 1))
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Go(func() {
			for i := range next {
				vecs[i], errs[i] = embed(ctx, docs[i].text)
			}
		})
	}
	for i := range docs {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, d := range docs {
		if errs[i] != nil {
			return nil, fmt.Errorf("embed %s of skill %s: %w", d.id, d.skill, errs[i])
		}
		// A text the embedder sees nothing in (all punctuation, say) has a
		// zero vector; normalising it would poison every query with NaN.
		if norm(vecs[i]) == 0 {
			continue
		}
		err := coll.AddDocument(ctx, chromem.Document{
			ID:        d.id,
			Metadata:  map[string]string{"skill": d.skill},
			Embedding: vecs[i],
			Content:   d.text,
		})
		if err != nil {
			return nil, fmt.Errorf("index %s: %w", d.id, err)
		}
		ix.docs++
		ix.perSkill[ix.order[d.skill]]++
	}
	return ix, nil
}

func norm(v []float32) float64 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	return math.Sqrt(sum)
}

// rank returns the top k of allowed skills by recall score, best first, ties
// broken by registry order. Skills without any indexed document (or every
// skill, when the query embeds to nothing) follow with score 0.
func (ix *recallIndex) rank(ctx context.Context, text string, allowed []*registry.Skill, k int) ([]Candidate, error) {
	if k <= 0 || k > len(allowed) {
		k = len(allowed)
	}
	if k == 0 {
		return []Candidate{}, nil
	}
	// Per-skill state is indexed by registry position rather than kept in
	// maps: this runs once per request.
	isAllowed := make([]bool, len(ix.order))
	for _, s := range allowed {
		if i, ok := ix.order[s.Name]; ok {
			isAllowed[i] = true
		}
	}
	var best []float32
	if ix.docs > 0 {
		q, err := ix.embed(ctx, text)
		if err != nil {
			return nil, fmt.Errorf("embed request: %w", err)
		}
		if norm(q) > 0 {
			if best, err = ix.bestScores(ctx, q, isAllowed, k); err != nil {
				return nil, err
			}
		}
	}
	out := make([]Candidate, 0, len(allowed))
	for _, s := range allowed {
		var sc float32
		if i, ok := ix.order[s.Name]; ok && best != nil {
			sc = best[i]
		}
		out = append(out, Candidate{Skill: s.Name, Score: round4(float64(sc))})
	}
	slices.SortStableFunc(out, func(a, b Candidate) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		return ix.order[a.Skill] - ix.order[b.Skill]
	})
	return out[:k], nil
}

// bestScores queries chromem for enough documents to know the exact top k
// allowed skills: a skill's first (best) document in the similarity-ordered
// results carries its score, and a skill not seen yet can score no higher
// than the last document returned. Every chromem query scans the whole
// collection, so when a small window is not conclusive (too few allowed
// skills in it, or a tie at its edge) the second and last query takes
// every document. Scores are by registry position; a skill with no
// document in the results scores 0.
func (ix *recallIndex) bestScores(ctx context.Context, q []float32, allowed []bool, k int) ([]float32, error) {
	n := min(ix.docs, ix.window(allowed, k))
	best := make([]float32, len(allowed))
	seen := make([]bool, len(allowed))
	for {
		res, err := ix.coll.QueryEmbedding(ctx, q, n, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("query recall index: %w", err)
		}
		clear(best)
		clear(seen)
		found := 0
		kth := float32(math.Inf(1))
		for _, r := range res {
			i, ok := ix.order[r.Metadata["skill"]]
			if !ok || seen[i] || !allowed[i] {
				continue
			}
			seen[i] = true
			best[i] = r.Similarity
			found++
			if found == k {
				kth = r.Similarity
			}
		}
		if n >= ix.docs || len(res) == 0 || (found >= k && kth > res[len(res)-1].Similarity) {
			return best, nil
		}
		n = ix.docs
	}
}

// round4 keeps scores readable in JSON (float32 similarities would print as
// 0.9100000262260437).
func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// window is how many documents the first query takes: enough that it is
// always conclusive. The k-th allowed skill's best document is outranked
// only by documents of the k-1 skills ahead of it and of skills that are not
// allowed, so (k-1) × the most documents any allowed skill has, plus every
// document of a skill not allowed, plus one, reaches it. chromem scans every
// document whatever nResults is; a second, full query happens only on ties
// at the window's edge. (A fixed small window was often inconclusive on
// registries with many examples per skill, such as CLINC150's 100, and each
// second query costs a whole scan.)
func (ix *recallIndex) window(allowed []bool, k int) int {
	most, blocked := 0, 0
	for i, n := range ix.perSkill {
		if allowed[i] {
			most = max(most, n)
		} else {
			blocked += n
		}
	}
	return blocked + (k-1)*most + 1
}
