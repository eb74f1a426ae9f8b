package builtin

import (
	"iter"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// stringRole says what kind of free string a property holds, from its
// name and description; each role has its own evidence in text.
type stringRole uint8

const (
	roleGeneric   stringRole = iota // only quoted text or a known value
	roleService                     // payment-api, order-service
	rolePath                        // /static/js/app.js
	roleDataset                     // loadtest_orders
	roleRecipient                   // zhang.wei, #ops-payments
	roleKeyword                     // what to search for
	roleTitle                       // a ticket's title
	roleMessage                     // a message's text
	roleReason                      // why
	roleName                        // a place, person or organisation: "San Francisco, CA", "Brazil"
	roleID                          // an identifier: rs6034464, DNA123
	roleYear                        // a year written as a string: "2022"
)

func stringRoleOf(name, desc string) stringRole {
	parts := nameParts(name)
	d := strings.ToLower(desc)
	named := func(words ...string) bool {
		return slices.ContainsFunc(words, func(w string) bool { return slices.Contains(parts, w) })
	}
	described := func(words ...string) bool {
		return slices.ContainsFunc(words, func(w string) bool { return strings.Contains(d, w) })
	}
	switch {
	case named("service", "app", "component", "microservice"):
		return roleService
	case named("path", "url", "uri", "filepath", "file", "dir", "directory", "website", "domain", "homepage", "link"):
		return rolePath
	case named("dataset", "table", "bucket"):
		return roleDataset
	case strings.EqualFold(name, "to") || named("recipient", "assignee", "email", "channel") && !named("name"):
		return roleRecipient
	case named("keyword", "query", "term", "search", "keywords"):
		return roleKeyword
	case named("title", "subject", "summary", "headline"):
		return roleTitle
	case named("message", "text", "body", "content", "note", "comment", "description"):
		return roleMessage
	case named("reason", "cause", "why"):
		return roleReason
	case described("service", "服务") && !named("name"):
		return roleService
	case described("路径") || named("path"):
		return rolePath
	case described("dataset", "数据集"):
		return roleDataset
	case described("recipient", "接收人"):
		return roleRecipient
	case nameClassOf(parts, desc) != classNone:
		return roleName
	case named("id", "identifier", "code", "number") || strings.HasSuffix(name, "Id") || strings.HasSuffix(name, "ID"):
		return roleID
	case named("year"):
		return roleYear
	}
	return roleGeneric
}

// Evidence for the roles. Each regexp's first group is the value.
var (
	quotedRe     = memoCompile(`"([^"]+)"|“([^”]+)”|「([^」]+)」|『([^』]+)』|` + "`([^`]+)`")
	hyphenatedRe = memoCompile(`\b[a-z][a-z0-9]*(?:-[a-z0-9]+)+\b`)
	datasetRe    = memoCompile(`\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b`)
	recipientRe  = memoCompile(`\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b|[#@][\w.-]+|\b[a-z][a-z0-9_-]*\.[a-z][a-z0-9_-]*(?:@[\w.-]+)?\b`)
	serviceNear  = memoCompile(`(?:service|服务)\s+([a-z][a-z0-9-]*)|([a-z][a-z0-9-]*)\s*(?:service\b|服务)`)
	keywordCue   = memoCompile(`(?:有没有|包含|含有|关键字|关键词|keyword|\bfor|\bcontaining|\bmatching)\s*[:：]?\s*([A-Za-z0-9_.\-]+|[\p{Han}]{2,})`)
	titleCue     = memoCompile(`(?:标题是|标题为|标题|titled|title\s*[:：]|called|about|关于)\s*[:：]?\s*(.+)`)
	messageCue   = memoCompile(`(?:内容是|内容为|消息是|说|saying|that says|message\s*[:：])\s*[:：]?\s*(.+)`)
	reasonCue    = memoCompile(`(?:原因是|原因为|原因|理由是|because(?: of)?|due to|reason\s*[:：])\s*[:：]?\s*(.+)`)
	colonRe      = memoCompile(`[:：]\s*(.+)`)
	yearRe       = memoCompile(`\b(1[5-9]\d\d|20\d\d)\b`)
	identifierRe = memoCompile(`\b(?:[A-Za-z]+[0-9][A-Za-z0-9]*|[0-9]+[A-Za-z][A-Za-z0-9]*|[A-Z][a-z]+(?:[A-Z][a-z0-9]*)+|[0-9]{3,})\b`)
)

// assignStrings fills string properties from the evidence their role
// accepts, each use of text consumed: quoted text goes to free-text
// properties first (a quoted title may contain a service name), then
// values the examples gave, then each role's own evidence.
func assignStrings(p *extractPlan, text, lower string, taken *spans, known map[string][]string, out map[string]any) {
	var quotes []span
	if p.freeText && quoteMarks.in(text) {
		quotes = quotedSpans(text)
		assignNamedQuotes(p, text, lower, quotes, taken, out)
	}
	// A quote is how a title is written ("stats for 'Dune Raiders'"): a
	// property that holds a title takes one before free-text ones do.
	for pp := range p.unfilled(out, propString) {
		if pp.class != classWork || len(quotes) == 0 {
			continue
		}
		if v, sp, ok := quoteFor(p, pp, text, lower, quotes, taken, out); ok {
			out[pp.name] = v
			taken.add(sp.from, sp.to)
		}
	}
	for _, role := range []stringRole{roleKeyword, roleTitle, roleMessage, roleReason, roleGeneric} {
		for pp := range p.unfilled(out, propString) {
			if pp.role != role {
				continue
			}
			if v, sp, ok := quoteFor(p, pp, text, lower, quotes, taken, out); ok {
				out[pp.name] = v
				taken.add(sp.from, sp.to)
			}
		}
	}
	for i := range p.props {
		pp := &p.props[i]
		if _, done := out[pp.name]; done || pp.kind != propString {
			continue
		}
		if v, sp, ok := findKnown(pp, lower, text, taken, known[pp.name]); ok {
			out[pp.name] = v
			taken.add(sp.from, sp.to)
		}
	}
	assignDescribedValues(p, lower, text, taken, out)
	assignStringLists(p, text, lower, taken, out)
	assignNumbered(p, text, lower, taken, out)
	assignNames(p, text, taken, out)
	defer assignCuedPhrases(p, text, lower, taken, out)
	for _, role := range []stringRole{rolePath, roleService, roleDataset, roleRecipient, roleID, roleYear, roleKeyword, roleTitle, roleMessage, roleReason} {
		for i := range p.props {
			pp := &p.props[i]
			if pp.kind != propString || pp.role != role {
				continue
			}
			if _, done := out[pp.name]; done {
				continue
			}
			if v, sp, ok := findByRole(p, pp, text, lower, taken); ok {
				out[pp.name] = v
				taken.add(sp.from, sp.to)
			}
		}
	}
}

// webAddress reports whether a token is a URL or a domain name: a scheme,
// or dot-joined labels ending in a top-level domain of letters only
// ("shop.example.co.uk"), never a number ("3.5") or a file ("notes.txt"
// is a domain's shape too, so files with common extensions are left out).
func webAddress(v string) bool {
	if strings.HasPrefix(v, "http://") || strings.HasPrefix(v, "https://") {
		return len(v) > len("https://")
	}
	labels := strings.Split(v, ".")
	if len(labels) < 2 {
		return false
	}
	for _, l := range labels {
		if l == "" {
			return false
		}
		for i := 0; i < len(l); i++ {
			if c := l[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	tld := strings.ToLower(labels[len(labels)-1])
	for i := 0; i < len(tld); i++ {
		if tld[i] < 'a' || tld[i] > 'z' {
			return false
		}
	}
	return len(tld) >= 2 && len(tld) <= 6 && !fileExtensions[tld]
}

// webWords name a property that holds a web address.
var webWords = map[string]bool{"url": true, "uri": true, "website": true, "domain": true, "homepage": true, "link": true}

// fileExtensions are the endings that make a dotted token a file name.
var fileExtensions = map[string]bool{"txt": true, "csv": true, "json": true, "pdf": true, "doc": true, "docx": true,
	"xls": true, "xlsx": true, "png": true, "jpg": true, "jpeg": true, "gif": true, "py": true, "go": true, "js": true,
	"md": true, "log": true, "yaml": true, "yml": true, "xml": true, "zip": true, "mp3": true, "mp4": true, "wav": true,
	"html": true, "exe": true, "sh": true}

// idLike: one token holding a digit ("PX-4471-B"), as identifiers are
// written.
func idLike(s string) bool {
	s = strings.TrimSpace(s)
	return s != "" && !strings.ContainsAny(s, " \t") && strings.ContainsAny(s, "0123456789")
}

// joinedToken widens sp over letters and digits that hyphens join to it.
func joinedToken(text string, sp span) span {
	alnum := func(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
	for sp.to+1 < len(text) && text[sp.to] == '-' && alnum(text[sp.to+1]) {
		sp.to++
		for sp.to < len(text) && alnum(text[sp.to]) {
			sp.to++
		}
	}
	for sp.from >= 2 && text[sp.from-1] == '-' && alnum(text[sp.from-2]) {
		sp.from--
		for sp.from > 0 && alnum(text[sp.from-1]) {
			sp.from--
		}
	}
	return sp
}

// findKnown finds a value the examples gave this property, as a whole word.
func findKnown(pp *propPlan, lower, text string, taken *spans, extra []string) (string, span, bool) {
	if pp.role == roleTitle || pp.role == roleMessage || pp.role == roleReason || pp.role == roleKeyword {
		return "", span{}, false // free text: an example's title is not this request's
	}
	for _, list := range [][]string{pp.known, extra} {
		for _, v := range list {
			lv := lowerASCII(v)
			for from := 0; ; {
				k := strings.Index(lower[from:], lv)
				if k < 0 {
					break
				}
				at := from + k
				from = at + len(lv)
				if wordBounded(lower, at, at+len(lv)) && !taken.overlaps(at, at+len(lv)) && !hyphenGlued(lower, at, at+len(lv)) {
					return text[at : at+len(lv)], span{at, at + len(lv)}, true
				}
			}
		}
	}
	return "", span{}, false
}

// hyphenGlued: "api" inside "payment-api" is not the value "api".
func hyphenGlued(s string, from, to int) bool {
	return from > 0 && (s[from-1] == '-' || s[from-1] == '_') || to < len(s) && (s[to] == '-' || s[to] == '_')
}

func findByRole(p *extractPlan, pp *propPlan, text, lower string, taken *spans) (string, span, bool) {
	first := func(re *memoRegexp, s string) (string, span, bool) {
		for _, m := range re.allSubmatchIndex(s) {
			from, to := m[0], m[1]
			for g := 1; 2*g < len(m); g++ { // the first group that took part
				if m[2*g] >= 0 {
					from, to = m[2*g], m[2*g+1]
					break
				}
			}
			if !taken.overlaps(from, to) {
				return text[from:to], span{from, to}, true
			}
		}
		return "", span{}, false
	}
	switch pp.role {
	case rolePath:
		for tok := range rawTokens(text) {
			if v := text[tok.from:tok.to]; strings.HasPrefix(v, "/") && len(v) > 1 && !taken.overlaps(tok.from, tok.to) {
				return v, tok, true
			}
		}
		// A web address: "https://…" or a bare domain ("example.org"),
		// for a property named for one.
		if !slices.ContainsFunc(pp.nameCues, func(c string) bool { return webWords[c] }) {
			return "", span{}, false
		}
		for tok := range rawTokens(text) {
			if v := text[tok.from:tok.to]; webAddress(v) && !taken.overlaps(tok.from, tok.to) {
				return v, tok, true
			}
		}
	// Each regexp runs only when the text holds something every match of
	// it contains (a hyphen, a digit, a cue word): most requests hold none.
	case roleService:
		if strings.Contains(lower, "-") {
			if v, sp, ok := first(hyphenatedRe, lower); ok {
				return v, sp, ok
			}
		}
		if containsAny(lower, serviceCues) {
			if v, sp, ok := first(serviceNear, lower); ok && !stopword(lowerASCII(v)) && !strings.HasSuffix(v, "-") {
				return v, sp, ok
			}
		}
		return loneLatinWord(text, lower, taken)
	case roleDataset:
		if !strings.Contains(lower, "_") {
			return "", span{}, false
		}
		return first(datasetRe, lower)
	case roleID:
		if !mayHoldIdentifier(text) {
			return "", span{}, false
		}
		v, sp, ok := first(identifierRe, text)
		if ok {
			// "778812-QX", "INV-2031-77": the id is the whole joined token.
			if wide := joinedToken(text, sp); wide != sp && !taken.overlaps(wide.from, wide.to) {
				return text[wide.from:wide.to], wide, true
			}
		}
		return v, sp, ok
	case roleYear:
		if !strings.ContainsAny(text, "0123456789") {
			return "", span{}, false
		}
		return first(yearRe, text)
	case roleRecipient:
		if !strings.ContainsAny(text, "@#.") {
			return "", span{}, false
		}
		return first(recipientRe, text)
	case roleKeyword:
		if containsAny(text, keywordCues) {
			if v, sp, ok := first(keywordCue, text); ok && !stopword(lowerASCII(v)) {
				return v, sp, ok
			}
		}
		if !mayHoldIdentifier(text) {
			return "", span{}, false
		}
		return first(identifierRe, text)
	case roleTitle, roleMessage, roleReason:
		cue := titleCue
		switch pp.role {
		case roleMessage:
			cue = messageCue
		case roleReason:
			cue = reasonCue
		}
		if v, sp, ok := freeText(cue, text, taken); ok {
			return v, sp, ok
		}
		if pp.role == roleReason {
			break
		}
		if v, sp, ok := freeText(colonRe, text, taken); ok {
			return v, sp, ok
		}
		return p.novelClause(text, taken)
	}
	return "", span{}, false
}

// The literals one of which every match of serviceNear or keywordCue
// holds, and mayHoldIdentifier, identifierRe's: a digit or a capital.
var (
	serviceCues = []string{"service", "服务"}
	keywordCues = []string{"有没有", "包含", "含有", "关键字", "关键词", "keyword", "for", "containing", "matching"}
)

func mayHoldIdentifier(text string) bool {
	for i := 0; i < len(text); i++ {
		if c := text[i]; c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' {
			return true
		}
	}
	return false
}

// quotedSpans lists the insides of quotes, in order of appearance.
func quotedSpans(text string) []span {
	var out []span
	for _, m := range quotedRe.allSubmatchIndex(text) {
		for g := 1; 2*g < len(m); g++ {
			if m[2*g] >= 0 {
				out = append(out, span{m[2*g], m[2*g+1]})
				break
			}
		}
	}
	out = append(out, singleQuoted(text)...)
	slices.SortFunc(out, func(a, b span) int { return a.from - b.from })
	return out
}

// singleQuoted finds 'text in single quotes' without mistaking
// apostrophes for quotes: a quote opens after a non-letter and closes
// before one, so "What's ... Weeknd's" holds no quote and 'Let's meet'
// keeps its apostrophe.
func singleQuoted(text string) []span {
	var out []span
	open := -1
	for i := 0; i < len(text); i++ {
		if text[i] != '\'' {
			continue
		}
		before := i == 0 || !isLatinOrDigit(rune(text[i-1]))
		after := i+1 == len(text) || !isLatinOrDigit(rune(text[i+1]))
		switch {
		case open < 0 && before && i+1 < len(text) && text[i+1] != ' ':
			open = i + 1
		case open >= 0 && after && text[i-1] != ' ' && i-open >= 1:
			out = append(out, span{open, i})
			open = -1
		}
	}
	return out
}

func firstQuote(text string, quotes []span, taken *spans, skip func(span) bool) (string, span, bool) {
	for _, q := range quotes {
		if !taken.overlaps(q.from, q.to) && !skip(q) {
			if v := strings.TrimSpace(text[q.from:q.to]); v != "" {
				return v, q, true
			}
		}
	}
	return "", span{}, false
}

// quoteFor picks property pp's quote: one its own name words introduce,
// else the first that no other property still to fill is named before.
func quoteFor(p *extractPlan, pp *propPlan, text, lower string, quotes []span, taken *spans, out map[string]any) (string, span, bool) {
	if v, sp, ok := firstQuote(text, quotes, taken, func(q span) bool { return !namedBefore(lower, q, pp.nameCues) || inBrackets(text, q) }); ok {
		return v, sp, ok
	}
	return firstQuote(text, quotes, taken, func(q span) bool { return namedForOther(p, pp, lower, q, out) || inBrackets(text, q) })
}

// inBrackets reports whether quote q is an item of a bracketed list
// ("['Sam', 'Ana']"): the list is one value, and no item of it is a
// value of its own.
func inBrackets(text string, q span) bool {
	open := strings.LastIndexByte(text[:q.from], '[')
	if open < 0 || strings.IndexByte(text[open:q.from], ']') >= 0 {
		return false
	}
	end := strings.IndexByte(text[q.to:], ']')
	return end >= 0 && strings.IndexByte(text[q.to:q.to+end], '[') < 0
}

// namedForOther reports whether quote q is introduced by the name of
// another string property still to fill, or is an identifier and another
// property holds one: in "stats for the game 'Dune Raiders' on the
// console", the quote is the game's, not the first free text another
// property would take.
func namedForOther(p *extractPlan, self *propPlan, lower string, q span, out map[string]any) bool {
	for i := range p.props {
		pp := &p.props[i]
		if pp == self || pp.kind != propString {
			continue
		}
		if _, done := out[pp.name]; done {
			continue
		}
		if namedBefore(lower, q, pp.nameCues) || pp.role == roleID && idLike(lower[q.from:q.to]) {
			return true
		}
	}
	return false
}

// freeText takes what follows a cue, up to the end of its sentence,
// trimmed; it must hold at least two letters or characters of its own.
func freeText(cue *memoRegexp, text string, _ *spans) (string, span, bool) {
	m := cue.firstSubmatchIndex(text)
	if m == nil {
		return "", span{}, false
	}
	from, to := m[2], m[3]
	if k := strings.IndexAny(text[from:to], "。！？!?\n"); k >= 0 {
		to = from + k
	}
	v := strings.TrimFunc(text[from:to], func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsPunct(r) && r != '/' && r != '#' && r != '%'
	})
	if utf8.RuneCountInString(v) < 2 {
		return "", span{}, false
	}
	from = from + strings.Index(text[from:to], v)
	return v, span{from, from + len(v)}, true
}

// rawTokens splits text at spaces, Han characters and CJK punctuation,
// trimming ASCII punctuation that wraps a token ("(ORD-1)," -> "ORD-1"),
// token by token: each close candidate's params read the tokens again, and
// a list of them would be allocated every time. ASCII bytes are read
// without decoding (a spec holds it to the rune-by-rune reading).
func rawTokens(text string) iter.Seq[span] {
	return func(yield func(span) bool) {
		start := -1
		for i := 0; i < len(text); {
			c, size := text[i], 1
			var split bool
			if c < utf8.RuneSelf {
				split = c == ' ' || c >= '\t' && c <= '\r'
			} else {
				var r rune
				r, size = utf8.DecodeRuneInString(text[i:])
				split = tokenSplit(r)
			}
			switch {
			case !split:
				if start < 0 {
					start = i
				}
			case start >= 0:
				if sp, ok := trimToken(text, start, i); ok && !yield(sp) {
					return
				}
				start = -1
			}
			i += size
		}
		if start >= 0 {
			if sp, ok := trimToken(text, start, len(text)); ok {
				yield(sp)
			}
		}
	}
}

// tokenSplit reports whether rawTokens splits at r.
func tokenSplit(r rune) bool {
	return unicode.IsSpace(r) || isHan(r) || r >= 0x3000 && r <= 0x303f || r >= 0xff00 && r <= 0xffef
}

// trimToken is text[from:to] without the ASCII punctuation that wraps it;
// false when nothing is left.
func trimToken(text string, from, to int) (span, bool) {
	for from < to && tokenOpener(text[from]) {
		from++
	}
	for to > from && tokenCloser(text[to-1]) {
		to--
	}
	return span{from, to}, from < to
}

func tokenOpener(c byte) bool {
	switch c {
	case '(', '[', '{', '<', '"', '\'', '>':
		return true
	}
	return false
}

func tokenCloser(c byte) bool {
	switch c {
	case ',', '.', ';', ':', '!', '?', ')', ']', '}', '>', '"', '\'':
		return true
	}
	return false
}

// loneLatinWord finds a service named by a plain word in a Chinese request
// ("gateway 今天的错误率"): the one Latin word there that no other param took
// and that is not a common word.
func loneLatinWord(text, lower string, taken *spans) (string, span, bool) {
	if !hanAtLeast(text, 2) {
		return "", span{}, false
	}
	var found span
	n := 0
	for _, tok := range lastLatinWords.recall(lower, latinWords) {
		if !taken.overlaps(tok.from, tok.to) {
			if n++; n > 1 {
				return "", span{}, false
			}
			found = tok
		}
	}
	if n != 1 {
		return "", span{}, false
	}
	return text[found.from:found.to], found, true
}

// lastLatinWords remembers latinWords of the last texts: every close
// candidate with a service to fill looks for one in the same request.
var lastLatinWords memoOf[[]span]

// latinWords are the tokens of lower that may name a service by
// themselves: identifiers that are not common words.
func latinWords(lower string) []span {
	var out []span
	for tok := range rawTokens(lower) {
		if w := lower[tok.from:tok.to]; !stopword(w) && isIdentifier(w) {
			out = append(out, tok)
		}
	}
	return out
}

// hanAtLeast reports whether text holds n Han characters or more: it
// stops at the n-th, and reads ASCII bytes (never Han) without decoding.
func hanAtLeast(text string, n int) bool {
	for i := 0; i < len(text); {
		if text[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if isHan(r) {
			if n--; n <= 0 {
				return true
			}
		}
		i += size
	}
	return n <= 0
}

func isIdentifier(w string) bool {
	if w == "" || !(w[0] >= 'a' && w[0] <= 'z') {
		return false
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return len(w) >= 3
}

// stopword: common words that never name a service, dataset or keyword.
func stopword(w string) bool { return commonWords[w] }

var commonWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the this that these those it its is are was were be been
		to of in on at by for from with about as into over after before between and or not no
		me my i you your we our they them he she his her please can could would should will
		what which who when where why how any all some there here do does did done get show
		find search grep look see check list logs log errors error today yesterday week month
		days day last past recent trace id ids service services api`) {
		m[w] = true
	}
	return m
}()

// assignNamedQuotes gives a quote to the free-text property whose name's
// words all stand in the few words before it: "sequence 'AGTC...' ...
// reference sequence 'AGTT...'" fills sequence and reference_sequence
// each with its own quote, whatever their order. Properties with more name
// words choose first, so "reference sequence" is not taken by "sequence".
// namedBefore reports whether every one of a property's name words
// starts one of the three words before span q: "the venue 'Blue Room'"
// names a venue, "daily readings: [4, 7]" the daily readings.
func namedBefore(lower string, q span, cues []string) bool {
	if len(cues) == 0 {
		return false
	}
	before := strings.Fields(lower[max(0, q.from-40):q.from])
	before = before[max(0, len(before)-3):]
	for _, c := range cues {
		hit := false
		for _, w := range before {
			if strings.HasPrefix(strings.Trim(w, "'\"`:=,("), c) {
				hit = true
			}
		}
		if !hit {
			return false
		}
	}
	return true
}

func assignNamedQuotes(p *extractPlan, text, lower string, quotes []span, taken *spans, out map[string]any) {
	var props []int
	for i := range p.props {
		if pp := &p.props[i]; pp.kind == propString && pp.class == classNone && len(pp.nameCues) > 0 {
			props = append(props, i)
		}
	}
	slices.SortStableFunc(props, func(a, b int) int { return len(p.props[b].nameCues) - len(p.props[a].nameCues) })
	for _, i := range props {
		pp := &p.props[i]
		if _, done := out[pp.name]; done {
			continue
		}
		for _, q := range quotes {
			if taken.overlaps(q.from, q.to) {
				continue
			}
			if namedBefore(lower, q, pp.nameCues) && !inBrackets(text, q) {
				out[pp.name] = strings.TrimSpace(text[q.from:q.to])
				taken.add(q.from, q.to)
				break
			}
		}
	}
}
