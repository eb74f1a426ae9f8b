package builtin

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// featureKind says what a feature was made from. It is hashed with the
// feature's text, so "ab" as a word and "ab" as a character n-gram differ,
// and it selects the feature's weight.
type featureKind uint8

const (
	kindWord      featureKind = iota + 1 // a Latin word or a number
	kindBigram                           // two adjacent Latin words
	kindCharGram                         // a 3-5 character n-gram of a Latin word
	kindHan                              // one Han character
	kindHanBigram                        // two adjacent Han characters
	kindShape                            // a number's shape: how many digits
	kindSkip                             // two Latin words with one word between them
	kindIdent                            // a glued name: order-service, zhang.wei
	kindDate                             // a date expression, whatever its date
	numKinds
)

var kindNames = [numKinds]string{"", "w", "b", "c", "h", "hh", "#", "s", "id", "d"}

// tokenKind says what a token of the segmented text is.
type tokenKind uint8

const (
	tokLatin  tokenKind = iota + 1 // letters, maybe with digits ("p1", "5xx")
	tokNumber                      // digits only
	tokHan                         // a run of Han characters
	// tokIdent is a name glued by - _ . or @ ("order-service",
	// "loadtest_orders", "zhang.wei"): a param value, not intent, so it is
	// one feature, without character n-grams or parts that would make
	// "search-api" look like a search.
	tokIdent
	// tokDate is a date expression ("上周", "last 7 days", "2026-11-03"):
	// a param value whose words would make every request about last week
	// look alike, so it is one feature saying "a date is given".
	tokDate
)

// token is a span of the lowercased text.
type token struct {
	kind tokenKind
	text string
	// joined says the token follows the previous one with only spaces or
	// word joiners (- _ / .) between them, so the two form a bigram.
	joined bool
	// idDigits, on a Latin token glued by "-" to a long number
	// ("TCK-300871"), is the number's length: the pair is one id feature.
	idDigits int
}

// isHan reports whether r is a CJK ideograph; Chinese is tokenized by
// characters because it has no spaces.
func isHan(r rune) bool { return r >= firstHan && unicode.Is(unicode.Han, r) }

// firstHan is the lowest Han code point (the table is sorted): the runes
// below it, every Latin letter among them, are answered without a search.
var firstHan = rune(unicode.Han.R16[0].Lo)

// isWordRune reports whether r belongs to a Latin-script word or number.
func isWordRune(r rune) bool {
	return r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9') ||
		r >= utf8.RuneSelf && unicode.IsLetter(r) && !isHan(r) || unicode.IsDigit(r)
}

// isJoiner reports whether r may sit between two words of one phrase:
// "payment-api", "query_orders", "and/or", "v1.2" stay bigrams.
func isJoiner(r rune) bool {
	return r == ' ' || r == '\t' || r == '-' || r == '_' || r == '/' || r == '.'
}

// segment lowercases text and splits it into Latin words, numbers and Han
// runs. Apostrophes inside words are dropped ("don't" -> "dont") so
// contractions match their written-out spelling's stem.
func segment(text string, dst []token) []token {
	lower := lowerASCII(text)
	return segmentDated(lower, dateSpans(lower), dst)
}

// segmentDated is segment for lowercased text whose date spans are known.
func segmentDated(lower string, dates []span, dst []token) []token {
	joined := false
	i := 0
	for i < len(lower) {
		if len(dates) > 0 && i >= dates[0].from {
			if i < dates[0].to {
				dst = append(dst, token{kind: tokDate, text: lower[dates[0].from:dates[0].to]})
				i = dates[0].to
				joined = false
			}
			dates = dates[1:]
			continue
		}
		// A token stops where a date begins.
		limit := len(lower)
		if len(dates) > 0 {
			limit = dates[0].from
		}
		r, size := utf8.DecodeRuneInString(lower[i:])
		switch {
		case isHan(r):
			j := i + size
			for j < limit {
				r2, s2 := utf8.DecodeRuneInString(lower[j:])
				if !isHan(r2) {
					break
				}
				j += s2
			}
			dst = append(dst, token{kind: tokHan, text: lower[i:j]})
			joined = false
			i = j
		case isWordRune(r):
			j, digitsOnly := i, true
			apostrophe, ident := false, false
			for j < limit {
				r2, s2 := utf8.DecodeRuneInString(lower[j:])
				if identJoiners && (r2 == '-' || r2 == '_' || r2 == '.' || r2 == '@') && j > i && !digitsOnly &&
					j+1 < len(lower) && lower[j+1] >= 'a' && lower[j+1] <= 'z' {
					ident = true
					j++
					continue
				}
				if (r2 == '\'' || r2 == '’') && j > i {
					r3, _ := utf8.DecodeRuneInString(lower[j+s2:])
					if j+s2 < len(lower) && isWordRune(r3) && !isHan(r3) {
						apostrophe = true
						j += s2
						continue
					}
				}
				if r2 < utf8.RuneSelf {
					// isWordRune for ASCII, without the call.
					if !(r2 >= 'a' && r2 <= 'z' || r2 >= '0' && r2 <= '9') {
						break
					}
				} else if !isWordRune(r2) {
					break
				}
				if r2 < '0' || r2 > '9' {
					digitsOnly = false
				}
				j += s2
			}
			word := lower[i:j]
			if apostrophe {
				word = apostrophes.Replace(word)
			}
			kind := tokLatin
			switch {
			case digitsOnly:
				kind = tokNumber
			case ident:
				kind = tokIdent
			}
			if kind == tokNumber && len(word) > 3 && len(dst) > 0 && i > 0 && lower[i-1] == '-' {
				if prev := &dst[len(dst)-1]; prev.kind == tokLatin && prev.idDigits == 0 && i-1 >= len(prev.text) &&
					lower[i-1-len(prev.text):i-1] == prev.text {
					prev.idDigits = len(word)
					joined = true
					i = j
					continue
				}
			}
			dst = append(dst, token{kind: kind, text: word, joined: joined})
			joined = true
			i = j
		default:
			if !isJoiner(r) {
				joined = false
			}
			i += size
		}
	}
	return dst
}

// apostrophes removes the apostrophes inside a word.
var apostrophes = strings.NewReplacer("'", "", "’", "")

// emitter receives each feature of a text. The hot path hashes features
// straight from the token text; tests collect them as strings.
type emitter interface {
	// emit receives one feature whose text is a+b+c (passed in pieces so
	// no string is built on the hot path).
	emit(kind featureKind, a, b, c string)
}

// featurize emits every feature of the tokens: Latin words, word bigrams,
// character 3-5-grams of Latin words (with word-boundary marks, so a prefix
// differs from a middle), Han characters and Han bigrams, numbers and their
// shapes. Character n-grams let "refunds" meet "refund" and "replicas" meet
// "replica" without a stemmer.
func featurize(tokens []token, e emitter) {
	var prev, prev2 string
	for _, t := range tokens {
		switch t.kind {
		case tokHan:
			prevRune := ""
			for i, r := range t.text {
				ch := t.text[i : i+utf8.RuneLen(r)]
				e.emit(kindHan, ch, "", "")
				if prevRune != "" {
					e.emit(kindHanBigram, prevRune, ch, "")
				}
				prevRune = ch
			}
			prev, prev2 = "", ""
			continue
		case tokNumber:
			shape := digitShape(len(t.text))
			e.emit(kindShape, shape, "", "")
			if len(t.text) > 3 {
				// A long number is an id or a date part: its digits say
				// nothing about intent, its length may (8 digits: an order).
				if t.joined && prev != "" {
					e.emit(kindBigram, prev, " #", shape)
				}
				prev, prev2 = "#"+shape, ""
				continue
			}
			e.emit(kindWord, t.text, "", "")
		case tokLatin:
			if t.idDigits > 0 {
				// "TCK-300871" is one feature, "tck-#6": the id's kind. Its
				// digits and its prefix alone would make every request
				// about any ticket look alike.
				e.emit(kindIdent, t.text, "-#", digitShape(t.idDigits))
				prev, prev2 = "", ""
				continue
			}
			e.emit(kindWord, t.text, "", "")
			charGrams(t.text, e)
		case tokIdent:
			e.emit(kindIdent, t.text, "", "")
			prev, prev2 = "", ""
			continue
		case tokDate:
			e.emit(kindDate, "date", "", "")
			prev, prev2 = "", ""
			continue
		}
		if t.joined && prev != "" {
			e.emit(kindBigram, prev, " ", t.text)
			if prev2 != "" && kindWeights[kindSkip] > 0 {
				e.emit(kindSkip, prev2, " _ ", t.text)
			}
		}
		if !t.joined {
			prev = ""
		}
		prev2, prev = prev, t.text
	}
}

// digitShapes name numbers by digit count: an order id's eight digits match
// another order id's eight digits.
var digitShapes = [...]string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10+"}

func digitShape(n int) string {
	if n >= len(digitShapes)-1 {
		return digitShapes[len(digitShapes)-1]
	}
	return digitShapes[n]
}

// charGrams emits the 3-, 4- and 5-grams of "<word>".
func charGrams(word string, e emitter) {
	// Rune offsets of "<word>"; ASCII words (the common case) need no decoding.
	var offs [64]int
	n := 0
	offs[n] = 0 // position of '<' in the virtual marked word
	n++
	for i := range word {
		if n >= len(offs)-2 { // room for '>' and the end
			return // absurdly long "word" (a hash, a URL): its n-grams carry no meaning
		}
		offs[n] = i + 1
		n++
	}
	offs[n] = len(word) + 1 // position of '>'
	n++
	offs[n] = len(word) + 2 // end
	// The marked word has n runes; gram [a, a+g) covers offs[a]..offs[a+g].
	if fh, ok := e.(*featureHasher); ok {
		fh.charGrams(word, offs[:n+1])
		return
	}
	for g := 3; g <= 5; g++ {
		for a := 0; a+g <= n; a++ {
			emitMarked(e, word, offs[a], offs[a+g])
		}
	}
}

// charGrams is charGrams for the hasher: the same features in the same
// order, each 4-gram's hash carried on from the 3-gram it starts with and
// each 5-gram's from that 4-gram (FNV-1a reads bytes one by one, so the
// hash of a gram is its prefix's hash fed the bytes that follow), not
// hashed again from its first byte. offs are the rune offsets of "<word>"
// and its end.
func (fh *featureHasher) charGrams(word string, offs []int) {
	n := len(offs) - 1 // runes of the marked word
	if n < 3 {
		return
	}
	c3, c4, c5 := n-2, max(n-3, 0), max(n-4, 0)
	base := len(fh.out)
	fh.out = slices.Grow(fh.out, c3+c4+c5)[:base+c3+c4+c5]
	grams3, grams4, grams5 := fh.out[base:base+c3], fh.out[base+c3:base+c3+c4], fh.out[base+c3+c4:]
	end := len(word) + 1 // the offset of '>'
	// feed hashes the marked word's bytes from..to into h.
	feed := func(h uint64, from, to int) uint64 {
		for p := from; p < to; p++ {
			var c byte
			switch p {
			case 0:
				c = '<'
			case end:
				c = '>'
			default:
				c = word[p-1]
			}
			h = fnvByte(h, c)
		}
		return h
	}
	start := kindHash(kindCharGram)
	for a := 0; a < c3; a++ {
		h := feed(start, offs[a], offs[a+3])
		grams3[a] = hashedFeature{hash: h, kind: kindCharGram}
		if a < c4 {
			h = feed(h, offs[a+3], offs[a+4])
			grams4[a] = hashedFeature{hash: h, kind: kindCharGram}
		}
		if a < c5 {
			h = feed(h, offs[a+4], offs[a+5])
			grams5[a] = hashedFeature{hash: h, kind: kindCharGram}
		}
	}
}

// emitMarked emits the part of "<"+word+">" between byte offsets from and
// to, without building the marked string.
func emitMarked(e emitter, word string, from, to int) {
	open, closing := "", ""
	if from == 0 {
		open = "<"
		from = 1
	}
	if to == len(word)+2 {
		closing = ">"
		to = len(word) + 1
	}
	mid := ""
	if from < to {
		mid = word[from-1 : to-1]
	}
	e.emit(kindCharGram, open, mid, closing)
}

// termList collects features as readable strings, for tests and debugging.
type termList []string

func (l *termList) emit(kind featureKind, a, b, c string) {
	*l = append(*l, kindNames[kind]+":"+a+b+c)
}

// terms returns the features of text as readable strings ("w:orders",
// "b:last week", "c:<or", "h:华", "hh:华东", "#:8").
func terms(text string) []string {
	var l termList
	featurize(segment(text, nil), &l)
	return l
}
