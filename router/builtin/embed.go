package builtin

import (
	"context"
	"math"
	"math/bits"
	"slices"
	"sync"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

// EmbedDim is the length of builtin embeddings. Recall scans every
// document's vector per request (chromem-go has no index), so the
// dimension is a latency budget: at 512 a 15-skill registry's scan stays
// well inside the router's 200 µs per decision, and signed hashing (a
// collision is as likely to cancel as to add) keeps ranking good: on
// CLINC150 recall@10 among 150 intents is 98.5% at 512 against 98.9% at
// 1024.
const EmbedDim = 512

// NewEmbedder returns a deterministic embedding function: the text's
// features (Latin words, word bigrams, character 3-5-grams, Han characters
// and bigrams, numbers) weighted by TF-IDF over reg's skill texts, hashed
// into EmbedDim signed buckets with FNV-1a, L2-normalized. Text with no
// features (empty, punctuation) embeds to the zero vector.
func NewEmbedder(reg *registry.Registry) router.EmbeddingFunc {
	return newEmbedder(reg, defaultTopK)
}

func newEmbedder(reg *registry.Registry, topK int) router.EmbeddingFunc {
	m := fittedFor(reg.Skills, topK).model
	return func(ctx context.Context, text string) ([]float32, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return m.embed(text, nil), nil
	}
}

// NewEmbedderInto is NewEmbedder writing into the caller's buffer
// (router.Models.EmbedInto).
func NewEmbedderInto(reg *registry.Registry) func(ctx context.Context, text string, dst []float32) ([]float32, error) {
	return newEmbedderInto(reg, defaultTopK)
}

func newEmbedderInto(reg *registry.Registry, topK int) func(context.Context, string, []float32) ([]float32, error) {
	m := fittedFor(reg.Skills, topK).model
	return func(ctx context.Context, text string, dst []float32) ([]float32, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return m.embed(text, dst), nil
	}
}

// bucketVec is an embedding's non-zero buckets, exactly (float bits).
type bucketVec struct {
	idx []int32
	val []float32
}

// recallTexts are the texts the router indexes for recall (descriptions,
// when_to_use lines, example inputs: router's skillDocs), each once, in
// registry order. Their embeddings are computed with the fit and kept with
// it, in memory and in the disk cache, so a router built from a cached
// fit does not embed 15,000 documents again. A text outside this list is
// simply embedded on request; the memo can only save time.
func recallTexts(skills []*registry.Skill) []string {
	var out []string
	seen := map[string]bool{}
	add := func(t string) {
		if t != "" && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	for _, s := range skills {
		add(s.Description)
		for _, t := range s.WhenToUse {
			add(t)
		}
		for _, ex := range s.Examples {
			add(ex.Input)
		}
	}
	return out
}

// embedAll embeds texts, for m.embedded; fitting runs it beside the
// linear layer's training.
func (m *model) embedAll(texts []string) map[string]bucketVec {
	out := make(map[string]bucketVec, len(texts))
	for _, t := range texts {
		out[t] = sparseBuckets(m.embedText(t))
	}
	return out
}

// sparseBuckets keeps a dense embedding's non-zero entries (by bits, so a
// negative zero would be kept as written).
func sparseBuckets(v []float32) bucketVec {
	var b bucketVec
	for i, x := range v {
		if math.Float32bits(x) != 0 {
			b.idx = append(b.idx, int32(i))
			b.val = append(b.val, x)
		}
	}
	return b
}

// embed is text's embedding: the memoized one for a registry text, else
// computed; in dst's memory when it has room (nil: a new vector).
func (m *model) embed(text string, dst []float32) []float32 {
	out := zeroVector(dst)
	if b, ok := m.embedded[text]; ok {
		for k, i := range b.idx {
			out[i] = b.val[k]
		}
		return out
	}
	return m.embedTextInto(text, out, true)
}

// zeroVector is an EmbedDim vector of zeros in dst's memory when it has
// room.
func zeroVector(dst []float32) []float32 {
	if cap(dst) < EmbedDim {
		return make([]float32, EmbedDim)
	}
	dst = dst[:EmbedDim]
	clear(dst)
	return dst
}

// embedText hashes text's weighted features into a dense unit vector.
func (m *model) embedText(text string) []float32 {
	return m.embedTextInto(text, make([]float32, EmbedDim), false)
}

// embedTextInto is embedText into out, EmbedDim zeros. remember: the text
// is a request's, whose weighed features the judge reads next (see
// featureMemo).
func (m *model) embedTextInto(text string, out []float32, remember bool) []float32 {
	sc := getScratch()
	defer putScratch(sc)
	var acc [EmbedDim]float64
	var touched [EmbedDim / 64]uint64 // a bit per bucket a feature added to
	sc.weights, sc.wids = sc.weights[:0], sc.wids[:0]
	for _, tc := range sc.countTerms(text) {
		var idf float64
		id, known := m.ids.get(tc.hash)
		if known {
			idf = float64(m.idf[id])
		} else {
			idf, id = m.unknownIDF(tc), -1
		}
		w := termWeight(tc, idf)
		if remember {
			sc.weights, sc.wids = append(sc.weights, w), append(sc.wids, id)
		}
		// Low bits pick the bucket, the top bit the sign; FNV's low bits
		// are well mixed after the final multiply.
		if tc.hash>>63 == 1 {
			w = -w
		}
		b := tc.hash % EmbedDim
		acc[b] += w
		touched[b/64] |= 1 << (b % 64)
	}
	if remember {
		m.recent.store(text, sc.probedSpans, sc.weights, sc.wids)
	}
	// Only the buckets a feature touched are read, in bucket order: the
	// others hold +0, whose square adds nothing to the sum and whose
	// output is the +0 out already holds, so the bits are those of reading
	// every bucket.
	var norm float64
	for k, word := range touched {
		for ; word != 0; word &= word - 1 {
			x := acc[k*64+bits.TrailingZeros64(word)]
			norm += float64(x * x) // the conversion forbids FMA fusion: same bits everywhere
		}
	}
	if norm == 0 {
		return out
	}
	inv := 1 / math.Sqrt(norm)
	for k, word := range touched {
		for ; word != 0; word &= word - 1 {
			i := k*64 + bits.TrailingZeros64(word)
			out[i] = float32(float64(acc[i] * inv))
		}
	}
	return out
}

// featureMemo remembers the weighed features of the last request text the
// embedder read (each feature's weight before normalization and its
// vocabulary id, -1 for one no skill uses), in the order of its features.
// The judge reads the same text next: when it finds the text's dates where
// the embedder found them, the features are the same, and it takes them
// instead of featurizing the text and looking each feature up again.
type featureMemo struct {
	mu      sync.Mutex
	text    string
	dates   []span
	weights []float64
	ids     []int32
	set     bool
}

func (f *featureMemo) store(text string, dates []span, weights []float64, ids []int32) {
	if f == nil {
		return
	}
	f.mu.Lock()
	f.text, f.set = text, true
	f.dates = append(f.dates[:0], dates...)
	f.weights = append(f.weights[:0], weights...)
	f.ids = append(f.ids[:0], ids...)
	f.mu.Unlock()
}

// load appends the remembered features of text to weights and ids when
// they were found with the same dates.
func (f *featureMemo) load(text string, dates []span, weights []float64, ids []int32) ([]float64, []int32, bool) {
	if f == nil {
		return weights, ids, false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.set || f.text != text || !slices.Equal(f.dates, dates) {
		return weights, ids, false
	}
	return append(weights, f.weights...), append(ids, f.ids...), true
}
