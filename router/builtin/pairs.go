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
// the order of its factors. pairScan computes each pair's cosine once
// and lets it count for both texts, halving the inverted-index work that
// is most of a large registry's fit.
//
// What a text's evidence reads of the other texts (per skill: the two
// largest weighted cosines to its positive texts, the largest to its hint
// and to its negative texts) does not depend on the order the texts come
// in, so the pairs can be visited in any order.

// skillOrder lists text indexes grouped by skill (registry order), each
// group its positive texts first, then the others, both in text order;
// start[s] is where skill s's group starts, positives[s] how many
// positive texts it has. Hint texts sit among the texts of the skill
// whose when_not_to_use names them, so text order alone does not group
// them; positives first lets pairScan.route take them in its tight loop.
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

// pairScan computes every text's training candidates with each pair of
// texts scored once, without a table of every text's evidence for every
// skill (at 1,000 skills and 30,000 texts that table was half a gigabyte,
// so large registries routed each text on its own at twice the work).
//
// The texts are laid out skill by skill (skillOrder), and a skill's group
// is one unit of work: each of its texts is routed against every text
// after it. Routing text p settles p's evidence for every later skill at
// once (all their texts come after p), and adds p, for its own skill, to
// the evidence of every later text: that skill's row, complete when the
// last text of the group is routed. A settled entry is folded into its
// text's running candidates (the best by fit)
// and dropped, so a core holds one row and the candidates, not the table.
// Candidates are ranked by a strict order (fit, then registry order), so
// the outcome does not depend on which core folds what, or when.
type pairScan struct {
	m       *model
	w       scoreWeights
	keep    int // candidates per text: min(maxCands, skills)
	workers int // at most one per core
	// order is the text at each position, start[s] where skill s's group
	// starts, positives[s] how many positive texts lead it (skillOrder).
	order            []int32
	start, positives []int
	// docs, facts and weight are the texts' by position (the docs' features
	// copied end to end, which foldRow reads through in order), post the
	// docs' postings with owners numbered by position, so the texts after
	// one are a suffix of every list; self is where a position's own entry
	// sits in each of its features' lists.
	docs   []sparseVec
	facts  []textFact
	weight []float64
	post   postings
	self   [][]int32
	// near is post.owner as 16-bit positions when every position fits
	// (nil otherwise): a quarter less to read per pair, and indexing a
	// worker's fixed-size acc with it needs no bounds check (the scan's
	// inner loop went from seven instructions an add to five).
	near []uint16
	// own is each position's evidence for its own skill, which a text's
	// item always keeps.
	own []evidence
	// cen holds every text's centroid cosines, skill by skill (text p's
	// to skill s at s*n+p), when that fits in cenBudget: computed once per
	// text, as accumulate computes them. Without it route computes the
	// routed text's and foldRow each row's texts' again.
	cen []float32
}

// cenBudget bounds pairScan.cen (bytes): 150 skills of 100 examples take
// 9 MB, 1,000 skills of 30 examples would take 128 MB.
const cenBudget = 96 << 20

// candidate is a skill a text's softmax may run over: where it ranks and
// the evidence it comes from.
type candidate struct {
	rank
	ev evidence
}

// rank is where a candidate ranks, its fit and skill, and (in a
// pairWorker's lists) the slot its evidence is kept at.
type rank struct {
	score float64
	skill int32
	slot  int32
}

// before is the candidates' order: higher fit first, ties by registry
// order.
func (r rank) before(o rank) bool {
	return r.score > o.score || r.score == o.score && r.skill < o.skill
}

// pairWorker is one core's part of the scan.
type pairWorker struct {
	acc   []float32               // the routed text's cosines to the later texts
	acc16 *[nearPositions]float32 // acc's array when near positions are used
	cen   []float32               // its cosines to the skills' centroids (without pairScan.cen)
	dense []float32               // the folded row's centroid by feature, zero elsewhere (the same)
	// rowTop, rowHint and rowNeg are the row of the skill whose texts are
	// being routed, by position: the two largest weighted cosines to its
	// positive texts (as float64 bits), the largest to its hint texts and
	// to its negative texts.
	rowTop          [][2]uint64
	rowHint, rowNeg []float64
	// best holds keep candidates' ranks per position, best first, count
	// how many are set, floor a full list's last (the one most folds are
	// compared with, apart: a compact read per text). A candidate's
	// evidence sits at its slot of evs, written once when it is taken in,
	// so ranks move and evidence stays.
	best  []rank
	count []int32
	floor []rank
	evs   []evidence
}

func (m *model) newPairScan(w scoreWeights, maxCands int) *pairScan {
	order, start, positives := m.skillOrder()
	n := len(order)
	ps := &pairScan{m: m, w: w, keep: min(maxCands, len(m.skills)), workers: runtime.GOMAXPROCS(0), order: order, start: start, positives: positives,
		docs: make([]sparseVec, n), facts: make([]textFact, n), weight: make([]float64, n), own: make([]evidence, n)}
	features := len(m.docPost.owner)
	idx, val := make([]int32, 0, features), make([]float32, 0, features)
	for p, t := range order {
		d, from := m.docs[t], len(idx)
		idx, val = append(idx, d.idx...), append(val, d.val...)
		ps.docs[p] = sparseVec{idx: idx[from:len(idx):len(idx)], val: val[from:len(val):len(val)]}
		ps.facts[p], ps.weight[p] = m.facts[t], m.facts[t].weight
	}
	// The centroid cosines read the texts' vectors alone: they are summed
	// (on every core) while the postings are laid out (on one).
	var cenDone sync.WaitGroup
	if S := len(m.skills); n*S*4 <= cenBudget {
		var cenNear []uint16
		if n >= nearFrom {
			cenNear = nearOwners(m.cenPost.owner, S)
		}
		cenDone.Go(func() { ps.cen = ps.centroidCosines(cenNear) })
	}
	ps.post = buildPostings(ps.docs, len(m.idf))
	if n >= nearFrom {
		ps.near = nearOwners(ps.post.owner, n)
	}
	// Each text is in the posting list of each of its features, so the
	// texts after it start right after its own entry: where that is, per
	// text and feature, in the order buildPostings filled the lists.
	ps.self = make([][]int32, n)
	places := make([]int32, len(ps.post.owner))
	fill := slices.Clone(ps.post.start)
	for p, d := range ps.docs {
		ps.self[p], places = places[:len(d.idx):len(d.idx)], places[len(d.idx):]
		for k, id := range d.idx {
			ps.self[p][k] = fill[id]
			fill[id]++
		}
	}
	cenDone.Wait()
	return ps
}

// centroidCosines is every text's cosine to every skill's centroid (text
// p's to skill s at s*n+p), summed as accumulate sums it; near is the
// centroids' postings' owners as nearOwners gives them (nil to use the
// 32-bit owners).
func (ps *pairScan) centroidCosines(near []uint16) []float32 {
	m, n, S := ps.m, len(ps.order), len(ps.m.skills)
	cen := make([]float32, n*S)
	post := &m.cenPost
	parallel(n, func(from, to int) {
		var acc16 *[nearPositions]float32
		acc := make([]float32, S)
		if near != nil {
			acc16 = new([nearPositions]float32)
			acc = acc16[:S]
		}
		for p := from; p < to; p++ {
			clear(acc)
			d := ps.docs[p]
			for k, id := range d.idx {
				lo, hi := post.start[id], post.start[id+1]
				if near != nil {
					addNear(acc16, near[lo:hi], post.val[lo:hi], d.val[k])
				} else {
					addOwned(acc, post.owner[lo:hi], post.val[lo:hi], d.val[k])
				}
			}
			for s, c := range acc {
				cen[s*n+p] = c
			}
		}
	})
	return cen
}

func (ps *pairScan) newWorker() *pairWorker {
	n := len(ps.order)
	wk := &pairWorker{
		rowTop: make([][2]uint64, n), rowHint: make([]float64, n), rowNeg: make([]float64, n),
		best: make([]rank, n*ps.keep), count: make([]int32, n), floor: make([]rank, n), evs: make([]evidence, n*ps.keep)}
	if ps.near != nil {
		wk.acc16 = new([nearPositions]float32)
		wk.acc = wk.acc16[:n]
	} else {
		wk.acc = make([]float32, n)
	}
	if ps.cen == nil { // the centroid cosines are computed where needed
		wk.cen, wk.dense = make([]float32, len(ps.m.skills)), make([]float32, len(ps.m.idf))
	}
	return wk
}

// items runs the scan and makes every text's training item. Skills are
// handed out in registry order, so the largest units (the earliest
// skills' texts are routed against the most later ones) go first.
func (ps *pairScan) items() []trainItem {
	S := len(ps.m.skills)
	workers := make([]*pairWorker, max(min(ps.workers, S), 1))
	var next atomic.Int64
	var wg sync.WaitGroup
	for i := range workers {
		wk := ps.newWorker()
		workers[i] = wk
		wg.Go(func() {
			for {
				s := int(next.Add(1) - 1)
				if s >= S {
					return
				}
				ps.routeSkill(wk, s)
			}
		})
	}
	wg.Wait()
	items := make([]trainItem, len(ps.order))
	parallel(len(ps.order), func(from, to int) {
		var merged []candidate
		for p := from; p < to; p++ {
			merged = merged[:0]
			for _, wk := range workers {
				for _, r := range wk.best[p*ps.keep : p*ps.keep+int(wk.count[p])] {
					merged = append(merged, candidate{rank: r, ev: wk.evs[p*ps.keep+int(r.slot)]})
				}
			}
			slices.SortFunc(merged, func(a, b candidate) int {
				if a.before(b.rank) {
					return -1
				}
				return 1 // no two candidates of a text share a skill
			})
			t := int(ps.order[p])
			items[t] = ps.m.trainingItem(t, merged[:ps.keep], ps.own[p])
		}
	})
	return items
}

// routeSkill routes skill s's texts and folds its row.
func (ps *pairScan) routeSkill(wk *pairWorker, s int) {
	from := ps.start[s]
	clear(wk.rowTop[from:])
	if len(ps.m.hints[s]) > 0 {
		clear(wk.rowHint[from:])
	}
	if len(ps.m.negatives[s]) > 0 {
		clear(wk.rowNeg[from:])
	}
	for p := from; p < ps.start[s+1]; p++ {
		ps.route(wk, p)
	}
	ps.foldRow(wk, s)
}

// route routes the text at position p against every later text: p's
// cosine to each (from the postings' suffixes after p) counts for p's
// skill in the later text's evidence (the row) and for the later text's
// skill in p's, which is settled for every later skill and folded here.
func (ps *pairScan) route(wk *pairWorker, p int) {
	m, n, S := ps.m, len(ps.order), len(ps.m.skills)
	from := p + 1
	acc := wk.acc[:n]
	clear(acc[from:])
	me := ps.facts[p]
	var cen []float32 // p's centroid cosines, unless ps.cen has them
	if ps.cen == nil {
		cen = wk.cen[:S]
		clear(cen)
	}
	q := ps.docs[p]
	self := ps.self[p][:len(q.idx)]
	for k, id := range q.idx {
		after, end := self[k]+1, ps.post.start[id+1]
		if ps.near != nil {
			addNear(wk.acc16, ps.near[after:end], ps.post.val[after:end], q.val[k])
		} else {
			addOwned(acc, ps.post.owner[after:end], ps.post.val[after:end], q.val[k])
		}
		if cen != nil {
			addPostings(cen, &m.cenPost, id, q.val[k])
		}
	}
	for s := int(me.skill); s < S; s++ {
		lo, hi := max(ps.start[s], from), ps.start[s+1]
		var top [2]uint64
		var hint, neg float64
		if me.role == rolePositive {
			// Positive texts on both sides, the common case, without the
			// role switches.
			mid := max(lo, min(hi, ps.start[s]+ps.positives[s]))
			top = positivePairs(acc[lo:mid], wk.rowTop[lo:mid], ps.weight[lo:mid], me.weight)
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
				addTop(&wk.rowTop[u], x*me.weight)
			case roleHint:
				wk.rowHint[u] = max(wk.rowHint[u], x)
			case roleNegative:
				wk.rowNeg[u] = max(wk.rowNeg[u], x)
			}
			// ... and u for its skill in p's.
			switch tf := &ps.facts[u]; tf.role {
			case rolePositive:
				addTop(&top, x*tf.weight)
			case roleHint:
				hint = max(hint, x)
			case roleNegative:
				neg = max(neg, x)
			}
		}
		if s == int(me.skill) {
			// Adding the two largest values one at a time keeps the two
			// largest of all; a zero adds nothing.
			addTopBits(&wk.rowTop[p], top[0])
			addTopBits(&wk.rowTop[p], top[1])
			wk.rowHint[p] = max(wk.rowHint[p], hint)
			wk.rowNeg[p] = max(wk.rowNeg[p], neg)
			continue
		}
		var c float32
		if cen != nil {
			c = cen[s]
		} else {
			c = ps.cen[s*n+p]
		}
		ev := settled(c, top, hint, neg)
		wk.fold(ps, p, int32(s), &ev)
	}
}

// foldRow folds skill s's row, complete once its texts are routed, into
// the candidates of every text from the group on (the earlier texts had
// s's evidence settled when they were routed). A text's cosine to the
// centroid is summed as accumulate sums it: the text's features in order,
// times the centroid's weights (zero for a feature it lacks, which leaves
// the sum as it is).
func (ps *pairScan) foldRow(wk *pairWorker, s int) {
	m := ps.m
	c := m.centroid[s]
	dense := wk.dense
	if ps.cen == nil {
		for k, f := range c.idx {
			dense[f] = c.val[k]
		}
		defer func() {
			for _, f := range c.idx {
				dense[f] = 0
			}
		}()
	}
	hasHint, hasNeg := len(m.hints[s]) > 0, len(m.negatives[s]) > 0
	for u := ps.start[s]; u < len(ps.order); u++ {
		var cos float32
		if ps.cen != nil {
			cos = ps.cen[s*len(ps.order)+u]
		} else {
			d := ps.docs[u]
			for k, f := range d.idx {
				cos += d.val[k] * dense[f]
			}
		}
		var hint, neg float64
		if hasHint {
			hint = wk.rowHint[u]
		}
		if hasNeg {
			neg = wk.rowNeg[u]
		}
		ev := settled(cos, wk.rowTop[u], hint, neg)
		if tf := ps.facts[u]; int(tf.skill) == s {
			if tf.role == rolePositive {
				ev[evCentroid] = m.centroidWithout(s, ps.order[u], ev[evCentroid])
			}
			ps.own[u] = ev
		}
		wk.fold(ps, u, int32(s), &ev)
	}
}

// settled is a text's evidence for one skill from its centroid cosine and
// what the other texts gave it.
func settled(cen float32, top [2]uint64, hint, neg float64) evidence {
	first, second := math.Float64frombits(top[0]), math.Float64frombits(top[1])
	return evidence{evCentroid: float64(cen), evNearest: first, evSecond: (first + second) / 2, evHint: hint, evNegative: neg}
}

// fold adds a settled candidate to position p's best, keeping the first
// keep in rank order.
func (wk *pairWorker) fold(ps *pairScan, p int, skill int32, ev *evidence) {
	r := rank{score: ps.w.fit(*ev), skill: skill}
	k := ps.keep
	best := wk.best[p*k : p*k+k]
	i := int(wk.count[p])
	if i == k {
		if !r.before(wk.floor[p]) {
			return
		}
		i = k - 1
		r.slot = best[i].slot // the one dropped
	} else {
		r.slot = int32(i)
		wk.count[p]++
	}
	for ; i > 0 && r.before(best[i-1]); i-- {
		best[i] = best[i-1]
	}
	best[i] = r
	wk.evs[p*k+int(r.slot)] = *ev
	if int(wk.count[p]) == k {
		wk.floor[p] = best[k-1]
	}
}

// positivePairs is route's pass over the later texts of one skill when
// the routed text and all of them are positive texts: the routed one, of
// weight w, counts in each later text's top (mine), each later text (of
// weight weight[u]) in the returned top.
//
// The returned top is kept in two variables rather than an array: an
// array whose address addTopBits takes lives in memory, and every pair
// waited for its own last store to be read back (the loop ran at about
// 30 instructions a pair, a tenth of a large registry's fit).
func positivePairs(acc []float32, mine [][2]uint64, weight []float64, w float64) [2]uint64 {
	var t0, t1 uint64
	mine, weight = mine[:len(acc)], weight[:len(acc)]
	for u, v := range acc {
		if !(v > 0) {
			continue // a cosine of 0 adds nothing (nor would a negative one)
		}
		x := float64(v)
		addTopBits(&mine[u], math.Float64bits(x*w))
		b := math.Float64bits(x * weight[u])
		t0, t1 = max(t0, b), max(t1, min(t0, b)) // addTopBits, in registers
	}
	return [2]uint64{t0, t1}
}

// addTop keeps, as bits, the two largest values seen, as evidenceFor
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

// nearPositions is how many positions a 16-bit owner numbers.
const nearPositions = 1 << 16

// nearFrom is the fewest texts the scan uses 16-bit owners for: each
// worker's accumulator is then nearPositions long, a quarter of a
// megabyte, which a registry of a few hundred texts (tools given per
// case are fitted too) would allocate for a scan of a millisecond.
const nearFrom = 2048

// nearOwners is owners as 16-bit numbers when all of [0, count) fit
// (nil otherwise).
func nearOwners(owners []int32, count int) []uint16 {
	if count > nearPositions {
		return nil
	}
	near := make([]uint16, len(owners))
	for i, o := range owners {
		near[i] = uint16(o)
	}
	return near
}

// addNear is addOwned for 16-bit owners into an array they cannot index
// past: the same products added in the same order. Unrolled by eight, not
// four: with no bounds checks left, the loop's own steps were a fifth of
// its instructions (the pair scan 5% faster).
func addNear(acc *[nearPositions]float32, owners []uint16, vals []float32, qv float32) {
	vals = vals[:len(owners)]
	j := 0
	for ; j+8 <= len(owners); j += 8 {
		o := owners[j : j+8 : j+8]
		v := vals[j : j+8 : j+8]
		acc[o[0]] += qv * v[0]
		acc[o[1]] += qv * v[1]
		acc[o[2]] += qv * v[2]
		acc[o[3]] += qv * v[3]
		acc[o[4]] += qv * v[4]
		acc[o[5]] += qv * v[5]
		acc[o[6]] += qv * v[6]
		acc[o[7]] += qv * v[7]
	}
	for ; j < len(owners); j++ {
		acc[owners[j]] += qv * vals[j]
	}
}
