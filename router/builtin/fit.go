package builtin

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/routebench/routebench/router/registry"
)

// fitted is a model with its trained linear layer and calibration: all the
// judge needs, computed once per distinct skill set.
type fitted struct {
	*model
	lin  *linearModel
	topK int
	// known lists, per property name, the string values the registry's
	// examples give it ("gateway" for service), so extraction recognizes a
	// service one skill's examples name in a request routed to another.
	known map[string][]string
	// stems are each skill's name words (see nameStems).
	stems [][]string
	// schemaStems are each skill's schema words (see schemaStems).
	schemaStems []map[string]bool
	// quoted holds, per registry text, the text as a reason quotes it
	// (quotedClip) and as its JSON writes that, made the first time a
	// reason names the text: they depend on the text alone, and quoting
	// and escaping a Chinese text was most of writing a reason.
	quoted []atomic.Pointer[quotedText]
}

const (
	// trainCands is how many skills, by fit, each training text's softmax
	// runs over: the confusable ones, as recall would hand them over.
	trainCands = 10
	// calFolds is how many parts cross-fitting splits the texts into.
	calFolds = 5
	// defaultTopK is the recall depth assumed when no version says.
	defaultTopK = 5
	// trainSeed fixes the training order: same registry, same weights.
	trainSeed = 20261130
)

// fitSkills learns everything from the skills' texts: vocabulary, vectors,
// the linear layer (on all texts) and the calibration (on cross-fitted,
// held-out routing of every positive text).
func fitSkills(skills []*registry.Skill, topK int) *fitted {
	if topK <= 0 {
		topK = defaultTopK
	}
	m := newModel(skills)
	items := m.trainingItems(defaultWeights, max(trainCands, topK+1))
	f := newFitted(m, topK)
	// The final layer trains while the held-out folds do (nothing of one
	// is read by the other), and so do the recall texts' embeddings: all
	// of them take turns at one slot per core, the folds first, so the
	// calibration, which needs all of them, is fitted while the final
	// layer trains instead of after it, with a core idle. Three fold
	// trainings on two cores left one idle while the last ran alone.
	t := newTurns(runtime.GOMAXPROCS(0))
	lt := m.linTexts()
	// One layout for the final layer and the folds': a fold trains on
	// some of the items, so it touches some of the weights.
	lay := newLinLayout(lt, items, m.linCount, len(m.skills))
	folds := f.foldsFor(items)
	lin := make(chan *linearModel, 1)
	go func() {
		t.take(folds)
		defer t.give()
		lin <- m.trainOn(lt, lay, items, defaultTraining, trainSeed)
	}()
	embedded := make(chan map[string]bucketVec, 1)
	go func() {
		t.take(folds + 1)
		defer t.give()
		embedded <- m.embedAll(recallTexts(skills))
	}()
	m.cal = fitCalibration(f.heldOutIn(lt, lay, items, folds, t))
	f.lin = <-lin
	lay.dropPlaces()
	m.embedded = <-embedded
	return f
}

// newFitted wraps m with what is read off the skills directly (names,
// schemas, example values); the linear layer and calibration come later.
func newFitted(m *model, topK int) *fitted {
	f := &fitted{model: m, topK: topK, known: knownValues(m.skills), quoted: make([]atomic.Pointer[quotedText], len(m.texts))}
	for _, s := range m.skills {
		f.stems = append(f.stems, nameStems(s.Name))
		f.schemaStems = append(f.schemaStems, schemaStems(s))
	}
	return f
}

// heldOut routes every request-like text with a linear layer trained
// without it (k-fold cross-fitting; its similarity evidence is
// leave-one-out already), among its top-K skills by fit, and records the
// top candidate's margin, fit and whether it was right.
func (f *fitted) heldOut(items []trainItem) []heldOut {
	lt := f.linTexts()
	lay := newLinLayout(lt, items, f.linCount, len(f.skills))
	return f.heldOutIn(lt, lay, items, f.foldsFor(items), newTurns(runtime.GOMAXPROCS(0)))
}

// calWeight is how much a text's held-out routing counts in the
// calibration. Only request-like texts calibrate: examples fully,
// when_to_use lines at half weight. A glossary line or an enum's synonyms
// routed as a request says nothing about how requests go.
func (f *fitted) calWeight(it trainItem) float64 {
	if it.label < 0 {
		return 0
	}
	switch f.texts[it.text].source {
	case fromExample:
		return 1
	case fromWhenToUse:
		return 0.5
	}
	return 0
}

// foldsFor is how many folds cross-fitting on items uses: five; three
// for large registries, whose fold models are each as costly as the final
// one and whose held-out set is large anyway.
func (f *fitted) foldsFor(items []trainItem) int {
	calibrating := 0
	for _, it := range items {
		if f.calWeight(it) > 0 {
			calibrating++
		}
	}
	if calibrating > 2000 {
		return 3
	}
	return calFolds
}

// heldOutIn is heldOut for the texts' terms lt and the layers' layout lay
// (holding what training on all of items touches) in the given number of
// folds, fold k's training and routing run at turn k of t.
func (f *fitted) heldOutIn(lt linTexts, lay *linLayout, items []trainItem, folds int, t *turns) []heldOut {
	weight := f.calWeight
	fold := func(i int) int { return int(mix(uint64(i)) % uint64(folds)) }
	perFold := make([][]heldOut, folds)
	var wg sync.WaitGroup
	for k := range folds {
		wg.Go(func() {
			t.take(k)
			defer t.give()
			var train []trainItem
			for i, it := range items {
				if fold(i) != k {
					train = append(train, it)
				}
			}
			lin := f.trainOn(lt, lay, train, defaultTraining, trainSeed+uint64(k)+1)
			var z []float64
			for i, it := range items {
				w := weight(it)
				if fold(i) != k || w == 0 {
					continue
				}
				// Items list their own skill first when it was not among
				// the top by fit; held-out routing must not get that hint.
				in, best := f.routeHeldOut(lin, lt, it.text, slices.Clone(it.cands), slices.Clone(it.evs), &z)
				perFold[k] = append(perFold[k], heldOut{calInput: in, correct: int(best) == it.label, weight: w})
				// The same text with its own skill gone from the registry:
				// a request nothing covers, so whatever wins is wrong.
				var oc []int32
				var oe []evidence
				for c, s := range it.cands {
					if int(s) != it.label {
						oc, oe = append(oc, s), append(oe, it.evs[c])
					}
				}
				if len(oc) > 0 {
					in, _ := f.routeHeldOut(lin, lt, it.text, oc, oe, &z)
					perFold[k] = append(perFold[k], heldOut{calInput: in, oos: true, weight: w})
				}
			}
		})
	}
	wg.Wait()
	var out []heldOut
	for _, obs := range perFold {
		out = append(out, obs...)
	}
	return out
}

// turns hands a fixed number of slots (one per core) to jobs in the
// order of their turn numbers, 0 first, whatever order they ask in.
type turns struct {
	mu   sync.Mutex
	cond sync.Cond
	free int // slots not held
	next int // the turn that takes the next free slot
}

func newTurns(slots int) *turns {
	t := &turns{free: slots}
	t.cond.L = &t.mu
	return t
}

// take waits for turn and a free slot, and holds the slot.
func (t *turns) take(turn int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for t.next != turn || t.free == 0 {
		t.cond.Wait()
	}
	t.free--
	t.next++
	t.cond.Broadcast()
}

// give frees a slot take held.
func (t *turns) give() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.free++
	t.cond.Broadcast()
}

// routeHeldOut routes text with lin among the top-K of cands by fit and
// returns the winner's calibration input and skill.
func (f *fitted) routeHeldOut(lin *linearModel, lt linTexts, text int, cands []int32, evs []evidence, z *[]float64) (calInput, int32) {
	cands, evs = topByFit(cands, evs, f.topK)
	*z = grow(*z, len(cands))
	lin.termLogits(lt.of(text), cands, evs, *z)
	best := 0
	for c, v := range *z {
		if v > (*z)[best] || v == (*z)[best] && cands[c] < cands[best] {
			best = c
		}
	}
	in := candidateInput(*z, best, evs)
	in.nameCover, in.paramCover, in.schemaCover = f.heldOutCoverage(int(cands[best]), f.texts[text].text)
	return in, cands[best]
}

// knownValues lists, per property name, the string values the examples
// give it, longest first.
func knownValues(skills []*registry.Skill) map[string][]string {
	out := map[string][]string{}
	for _, s := range skills {
		for _, ex := range s.Examples {
			for _, name := range slices.Sorted(maps.Keys(ex.Params)) {
				if v, ok := ex.Params[name].(string); ok && v != "" && !slices.Contains(out[name], v) {
					out[name] = append(out[name], v)
				}
			}
		}
	}
	for name := range out {
		slices.SortStableFunc(out[name], func(a, b string) int { return len(b) - len(a) })
	}
	return out
}

// candidateInput is the calibration input of candidate c given all
// candidates' logits z and similarity evidence evs.
func candidateInput(z []float64, c int, evs []evidence) calInput {
	return candidateInputIn(z, c, evs, softmaxOf(z))
}

// softmax is what a candidate's softmax probability is read against: the
// largest logit and the sum of exp(z - it) over all candidates, the same
// for every candidate of a request (max picks the same value whatever
// order it sees the logits in, +0 over -0, NaN if any).
type softmax struct{ mx, sum float64 }

func softmaxOf(z []float64) softmax {
	mx := z[0]
	for _, v := range z {
		mx = max(mx, v)
	}
	var sum float64
	for _, v := range z {
		sum += math.Exp(v - mx)
	}
	return softmax{mx: mx, sum: sum}
}

// candidateInputIn is candidateInput with the candidates' softmax (sm,
// softmaxOf(z)) worked out once for all of them.
func candidateInputIn(z []float64, c int, evs []evidence, sm softmax) calInput {
	margin := maxMargin
	for o := range z {
		if o != c {
			margin = min(margin, z[c]-z[o])
		}
	}
	fit := defaultWeights.fit(evs[c])
	return calInput{margin: margin, prob: math.Exp(z[c]-sm.mx) / sm.sum, fit: fit,
		learned: z[c]/defaultTraining.Beta0 - fit, nearest: evs[c][evNearest]}
}

// topByFit keeps the k candidates with the highest fit, best first.
func topByFit(cands []int32, evs []evidence, k int) ([]int32, []evidence) {
	for i := 1; i < len(cands); i++ {
		for j := i; j > 0; j-- {
			a, b := defaultWeights.fit(evs[j-1]), defaultWeights.fit(evs[j])
			if a > b || a == b && cands[j-1] < cands[j] {
				break
			}
			cands[j-1], cands[j] = cands[j], cands[j-1]
			evs[j-1], evs[j] = evs[j], evs[j-1]
		}
	}
	k = min(k, len(cands))
	return cands[:k], evs[:k]
}

// mix is a fixed integer hash (splitmix64's finalizer) assigning texts to
// folds in an order unrelated to the registry's.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// fittedCache keeps models by the content of the skills they were learned
// from, so routers over the same registry (or per-case tools repeated
// across cases) share one fit. Bounded: oldest entries go first. Behind
// it, when enabled, is the disk cache (cache.go).
var fittedCache = struct {
	sync.Mutex
	entries map[[32]byte]*cacheEntry
	order   [][32]byte
}{entries: map[[32]byte]*cacheEntry{}}

const fittedCacheSize = 64

type cacheEntry struct {
	once sync.Once
	f    *fitted
}

// fittedFor returns the cached fit for skills, fitting once on a miss.
func fittedFor(skills []*registry.Skill, topK int) *fitted {
	key := skillsKey(skills, topK)
	fittedCache.Lock()
	e, ok := fittedCache.entries[key]
	if !ok {
		e = &cacheEntry{}
		fittedCache.entries[key] = e
		fittedCache.order = append(fittedCache.order, key)
		if len(fittedCache.order) > fittedCacheSize {
			delete(fittedCache.entries, fittedCache.order[0])
			fittedCache.order = fittedCache.order[1:]
		}
	}
	fittedCache.Unlock()
	e.once.Do(func() { e.f = fitOrLoad(CacheDir(), key, skills, topK) })
	return e.f
}

// fitOrLoad reads the fit from the disk cache in dir ("" for none), or
// fits and stores it there.
func fitOrLoad(dir string, key [32]byte, skills []*registry.Skill, topK int) *fitted {
	if dir != "" {
		if f := loadFitted(dir, key, skills, topK); f != nil {
			return f
		}
	}
	f := fitSkills(skills, topK)
	if dir != "" {
		storeFitted(dir, key, f)
	}
	return f
}

// DropFitsInMemory forgets the fits this process holds, so the next model
// built is read from the disk cache or fitted again: for benchmarks and
// tests of the disk cache.
func DropFitsInMemory() {
	fittedCache.Lock()
	defer fittedCache.Unlock()
	fittedCache.entries = map[[32]byte]*cacheEntry{}
	fittedCache.order = nil
}

// skillsKey hashes the fitting code's format and every skill input the
// model learns from, in order: texts, params schemas (enum vocabulary,
// schema words) and example params (known values).
func skillsKey(skills []*registry.Skill, topK int) [32]byte {
	h := sha256.New()
	var buf [8]byte
	put := func(s string) {
		binary.LittleEndian.PutUint64(buf[:], uint64(len(s)))
		h.Write(buf[:])
		h.Write([]byte(s))
	}
	// encoding/json writes map keys sorted: the same value, the same bytes.
	putJSON := func(v any) {
		b, err := json.Marshal(v)
		if err != nil {
			b = fmt.Appendf(nil, "%#v", v)
		}
		put(string(b))
	}
	put(cacheFormat)
	put("topk")
	binary.LittleEndian.PutUint64(buf[:], uint64(topK))
	h.Write(buf[:])
	for _, s := range skills {
		put("skill")
		put(s.Name)
		put(s.Description)
		for _, t := range s.WhenToUse {
			put("use")
			put(t)
		}
		for _, t := range s.WhenNotToUse {
			put("not")
			put(t)
		}
		put("schema")
		putJSON(s.ParamsSchema)
		for _, ex := range s.Examples {
			put("ex")
			put(ex.Input)
			putJSON(ex.Params)
		}
		for _, t := range s.CounterExamples {
			put("counter")
			put(t)
		}
		for _, k := range slices.Sorted(maps.Keys(s.Glossary)) {
			put("term")
			put(k)
			put(s.Glossary[k])
		}
	}
	var key [32]byte
	h.Sum(key[:0])
	return key
}
