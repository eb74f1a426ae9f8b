package builtin

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"sync"
)

// linearModel corrects the similarity fit with learned per-skill feature
// weights: z_s = beta.ev_s + bias_s + sum_f x_f*W[f][s], ev_s being the
// skill's similarity evidence. It is a softmax
// regression whose prior is the similarity scorer: with W = 0 it ranks like
// the fit, and training only adds what tells confusable skills apart
// (a word that appears in both skills' texts but only one skill's examples).
type linearModel struct {
	skills int
	beta   [numEvidence]float32
	bias   []float32
	// rows maps a vocabulary feature to its row, -1 for features that
	// occur in a single text: a weight for them could only memorize that
	// text. On CLINC150 that is half the vocabulary, and w must stay small
	// enough for the cache: training is bound by its memory traffic.
	rows []int32
	// lay says which (row, skill) weights w holds, in its order: all of
	// them, or the ones training can touch. Every other weight is 0.
	lay *linLayout
	w   []float32
}

// linLayout is which (row, skill) weights a linear layer holds: those its
// training can touch, a skill among the candidates of an item whose text
// has the row's feature. Every other weight stays 0 whatever the training,
// so it is not stored: at 1,000 skills a dense rows × skills matrix was
// 160 MB, nearly all zeros. Row r's skills are a bitset, bits[r*words:
// (r+1)*words]; a held weight's place in w is first (the weights held
// before its 64-skill word) plus the bits set before it in the word.
type linLayout struct {
	// dense holds every weight, row-major (row r's at r*skills): for a
	// small matrix, smaller than the places table and faster to train.
	dense  bool
	skills int
	words  int
	bits   []uint64
	first  []int32
	n      int // weights held
	// places are, for each item the layout was made from, the place of
	// each of its terms' weight for each of its candidates (term-major),
	// from placesOf[its text] on: what training reads and writes at every
	// step, looked up once. A place counts from its row's first held
	// weight (rowBase), so it fits 16 bits whenever the skills do (a row
	// holds at most one weight a skill): half the memory of a place in w,
	// and the table was the fit's largest allocation on a registry of a
	// thousand skills (55 MB of 195). Nil when the skills do not fit 16
	// bits (training looks every weight up with at instead) and after the
	// fit (routing does).
	places   []uint16
	placesOf []int32
	// rowFirst is rowBase by row, beside the places: first's entries are
	// a row's words apart, and reading them cost a cache miss a term.
	rowFirst []int32
}

// maxPlaced is the most skills a places table can number within a row.
const maxPlaced = 1 << 16

// newLinLayout lays out the weights training on items can touch: densely
// or only those.
func newLinLayout(lt linTexts, items []trainItem, rows, skills int) *linLayout {
	places := placeCount(lt, items)
	if 6*rows*skills <= places {
		// Dense whatever training touches (see below): the matrix costs
		// no more than the places table alone.
		return denseLayout(rows, skills)
	}
	lay := touchedLayout(lt, items, rows, skills)
	// Three layers are in memory at once while fitting on two cores (two
	// training, one trained); more cores train more at once, which only
	// moves where dense stops paying. Dense when that costs no more than
	// the held weights and their places table (a place is half a weight's
	// bytes). Either way the weights are the same: the choice is memory
	// and speed, never the fit.
	if 6*rows*skills <= places+6*lay.n {
		return denseLayout(rows, skills)
	}
	if skills <= maxPlaced {
		lay.place(lt, items)
	}
	return lay
}

// denseLayout holds every weight of rows × skills.
func denseLayout(rows, skills int) *linLayout {
	return &linLayout{dense: true, skills: skills, n: rows * skills}
}

// touchedLayout holds the weights training on items touches, without
// their places yet.
func touchedLayout(lt linTexts, items []trainItem, rows, skills int) *linLayout {
	words := (skills + 63) / 64
	lay := &linLayout{skills: skills, words: words, bits: make([]uint64, rows*words)}
	for i := range items {
		it := &items[i]
		for _, e := range lt.of(it.text) {
			row := lay.bits[int(e.row)*words : int(e.row)*words+words]
			for _, s := range it.cands {
				row[s>>6] |= 1 << (s & 63)
			}
		}
	}
	lay.index()
	return lay
}

// placeCount is how many places training on items looks up.
func placeCount(lt linTexts, items []trainItem) int {
	total := 0
	for i := range items {
		total += len(lt.of(items[i].text)) * len(items[i].cands)
	}
	return total
}

// place fills in the places of items' weights; the skills must fit
// maxPlaced.
func (lay *linLayout) place(lt linTexts, items []trainItem) {
	lay.placesOf = make([]int32, lt.texts())
	lay.places = make([]uint16, 0, placeCount(lt, items))
	lay.rowFirst = make([]int32, len(lay.bits)/lay.words)
	for r := range lay.rowFirst {
		lay.rowFirst[r] = lay.first[r*lay.words]
	}
	for i := range items {
		it := &items[i]
		lay.placesOf[it.text] = int32(len(lay.places))
		for _, e := range lt.of(it.text) {
			base := lay.rowBase(e.row)
			for _, s := range it.cands {
				lay.places = append(lay.places, uint16(lay.at(e.row, s)-base))
			}
		}
	}
}

// rowBase is the place in w of row r's first held weight, which its
// places count from; the layout must be placed.
func (lay *linLayout) rowBase(r int32) int {
	return int(lay.rowFirst[r])
}

// dropPlaces lets the places go once training is done: routing looks
// weights up with at.
func (lay *linLayout) dropPlaces() {
	lay.places, lay.placesOf, lay.rowFirst = nil, nil, nil
}

// placesFor is item it's places: terms × candidates.
func (lay *linLayout) placesFor(it *trainItem, terms int) []uint16 {
	from := int(lay.placesOf[it.text])
	return lay.places[from : from+terms*len(it.cands)]
}

// index numbers the held weights (first and n) from bits.
func (lay *linLayout) index() {
	lay.first = make([]int32, len(lay.bits))
	n := 0
	for k, b := range lay.bits {
		lay.first[k] = int32(n)
		n += bits.OnesCount64(b)
	}
	lay.n = n
}

// at is the place in w of row r's weight for skill s, -1 when the layer
// does not hold it (the weight is 0).
func (lay *linLayout) at(r, s int32) int {
	if lay.dense {
		return int(r)*lay.skills + int(s)
	}
	k := int(r)*lay.words + int(s>>6)
	b, bit := lay.bits[k], uint64(1)<<(s&63)
	if b&bit == 0 {
		return -1
	}
	return int(lay.first[k]) + bits.OnesCount64(b&(bit-1))
}

// weight is row r's weight for skill s.
func (lm *linearModel) weight(r, s int32) float32 {
	if p := lm.lay.at(r, s); p >= 0 {
		return lm.w[p]
	}
	return 0
}

// trainItem is one text to learn from.
type trainItem struct {
	text int // index into model.texts
	// label is the skill the text asks for, or -1 for a text that only
	// says which skill it is not for (avoid).
	label int
	avoid int // skill to push away from, or -1
	// cands are the skills the softmax runs over (the label first when
	// set), evs their similarity evidence computed without this text.
	cands []int32
	evs   []evidence
}

// trainSettings are the optimizer's knobs; fixed, not tuned per registry.
type trainSettings struct {
	Epochs int
	Rate   float64 // initial learning rate, decayed linearly to 10%
	L2     float64 // weight decay on touched rows
	// Beta0 scales defaultWeights into the evidence weights. They stay
	// fixed: learning them let the similarity prior drift towards
	// memorized texts and cost accuracy on held-out requests.
	Beta0 float64
}

var defaultTraining = trainSettings{Epochs: 16, Rate: 0.5, L2: 1e-5, Beta0: 8}

// linTerm is a text's feature as the linear layer reads it: its row of w
// and its value.
type linTerm struct {
	row int32
	x   float32
}

// linTexts lists every text's features that have a row, in the text's
// feature order: what training reads of a text at every step, laid out
// together instead of looked up feature by feature through rows.
type linTexts struct {
	start []int32 // text t's terms are terms[start[t]:start[t+1]]
	terms []linTerm
}

func (m *model) linTexts() linTexts {
	n := 0
	for _, d := range m.docs {
		for _, f := range d.idx {
			if m.linRows[f] >= 0 {
				n++
			}
		}
	}
	lt := linTexts{start: make([]int32, len(m.docs)+1), terms: make([]linTerm, 0, n)}
	for t, d := range m.docs {
		for k, f := range d.idx {
			if r := m.linRows[f]; r >= 0 {
				lt.terms = append(lt.terms, linTerm{row: r, x: d.val[k]})
			}
		}
		lt.start[t+1] = int32(len(lt.terms))
	}
	return lt
}

func (lt linTexts) of(t int) []linTerm { return lt.terms[lt.start[t]:lt.start[t+1]] }

// texts is how many texts lt lays out.
func (lt linTexts) texts() int { return len(lt.start) - 1 }

// train fits the linear model by stochastic gradient descent in a fixed,
// seeded order, so the same registry always gives the same weights.
func (m *model) train(items []trainItem, ts trainSettings, seed uint64) *linearModel {
	lt := m.linTexts()
	return m.trainOn(lt, newLinLayout(lt, items, m.linCount, len(m.skills)), items, ts, seed)
}

// trainOn is train with the texts' terms laid out already, holding the
// weights of lay (which must hold every weight items can touch).
func (m *model) trainOn(lt linTexts, lay *linLayout, items []trainItem, ts trainSettings, seed uint64) *linearModel {
	S := len(m.skills)
	room := lay.n
	if lay.placesOf != nil {
		// Room past the weights for a full row from any row's first
		// weight (rowWeights), never written: a place then indexes an
		// array it cannot pass, with no bounds check.
		room += maxPlaced
	}
	lm := &linearModel{skills: S, bias: make([]float32, S), rows: m.linRows, lay: lay, w: make([]float32, lay.n, room)}
	for k := range lm.beta {
		lm.beta[k] = float32(ts.Beta0 * defaultWeights[k])
	}
	switch {
	case lay.dense:
		sgd(lm, denseSteps{lm: lm, skills: S}, lt, items, ts, seed)
	case lay.placesOf != nil:
		sgd(lm, heldSteps{lm: lm, lay: lay}, lt, items, ts, seed)
	default:
		sgd(lm, lookupSteps{lm: lm, lay: lay}, lt, items, ts, seed)
	}
	return lm
}

// layerSteps is what an SGD step does with a layer's weights, held
// densely or not: an item's logits and the update of its weights. sgd is
// generic in it, so each layout's loops are compiled on their own (one
// loop testing the layout at every item ran the dense training 40%
// slower).
type layerSteps interface {
	logits(it *trainItem, terms []linTerm, z []float64)
	update(it *trainItem, terms []linTerm, gc []float64, rate, l2 float64)
}

// denseSteps steps a dense layer.
type denseSteps struct {
	lm     *linearModel
	skills int
}

func (d denseSteps) logits(it *trainItem, terms []linTerm, z []float64) {
	d.lm.denseLogits(terms, it.cands, it.evs, z)
}

func (d denseSteps) update(it *trainItem, terms []linTerm, gc []float64, rate, l2 float64) {
	S, w, cands := d.skills, d.lm.w, it.cands
	gc = gc[:len(cands)]
	for _, e := range terms {
		x := float64(e.x)
		row := w[int(e.row)*S : int(e.row)*S+S]
		for c, s := range cands {
			row[s] -= float32(rate * (gc[c]*x + l2*float64(row[s])))
		}
	}
}

// heldSteps steps a layer holding the touched weights, through the
// places the layout looked up for each item.
type heldSteps struct {
	lm  *linearModel
	lay *linLayout
}

func (h heldSteps) logits(it *trainItem, terms []linTerm, z []float64) {
	h.lm.placedLogits(terms, h.lay.placesFor(it, len(terms)), it.cands, it.evs, z)
}

func (h heldSteps) update(it *trainItem, terms []linTerm, gc []float64, rate, l2 float64) {
	places, n := h.lay.placesFor(it, len(terms)), len(gc)
	for t, e := range terms {
		x := float64(e.x)
		w := h.lm.rowWeights(e.row)
		pl := places[t*n : t*n+n]
		g := gc[:len(pl)]
		for c, p := range pl {
			w[p] -= float32(rate * (g[c]*x + l2*float64(w[p])))
		}
	}
}

// rowWeights is the weights from row r's first held one on, as an array
// a place (16 bits) cannot index past; w has the room (trainOn). For a
// placed layout only.
func (lm *linearModel) rowWeights(r int32) *[maxPlaced]float32 {
	base := lm.lay.rowBase(r)
	return (*[maxPlaced]float32)(lm.w[base : base+maxPlaced])
}

// lookupSteps steps a layer holding the touched weights without a places
// table (more skills than a place numbers), looking each weight up.
type lookupSteps struct {
	lm  *linearModel
	lay *linLayout
}

func (l lookupSteps) logits(it *trainItem, terms []linTerm, z []float64) {
	l.lm.termLogits(terms, it.cands, it.evs, z)
}

func (l lookupSteps) update(it *trainItem, terms []linTerm, gc []float64, rate, l2 float64) {
	w := l.lm.w
	for _, e := range terms {
		x := float64(e.x)
		for c, s := range it.cands {
			p := l.lay.at(e.row, s)
			w[p] -= float32(rate * (gc[c]*x + l2*float64(w[p])))
		}
	}
}

// sgd fits lm's bias and weights by stochastic gradient descent in a
// fixed, seeded order, so the same registry always gives the same
// weights.
func sgd[L layerSteps](lm *linearModel, steps L, lt linTexts, items []trainItem, ts trainSettings, seed uint64) {
	order := make([]int, len(items))
	for i := range order {
		order[i] = i
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	var z, g []float64
	epochs := epochsFor(ts.Epochs, len(items))
	total := epochs * len(items)
	step := 0
	for epoch := 0; epoch < epochs; epoch++ {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, o := range order {
			it := &items[o]
			rate := ts.Rate * (1 - 0.9*float64(step)/float64(total))
			step++
			terms := lt.of(it.text)
			n := len(it.cands)
			z, g = grow(z, n), grow(g, n)
			steps.logits(it, terms, z)
			softmaxInPlace(z)
			// gradient of the loss with respect to each logit
			switch {
			case it.label >= 0:
				for c := range n {
					g[c] = z[c]
					if int(it.cands[c]) == it.label {
						g[c] -= 1
					}
				}
			default:
				pa := 0.0
				for c := range n {
					if int(it.cands[c]) == it.avoid {
						pa = z[c]
					}
				}
				for c := range n {
					if int(it.cands[c]) == it.avoid {
						g[c] = pa
					} else {
						g[c] = z[c] - z[c]/math.Max(1-pa, 1e-6)
					}
				}
			}
			gc, bias := g[:n], lm.bias
			for c, s := range it.cands {
				bias[s] -= float32(rate * 0.1 * gc[c])
			}
			steps.update(it, terms, gc, rate, ts.L2)
		}
	}
}

// evidenceLogits starts each candidate's logit: its bias and its
// weighted evidence, the terms' sums added after.
func (lm *linearModel) evidenceLogits(cands []int32, evs []evidence, z []float64) {
	for c, s := range cands {
		zc := float64(lm.bias[s])
		for k, b := range lm.beta {
			zc += float64(b) * evs[c][k]
		}
		z[c] = zc
	}
}

// logits writes z_c for each candidate of a vector. A weight the layer
// does not hold is 0 and is added as 0, as a dense matrix's would be.
func (lm *linearModel) logits(v sparseVec, cands []int32, evs []evidence, z []float64) {
	lm.evidenceLogits(cands, evs, z)
	dense, S := lm.lay.dense, lm.skills
	for k, f := range v.idx {
		r := lm.rows[f]
		if r < 0 {
			continue
		}
		x := v.val[k]
		if dense { // every request's path: a row of the matrix, no lookup
			row := lm.w[int(r)*S : int(r)*S+S]
			for c, s := range cands {
				z[c] += float64(x * row[s])
			}
			continue
		}
		for c, s := range cands {
			z[c] += float64(x * lm.weight(r, s))
		}
	}
}

// denseLogits is termLogits for a dense layer.
func (lm *linearModel) denseLogits(terms []linTerm, cands []int32, evs []evidence, z []float64) {
	S := lm.skills
	lm.evidenceLogits(cands, evs, z)
	z = z[:len(cands)]
	for _, e := range terms {
		x := e.x
		row := lm.w[int(e.row)*S : int(e.row)*S+S]
		for c, s := range cands {
			z[c] += float64(x * row[s])
		}
	}
}

// placedLogits is termLogits for a training item, its weights' places
// given (linLayout.places): the same sums, in the same order.
func (lm *linearModel) placedLogits(terms []linTerm, places []uint16, cands []int32, evs []evidence, z []float64) {
	lm.evidenceLogits(cands, evs, z)
	n := len(cands)
	for t, e := range terms {
		x := e.x
		w := lm.rowWeights(e.row)
		pl := places[t*n : t*n+n]
		zt := z[:len(pl)]
		for c, p := range pl {
			zt[c] += float64(x * w[p])
		}
	}
}

// termLogits is logits for a registry text's terms: the same sums, in
// the same order.
func (lm *linearModel) termLogits(terms []linTerm, cands []int32, evs []evidence, z []float64) {
	if lm.lay.dense {
		lm.denseLogits(terms, cands, evs, z)
		return
	}
	lm.evidenceLogits(cands, evs, z)
	for _, e := range terms {
		x := e.x
		for c, s := range cands {
			z[c] += float64(x * lm.weight(e.row, s))
		}
	}
}

// epochsFor passes over small registries many times and over large ones
// fewer: SGD on 15,000 texts converges in fewer passes than on 150, and
// fitting time must stay near a few seconds for a registry that size.
func epochsFor(maxEpochs, items int) int {
	return max(min(maxEpochs, (120000+items/2)/max(items, 1)), 6)
}

func grow(buf []float64, n int) []float64 {
	if cap(buf) < n {
		return make([]float64, n)
	}
	return buf[:n]
}

// softmaxInPlace turns logits into probabilities.
func softmaxInPlace(z []float64) {
	mx := math.Inf(-1)
	for _, v := range z {
		mx = max(mx, v)
	}
	var sum float64
	for i, v := range z {
		z[i] = math.Exp(v - mx)
		sum += z[i]
	}
	for i := range z {
		z[i] /= sum
	}
}

// trainingItems routes every registry text against the registry without
// itself, keeping the top maxCands skills by fit (plus the text's own
// skill) as the softmax's candidates, as the recall stage would. Each
// pair of texts is scored once for both (pairScan).
func (m *model) trainingItems(w scoreWeights, maxCands int) []trainItem {
	return m.newPairScan(w, maxCands).items()
}

// trainingItem makes text t's item from its best candidates and its
// evidence for its own skill, which is always kept.
func (m *model) trainingItem(t int, best []candidate, own evidence) trainItem {
	st := m.texts[t]
	it := trainItem{text: t, label: -1, avoid: -1}
	switch st.role {
	case rolePositive, roleHint:
		it.label = st.skill
	case roleNegative:
		it.avoid = st.skill
	}
	n := len(best)
	keep := st.skill
	for _, c := range best {
		if int(c.skill) == keep {
			keep = -1
		}
	}
	if keep >= 0 {
		it.cands = append(it.cands, int32(keep))
		it.evs = append(it.evs, own)
		n--
	}
	for _, c := range best[:n] {
		it.cands = append(it.cands, c.skill)
		it.evs = append(it.evs, c.ev)
	}
	return it
}

// parallel runs work over [0, n) in contiguous chunks, one per CPU. Each
// chunk writes only its own results, so the outcome does not depend on
// scheduling.
func parallel(n int, work func(from, to int)) {
	workers := min(runtime.GOMAXPROCS(0), max(n/64, 1))
	var wg sync.WaitGroup
	for k := range workers {
		from, to := k*n/workers, (k+1)*n/workers
		wg.Go(func() { work(from, to) })
	}
	wg.Wait()
}
