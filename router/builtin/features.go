package builtin

import (
	"math"
	"slices"
	"sync"
)

// FNV-1a, 64 bit: stable across machines and Go versions, unlike
// hash/maphash, so the same text gives the same vector everywhere.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// kindWeights scale each kind of feature. Character n-grams are many per
// word, so each weighs less; a word bigram or Han bigram is a stronger
// signal than a single word or character.
var kindWeights = [numKinds]float64{
	kindWord:      1.4,
	kindBigram:    0.8,
	kindCharGram:  0.45,
	kindHan:       0.6,
	kindHanBigram: 1.0,
	kindShape:     0.5,
	kindSkip:      0.3,
	kindIdent:     1.0,
}

// identJoiners keeps glued names one token; experiment knob.
var identJoiners = true

// idfPower sharpens IDF; dfByText counts document frequency over texts
// instead of skills. Experiment knobs.
var (
	idfPower = 0.5
	dfByText = false
)

// hashedFeature is one occurrence of a feature in a text.
type hashedFeature struct {
	hash uint64
	kind featureKind
}

// featureHasher is the emitter of the hot path: it hashes each feature
// from its pieces without building strings.
type featureHasher struct {
	out []hashedFeature
}

func (fh *featureHasher) emit(kind featureKind, a, b, c string) {
	h := uint64(fnvOffset)
	h ^= uint64(kind)
	h *= fnvPrime
	for i := 0; i < len(a); i++ {
		h ^= uint64(a[i])
		h *= fnvPrime
	}
	for i := 0; i < len(b); i++ {
		h ^= uint64(b[i])
		h *= fnvPrime
	}
	for i := 0; i < len(c); i++ {
		h ^= uint64(c[i])
		h *= fnvPrime
	}
	fh.out = append(fh.out, hashedFeature{hash: h, kind: kind})
}

// termCount is a distinct feature of a text with how often it occurs.
type termCount struct {
	hash  uint64
	kind  featureKind
	count int
}

// scratch holds the reusable buffers of one featurization, so routing a
// request allocates nothing for its features.
type scratch struct {
	tokens []token
	hasher featureHasher
	counts []termCount
	// query-time buffers of the judge
	qIdx    []int32
	qVal    []float32
	docAcc  []float32
	cenAcc  []float32
	negAcc  []float32
	linAcc  []float32
	skillSc []skillScore
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

func getScratch() *scratch { return scratchPool.Get().(*scratch) }

func putScratch(s *scratch) { scratchPool.Put(s) }

// countTerms featurizes text into sc.counts: distinct features sorted by
// hash, with counts.
func (sc *scratch) countTerms(text string) []termCount {
	sc.tokens = segment(text, sc.tokens[:0])
	sc.hasher.out = sc.hasher.out[:0]
	featurize(sc.tokens, &sc.hasher)
	fs := sc.hasher.out
	slices.SortFunc(fs, func(a, b hashedFeature) int {
		switch {
		case a.hash < b.hash:
			return -1
		case a.hash > b.hash:
			return 1
		}
		return 0
	})
	sc.counts = sc.counts[:0]
	for i, f := range fs {
		if i > 0 && fs[i-1].hash == f.hash {
			sc.counts[len(sc.counts)-1].count++
			continue
		}
		sc.counts = append(sc.counts, termCount{hash: f.hash, kind: f.kind, count: 1})
	}
	return sc.counts
}

// termWeight is the weight of a feature before normalization: sublinear
// term frequency (a word said twice is not twice the evidence) times the
// kind's weight times the inverse document frequency.
func termWeight(tc termCount, idf float64) float64 {
	return (1 + math.Log(float64(tc.count))) * kindWeights[tc.kind] * idf
}
