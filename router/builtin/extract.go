package builtin

import (
	"iter"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/routebench/routebench/router/internal/prefilter"
	"github.com/routebench/routebench/router/registry"
)

// ExtractParams fills the params of s that text states, reading s's params
// schema: enum values and their x-synonyms, dates (absolute and relative to
// now, in now's time zone, written "YYYY-MM-DD"), numbers near the words
// that name them, `pattern` matches (ids, paths), and strings only where the
// text clearly gives one (a known service, a quoted title). A value the
// text does not support is left out, never guessed: a missing date range
// stays missing so the router asks for it.
func ExtractParams(s *registry.Skill, text string, now time.Time) map[string]any {
	if s == nil {
		return map[string]any{}
	}
	return extract(planFor(s), text, now, nil)
}

// span is a byte range of the request text.
type span struct{ from, to int }

// spans are the parts of the text already used by a param, so one phrase
// never fills two params ("ORD-20261103" is not also the number 20261103).
type spans struct{ list []span }

func (s *spans) overlaps(from, to int) bool {
	for _, t := range s.list {
		if from < t.to && t.from < to {
			return true
		}
	}
	return false
}

func (s *spans) add(from, to int) { s.list = append(s.list, span{from, to}) }

// paramsPool keeps the params maps of candidates whose params were read
// only to weigh them (releaseParams), for the next request's.
var paramsPool = sync.Pool{New: func() any { return map[string]any{} }}

// releaseParams hands back a params map no one holds any more.
func releaseParams(m map[string]any) {
	if m != nil {
		clear(m)
		paramsPool.Put(m)
	}
}

// spansPool keeps extraction's used-up spans from request to request.
var spansPool = sync.Pool{New: func() any { return new(spans) }}

type propKind uint8

const (
	propString propKind = iota
	propEnum
	propDate
	propNumber
	propPattern
	propNumberList // an array of numbers
	propStringList // an array of strings
	propBool
	propDateTime   // a date and a time of day in one string
	propTime       // a time of day
	propObject     // an object with properties of its own
	propObjectList // an array of such objects
	propEnumList   // an array of strings from an enum
)

type dateRole uint8

const (
	dateSingle dateRole = iota
	dateStart
	dateEnd
)

// enumTerm is a way of writing an enum value: the value itself or one of
// its x-synonyms, lowercased.
type enumTerm struct {
	value string
	term  string
	latin bool // needs word boundaries: "east" is not in "least"
	// boxed is value as an any, made once: setting a param to it then
	// allocates nothing.
	boxed any
}

// propPlan is how one schema property is found in text.
type propPlan struct {
	name      string
	kind      propKind
	integer   bool
	terms     []enumTerm // enum, longest first
	date      dateRole
	layout    string           // how a date or time property is written
	sub       *extractPlan     // an object's (or an array's objects') own properties
	anchor    *regexp.Regexp   // the pattern as written
	prefix    string           // anchor.LiteralPrefix(): every match begins with it
	loose     *memoRegexp      // the pattern unanchored, case-insensitive; nil when too weak to search with
	pattern   *compiledPattern // what anchor, prefix and loose come from; nil for other kinds
	cues      []string         // words that name a number ("replica", "副本", "元")
	nameCues  []string         // the parts of the property's name, the strongest cues
	required  bool
	role      stringRole
	class     nameClass    // the kind of proper name a string property holds
	region    regionFormat // how a place property writes its region
	dims      []dimension  // what a number property, or a unit's name, measures
	percent   bool         // a percentage is given as written ("5" for 5%), not as a fraction
	periods   bool         // a number that counts periods per year ("compounded quarterly": 4)
	counts    string       // the unit of time a number counts ("day": "the next week" is 7)
	known     []string     // values the skill's examples give this property, longest first
	described []string     // values the property's description quotes, longest first
	currency  bool         // a currency, written as its ISO 4217 code
}

// extractPlan is a skill's properties, in name order for determinism.
type extractPlan struct {
	props       []propPlan
	hasDates    bool
	hasNumbers  bool
	freeText    bool // has a string property that quoted text may fill
	hasCurrency bool
	examples    bool // the skill has examples (a registry written for routing, not a bare tool schema)
	// command holds the Han bigrams of the skill's own texts (see novelClause).
	command map[string]bool
	// own is a bare tool schema's own words (see assignLeftover); nil for
	// a skill with examples and for nested objects.
	own map[string]bool
}

var plans sync.Map // *registry.Skill -> *extractPlan

// planFor compiles (once per skill) how to find each property.
func planFor(s *registry.Skill) *extractPlan {
	if p, ok := plans.Load(s); ok {
		return p.(*extractPlan)
	}
	p, _ := plans.LoadOrStore(s, newPlan(s))
	return p.(*extractPlan)
}

func newPlan(s *registry.Skill) *extractPlan {
	props := s.Properties()
	own := append([]string{s.Description}, s.WhenToUse...)
	for _, k := range slices.Sorted(maps.Keys(s.Glossary)) {
		own = append(own, k, s.Glossary[k])
	}
	plan := &extractPlan{command: commandBigrams(own), examples: len(s.Examples) > 0}
	if !plan.examples {
		plan.own = ownWords(s)
	}
	required := s.Required()
	for _, name := range slices.Sorted(maps.Keys(props)) {
		schema := props[name]
		pp := propPlan{name: name, required: slices.Contains(required, name), nameCues: nameParts(name)}
		typ, _ := schema["type"].(string)
		desc, _ := schema["description"].(string)
		switch {
		case schema["enum"] != nil:
			pp.kind = propEnum
			pp.terms = enumTerms(schema)
			if len(pp.terms) == 0 {
				continue
			}
		case typ == "string" && isDateLike(schema, pp.nameCues, desc):
			pp.kind, pp.layout, _ = dateKindOf(schema, pp.nameCues, desc)
			pp.date = dateRoleOf(name)
			plan.hasDates = true
		case typ == "integer" || typ == "number":
			pp.kind = propNumber
			plan.hasNumbers = true
			pp.integer = typ == "integer"
			pp.cues = specificCues(cueWords(name, desc), name, s.Description, props)
			pp.dims = propDimensions(pp.nameCues, desc)
			pp.percent = asPercent(pp.nameCues, desc)
			pp.periods = countsPeriods(&pp, desc)
			pp.counts = countedUnit(&pp, desc)
		case typ == "object" && len(subProperties(schema)) > 0:
			pp.kind = propObject
			pp.sub = newPlan(&registry.Skill{Name: name, Description: desc, ParamsSchema: schema})
			pp.sub.own = nil
			plan.hasNumbers = plan.hasNumbers || pp.sub.hasNumbers
		case typ == "array" && objectItems(schema) != nil:
			pp.kind = propObjectList
			pp.sub = newPlan(&registry.Skill{Name: name, Description: desc, ParamsSchema: objectItems(schema)})
			pp.sub.own = nil
		case typ == "array" && numericItems(schema):
			pp.kind = propNumberList
			plan.hasNumbers = true
			items, _ := schema["items"].(map[string]any)
			pp.integer = items["type"] == "integer"
		case typ == "array" && enumItems(schema) != nil:
			pp.kind = propEnumList
			pp.terms = enumTerms(enumItems(schema))
			if len(pp.terms) == 0 {
				continue
			}
		case typ == "array" && stringItems(schema):
			pp.kind = propStringList
			pp.role = stringRoleOf(name, desc)
			pp.class = nameClassOf(pp.nameCues, desc)
			pp.described = describedValues(desc, pp.class)
			pp.region = regionFormatOf(desc)
			pp.cues = specificCues(cueWords(name, desc), name, s.Description, props)
		case typ == "boolean":
			pp.kind = propBool
		case typ == "string" && schema["pattern"] != nil:
			pat, _ := schema["pattern"].(string)
			if !compilePattern(&pp, pat) {
				continue
			}
			pp.kind = propPattern
		case typ == "string" || typ == "":
			pp.kind = propString
			pp.role = stringRoleOf(name, desc)
			pp.class = nameClassOf(pp.nameCues, desc)
			pp.described = describedValues(desc, pp.class)
			pp.region = regionFormatOf(desc)
			pp.cues = specificCues(cueWords(name, desc), name, s.Description, props)
			if slices.Contains(pp.nameCues, "unit") || slices.Contains(pp.nameCues, "units") {
				pp.dims = propDimensions(pp.nameCues, desc) // what the named unit measures
			}
			switch pp.role {
			case roleKeyword, roleTitle, roleMessage, roleReason, roleGeneric:
				plan.freeText = true
			}
		default:
			continue
		}
		for _, ex := range s.Examples {
			if v, ok := ex.Params[name].(string); ok && v != "" && !slices.Contains(pp.known, v) {
				pp.known = append(pp.known, v)
			}
		}
		slices.SortStableFunc(pp.known, func(a, b string) int { return len(b) - len(a) })
		// A currency is written as its code unless the skill's own
		// examples write it otherwise.
		pp.currency = pp.kind == propString && slices.Contains(pp.nameCues, "currency") && !slices.ContainsFunc(pp.known, func(v string) bool {
			c, ok := currencyCode(v)
			return !ok || c != v
		})
		plan.hasCurrency = plan.hasCurrency || pp.currency
		plan.props = append(plan.props, pp)
	}
	return plan
}

// enumTerms lists an enum's values, their spelled-out forms ("error_rate"
// -> "error rate") and x-synonyms, longest first so "east china" wins
// over "east".
func enumTerms(schema map[string]any) []enumTerm {
	vals, _ := schema["enum"].([]any)
	syn, _ := schema["x-synonyms"].(map[string]any)
	var out []enumTerm
	seen := map[string]bool{}
	add := func(value, term string) {
		term = strings.TrimSpace(lowerASCII(term))
		if term == "" || seen[term] {
			return
		}
		seen[term] = true
		latin := false
		for _, r := range term {
			if isLatinOrDigit(r) {
				latin = true
			}
		}
		out = append(out, enumTerm{value: value, term: term, latin: latin, boxed: value})
	}
	for _, v := range vals {
		value, ok := v.(string)
		if !ok {
			continue
		}
		add(value, value)
		add(value, strings.NewReplacer("_", " ", "-", " ").Replace(value))
		list, _ := syn[value].([]any)
		for _, t := range list {
			if ts, ok := t.(string); ok {
				add(value, ts)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b enumTerm) int { return len(b.term) - len(a.term) })
	return out
}

// dateRoleOf says whether a date property starts or ends a range, from
// the words of its name: start_date, from, since, check_in, departure;
// end_date, until, to, check_out, return.
func dateRoleOf(name string) dateRole {
	n := strings.ToLower(name)
	parts := nameParts(name)
	has := func(words ...string) bool {
		return slices.ContainsFunc(words, func(w string) bool { return slices.Contains(parts, w) })
	}
	switch {
	case strings.Contains(n, "start") || strings.Contains(n, "from") || strings.Contains(n, "begin") || strings.Contains(n, "since") ||
		has("in", "depart", "departure", "checkin", "first"):
		return dateStart
	case strings.Contains(n, "end") || strings.Contains(n, "until") || strings.HasSuffix(n, "to") ||
		has("to", "out", "return", "checkout", "last", "till"):
		return dateEnd
	}
	return dateSingle
}

// isDateLike reports whether a string property holds a date or a time.
func isDateLike(schema map[string]any, parts []string, desc string) bool {
	_, _, ok := dateKindOf(schema, parts, desc)
	return ok
}

// compilePattern keeps the pattern as written and, when it carries
// literal text to anchor a search on (an id prefix such as "ORD-"), an
// unanchored case-insensitive form to find it inside longer text.
func compilePattern(pp *propPlan, pat string) bool {
	c, ok := compiledPatterns.Load(pat)
	if !ok {
		c, _ = compiledPatterns.LoadOrStore(pat, newCompiledPattern(pat))
	}
	cp := c.(*compiledPattern)
	if cp.anchor == nil {
		return false
	}
	pp.anchor, pp.prefix, pp.loose, pp.pattern = cp.anchor, cp.prefix, cp.loose, cp
	return true
}

// compiledPatterns holds a compiledPattern per pattern text: skills that
// share an id pattern (the orders' ORD-…) share its remembered matches.
var compiledPatterns sync.Map

// compiledPattern is a params pattern compiled for findPattern; anchor is
// nil when the pattern does not compile.
type compiledPattern struct {
	anchor *regexp.Regexp
	prefix string
	loose  *memoRegexp
	// need is what every match of anchor holds (nil: nothing known), so
	// a text or token without it is not tried: a pattern without a
	// literal prefix (a handle such as first.last) would run on every
	// token of every request.
	need prefilter.Clauses
	// found remembers the values found in the last texts: every close
	// candidate whose schema uses the pattern (the order skills' ORD-…)
	// looks for it in the same request.
	found memoOf[patternFound]
}

// patternFound is findPattern's answer, the value boxed once for every
// params map it goes into.
type patternFound struct {
	value any
	at    span
	ok    bool
}

func newCompiledPattern(pat string) *compiledPattern {
	anchor, err := regexp.Compile(pat)
	if err != nil {
		return &compiledPattern{}
	}
	cp := &compiledPattern{anchor: anchor, need: prefilter.Required(anchor)}
	cp.prefix, _ = anchor.LiteralPrefix()
	core := strings.TrimSuffix(strings.TrimPrefix(pat, "^"), "$")
	literal := 0
	for _, r := range core {
		if r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' {
			literal++
		}
	}
	if literal >= 2 {
		if loose, err := regexp.Compile("(?i)" + core); err == nil {
			cp.loose = newMemoRegexp(loose)
		}
	}
	return cp
}

// cueWords are the words near which a number belongs to this property:
// its name's parts and its description's words ("target replica count /
// 目标副本数" -> replica, count, target, 目标, 副本, ...).
func cueWords(name, desc string) []string {
	var out []string
	add := func(w string) {
		if len([]rune(w)) >= 1 && !slices.Contains(out, w) && !cueStopwords[w] {
			out = append(out, w)
		}
	}
	for _, part := range strings.FieldsFunc(lowerASCII(name), func(r rune) bool { return r == '_' || r == '-' }) {
		add(strings.TrimSuffix(part, "s"))
	}
	for _, t := range segment(desc, nil) {
		switch t.kind {
		case tokLatin:
			if len(t.text) >= 3 {
				add(strings.TrimSuffix(t.text, "s"))
			}
		case tokHan:
			rs := []rune(t.text)
			if len(rs) == 1 {
				add(t.text)
			}
			for i := 0; i+1 < len(rs); i++ {
				add(string(rs[i : i+2]))
			}
		}
	}
	return out
}

var cueStopwords = map[string]bool{"the": true, "and": true, "for": true, "with": true, "of": true,
	"in": true, "to": true, "a": true, "an": true, "or": true, "e.g": true}

// lowerASCII lowercases ASCII letters only, keeping byte offsets equal to
// the original's so spans found in it index the original text too.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// extract runs the plan: ids and paths first (they contain digits that are
// not numbers), then dates, enums, numbers and strings, each using up the
// text it consumed.
func extract(p *extractPlan, text string, now time.Time, known map[string][]string) map[string]any {
	lower := lowerASCII(text)
	return extractDated(p, text, lower, findDates(lower, now), known)
}

// extractDated is extract with the text's dates already found.
func extractDated(p *extractPlan, text, lower string, dates []dateSpan, known map[string][]string) map[string]any {
	out := paramsPool.Get().(map[string]any)
	taken := spansPool.Get().(*spans)
	p.fill(text, lower, dates, known, taken, out)
	taken.list = taken.list[:0]
	spansPool.Put(taken)
	return out
}

// fill runs the plan over text, writing into out and using up taken.
// Written name=value pairs go first; nested objects last, from what the
// other properties left.
func (p *extractPlan) fill(text, lower string, dates []dateSpan, known map[string][]string, taken *spans, out map[string]any) {
	assignExplicit(p, text, taken, out)
	for i := range p.props {
		if pp := &p.props[i]; pp.kind == propPattern {
			if f := patternIn(pp, text); f.ok {
				out[pp.name] = f.value
				taken.add(f.at.from, f.at.to)
			}
		}
	}
	// Dates are found even for a skill without date params, so their
	// digits ("11月3日") are not taken for numbers.
	var dsRoom [4]dateSpan // a request's usual dates, kept off the heap
	ds := assignDates(p, lower, dates, taken, out, dsRoom[:0])
	assignDateTimes(p, text, ds, taken, out)
	assignEnums(p, text, lower, taken, out)
	if p.hasNumbers {
		assignDescribedNumerals(p, lower, text, taken, out)
		assignPeriods(p, lower, taken, out)
		assignTimeCounts(p, lower, taken, out)
		assignOrdinalCounts(p, lower, taken, out)
		assignOrdinalLists(p, lower, taken, out)
		nums := findNumbers(text, taken)
		assignNumberLists(p, text, lower, nums, taken, out)
		assignNumbers(p, lower, nums, taken, out)
		assignUnitNames(p, text, nums, out)
	}
	assignCalendarNames(p, text, lower, taken, out)
	assignStrings(p, text, lower, taken, known, out)
	assignFromTo(p, text, lower, taken, out)
	assignLeftover(p, text, lower, taken, out)
	assignLeftoverList(p, text, lower, taken, out)
	assignBools(p, lower, out)
	assignObjects(p, text, lower, ds, known, taken, out)
	if p.hasCurrency {
		normalizeCurrencies(p, out)
	}
}

// unfilled yields, in plan order, the properties of one kind that out
// does not hold yet; one filled while the loop runs is not yielded later.
func (p *extractPlan) unfilled(out map[string]any, kind propKind) iter.Seq[*propPlan] {
	return func(yield func(*propPlan) bool) {
		for i := range p.props {
			pp := &p.props[i]
			if pp.kind != kind {
				continue
			}
			if _, done := out[pp.name]; done {
				continue
			}
			if !yield(pp) {
				return
			}
		}
	}
}

// patternIn is findPattern's value for text, remembered by the pattern.
func patternIn(pp *propPlan, text string) patternFound {
	if pp.pattern == nil {
		v, sp, ok := findPattern(pp, text)
		return patternFound{value: v, at: sp, ok: ok}
	}
	return pp.pattern.found.recall(text, func(text string) patternFound {
		v, sp, ok := findPattern(pp, text)
		if !ok {
			return patternFound{}
		}
		return patternFound{value: v, at: sp, ok: true}
	})
}

// findPattern finds a value matching the property's pattern: a whole
// token first (so "^/" finds a path), then, for id-like patterns, a match
// inside text, upper-cased when the pattern wants it ("ord-20261103").
// What it finds depends on the pattern and text alone.
func findPattern(pp *propPlan, text string) (string, span, bool) {
	// A token without the literal every match begins with, or without
	// what every match holds, cannot match, and a text without them holds
	// no such token.
	var need prefilter.Clauses
	if pp.pattern != nil {
		need = pp.pattern.need
	}
	if strings.Contains(text, pp.prefix) && need.Hold(text) {
		for tok := range rawTokens(text) {
			v := text[tok.from:tok.to]
			if strings.Contains(v, pp.prefix) && need.Hold(v) && pp.anchor.MatchString(v) {
				return v, tok, true
			}
		}
	}
	if pp.loose == nil {
		return "", span{}, false
	}
	for _, m := range pp.loose.allIndex(text) {
		if gluedToWord(text, m[0], m[1]) {
			continue // "ORD-123456789" holds no 8-digit order id
		}
		v := text[m[0]:m[1]]
		if !pp.anchor.MatchString(v) {
			v = strings.ToUpper(v)
		}
		if pp.anchor.MatchString(v) {
			return v, span{m[0], m[1]}, true
		}
	}
	return "", span{}, false
}

// assignDates fills date properties: a start/end pair from a range ("上周",
// "last 7 days"), from two dates ("from 2026-11-01 to 2026-11-15") or from
// one day (both ends); a single date property from the first date. The
// dates it used are appended to ds (an empty slice with room) and
// returned; nil when it used none.
func assignDates(p *extractPlan, lower string, found []dateSpan, taken *spans, out map[string]any, ds []dateSpan) []dateSpan {
	dated := slices.ContainsFunc(p.props, func(pp propPlan) bool { return pp.kind == propDate })
	countsTime := slices.ContainsFunc(p.props, func(pp propPlan) bool { return pp.counts != "" })
	for _, d := range found {
		// For a skill with no date to fill, "the past 5 days" is a count
		// of days, and its number is free for a property that counts
		// them; so is "next week" when one counts days or weeks.
		if !d.absolute && !dated && (strings.ContainsAny(lower[d.from:d.to], "0123456789") || countsTime) {
			continue
		}
		if !taken.overlaps(d.from, d.to) {
			ds = append(ds, d)
			taken.add(d.from, d.to)
		}
	}
	if len(ds) == 0 {
		return nil
	}
	ends := ds
	if len(ds) == 1 && ds[0].absolute && hasDateRoles(p) {
		// "3 nights from 1 June": the stay ends 3 days after it starts.
		if n, sp, ok := nightsSaid(lower, taken); ok {
			stay := ds[0]
			stay.end = stay.start.AddDate(0, 0, n)
			ends = []dateSpan{stay}
			// The count is the stay's, unless a property counts nights.
			if !slices.ContainsFunc(p.props, func(pp propPlan) bool { return pp.kind == propNumber && slices.Contains(pp.nameCues, "night") }) {
				taken.add(sp.from, sp.to)
			}
		}
	}
	for _, pp := range p.props {
		if pp.kind != propDate {
			continue
		}
		from := ds
		if pp.date == dateEnd {
			from = ends
		}
		if day, ok := dateFor(&pp, from); ok {
			out[pp.name] = formatted(day, pp.layout)
		}
	}
	return ds
}

// hasDateRoles reports whether the plan has both a start and an end date.
func hasDateRoles(p *extractPlan) bool {
	start, end := false, false
	for _, pp := range p.props {
		start = start || pp.kind == propDate && pp.date == dateStart
		end = end || pp.kind == propDate && pp.date == dateEnd
	}
	return start && end
}

// nightsRe finds a length of stay in nights: "4 nights", "for five nights".
var nightsRe = memoCompile(`\b(\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fourteen)\s+nights?\b`)

// nightsSaid is the number of nights a request books, and where it says so.
func nightsSaid(lower string, taken *spans) (int, span, bool) {
	if !strings.Contains(lower, "night") {
		return 0, span{}, false
	}
	for _, m := range nightsRe.allSubmatchIndex(lower) {
		if taken.overlaps(m[0], m[1]) {
			continue
		}
		n, err := strconv.Atoi(lower[m[2]:m[3]])
		if err != nil {
			n, _ = parseCount(lower[m[2]:m[3]])
		}
		if n > 0 {
			return n, span{m[0], m[1]}, true
		}
	}
	return 0, span{}, false
}

// assignEnums matches every way of writing every enum value, longest
// first; each phrase is used once. A property takes its longest match; a
// list of enum values takes every value matched, in the text's order.
func assignEnums(p *extractPlan, text, lower string, taken *spans, out map[string]any) {
	type hit struct {
		prop int
		term enumTerm
		at   int
	}
	var room [16]hit
	hits := room[:0]
	lists := false
	for i := range p.props {
		pp := &p.props[i]
		if pp.kind != propEnum && pp.kind != propEnumList {
			continue
		}
		lists = lists || pp.kind == propEnumList
		for _, t := range pp.terms {
			for from := 0; ; {
				k := strings.Index(lower[from:], t.term)
				if k < 0 {
					break
				}
				at := from + k
				from = at + len(t.term)
				if t.latin && !wordBounded(lower, at, at+len(t.term)) {
					continue
				}
				if len(t.term) == 1 && text[at] != t.value[0] {
					continue // the value 'A' is not the article "a"
				}
				if pp.kind == propEnumList && insideName(text, t, at) {
					continue // "history" is no topic asked for in "the Maritime History Hall"
				}
				hits = append(hits, hit{prop: i, term: t, at: at})
			}
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int {
		if d := len(b.term.term) - len(a.term.term); d != 0 {
			return d
		}
		return a.at - b.at
	})
	var listed []hit
	for _, h := range hits {
		pp := &p.props[h.prop]
		end := h.at + len(h.term.term)
		if _, done := out[pp.name]; done || taken.overlaps(h.at, end) {
			continue
		}
		taken.add(h.at, end)
		if pp.kind == propEnumList {
			listed = append(listed, h)
			continue
		}
		out[pp.name] = h.term.boxed
	}
	if !lists || len(listed) == 0 {
		return
	}
	slices.SortStableFunc(listed, func(a, b hit) int { return a.at - b.at })
	for _, h := range listed {
		name := p.props[h.prop].name
		vals, _ := out[name].([]any)
		if !slices.Contains(vals, h.term.boxed) {
			out[name] = append(vals, h.term.boxed)
		}
	}
}

// insideName reports whether an enum term found at byte at is a word of
// a capitalised name: the value is written in lowercase, the text
// capitalises it, and a capitalised word stands right before or after.
func insideName(text string, t enumTerm, at int) bool {
	c := text[at]
	if c < 'A' || c > 'Z' || t.value == "" || t.value[0] < 'a' || t.value[0] > 'z' {
		return false
	}
	before := strings.TrimRight(text[:at], " ")
	after := strings.TrimLeft(text[min(at+len(t.term), len(text)):], " ")
	capitalEnd := len(before) < at && before != "" && wordStartsUpper(before[strings.LastIndexByte(before, ' ')+1:])
	capitalNext := len(after) < len(text)-at-len(t.term) && wordStartsUpper(after)
	return capitalEnd || capitalNext
}

func wordStartsUpper(w string) bool { return w != "" && w[0] >= 'A' && w[0] <= 'Z' }

// enumItems is the item schema of an array whose items are strings from
// an enum, nil for any other array.
func enumItems(schema map[string]any) map[string]any {
	items, _ := schema["items"].(map[string]any)
	if items["enum"] == nil || items["type"] != nil && items["type"] != "string" {
		return nil
	}
	return items
}

func wordBounded(s string, from, to int) bool {
	before := from == 0 || !isLatinOrDigit(rune(s[from-1]))
	after := to == len(s) || !isLatinOrDigit(rune(s[to]))
	return before && after
}
