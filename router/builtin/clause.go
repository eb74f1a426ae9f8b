package builtin

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// functionChars are Han characters that carry grammar, not content: a
// clause made of them and the skill's own words says nothing new.
const functionChars = "的了吧呢吗啊呀请帮我你您把给个一下这那是在和与及或也都就要想能会可以"

// commandBigrams are the Han bigrams of a skill's own description,
// when_to_use and glossary: "新建工单" in a request is the command, not
// the title.
func commandBigrams(texts []string) map[string]bool {
	out := map[string]bool{}
	for _, t := range texts {
		for _, tok := range segment(t, nil) {
			if tok.kind != tokHan {
				continue
			}
			rs := []rune(tok.text)
			for i := 0; i+1 < len(rs); i++ {
				out[string(rs[i:i+2])] = true
			}
		}
	}
	return out
}

// novelClause is the last resort for a title or message written without
// quotes, cue or colon, as Chinese requests often are ("新建工单，
// inventory-service 库存同步延迟，最高优先级"): among two or more clauses, the
// one with the most Han characters that are neither grammar, nor the
// skill's own words, nor used by another param, if it has at least three.
// English requests state such text with a cue ("about", "saying", ":"),
// so an English clause is never taken: that would be inventing.
func (p *extractPlan) novelClause(text string, taken *spans) (string, span, bool) {
	clauses := splitClauses(text)
	if len(clauses) < 2 {
		return "", span{}, false
	}
	best, bestNovel := -1, 2
	for i, c := range clauses {
		if n := p.novelHan(text, c, taken); n > bestNovel {
			best, bestNovel = i, n
		}
	}
	if best < 0 {
		return "", span{}, false
	}
	c := clauses[best]
	return text[c.from:c.to], c, true
}

func (p *extractPlan) novelHan(text string, c span, taken *spans) int {
	if !utf8.ValidString(text[c.from:c.to]) {
		return p.novelHanRunes(text, c, taken)
	}
	// Valid UTF-8: each rune's bytes are its encoding, so a pair of runes
	// is looked up as the text's own bytes, without a rune list.
	n := 0
	prev := -1 // where the rune before starts
	for at := c.from; at < c.to; {
		r, size := utf8.DecodeRuneInString(text[at:c.to])
		end := at + size
		if isHan(r) && !strings.ContainsRune(functionChars, r) && !taken.overlaps(at, end) {
			_, next := utf8.DecodeRuneInString(text[end:c.to])
			if !(prev >= 0 && p.command[text[prev:end]] || end < c.to && p.command[text[at:end+next]]) {
				n++
			}
		}
		prev, at = at, end
	}
	return n
}

// novelHanRunes is novelHan read rune by rune from a rune list: for a
// clause that is not valid UTF-8, whose bad bytes the list holds as
// U+FFFD (three bytes each when offsets are counted).
func (p *extractPlan) novelHanRunes(text string, c span, taken *spans) int {
	rs := []rune(text[c.from:c.to])
	offs := make([]int, len(rs)+1)
	o := c.from
	for i, r := range rs {
		offs[i] = o
		o += utf8.RuneLen(r)
	}
	offs[len(rs)] = o
	n := 0
	for i, r := range rs {
		if !isHan(r) || strings.ContainsRune(functionChars, r) || taken.overlaps(offs[i], offs[i+1]) {
			continue
		}
		if i > 0 && p.command[string(rs[i-1:i+1])] || i+1 < len(rs) && p.command[string(rs[i:i+2])] {
			continue
		}
		n++
	}
	return n
}

// splitClauses splits at commas, semicolons and sentence ends, trimming
// spaces and punctuation around each clause.
func splitClauses(text string) []span {
	var out []span
	start := 0
	emit := func(end int) {
		seg := text[start:end]
		lead := len(seg) - len(strings.TrimLeftFunc(seg, trimmable))
		v := strings.TrimFunc(seg, trimmable)
		if v != "" {
			out = append(out, span{start + lead, start + lead + len(v)})
		}
	}
	for i := 0; i < len(text); {
		c, size := text[i], 1
		var split bool
		if c < utf8.RuneSelf {
			split = c == ',' || c == ';' || c == '!' || c == '?' || c == '\n'
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(text[i:])
			split = strings.ContainsRune(clauseEndsWide, r)
		}
		if split {
			emit(i)
			start = i + size
		}
		i += size
	}
	emit(len(text))
	return out
}

// clauseEndsWide are the marks past ASCII that end a clause.
const clauseEndsWide = "，；。！？、"

func trimmable(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) && r != '/' && r != '#' }
