package router

import (
	"strings"
	"unicode"
)

// reply is how a user's turn answers a yes/no question.
type reply int

const (
	replyNeither reply = iota
	replyYes
	replyNo
)

func (r reply) String() string {
	switch r {
	case replyYes:
		return "yes"
	case replyNo:
		return "no"
	}
	return "neither"
}

// General words of assent and refusal. They are the language's own, not
// any registry's: a confirmation is answered the same way whatever the
// skill. Latin entries are whole words or word sequences; Han entries are
// matched inside Han runs, which have no spaces.
var (
	latinYes = [][]string{
		{"yes"}, {"yeah"}, {"yep"}, {"yup"}, {"ok"}, {"okay"}, {"sure"}, {"confirm"}, {"confirmed"},
		{"proceed"}, {"approve"}, {"approved"}, {"correct"}, {"go", "ahead"}, {"do", "it"}, {"go", "on"},
	}
	latinNo = [][]string{
		{"no"}, {"nope"}, {"nah"}, {"cancel"}, {"stop"}, {"abort"}, {"don't"}, {"dont"}, {"do", "not"},
		{"never", "mind"}, {"nevermind"}, {"not"},
	}
	// hanNo comes first: longest match decides, and 不行 must read as a
	// refusal before 行 can read as assent.
	hanNo  = []string{"不需要", "不用了", "不行", "不要", "不用", "不是", "不对", "不了", "算了", "取消", "先别", "停止", "不", "别", "否", "停"}
	hanYes = []string{"没问题", "确认", "可以", "同意", "执行", "继续", "好的", "是的", "对的", "好", "是", "对", "行", "嗯"}
	// hanFiller are particles and politeness that add nothing to a yes or
	// a no ("好的吧", "请执行", "那就算了").
	hanFiller = []string{"的", "吧", "啊", "呀", "了", "呢", "哦", "嗯", "请", "就", "那", "吗", "我", "这个"}
	// latinFiller likewise ("yes please", "ok thanks").
	latinFiller = map[string]bool{"please": true, "thanks": true, "thank": true, "you": true, "then": true, "just": true,
		"that": true, "this": true, "i": true, "it": true, "fine": true, "all": true, "right": true, "sounds": true, "good": true}
)

// classifyReply reads a user's turn as assent, refusal or neither. only
// is true when the turn holds nothing but such words and fillers ("好的",
// "no thanks", "yes, go ahead"); a longer turn may still carry a yes or a
// no next to other content. Refusal wins over assent, and negation flips
// assent ("不行", "not ok", "don't do it"): when in doubt nothing is run.
func classifyReply(text string) (r reply, only bool) {
	yes, no := false, false
	only = true
	content := false
	for _, seg := range replySegments(strings.ToLower(text)) {
		if seg.han {
			y, n, covered := hanReply(seg.text)
			yes, no = yes || y, no || n
			only = only && covered
			content = true
			continue
		}
		y, n, covered := latinReply(seg.words)
		yes, no = yes || y, no || n
		only = only && covered
		content = content || len(seg.words) > 0
	}
	switch {
	case no:
		r = replyNo
	case yes:
		r = replyYes
	}
	return r, only && content && r != replyNeither
}

type replySegment struct {
	han   bool
	text  string   // a Han run
	words []string // Latin words
}

// replySegments splits text into Han runs and runs of Latin words;
// punctuation and digits separate them.
func replySegments(text string) []replySegment {
	var out []replySegment
	var han, word strings.Builder
	var words []string
	flushWord := func() {
		if word.Len() > 0 {
			words = append(words, word.String())
			word.Reset()
		}
	}
	flushWords := func() {
		flushWord()
		if len(words) > 0 {
			out = append(out, replySegment{words: words})
			words = nil
		}
	}
	flushHan := func() {
		if han.Len() > 0 {
			out = append(out, replySegment{han: true, text: han.String()})
			han.Reset()
		}
	}
	for _, r := range text {
		switch {
		case unicode.Is(unicode.Han, r):
			flushWords()
			han.WriteRune(r)
		case unicode.IsLetter(r) || r == '\'' || r == '’':
			flushHan()
			if r == '’' {
				r = '\''
			}
			word.WriteRune(r)
		case unicode.IsSpace(r):
			flushHan()
			flushWord()
		default:
			flushHan()
			flushWords()
		}
	}
	flushHan()
	flushWords()
	return out
}

// latinReply finds assent and refusal phrases among whole words. A "not"
// or "don't" just before an assent word makes it a refusal, which the
// refusal words already give.
func latinReply(words []string) (yes, no, covered bool) {
	covered = true
	for i := 0; i < len(words); {
		if n := matchPhrase(words[i:], latinNo); n > 0 {
			no = true
			i += n
			continue
		}
		if n := matchPhrase(words[i:], latinYes); n > 0 {
			yes = true
			i += n
			continue
		}
		if !latinFiller[words[i]] {
			covered = false
		}
		i++
	}
	return yes, no, covered
}

func matchPhrase(words []string, phrases [][]string) int {
	best := 0
	for _, p := range phrases {
		if len(p) > best && len(p) <= len(words) {
			match := true
			for j := range p {
				if words[j] != p[j] {
					match = false
					break
				}
			}
			if match {
				best = len(p)
			}
		}
	}
	return best
}

// hanReply segments a Han run by longest match over the refusal, assent
// and filler words. A one-character word counts only where the run is made
// of such words alone or at the run's start ("好，" / "不，先别动"), so 是
// inside 但是 or 对 inside 对比 is not an answer. A refusal word just
// before an assent word (不可以) is one refusal.
func hanReply(run string) (yes, no, covered bool) {
	rs := []rune(run)
	type hit struct {
		yes, no bool
		size    int
		at      int
	}
	var hits []hit
	covered = true
	for i := 0; i < len(rs); {
		rest := string(rs[i:])
		if w := longestPrefix(rest, hanNo); w != "" {
			n := len([]rune(w))
			hits = append(hits, hit{no: true, size: n, at: i})
			i += n
			continue
		}
		if w := longestPrefix(rest, hanYes); w != "" {
			n := len([]rune(w))
			hits = append(hits, hit{yes: true, size: n, at: i})
			i += n
			continue
		}
		if w := longestPrefix(rest, hanFiller); w != "" {
			i += len([]rune(w))
			continue
		}
		covered = false
		i++
	}
	for _, h := range hits {
		if h.size == 1 && !covered && h.at != 0 {
			continue
		}
		yes, no = yes || h.yes, no || h.no
	}
	return yes, no, covered
}

func longestPrefix(s string, words []string) string {
	best := ""
	for _, w := range words {
		if len(w) > len(best) && strings.HasPrefix(s, w) {
			best = w
		}
	}
	return best
}
