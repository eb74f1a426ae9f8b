package builtin

import (
	"math"
)

// Evidence is what a request shares with one skill's texts, each a cosine.
const (
	evCentroid = iota // to the skill's centroid: what its texts say overall
	evNearest         // to its closest positive text: one example can decide
	evSecond          // mean of the two closest: agreement of two texts
	evHint            // to another skill's "use this one instead" line
	evNegative        // to what the skill's counter-examples say and its texts do not (a penalty)
	numEvidence
)

type evidence [numEvidence]float64

// scoreWeights combine evidence into one fit score.
type scoreWeights [numEvidence]float64

var defaultWeights = scoreWeights{evCentroid: 0.45, evNearest: 0.35, evSecond: 0.2, evHint: 0.5, evNegative: -0.7}

// query turns text into the normalized query vector in sc.qIdx/sc.qVal.
// Features no skill mentions stay in the norm, so a request full of
// unknown words has a low cosine to everything.
func (m *model) query(sc *scratch, text string) {
	sc.qIdx, sc.qVal = sc.qIdx[:0], sc.qVal[:0]
	var norm float64
	if sc.dated {
		// The embedder read this request just before: the same weights, in
		// the same order, so the same sums.
		var ok bool
		if sc.weights, sc.wids, ok = m.recent.load(text, sc.dates, sc.weights[:0], sc.wids[:0]); ok {
			sc.dated = false
			for k, w := range sc.weights {
				norm += w * w
				if id := sc.wids[k]; id >= 0 {
					sc.qIdx = append(sc.qIdx, id)
					sc.qVal = append(sc.qVal, float32(w))
				}
			}
			normalizeQuery(sc, norm)
			return
		}
	}
	counts := sc.countTerms(text)
	for _, tc := range counts {
		id, known := m.ids.get(tc.hash)
		var idf float64
		if known {
			idf = float64(m.idf[id])
		} else {
			idf = m.unknownIDF(tc)
		}
		w := termWeight(tc, idf)
		norm += w * w
		if known {
			sc.qIdx = append(sc.qIdx, id)
			sc.qVal = append(sc.qVal, float32(w))
		}
	}
	normalizeQuery(sc, norm)
}

// normalizeQuery scales the query's weights by the norm of all of them.
func normalizeQuery(sc *scratch, norm float64) {
	if norm > 0 {
		inv := float32(1 / math.Sqrt(norm))
		for k := range sc.qVal {
			sc.qVal[k] *= inv
		}
	}
}

// accumulate computes the query's cosine to every text and every centroid
// through the inverted indexes.
func (m *model) accumulate(sc *scratch) {
	sc.docAcc = zeroed(sc.docAcc, len(m.texts))
	sc.cenAcc = zeroed(sc.cenAcc, len(m.skills))
	docAcc, cenAcc := sc.docAcc, sc.cenAcc
	for k, id := range sc.qIdx {
		qv := sc.qVal[k]
		addPostings(docAcc, &m.docPost, id, qv)
		addPostings(cenAcc, &m.cenPost, id, qv)
	}
}

// accumulateFor is accumulate for what the judge reads of skills (its
// candidates): their centroids' cosines and their positive, hint and
// negative texts' (evidenceFor, reason); the other entries are zero.
// accumulate walks the posting list of every feature of the query, which
// in a registry of a thousand skills is most of a decision's time for
// the few skills a judge weighs, so it is used only when its lists are
// the shorter work. The values are the same bit for bit (queryCosine).
func (m *model) accumulateFor(sc *scratch, skills []int32) {
	full := 0
	for _, id := range sc.qIdx {
		full += int(m.docPost.start[id+1]-m.docPost.start[id]) + int(m.cenPost.start[id+1]-m.cenPost.start[id])
	}
	// The candidates' vectors are counted only until they are the longer
	// work, which on a small registry is after a few.
	own := len(sc.qIdx)
	for _, s := range skills {
		own += len(m.centroid[s].idx)
		for _, list := range [3][]int32{m.positives[s], m.hints[s], m.negatives[s]} {
			for _, t := range list {
				own += len(m.docs[t].idx)
			}
			if own >= full {
				m.accumulate(sc)
				return
			}
		}
	}
	if !m.accumulateOnly(sc, skills) {
		m.accumulate(sc)
	}
}

// accumulateOnly is accumulateFor by way of the skills' own vectors. It
// is false, having done nothing, for a query that lists a feature twice
// (accumulate would add both; none does).
func (m *model) accumulateOnly(sc *scratch, skills []int32) bool {
	if len(sc.qPlace) < len(m.idf) {
		sc.qPlace = make([]int32, len(m.idf))
	}
	// The query's features by place: k+1 for its k-th, 0 for one it lacks.
	place := sc.qPlace
	defer func() {
		for _, id := range sc.qIdx {
			place[id] = 0
		}
	}()
	for k, id := range sc.qIdx {
		if place[id] != 0 {
			return false
		}
		place[id] = int32(k + 1)
	}
	sc.docAcc = zeroed(sc.docAcc, len(m.texts))
	sc.cenAcc = zeroed(sc.cenAcc, len(m.skills))
	for _, s := range skills {
		sc.cenAcc[s] = queryCosine(sc, m.centroid[s])
		for _, list := range [3][]int32{m.positives[s], m.hints[s], m.negatives[s]} {
			for _, t := range list {
				sc.docAcc[t] = queryCosine(sc, m.docs[t])
			}
		}
	}
	return true
}

// queryCosine is the query's cosine to v summed as accumulate sums it:
// the products of the features both have, in the query's order (the
// other products are zeros, which leave a sum as it is), so the value is
// the same bit for bit. sc.qPlace holds the query's places.
func queryCosine(sc *scratch, v sparseVec) float32 {
	shared := sc.shared[:0]
	for k, f := range v.idx {
		if p := sc.qPlace[f]; p != 0 {
			// Kept in the query's order as they come: a vector shares few
			// features with a request.
			e := sharedTerm{place: p, val: v.val[k]}
			i := len(shared)
			shared = append(shared, e)
			for ; i > 0 && shared[i-1].place > p; i-- {
				shared[i] = shared[i-1]
			}
			shared[i] = e
		}
	}
	sc.shared = shared
	var dot float32
	for _, e := range shared {
		dot += sc.qVal[e.place-1] * e.val
	}
	return dot
}

// sharedTerm is a feature a vector shares with the query: its place in
// the query (k+1) and the vector's weight.
type sharedTerm struct {
	place int32
	val   float32
}

// addPostings adds qv times feature id's weight in every vector holding
// it. This loop is most of a registry's fitting time (every text is routed
// against all others), so it is written for bounds-check elimination.
//
// Unrolled by four: each owner's sum gets the same products in the same
// order (an owner is in a posting list once, and the statements run in
// order anyway), four owners at a time.
func addPostings(acc []float32, p *postings, id int32, qv float32) {
	from, to := p.start[id], p.start[id+1]
	addOwned(acc, p.owner[from:to], p.val[from:to], qv)
}

func zeroed(buf []float32, n int) []float32 {
	if cap(buf) < n {
		return make([]float32, n)
	}
	buf = buf[:n]
	clear(buf)
	return buf
}

// evidenceFor reads skill s's evidence from the accumulated cosines.
// skip >= 0 is the text being routed in leave-one-out: it is left out of
// every list and of its skill's centroid.
func (m *model) evidenceFor(sc *scratch, s int, skip int32) evidence {
	var ev evidence
	ev[evCentroid] = float64(sc.cenAcc[s])
	if skip >= 0 && m.texts[skip].skill == s && m.texts[skip].role == rolePositive {
		ev[evCentroid] = m.centroidWithout(s, skip, ev[evCentroid])
	}
	var first, second float64
	for _, t := range m.positives[s] {
		if t == skip {
			continue
		}
		// A text counts by its weight: a two-word glossary line or the
		// skill's name is close to many requests and says less than an
		// example does.
		x := float64(sc.docAcc[t]) * m.texts[t].weight
		if x > first {
			first, second = x, first
		} else if x > second {
			second = x
		}
	}
	ev[evNearest] = first
	ev[evSecond] = (first + second) / 2
	for _, t := range m.hints[s] {
		if t != skip {
			ev[evHint] = max(ev[evHint], float64(sc.docAcc[t]))
		}
	}
	// Negative texts hold only what the skill's own texts never say (see
	// stripNegatives), so sharing an id or a region with a counter-example
	// costs nothing.
	for _, t := range m.negatives[s] {
		if t != skip {
			ev[evNegative] = max(ev[evNegative], float64(sc.docAcc[t]))
		}
	}
	return ev
}

// centroidWithout is the cosine between text t (as the query) and skill
// s's centroid with t taken out: with C the unnormalized centroid and d
// the text's unit vector of weight w, cos(d, C-w*d) = (|C|cos(d,C) - w) /
// |C - w*d|.
func (m *model) centroidWithout(s int, t int32, cos float64) float64 {
	c, w := m.cenNorm[s], m.texts[t].weight
	rest := c*c - 2*w*c*cos + w*w
	if rest < 1e-9 {
		return 0 // the text was the skill's only positive
	}
	return (c*cos - w) / math.Sqrt(rest)
}

// fit combines evidence into a score, roughly a cosine: near 1 for a
// request that repeats a skill's example, near 0 for an unrelated one.
func (w scoreWeights) fit(ev evidence) float64 {
	var f float64
	for k := range ev {
		f += w[k] * ev[k]
	}
	return f
}
