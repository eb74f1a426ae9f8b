package builtin

import (
	"math"
	"math/bits"
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
	kindDate:      0.5,
}

// identJoiners keeps glued names one token; experiment knob.
var identJoiners = true

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
	fh.out = append(fh.out, hashedFeature{hash: featureHash(kind, a, b, c), kind: kind})
}

// featureHash is the hash of the feature made of a, b and c in turn.
func featureHash(kind featureKind, a, b, c string) uint64 {
	h := kindHash(kind)
	for i := 0; i < len(a); i++ {
		h = fnvByte(h, a[i])
	}
	for i := 0; i < len(b); i++ {
		h = fnvByte(h, b[i])
	}
	for i := 0; i < len(c); i++ {
		h = fnvByte(h, c[i])
	}
	return h
}

// kindHash is the hash a feature of kind starts from, before its bytes.
func kindHash(kind featureKind) uint64 { return fnvByte(fnvOffset, byte(kind)) }

// fnvByte is FNV-1a's step: h fed one byte.
func fnvByte(h uint64, c byte) uint64 { return (h ^ uint64(c)) * fnvPrime }

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
	// sortByHash's buffers
	sorted       []hashedFeature
	bucketStarts []int32
	// query-time buffers of the judge
	qIdx   []int32
	qVal   []float32
	docAcc []float32
	cenAcc []float32
	// the query's place by feature, zeros between uses, and the features
	// a vector shares with it (accumulateOnly)
	qPlace []int32
	shared []sharedTerm
	first  []float64 // per skill, while collecting evidence
	second []float64
	// the judge's per-candidate buffers (fitted.rank)
	candIdx []int32
	evs     []evidence
	logits  []float64
	ranked  []rankedCandidate
	words   []string // the request's content stems (appendContentStems)
	// a request's weighed features (featureMemo)
	weights []float64
	wids    []int32
	// the judge's answer: its JSON and its reason (and the reason's JSON
	// string), built here
	raw, reason, reasonJSON []byte
	// found holds the judge's dates of a request; probed and probedSpans
	// the dates countTerms finds itself (segment's)
	found       []dateSpan
	probed      []dateSpan
	probedSpans []span
	// dated, lower and dates carry a request's date spans from the judge
	// to the tokenizer, so the date rules run once per request.
	dated bool
	lower string
	dates []span
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

func getScratch() *scratch { return scratchPool.Get().(*scratch) }

func putScratch(s *scratch) { scratchPool.Put(s) }

// countTerms featurizes text into sc.counts: distinct features sorted by
// hash, with counts.
func (sc *scratch) countTerms(text string) []termCount {
	if sc.dated {
		// The judge found the dates already (with the request's now).
		sc.tokens = segmentDated(sc.lower, sc.dates, sc.tokens[:0])
		sc.dated = false
	} else {
		// segment(text), its lists in the scratch.
		lower := lowered(text)
		sc.probed = appendDates(sc.probed[:0], lower, dateProbe)
		sc.probedSpans = appendSpans(sc.probedSpans[:0], sc.probed)
		sc.tokens = segmentDated(lower, sc.probedSpans, sc.tokens[:0])
	}
	sc.hasher.out = sc.hasher.out[:0]
	featurize(sc.tokens, &sc.hasher)
	fs := sc.sortByHash(sc.hasher.out)
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

// sortByHash returns fs ordered by hash, in sc.sorted: one pass of
// bucketing by the hash's top bits (FNV's are well mixed, so buckets hold
// about one feature each), then insertion sort, which only sorts within
// buckets. A text's few hundred features are sorted several times faster
// than by comparison sorting, which was a third of featurizing a request.
// Features of equal hash (the same feature) end up next to each other in
// the order they came (the sort is stable); countTerms' merge does not
// see it.
func (sc *scratch) sortByHash(fs []hashedFeature) []hashedFeature {
	if len(fs) < 24 {
		insertionSortByHash(fs)
		return fs
	}
	b := min(bits.Len(uint(len(fs))), 16)
	shift := 64 - b
	starts := slices.Grow(sc.bucketStarts[:0], 1<<b+1)[:1<<b+1]
	clear(starts)
	for _, f := range fs {
		starts[f.hash>>shift+1]++
	}
	for k := 1; k < len(starts); k++ {
		starts[k] += starts[k-1]
	}
	out := slices.Grow(sc.sorted[:0], len(fs))[:len(fs)]
	next := starts[:1<<b] // consumed as each bucket fills: next[k] ends at bucket k+1's start
	for _, f := range fs {
		k := f.hash >> shift
		out[next[k]] = f
		next[k]++
	}
	// Every hash of a bucket is below every hash of the next, so one
	// insertion sort of the whole moves no feature out of its bucket: it
	// sorts each bucket as sorting them one by one would, without a call
	// per bucket (most hold one feature or none).
	insertionSortByHash(out)
	sc.bucketStarts, sc.sorted = starts, out
	return out
}

func insertionSortByHash(fs []hashedFeature) {
	for i := 1; i < len(fs); i++ {
		f := fs[i]
		j := i
		for j > 0 && fs[j-1].hash > f.hash {
			fs[j] = fs[j-1]
			j--
		}
		fs[j] = f
	}
}

// termWeight is the weight of a feature before normalization: sublinear
// term frequency (a word said twice is not twice the evidence) times the
// kind's weight times the inverse document frequency.
func termWeight(tc termCount, idf float64) float64 {
	return float64(tfFactor(tc.count) * kindWeights[tc.kind] * idf)
}

// tfTable holds 1+ln(n) for small counts, the only ones short texts have.
var tfTable = func() [32]float64 {
	var t [32]float64
	for n := 1; n < len(t); n++ {
		t[n] = 1 + detLog(float64(n))
	}
	return t
}()

func tfFactor(n int) float64 {
	if n < len(tfTable) {
		return tfTable[n]
	}
	return 1 + detLog(float64(n))
}

// detLog is the natural logarithm computed with explicitly rounded basic
// operations only, so it gives the same bits on every architecture
// (math.Log is assembly on some and may be fused into FMAs on others);
// vectors must not depend on the machine. x must be positive and finite.
func detLog(x float64) float64 {
	frac, exp := math.Frexp(x) // x = frac * 2^exp, frac in [0.5, 1)
	if frac < math.Sqrt2/2 {
		frac *= 2
		exp--
	}
	// ln(frac) = 2 atanh(t), t = (frac-1)/(frac+1), |t| < 0.172
	t := float64((frac - 1) / (frac + 1))
	t2 := float64(t * t)
	sum, term := 0.0, t
	for k := 1; k < 40; k += 2 {
		sum = float64(sum + float64(term/float64(k)))
		term = float64(term * t2)
	}
	return float64(float64(2*sum) + float64(float64(exp)*math.Ln2))
}
