package builtin

import (
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// Fitting routes every registry text against every other one (see
// trainingItems), and the cosine of text a as the query to text b is the
// cosine of b as the query to a, to the last bit: both sums add the
// products of the features the two vectors share, in feature order (both
// vectors are sorted by feature), and a float32 product does not depend on
// the order of its factors. pairEvidence computes each pair's cosine once
// and lets it count for both texts, halving the inverted-index work that
// is most of a large registry's fit.
//
// What a text's evidence reads of the other texts (per skill: the two
// largest weighted cosines to its positive texts, the largest to its hint
// and to its negative texts) does not depend on the order the texts come
// in, so the pairs can be visited in any order.

// pairTopBudget bounds the per-skill, per-text evidence table (bytes):
// a registry whose table would be larger routes its texts one at a time,
// as before, rather than hold it.
const pairTopBudget = 96 << 20

// pairEvidence is every text's evidence from the other texts, per skill,
// indexed by the text's position in skill order (see newPairEvidence).
type pairEvidence struct {
	n int // texts
	// top is, per skill s and text at position p, at s*n+p, the largest
	// and second largest weighted cosine of text p to s's positive texts,
	// as their float64 bits (see addTopBits).
	top [][2]uint64
	// hint and neg are, per skill (nil for a skill without such texts),
	// the largest cosine of each text to the skill's hint and negative
	// texts.
	hint, neg [][]float64
}

// skillOrder lists text indexes grouped by skill (registry order), each
// group its positive texts first, then the others, both in text order;
// start[s] is where skill s's group starts, positives[s] how many
// positive texts it has. Hint texts sit among the texts of the skill
// whose when_not_to_use names them, so text order alone does not group
// them; positives first lets route take them in its tight loop.
func (m *model) skillOrder() (order []int32, start, positives []int) {
	S := len(m.skills)
	start, positives = make([]int, S+1), make([]int, S)
	for _, tf := range m.facts {
		start[tf.skill+1]++
		if tf.role == rolePositive {
			positives[tf.skill]++
		}
	}
	for s := range S {
		start[s+1] += start[s]
	}
	order = make([]int32, len(m.facts))
	fillPos, fillRest := make([]int, S), make([]int, S)
	for s := range S {
		fillPos[s], fillRest[s] = start[s], start[s]+positives[s]
	}
	for t, tf := range m.facts {
		fill := fillRest
		if tf.role == rolePositive {
			fill = fillPos
		}
		order[fill[tf.skill]] = int32(t)
		fill[tf.skill]++
	}
	return order, start, positives
}

// pairTableFits reports whether a registry's evidence table stays within
// pairTopBudget.
func (m *model) pairTableFits() bool {
	perText := 16 // top
	for s := range m.skills {
		if len(m.hints[s]) > 0 {
			perText += 8
		}
		if len(m.negatives[s]) > 0 {
			perText += 8
		}
	}
	return len(m.texts)*perText <= pairTopBudget
}

// newPairEvidence computes the table. Each skill's group of texts is one
// unit of work: the group's texts routed against every text after them in
// skill order. A unit writes the entries of its own skill for the later
// texts and the entries of the later texts' skills for its own texts, so
// every entry has one writer whatever runs concurrently; units are handed
// out in order, the largest (earliest) first.
func (m *model) newPairEvidence(order []int32, start, positives []int) *pairEvidence {
	n, S := len(order), len(m.skills)
	pe := &pairEvidence{n: n, top: make([][2]uint64, S*n), hint: make([][]float64, S), neg: make([][]float64, S)}
	for s := range S {
		if len(m.hints[s]) > 0 {
			pe.hint[s] = make([]float64, n)
		}
		if len(m.negatives[s]) > 0 {
			pe.neg[s] = make([]float64, n)
		}
	}
	// The texts' vectors indexed with their owners numbered in skill
	// order, so the texts after one are a suffix of every posting list.
	docs := make([]sparseVec, n)
	facts := make([]textFact, n)
	weight := make([]float64, n)
	for p, t := range order {
		docs[p], facts[p], weight[p] = m.docs[t], m.facts[t], m.facts[t].weight
	}
	post := buildPostings(docs, len(m.idf))
	// Each text is in the posting list of each of its features, so the
	// texts after it start right after its own entry: where that is, per
	// text and feature, in the order buildPostings filled the lists.
	self := make([][]int32, n)
	fill := slices.Clone(post.start)
	for p, d := range docs {
		self[p] = make([]int32, len(d.idx))
		for k, id := range d.idx {
			self[p][k] = fill[id]
			fill[id]++
		}
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), S) {
		wg.Go(func() {
			acc := make([]float32, n)
			for {
				s := int(next.Add(1) - 1)
				if s >= S {
					return
				}
				for p := start[s]; p < start[s+1]; p++ {
					pe.route(&post, docs[p], self[p], facts, weight, start, positives, p, acc)
				}
			}
		})
	}
	wg.Wait()
	return pe
}

// route adds the pairs of text p with every later text: p's cosine to
// each, from the postings' suffixes after p (self: p's own entry in each
// of its features' lists), counts for p's skill in the later text's
// evidence and for the later text's skill in p's.
func (pe *pairEvidence) route(post *postings, q sparseVec, self []int32, facts []textFact, weight []float64, start, positives []int, p int, acc []float32) {
	n := pe.n
	from := p + 1
	acc = acc[:n]
	clear(acc[from:])
	self = self[:len(q.idx)]
	for k, id := range q.idx {
		after, end := self[k]+1, post.start[id+1]
		addOwned(acc, post.owner[after:end], post.val[after:end], q.val[k])
	}
	me := facts[p]
	// The later texts come skill by skill: p's evidence for each skill is
	// gathered in registers and stored once per skill.
	for s := int(me.skill); s < len(start)-1; s++ {
		lo, hi := max(start[s], from), start[s+1]
		var top [2]uint64
		var hint, neg float64
		if me.role == rolePositive {
			// Positive texts on both sides, the common case, without the
			// role switches.
			mid := max(lo, min(hi, start[s]+positives[s]))
			top = positivePairs(acc[lo:mid], pe.top[int(me.skill)*n+lo:int(me.skill)*n+mid], weight[lo:mid], me.weight)
			lo = mid
		}
		for u := lo; u < hi; u++ {
			if acc[u] == 0 {
				continue // adds nothing to either side's evidence
			}
			x := float64(acc[u])
			// p counts for its skill in u's evidence ...
			switch me.role {
			case rolePositive:
				addTop(&pe.top[int(me.skill)*n+u], x*me.weight)
			case roleHint:
				h := pe.hint[me.skill]
				h[u] = max(h[u], x)
			case roleNegative:
				g := pe.neg[me.skill]
				g[u] = max(g[u], x)
			}
			// ... and u for its skill in p's.
			switch tf := &facts[u]; tf.role {
			case rolePositive:
				addTop(&top, x*tf.weight)
			case roleHint:
				hint = max(hint, x)
			case roleNegative:
				neg = max(neg, x)
			}
		}
		// Adding the two largest values one at a time keeps the two
		// largest of all; a zero adds nothing.
		t := &pe.top[s*n+p]
		addTopBits(t, top[0])
		addTopBits(t, top[1])
		if h := pe.hint[s]; h != nil {
			h[p] = max(h[p], hint)
		}
		if g := pe.neg[s]; g != nil {
			g[p] = max(g[p], neg)
		}
	}
}

// positivePairs is route's pass over the later texts of one skill when
// the routed text and all of them are positive texts: the routed one, of
// weight w, counts in each later text's top (mine), each later text (of
// weight weight[u]) in the returned top.
func positivePairs(acc []float32, mine [][2]uint64, weight []float64, w float64) [2]uint64 {
	var top [2]uint64
	mine, weight = mine[:len(acc)], weight[:len(acc)]
	for u, v := range acc {
		if !(v > 0) {
			continue // a cosine of 0 adds nothing (nor would a negative one)
		}
		x := float64(v)
		addTopBits(&mine[u], math.Float64bits(x*w))
		addTopBits(&top, math.Float64bits(x*weight[u]))
	}
	return top
}

// addTop keeps, as bits, the two largest values seen, as allEvidence
// does: it starts both at 0, so a value that is not positive changes
// neither.
func addTop(t *[2]uint64, x float64) {
	if x > 0 {
		addTopBits(t, math.Float64bits(x))
	}
}

// addTopBits is addTop for a positive value's bits. The bits of positive
// floats order as the numbers do, and integer min and max need no
// branch: the values come in no order a branch predictor could learn.
func addTopBits(t *[2]uint64, x uint64) {
	t0, t1 := t[0], t[1]
	t[0], t[1] = max(t0, x), max(t1, min(t0, x))
}

// evidence writes the text at position p's evidence for every skill, the
// centroid cosines given (as accumulate leaves them in cenAcc).
func (pe *pairEvidence) evidence(p int, cenAcc []float32, evs []evidence) {
	n := pe.n
	for s := range evs {
		t := pe.top[s*n+p]
		first, second := math.Float64frombits(t[0]), math.Float64frombits(t[1])
		evs[s] = evidence{evCentroid: float64(cenAcc[s]), evNearest: first, evSecond: (first + second) / 2}
		if h := pe.hint[s]; h != nil {
			evs[s][evHint] = h[p]
		}
		if g := pe.neg[s]; g != nil {
			evs[s][evNegative] = g[p]
		}
	}
}

// addOwned is addPostings for a posting list's slice.
func addOwned(acc []float32, owners []int32, vals []float32, qv float32) {
	vals = vals[:len(owners)]
	j := 0
	for ; j+4 <= len(owners); j += 4 {
		o := owners[j : j+4 : j+4]
		v := vals[j : j+4 : j+4]
		acc[o[0]] += qv * v[0]
		acc[o[1]] += qv * v[1]
		acc[o[2]] += qv * v[2]
		acc[o[3]] += qv * v[3]
	}
	for ; j < len(owners); j++ {
		acc[owners[j]] += qv * vals[j]
	}
}
