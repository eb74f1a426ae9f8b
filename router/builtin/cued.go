package builtin

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A bare tool schema's string property is often filled by plain
// lowercase words the request writes beside the property's own name
// word: "the genre is jazz" and "jazz genre" fill genre. These rules run
// only for skills without examples (a registry written for routing
// states its values by example instead) and after every surer rule:
// quotes, names, dates and known values go first.

// cueConnectors join a property's word to its value: "genre of jazz",
// "status is open", "color: red", "named Bo".
var cueConnectors = []string{"of", "is", "are", "was", "=", ":", "named", "called", "titled", "as", "like", "such as", "to be", "equal to", "equals"}

// vagueNameParts are name parts too general to find a value by.
var vagueNameParts = map[string]bool{"name": true, "type": true, "id": true, "value": true, "info": true, "data": true,
	"detail": true, "string": true, "text": true, "param": true, "input": true, "option": true, "flag": true, "mode": true}

// cueWordsOf are the name parts a property's value is written beside.
func cueWordsOf(pp *propPlan) []string {
	var out []string
	for _, c := range pp.nameCues {
		if len(c) >= 3 && !vagueNameParts[c] && !background.has(hashWord(c)) {
			out = append(out, c)
		}
	}
	return out
}

// contentWord reports whether a lowercase token can be (part of) a value:
// not a function word, not a bare number.
func contentWord(w string) bool {
	if len(w) < 2 || background.has(hashWord(w)) {
		return false
	}
	for i := 0; i < len(w); i++ {
		if c := w[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '\'') {
			return false
		}
	}
	return w[0] >= 'a' && w[0] <= 'z'
}

// wordAt is a lowercase word of the text with its place.
type wordAt struct {
	span
	w string
}

func wordsOf(lower string) []wordAt {
	var out []wordAt
	for from, to := nextWord(lower, 0); from < to; from, to = nextWord(lower, to) {
		out = append(out, wordAt{span{from, to}, lower[from:to]})
	}
	return out
}

// nextWord is the first word of lower at or after i as [from, to), or
// from == to when none is left: wordsOf without the list, for loops that
// only look at each word once.
func nextWord(lower string, i int) (from, to int) {
	for i < len(lower) {
		// ASCII, most of most requests, without a call per byte.
		if c := lower[i]; c < utf8.RuneSelf {
			if wordByte(c) {
				break
			}
			i++
			continue
		}
		ok, size := wordRuneAt(lower, i)
		if ok {
			break
		}
		i += size
	}
	from = i
	for i < len(lower) {
		if c := lower[i]; c < utf8.RuneSelf {
			if !wordByte(c) {
				break
			}
			i++
			continue
		}
		ok, size := wordRuneAt(lower, i)
		if !ok {
			break
		}
		i += size
	}
	return from, i
}

// wordRuneAt reports whether the rune at byte i belongs to a word, and
// its size: ASCII letters, digits and joiners, and letters of scripts
// with case and their marks ("café", "Łódź" are one word each). Han,
// kana and other scripts without case are not: "gateway偶发" is the word
// "gateway" and then Chinese, which has no spaces to split on.
func wordRuneAt(s string, i int) (bool, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return wordByte(c), 1
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	if inUnifiedIdeographs(r) {
		return false, size // neither cased nor a mark (a spec checks every one)
	}
	return casedLetter(r) || unicode.IsMark(r), size
}

// casedLetter: a letter of a script with upper and lower case.
func casedLetter(r rune) bool {
	if inUnifiedIdeographs(r) {
		return false // no case (a spec checks every one): three table searches saved
	}
	return unicode.IsUpper(r) || unicode.IsLower(r) || unicode.IsTitle(r)
}

// inUnifiedIdeographs: r is in the CJK Unified Ideographs block, where
// nearly every rune of a Chinese request is.
func inUnifiedIdeographs(r rune) bool { return r >= 0x4E00 && r <= 0x9FFF }

func wordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '\'' || c == '_'
}

// hashWord is the feature hash of a Latin word.
func hashWord(w string) uint64 { return featureHash(kindWord, w, "", "") }

// cuedPhrase finds the plain words a property's own word introduces or
// follows: after it and a connector ("crime of theft", "status: open"),
// right after it ("genre jazz"), or right before it ("jazz genre"). An
// optional property takes only the first, surest form.
func cuedPhrase(pp *propPlan, lower string, taken *spans) (span, bool) {
	cues := cueWordsOf(pp)
	if len(cues) == 0 {
		return span{}, false
	}
	words := wordsOf(lower)
	type found struct {
		sp    span
		score int
	}
	var best *found
	consider := func(sp span, score int) {
		if taken.overlaps(sp.from, sp.to) {
			return
		}
		if best == nil || score < best.score {
			best = &found{sp, score}
		}
	}
	for k, w := range words {
		if !slices.ContainsFunc(cues, func(c string) bool { return w.w == c || w.w == c+"s" || w.w == c+"es" }) {
			continue
		}
		if taken.overlaps(w.from, w.to) {
			continue
		}
		// After: skip a connector, then take up to three content words
		// that stop at punctuation or a function word.
		j := k + 1
		conn := false
		between := ""
		if j < len(words) {
			between = lower[w.to:words[j].from]
		}
		if strings.ContainsAny(between, ":=") {
			conn = true
		}
		for _, c := range cueConnectors {
			parts := strings.Fields(c)
			if c == "=" || c == ":" || j+len(parts) > len(words) {
				continue
			}
			match := true
			for q, part := range parts {
				if words[j+q].w != part {
					match = false
				}
			}
			if match {
				j += len(parts)
				conn = true
				break
			}
		}
		if j < len(words) && (words[j].w == "the" || words[j].w == "a" || words[j].w == "an") {
			j++
		}
		if sp, ok := contentRun(lower, words, j); ok && !strings.ContainsAny(lower[w.to:sp.from], ".,;?!()") || ok && conn {
			if conn {
				consider(sp, 0)
			} else if pp.required {
				consider(sp, 10)
			}
		}
		// Before: one content word right before the property's word.
		if pp.required && k > 0 && contentWord(words[k-1].w) && !strings.ContainsAny(lower[words[k-1].to:w.from], ".,;?!()") {
			consider(words[k-1].span, 20)
		}
	}
	if best == nil {
		return span{}, false
	}
	return best.sp, true
}

// contentRun is up to three content words from words[j], within one
// clause.
func contentRun(lower string, words []wordAt, j int) (span, bool) {
	if j >= len(words) || !contentWord(words[j].w) {
		return span{}, false
	}
	sp := words[j].span
	for q := j + 1; q < len(words) && q < j+3; q++ {
		if !contentWord(words[q].w) || strings.ContainsAny(lower[sp.to:words[q].from], ".,;?!()") {
			break
		}
		sp.to = words[q].to
	}
	return sp, true
}

// assignCuedPhrases fills the string properties of a bare tool schema
// that are still empty with the plain words beside their own word.
func assignCuedPhrases(p *extractPlan, text, lower string, taken *spans, out map[string]any) {
	if p.examples {
		return
	}
	for pp := range p.unfilled(out, propString) {
		switch pp.role {
		case roleGeneric, roleName, roleKeyword:
		default:
			continue
		}
		if sp, ok := cuedPhrase(pp, lower, taken); ok && !namesOtherParam(p, pp, lower[sp.from:sp.to]) && !inBrackets(text, sp) {
			sp = wholeName(text, sp, taken)
			out[pp.name] = text[sp.from:sp.to]
			taken.add(sp.from, sp.to)
		}
	}
}

// namesOtherParam reports whether a phrase holds a word of another
// property's name: in "battery capacity 40", "capacity" names the
// capacity, not the battery.
func namesOtherParam(p *extractPlan, self *propPlan, phrase string) bool {
	for _, w := range strings.Fields(phrase) {
		for i := range p.props {
			if pp := &p.props[i]; pp != self && slices.Contains(pp.nameCues, strings.TrimSuffix(w, "s")) {
				return true
			}
		}
	}
	return false
}

// wholeName widens a capitalised phrase back over the capitalised words
// written before it: the word before "court" in "the Port Vale court" is
// the end of a name.
func wholeName(text string, sp span, taken *spans) span {
	if !capitalized(text, sp) {
		return sp
	}
	for sp.from >= 2 && text[sp.from-1] == ' ' {
		k := sp.from - 1
		for k > 0 && text[k-1] != ' ' {
			k--
		}
		w := span{k, sp.from - 1}
		if w.from == w.to || !capitalized(text, w) || taken.overlaps(w.from, w.to) || sentenceStart(text[:w.from]) {
			break
		}
		sp.from = w.from
	}
	return sp
}

// cuedWordList is the list of plain words written after a list
// property's own word and a connector: "toppings of cheese, olives and
// basil", "ingredients: flour, eggs".
func cuedWordList(pp *propPlan, lower string, taken *spans) []span {
	cues := cueWordsOf(pp)
	words := wordsOf(lower)
	for k, w := range words {
		if !slices.ContainsFunc(cues, func(c string) bool { return w.w == c || w.w == c+"s" || w.w == c+"es" }) {
			continue
		}
		j := k + 1
		if j < len(words) && slices.Contains([]string{"of", "like", "including", "with", "are", "is"}, words[j].w) {
			j++
		} else if j >= len(words) || !strings.ContainsAny(lower[w.to:words[j].from], ":") {
			continue
		}
		var items []span
		for j < len(words) {
			sp, ok := contentRun(lower, words, j)
			if !ok || taken.overlaps(sp.from, sp.to) {
				break
			}
			items = append(items, sp)
			for j < len(words) && words[j].to <= sp.to {
				j++
			}
			if j >= len(words) || !listSeparator(lower[sp.to:words[j].from]) && words[j].w != "and" && words[j].w != "or" {
				break
			}
			if words[j].w == "and" || words[j].w == "or" {
				j++
			}
		}
		if len(items) >= 2 {
			return items
		}
	}
	return nil
}
