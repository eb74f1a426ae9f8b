package builtin

import (
	"maps"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/routebench/routebench/router/registry"
)

// role says how a registry text counts for its skill.
type role uint8

const (
	// rolePositive texts say what the skill is for: its name, description,
	// when_to_use, examples and glossary.
	rolePositive role = iota + 1
	// roleNegative texts say what the skill is not for: when_not_to_use and
	// counter_examples. A request like them is pushed away from the skill.
	roleNegative
	// roleHint texts are another skill's when_not_to_use lines that name
	// this skill ("告警 ... (use query_alerts_by_zone)"): a request like
	// them is pulled toward this skill.
	roleHint
)

// textSource is the registry field a text comes from.
type textSource uint8

const (
	fromName textSource = iota
	fromDescription
	fromWhenToUse
	fromExample
	fromGlossary
	fromEnum
	fromWhenNotToUse
	fromCounterExample
)

// skillText is one text of the registry with its skill and role.
type skillText struct {
	skill  int
	role   role
	source textSource
	weight float64
	// example is the index in Skill.Examples for example texts, else -1;
	// leave-one-out calibration removes exactly these.
	example int
	text    string
}

// sparseVec is an L2-normalized TF-IDF vector over the model's vocabulary.
type sparseVec struct {
	idx []int32
	val []float32
}

// postings is an inverted index: for each vocabulary feature, the vectors
// that contain it and their weights, so a query touches only its own
// features.
type postings struct {
	start []int32 // len vocab+1
	owner []int32
	val   []float32
}

func buildPostings(vecs []sparseVec, vocab int) postings {
	p := postings{start: make([]int32, vocab+1)}
	for _, v := range vecs {
		for _, i := range v.idx {
			p.start[i+1]++
		}
	}
	for i := 1; i <= vocab; i++ {
		p.start[i] += p.start[i-1]
	}
	n := p.start[vocab]
	p.owner = make([]int32, n)
	p.val = make([]float32, n)
	fill := slices.Clone(p.start[:vocab])
	for o, v := range vecs {
		for k, i := range v.idx {
			at := fill[i]
			p.owner[at] = int32(o)
			p.val[at] = v.val[k]
			fill[i]++
		}
	}
	return p
}

// model is everything the builtin judge and embedder learn from one
// registry, computed once at construction.
type model struct {
	skills []*registry.Skill
	byName map[string]int
	texts  []skillText
	// facts are texts' skill, role and weight, compact (see textFacts).
	facts []textFact

	vocab map[uint64]int32
	// ids is vocab as an open-addressing table (indexVocab), for the
	// lookups of every feature of every request.
	ids    vocabIndex
	idf    []float32
	maxIDF float64 // idf of a feature no skill mentions
	// functionIDF is the idf of a function word no skill uses.
	functionIDF float64

	docs     []sparseVec // aligned with texts
	docPost  postings
	centroid []sparseVec // per skill, over positive texts
	// cenNorm is each centroid's length before normalization, which
	// leave-one-out needs to take one text back out.
	cenNorm []float64
	cenPost postings
	// positives/negatives/hints list text indexes per skill.
	positives [][]int32
	negatives [][]int32
	hints     [][]int32

	cal calibration

	// embedded holds the embeddings of the registry's recall texts (see
	// recallTexts); read-only once the model is built.
	embedded map[string]bucketVec

	// linRows maps vocabulary features to rows of the linear layer (see
	// linearModel.rows); linCount is the number of rows.
	linRows  []int32
	linCount int

	// recent is the last request's weighed features (featureMemo).
	recent *featureMemo
}

// collectTexts lists every registry text with its skill and role.
func collectTexts(skills []*registry.Skill) []skillText {
	var out []skillText
	add := func(s int, r role, src textSource, w float64, ex int, t string) {
		if strings.TrimSpace(t) != "" {
			out = append(out, skillText{skill: s, role: r, source: src, weight: w, example: ex, text: t})
		}
	}
	names := make(map[string]int, len(skills))
	for i, s := range skills {
		names[s.Name] = i
	}
	for i, s := range skills {
		add(i, rolePositive, fromName, 0.5, -1, humanizeName(s.Name))
		for _, part := range splitSentences(s.Description) {
			add(i, rolePositive, fromDescription, 1, -1, part)
		}
		for _, t := range s.WhenToUse {
			add(i, rolePositive, fromWhenToUse, 1, -1, t)
		}
		for k, ex := range s.Examples {
			add(i, rolePositive, fromExample, 1, k, ex.Input)
		}
		for _, term := range slices.Sorted(maps.Keys(s.Glossary)) {
			add(i, rolePositive, fromGlossary, 0.7, -1, term+" "+s.Glossary[term])
		}
		// The ways of writing the skill's enum values ("响应时间" for
		// latency, "reopen" for open) are the words its requests use.
		for _, t := range enumVocabulary(s) {
			add(i, rolePositive, fromEnum, 0.5, -1, t)
		}
		for _, t := range s.WhenNotToUse {
			add(i, roleNegative, fromWhenNotToUse, 1, -1, t)
			for _, other := range namedSkills(t, names) {
				if other != i {
					add(other, roleHint, fromWhenNotToUse, 1, -1, t)
				}
			}
		}
		for _, t := range s.CounterExamples {
			add(i, roleNegative, fromCounterExample, 1, -1, t)
		}
	}
	return out
}

// enumVocabulary lists, per enum value, its spellings and synonyms as one
// text.
func enumVocabulary(s *registry.Skill) []string {
	props := s.Properties()
	var out []string
	for _, name := range slices.Sorted(maps.Keys(props)) {
		terms := enumTerms(props[name])
		if len(terms) == 0 {
			continue
		}
		byValue := map[string][]string{}
		for _, t := range terms {
			byValue[t.value] = append(byValue[t.value], t.term)
		}
		for _, v := range slices.Sorted(maps.Keys(byValue)) {
			words := byValue[v]
			slices.Sort(words)
			out = append(out, strings.Join(words, " "))
		}
	}
	return out
}

// namedSkills returns the skills whose names appear in text, in registry
// order. when_not_to_use lines often say which skill to use instead.
func namedSkills(text string, names map[string]int) []int {
	var out []int
	for name, i := range names {
		if len(name) >= 3 && strings.Contains(text, name) {
			out = append(out, i)
		}
	}
	slices.Sort(out)
	return out
}

// humanizeName turns "query_orders_by_region" into "query orders by region".
func humanizeName(name string) string {
	return strings.NewReplacer("_", " ", "-", " ", ".", " ").Replace(name)
}

// splitSentences splits a description into sentences, so a bilingual
// description becomes a Chinese text and an English text and a request in
// one language is not diluted by the other.
func splitSentences(s string) []string {
	var out []string
	start := 0
	for i, r := range s {
		end := -1
		switch r {
		case '。', '！', '？', '；', '\n', ';', '!', '?':
			end = i + len(string(r))
		case '.':
			if i+1 >= len(s) || s[i+1] == ' ' {
				end = i + 1
			}
		}
		if end >= 0 {
			if t := strings.TrimSpace(s[start:end]); t != "" {
				out = append(out, t)
			}
			start = end
		}
	}
	if t := strings.TrimSpace(s[start:]); t != "" {
		out = append(out, t)
	}
	return out
}

// newModel learns vocabulary, IDF, text vectors and centroids from skills.
// IDF counts skills, not texts: a word every skill uses ("查询", "show")
// says nothing about which skill is meant.
func newModel(skills []*registry.Skill) *model {
	m := &model{skills: skills, byName: make(map[string]int, len(skills)), recent: new(featureMemo)}
	for i, s := range skills {
		m.byName[s.Name] = i
	}
	m.texts = collectTexts(skills)

	// Each text's features on its own, texts in parallel; the vocabulary
	// then numbers them in text order, as one pass did.
	textTerms := make([][]termCount, len(m.texts))
	parallel(len(m.texts), func(from, to int) {
		sc := getScratch()
		defer putScratch(sc)
		for t := from; t < to; t++ {
			textTerms[t] = slices.Clone(sc.countTerms(m.texts[t].text))
		}
	})
	// Numbered in an open-addressing table, not a map: one lookup for
	// each feature of each text, a serial pass that was a fifth of the
	// features' time on a large registry.
	numbers := vocabIndex{slots: make([]vocabSlot, 1024), mask: 1023}
	var df []int
	var kinds []featureKind
	var bgs []float64
	lastSkill := make([]int, 0)
	for t, st := range m.texts {
		counts := textTerms[t]
		for _, tc := range counts {
			id, ok := numbers.get(tc.hash)
			if !ok {
				id = int32(len(df))
				numbers.add(tc.hash, id)
				df = append(df, 0)
				kinds = append(kinds, tc.kind)
				bgs = append(bgs, backgroundDF(tc))
				lastSkill = append(lastSkill, -1)
			}
			if st.role == rolePositive && lastSkill[id] != st.skill {
				df[id]++
				lastSkill[id] = st.skill
			}
		}
	}
	m.vocab = make(map[uint64]int32, len(df))
	for _, sl := range numbers.slots {
		if sl.id != 0 {
			m.vocab[sl.hash] = sl.id - 1
		}
	}
	m.indexVocab()
	// The square root flattens IDF: on CLINC150 it beat plain IDF by more
	// than a point of accuracy (common words still carry some intent:
	// "what is" vs "how do i").
	n := float64(len(skills))
	m.idf = make([]float32, len(df))
	for i, d := range df {
		m.idf[i] = float32(idfOf(float64(d), bgs[i], n))
	}
	m.maxIDF = idfOf(0, 0, n)
	m.functionIDF = idfOf(0, backgroundSkills, n)

	m.docs = make([]sparseVec, len(m.texts))
	parallel(len(m.texts), func(from, to int) {
		for t := from; t < to; t++ {
			m.docs[t] = m.vectorOf(textTerms[t])
		}
	})
	m.groupTexts()
	m.stripNegatives()
	m.centroid = make([]sparseVec, len(skills))
	m.cenNorm = make([]float64, len(skills))
	// The texts' postings are laid out (on one core) while the centroids
	// are summed (on every core): neither reads the other.
	var centroids sync.WaitGroup
	centroids.Go(func() {
		parallel(len(skills), func(from, to int) {
			cs := newCentroidScratch(len(m.idf))
			for s := from; s < to; s++ {
				m.centroid[s], m.cenNorm[s] = m.centroidIn(m.positives[s], cs)
			}
		})
	})
	m.buildTextPostings()
	centroids.Wait()
	m.cenPost = buildPostings(m.centroid, len(m.idf))
	return m
}

// vocabIndex maps feature hashes to vocabulary ids as vocab does, in an
// open-addressing table: the hashes are FNV-1a's, well mixed in their low
// bits, so they pick their own slots. A Go map lookup cost more than the
// rest of weighing a request's features.
type vocabIndex struct {
	slots []vocabSlot
	mask  uint64
}

type vocabSlot struct {
	hash uint64
	id   int32 // the vocabulary id + 1; 0 for an empty slot
}

// indexVocab builds m.ids from m.vocab.
func (m *model) indexVocab() {
	n := uint64(16)
	for n < 2*uint64(len(m.vocab)) {
		n *= 2
	}
	m.ids = vocabIndex{slots: make([]vocabSlot, n), mask: n - 1}
	for h, id := range m.vocab {
		i := h & m.ids.mask
		for m.ids.slots[i].id != 0 {
			i = (i + 1) & m.ids.mask
		}
		m.ids.slots[i] = vocabSlot{hash: h, id: id + 1}
	}
}

// get is m.vocab[hash].
func (x *vocabIndex) get(hash uint64) (int32, bool) {
	for i := hash & x.mask; ; i = (i + 1) & x.mask {
		s := &x.slots[i]
		if s.id == 0 {
			return 0, false
		}
		if s.hash == hash {
			return s.id - 1, true
		}
	}
}

// add puts hash, absent from x, in with vocabulary id, the next one:
// ids 0 to id-1 are in x already. The table doubles first when it would
// be more than half full.
func (x *vocabIndex) add(hash uint64, id int32) {
	if n := len(x.slots); int(id)+1 > n/2 {
		old := x.slots
		x.slots, x.mask = make([]vocabSlot, 2*n), uint64(2*n-1)
		for _, sl := range old {
			if sl.id != 0 {
				x.put(sl.hash, sl.id-1)
			}
		}
	}
	x.put(hash, id)
}

// put places hash with id in its first free slot.
func (x *vocabIndex) put(hash uint64, id int32) {
	i := hash & x.mask
	for x.slots[i].id != 0 {
		i = (i + 1) & x.mask
	}
	x.slots[i] = vocabSlot{hash: hash, id: id + 1}
}

// groupTexts lists text indexes per skill and role.
func (m *model) groupTexts() {
	m.positives = make([][]int32, len(m.skills))
	m.negatives = make([][]int32, len(m.skills))
	m.hints = make([][]int32, len(m.skills))
	for t, st := range m.texts {
		switch st.role {
		case rolePositive:
			m.positives[st.skill] = append(m.positives[st.skill], int32(t))
		case roleNegative:
			m.negatives[st.skill] = append(m.negatives[st.skill], int32(t))
		case roleHint:
			m.hints[st.skill] = append(m.hints[st.skill], int32(t))
		}
	}
}

// textFact is what pairScan reads of a text, 16 bytes rather than a
// skillText's 64: fitting reads every text once per text.
type textFact struct {
	skill  int32
	role   role
	weight float64
}

// buildPostings indexes the text vectors and centroids by feature and
// numbers the linear layer's rows: everything derived from docs and
// centroid alone, so a model read back from the disk cache rebuilds it.
// It also lays out the texts' facts.
func (m *model) buildPostings() {
	m.buildTextPostings()
	m.cenPost = buildPostings(m.centroid, len(m.idf))
}

// buildTextPostings is buildPostings' part read off the texts alone: all
// of it but the centroids' postings.
func (m *model) buildTextPostings() {
	m.facts = make([]textFact, len(m.texts))
	for t, st := range m.texts {
		m.facts[t] = textFact{skill: int32(st.skill), role: st.role, weight: st.weight}
	}
	vocab := len(m.idf)
	m.docPost = buildPostings(m.docs, vocab)
	m.linRows = make([]int32, vocab)
	m.linCount = 0
	for i := range vocab {
		m.linRows[i] = -1
		if n := m.docPost.start[i+1] - m.docPost.start[i]; n >= 2 {
			m.linRows[i] = int32(m.linCount)
			m.linCount++
		}
	}
}

// stripNegatives keeps, of each when_not_to_use and counter_example
// vector, only the features its skill's positive texts never use, then
// renormalizes. "华东区上周的订单" as a counter-example of the alerts skill
// shares 华东区上周 with alert requests; what it says against the skill is
// 订单. A request is then pushed away only for what it shares with that.
func (m *model) stripNegatives() {
	// own[i] == s+1 marks feature i as used by skill s's positive texts,
	// while s's negatives are stripped.
	own := make([]int32, len(m.idf))
	for s := range m.skills {
		if len(m.negatives[s]) == 0 {
			continue
		}
		mark := int32(s) + 1
		for _, t := range m.positives[s] {
			for _, i := range m.docs[t].idx {
				own[i] = mark
			}
		}
		for _, t := range m.negatives[s] {
			d := m.docs[t]
			kept := sparseVec{}
			var norm float64
			for k, i := range d.idx {
				if own[i] != mark {
					kept.idx = append(kept.idx, i)
					kept.val = append(kept.val, d.val[k])
					norm += float64(d.val[k]) * float64(d.val[k])
				}
			}
			scaleVec(kept, norm)
			m.docs[t] = kept
		}
	}
}

// vectorOf weighs known features and normalizes.
func (m *model) vectorOf(counts []termCount) sparseVec {
	v := sparseVec{idx: make([]int32, 0, len(counts)), val: make([]float32, 0, len(counts))}
	var norm float64
	for _, tc := range counts {
		id, ok := m.ids.get(tc.hash)
		if !ok {
			continue
		}
		w := termWeight(tc, float64(m.idf[id]))
		v.idx = append(v.idx, id)
		v.val = append(v.val, float32(w))
		norm += w * w
	}
	scaleVec(v, norm)
	sortVec(v)
	return v
}

func scaleVec(v sparseVec, sumSquares float64) {
	if sumSquares == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(sumSquares))
	for k := range v.val {
		v.val[k] *= inv
	}
}

func sortVec(v sparseVec) {
	// Each entry as one integer, its feature above its place: sorting
	// those needs no comparison function (a text's features are distinct,
	// so the places only break ties that never occur).
	keys := make([]uint64, len(v.idx))
	for k, id := range v.idx {
		keys[k] = uint64(uint32(id))<<32 | uint64(k)
	}
	slices.Sort(keys)
	val := slices.Clone(v.val)
	for k, key := range keys {
		v.idx[k], v.val[k] = int32(key>>32), val[uint32(key)]
	}
}

// centroidOf is the normalized weighted sum of the given text vectors,
// and the sum's length.
func (m *model) centroidOf(texts []int32) (sparseVec, float64) {
	return m.centroidIn(texts, newCentroidScratch(len(m.idf)))
}

// centroidScratch is a dense sum over the vocabulary and which features
// it holds; centroidIn leaves it empty again.
type centroidScratch struct {
	sum  []float64
	held []bool
}

func newCentroidScratch(vocab int) centroidScratch {
	return centroidScratch{sum: make([]float64, vocab), held: make([]bool, vocab)}
}

// centroidIn is centroidOf summing in cs: each feature's sum gets the
// texts' terms in text order, as a map of sums did.
func (m *model) centroidIn(texts []int32, cs centroidScratch) (sparseVec, float64) {
	keys := make([]int32, 0, 64) // never nil, as before: a skill without texts has an empty centroid
	for _, t := range texts {
		w := m.texts[t].weight
		d := m.docs[t]
		for k, i := range d.idx {
			if !cs.held[i] {
				cs.held[i] = true
				keys = append(keys, i)
			}
			cs.sum[i] += w * float64(d.val[k])
		}
	}
	slices.Sort(keys) // a fixed summation order keeps vectors bit-identical run to run
	v := sparseVec{idx: keys, val: make([]float32, len(keys))}
	var norm float64
	for k, i := range keys {
		x := cs.sum[i]
		v.val[k] = float32(x)
		norm += x * x
		cs.sum[i], cs.held[i] = 0, false
	}
	scaleVec(v, norm)
	return v, math.Sqrt(norm)
}
