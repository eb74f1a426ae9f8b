package builtin

import (
	"math"
	"strings"
)

// functionWords are English closed-class words (articles, pronouns,
// prepositions, conjunctions, auxiliaries, question words) and the light
// verbs every request uses ("get", "find", "show"): they carry grammar,
// not a skill's subject.
var functionWords = strings.Fields(`a an the this that these those some any each every all both
	either neither no another such what which whose whatever
	i me my mine myself you your yours yourself he him his she her hers it its itself
	we us our ours they them their theirs one
	of in on at by for from with about as into onto over under after before between through
	during without within to up down out off than per via across against along among around
	behind below beneath beside beyond near since toward towards upon
	and or but nor so yet if then because while although though unless whether
	is are was were be been being am do does did done have has had having
	can could will would shall should may might must
	when where who whom why how there here not very also just only too please thanks thank
	get give find tell show let make want need know help like`)

// background is the document frequency the model assumes for a feature
// before it reads the registry: function words and their character
// n-grams, and numbers, appear in backgroundSkills imaginary skills that
// stand for "any registry". IDF computed over the registry alone cannot
// tell "the" from "triangle" when the registry has one or two skills
// (both occur in every skill); the imaginary skills can. A registry of 150
// skills outweighs them, so there the words' own spread decides.
var background = func() hashSet {
	var hashes []uint64
	for _, w := range functionWords {
		fh := featureHasher{}
		featurize(segment(w, nil), &fh)
		for _, f := range fh.out {
			hashes = append(hashes, f.hash)
		}
	}
	return newHashSet(hashes)
}()

// hashSet is a set of feature hashes in one open-addressed table: every
// feature of every request is looked up in background, and a probe of a
// flat table costs a fraction of a map lookup.
type hashSet struct {
	slots []uint64 // 0: empty
	mask  uint64
	zero  bool // the hash 0, which cannot be stored in a slot
}

func newHashSet(hashes []uint64) hashSet {
	n := uint64(16)
	for n < 2*uint64(len(hashes)) {
		n *= 2
	}
	s := hashSet{slots: make([]uint64, n), mask: n - 1}
	for _, h := range hashes {
		if h == 0 {
			s.zero = true
			continue
		}
		i := h & s.mask
		for s.slots[i] != 0 && s.slots[i] != h {
			i = (i + 1) & s.mask
		}
		s.slots[i] = h
	}
	return s
}

// has reports whether h is in the set.
func (s hashSet) has(h uint64) bool {
	if h == 0 {
		return s.zero
	}
	for i := h & s.mask; ; i = (i + 1) & s.mask {
		switch s.slots[i] {
		case h:
			return true
		case 0:
			return false
		}
	}
}

// backgroundSkills is how many imaginary skills use every function word.
const backgroundSkills = 10.0

// backgroundDF is the imaginary document frequency of a feature.
func backgroundDF(tc termCount) float64 {
	if tc.kind == kindShape || background.has(tc.hash) {
		return backgroundSkills
	}
	return 0
}

// idfOf is the smoothed IDF of a feature used by df of n skills, after
// the imaginary ones.
func idfOf(df, bg, n float64) float64 {
	idf := math.Sqrt(detLog((1+n+backgroundSkills)/(1+df+bg)) + 1)
	if bg > 0 {
		idf *= functionWeight(n)
	}
	return float64(float32(idf))
}

// functionWeight scales function words' IDF in a registry of n skills:
// half weight in a registry of one or two tools, rising to full weight at
// functionPivot skills. With few skills, IDF cannot lower them (every
// skill's text uses "the"), and a request that shares only its grammar
// with a tool ("what is the ...") looked like it fitted; with many, IDF
// does it, and CLINC150's intents still differ by them ("what is" vs
// "how do i").
func functionWeight(n float64) float64 {
	if n >= functionPivot {
		return 1
	}
	return 0.5 + 0.5*n/functionPivot
}

const functionPivot = 50.0

// unknownIDF is the IDF of a feature no skill mentions.
func (m *model) unknownIDF(tc termCount) float64 {
	if backgroundDF(tc) > 0 {
		return m.functionIDF
	}
	return m.maxIDF
}
