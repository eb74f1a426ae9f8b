package builtin

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// nameClass is the kind of proper name a string property holds, read from
// the words of its name and description.
type nameClass uint8

const (
	classNone   nameClass = iota
	classPlace            // a city, country, address
	classPerson           // an author, actor, player
	classOrg              // a company, team, store
	classWork             // a title: a book, film, game, event
	classAny              // "name" alone: any proper name
)

// classWords are English words that say which kind of name a property
// holds. They are categories, not values: "city" says a city's name goes
// there, whatever the city.
var classWords = map[nameClass][]string{
	classPlace: {"city", "town", "country", "nation", "state", "province", "region", "county", "district", "location",
		"place", "destination", "origin", "address", "venue", "site", "area", "continent", "island", "airport",
		"station", "where", "locale", "neighborhood", "neighbourhood", "capital"},
	classPerson: {"person", "people", "author", "artist", "actor", "actress", "director", "player", "singer", "composer",
		"writer", "creator", "owner", "customer", "employee", "member", "leader", "president", "scientist",
		"inventor", "discoverer", "celebrity", "athlete", "musician", "painter", "poet", "founder", "manager",
		"patient", "student", "teacher", "doctor", "lawyer", "politician", "king", "queen", "monarch", "who",
		"individual", "cast", "star", "performer", "contact", "friend", "sender", "buyer", "seller", "candidate"},
	classOrg: {"company", "organization", "organisation", "corporation", "firm", "business", "brand", "team", "club",
		"league", "store", "shop", "bank", "school", "university", "college", "hospital", "restaurant", "hotel",
		"museum", "library", "agency", "institution", "publisher", "manufacturer", "network", "channel", "airline",
		"chain", "vendor", "supplier", "provider", "exchange", "party", "parties"},
	classWork: {"title", "book", "movie", "film", "song", "album", "game", "show", "series", "event", "project",
		"product", "recipe", "novel", "painting", "artwork", "play", "course", "treaty", "war", "battle", "theory",
		"law", "invention", "discovery", "track", "podcast", "episode", "app", "application"},
}

// nameClassOf reads a property's name class from its name parts, then its
// description's words. A bare "name" part accepts any proper name; a name
// ending in "id" holds an identifier, whatever it identifies.
func nameClassOf(parts []string, desc string) nameClass {
	if k := len(parts); k > 0 && (parts[k-1] == "id" || parts[k-1] == "ids" || parts[k-1] == "identifier") {
		return classNone // donor_id holds the donor's id, not a name
	}
	find := func(words []string) nameClass {
		for _, c := range []nameClass{classPlace, classPerson, classOrg, classWork} {
			for _, w := range words {
				if slices.Contains(classWords[c], w) || slices.Contains(classWords[c], strings.TrimSuffix(w, "s")) {
					return c
				}
			}
		}
		return classNone
	}
	if c := find(parts); c != classNone {
		return c
	}
	if slices.Contains(parts, "name") {
		var words []string
		for _, t := range segment(desc, nil) {
			if t.kind == tokLatin {
				words = append(words, t.text)
			}
		}
		if c := find(words); c != classNone {
			return c
		}
		return classAny
	}
	return classNone
}

// properNameRe finds a run of capitalised words, joined by spaces or a
// lowercase particle ("Isle of Man", "Rio de Janeiro"), optionally followed
// by a two-letter region code ("Austin, TX"). Letters are any cased script's
// ("São Paulo", "Łódź", "Björk"); RE2's \b knows only ASCII, so a match
// must start where a word can (wordStart), which properNames checks.
var properNameRe = memoCompile(`\p{Lu}[\p{Lu}\p{Ll}\p{Lt}\p{M}0-9'&.+-]*(?:\s+(?:(?:of|de|del|la|le|du|von|van|upon|the)\s+)?\p{Lu}[\p{Lu}\p{Ll}\p{Lt}\p{M}0-9'&.+-]*)*(?:,\s*(?:[A-Z]{2}\b|[A-Z]\.[A-Z]\.))?`)

// wordStart reports whether a word can start at byte i of text: nothing
// before it, or a rune that is not part of a word ("iPhone" holds no name
// starting at P; "重启Payment" does, Chinese having no spaces).
func wordStart(text string, i int) bool {
	if i == 0 {
		return true
	}
	_, size := utf8.DecodeLastRuneInString(text[:i])
	ok, _ := wordRuneAt(text, i-size)
	return !ok && !(text[i-size] >= 'A' && text[i-size] <= 'Z')
}

// properName is a capitalised phrase and the words before it.
type properName struct {
	span
	lead  string // the word before, lowercased
	lead2 string // the two words before ("directed by")
	quote bool   // written in quotes
	first bool   // starts a sentence, so its capital proves nothing
}

func properNames(text string, taken *spans) []properName {
	var out []properName
	add := func(from, to int, quote bool) {
		if taken.overlaps(from, to) || to-from < 2 {
			return
		}
		before := strings.TrimRight(text[:from], " '\"`“「『")
		words := strings.Fields(lowerASCII(before))
		n := properName{span: span{from, to}, quote: quote}
		// An article says nothing of the name's role: "in the Louvre"
		// leads with "in".
		if k := len(words); k > 1 && (words[k-1] == "the" || words[k-1] == "a" || words[k-1] == "an") {
			words = words[:k-1]
		}
		if len(words) > 0 {
			n.lead = strings.Trim(words[len(words)-1], ",;:()")
		}
		if len(words) > 1 {
			n.lead2 = strings.Trim(words[len(words)-2], ",;:()") + " " + n.lead
		}
		n.first = sentenceStart(before)
		out = append(out, n)
	}
	for _, m := range properNameRe.allIndex(text) {
		from, to := m[0], m[1]
		if !wordStart(text, from) {
			continue
		}
		to = from + sentenceEnd(text[from:to])
		for to > from && (text[to-1] == '.' || text[to-1] == '\'' || text[to-1] == '-') && !strings.Contains(text[from:to-1], ".") {
			to-- // a sentence's full stop, not "D.C."
		}
		if strings.HasSuffix(text[from:to], "'s") {
			to -= 2 // "Ada's books": the name is Ada
		}
		// "of" and "the" join words inside a name ("Bank of the West"); at
		// its end they are the sentence's.
		for _, tail := range []string{" the", " of"} {
			to = from + len(strings.TrimSuffix(text[from:to], tail))
		}
		if !inQuote(text, from) {
			add(from, to, false)
		}
	}
	// Quoted text is a name too: "the company 'Acme'".
	if quoteMarks.in(text) {
		for _, q := range quotedSpans(text) {
			add(q.from, q.to, true)
		}
	}
	slices.SortStableFunc(out, func(a, b properName) int { return a.from - b.from })
	// A single capitalised word that starts a sentence is the sentence's
	// verb or question word more often than a name ("Find ...", "What ...").
	kept := out[:0]
	for _, n := range out {
		if n.first && !n.quote && !strings.Contains(text[n.from:n.to], " ") {
			continue
		}
		if !n.quote && calendarNames[text[n.from:n.to]] {
			continue // "in October" says when, not where
		}
		kept = append(kept, n)
	}
	return kept
}

// calendarNames are the capitalised words that name a month or a day of
// the week. "May" is left out: it is a person's name as often.
var calendarNames = map[string]bool{
	"January": true, "February": true, "March": true, "April": true, "June": true, "July": true, "August": true,
	"September": true, "October": true, "November": true, "December": true, "Monday": true, "Tuesday": true,
	"Wednesday": true, "Thursday": true, "Friday": true, "Saturday": true, "Sunday": true,
}

// assignCalendarNames fills a string property named for a month or a day
// of the week ("month", "weekday", "day_of_week") with the month or day
// the request names: "the harvest in October" gives "October".
func assignCalendarNames(p *extractPlan, text, lower string, taken *spans, out map[string]any) {
	for pp := range p.unfilled(out, propString) {
		month := slices.Contains(pp.nameCues, "month")
		weekday := slices.Contains(pp.nameCues, "weekday") || slices.Contains(pp.nameCues, "week") && slices.Contains(pp.nameCues, "day")
		if !month && !weekday {
			continue
		}
		for from, to := nextWord(lower, 0); from < to; from, to = nextWord(lower, to) {
			w := text[from:to]
			if !calendarNames[w] || taken.overlaps(from, to) || month != isMonthName(w) {
				continue
			}
			out[pp.name] = w
			taken.add(from, to)
			break
		}
	}
}

// isMonthName: a calendarNames word that names a month.
func isMonthName(w string) bool { return !strings.HasSuffix(w, "day") }

// sentenceStart reports whether text before a word ends a sentence (or is
// empty).
func sentenceStart(before string) bool {
	t := strings.TrimRight(before, " \t\"'(")
	return t == "" || strings.HasSuffix(t, ".") || strings.HasSuffix(t, "?") || strings.HasSuffix(t, "!") || strings.HasSuffix(t, ":")
}

// inQuote reports whether a capitalised run starts right after a quote
// mark; the quote's whole text is taken instead.
func inQuote(text string, from int) bool {
	return from > 0 && strings.ContainsRune("'\"`", rune(text[from-1]))
}

// roleCues are the words before a name that say which role it plays:
// "directed by X" names a director, "starring X" an actor, "by X" an
// author, artist or maker. Each lists the property words it fills.
var roleCues = []struct {
	cue   string
	roles []string
}{
	{"directed by", []string{"director", "filmmaker"}},
	{"written by", []string{"author", "writer"}},
	{"composed by", []string{"composer", "artist"}},
	{"painted by", []string{"artist", "painter"}},
	{"sung by", []string{"artist", "singer", "performer"}},
	{"performed by", []string{"artist", "performer", "singer", "band"}},
	{"invented by", []string{"inventor"}},
	{"discovered by", []string{"discoverer", "scientist"}},
	{"founded by", []string{"founder"}},
	{"published by", []string{"publisher"}},
	{"produced by", []string{"producer", "studio"}},
	{"made by", []string{"manufacturer", "maker", "brand", "company"}},
	{"manufactured by", []string{"manufacturer", "maker", "brand"}},
	{"owned by", []string{"owner"}},
	{"starring", []string{"actor", "actress", "cast", "star", "performer"}},
	{"featuring", []string{"actor", "actress", "cast", "artist", "performer", "featured"}},
	{"with actor", []string{"actor", "cast"}},
	{"by", []string{"author", "artist", "creator", "director", "composer", "writer", "painter", "maker", "brand", "manufacturer", "band", "singer"}},
}

// roleCueFits reports whether the words before a name are a role cue for
// a property with these name parts, and how specific the cue is (longer
// cues are surer).
func roleCueFits(n properName, parts []string) (int, bool) {
	for _, rc := range roleCues {
		if n.lead != rc.cue && n.lead2 != rc.cue {
			continue
		}
		for _, r := range rc.roles {
			if slices.Contains(parts, r) {
				return len(rc.cue), true
			}
		}
		return 0, false
	}
	return 0, false
}

// placeLeads are prepositions a place's name follows.
var placeLeads = map[string]bool{"in": true, "at": true, "near": true, "around": true, "within": true, "across": true,
	"inside": true, "outside": true, "from": true, "to": true, "of": true, "between": true, "and": true, "visit": true,
	"visiting": true, "towards": true, "into": true}

// partyLeads are words a person's or organisation's name follows when no
// role cue says more.
var partyLeads = map[string]bool{"for": true, "of": true, "by": true, "with": true, "against": true, "vs": true,
	"versus": true, "and": true, "between": true, "from": true, "to": true, "at": true, "in": true}

// wideRegions are the place words for an area that holds towns: in "A,
// B" the town comes first.
var wideRegions = map[string]bool{"country": true, "nation": true, "state": true, "province": true, "region": true,
	"county": true, "continent": true}

// regionFollows reports whether a capitalised word follows a comma right
// after byte i: "Porto, Portugal".
func regionFollows(text string, i int) bool {
	rest, comma := strings.CutPrefix(text[i:], ",")
	rest = strings.TrimLeft(rest, " ")
	return comma && rest != "" && rest[0] >= 'A' && rest[0] <= 'Z'
}

// locativeLeads are the prepositions that lead a place more often than
// a person or organisation.
var locativeLeads = map[string]bool{"in": true, "at": true, "near": true}

// leadShared is what a preposition that leads the other kind of name more
// often costs.
const leadShared = 4

// Scores of the evidence tying a name to a property: lower is surer.
const (
	scoreOwnWord   = 0  // "the player Okafor", "company Acme"
	scoreItsKind   = 5  // "Acme Hotel" for hotel_name
	scoreRoleCue   = 10 // "directed by Ana Li" for director
	scoreJourney   = 10 // "from Oslo" for origin
	scoreClassLead = 20 // "in Lyon" for a city, "for Acme" for a company
	scoreDescCue   = 30 // a description word right before the name
	scoreLastLeft  = 60 // the only name left for the only required name property
)

// assignNames fills place, person, organisation and title properties with
// capitalised or quoted names, each name once, the surest pairs first.
// Lowercase words are never taken as names: "a little yellow house in
// the valley" names no place.
func assignNames(p *extractPlan, text string, taken *spans, out map[string]any) {
	var props []int
	for i := range p.props {
		pp := &p.props[i]
		if _, done := out[pp.name]; !done && pp.kind == propString && pp.class != classNone {
			props = append(props, i)
		}
	}
	if len(props) == 0 {
		return
	}
	names := properNames(text, taken)
	if len(names) == 0 {
		return
	}
	type pair struct{ prop, name, score int }
	var pairs []pair
	for _, i := range props {
		pp := &p.props[i]
		for k, n := range names {
			if s, ok := nameScore(pp, text, n); ok {
				pairs = append(pairs, pair{i, k, s})
			}
		}
	}
	slices.SortStableFunc(pairs, func(a, b pair) int {
		if a.score != b.score {
			return a.score - b.score
		}
		if a.name != b.name {
			return a.name - b.name
		}
		return a.prop - b.prop
	})
	used := make([]bool, len(names))
	for _, pr := range pairs {
		pp := &p.props[pr.prop]
		n := names[pr.name]
		if _, done := out[pp.name]; done || used[pr.name] || taken.overlaps(n.from, n.to) {
			continue
		}
		out[pp.name] = formatName(pp, text, n.span)
		taken.add(n.from, n.to)
		used[pr.name] = true
	}
	// The only required name property left takes the only name left that
	// follows a preposition: "weather in Oslo" for a bare "location".
	var left []int
	for _, i := range props {
		if _, done := out[p.props[i].name]; !done && p.props[i].required {
			left = append(left, i)
		}
	}
	var free []int
	for k, n := range names {
		if !used[k] && !taken.overlaps(n.from, n.to) && (placeLeads[n.lead] || partyLeads[n.lead] || n.quote) {
			free = append(free, k)
		}
	}
	if len(left) == 1 && len(free) == 1 {
		n := names[free[0]]
		out[p.props[left[0]].name] = formatName(&p.props[left[0]], text, n.span)
		taken.add(n.from, n.to)
	}
}

// nameScore says how surely a name is a property's value.
func nameScore(pp *propPlan, text string, n properName) (int, bool) {
	lead := strings.TrimSuffix(n.lead, "s")
	switch {
	case slices.Contains(pp.nameCues, lead) && lead != "name":
		return scoreOwnWord, true
	case namesItsKind(text[n.from:n.to], pp.nameCues):
		return scoreItsKind, true
	}
	if k, ok := roleCueFits(n, pp.nameCues); ok {
		return scoreRoleCue - k/4, true
	}
	if j := journeyLead(pp.name); j != "" {
		if n.lead == j {
			return scoreJourney, true
		}
		if n.lead == "from" || n.lead == "to" {
			return 0, false // the other end of the journey
		}
	}
	if pp.class != classNone && pp.class != classAny && lead != "where" && lead != "who" && slices.Contains(classWords[pp.class], lead) {
		return scoreClassLead, true // "the player Ana Ruiz", "the film Dune": the word before says its kind
	}
	switch pp.class {
	case classPlace:
		if placeLeads[n.lead] && n.lead != "by" {
			score := scoreClassLead
			if regionFollows(text, n.to) && slices.ContainsFunc(pp.nameCues, func(c string) bool { return wideRegions[c] }) {
				score += leadShared // "Porto, Portugal": the first name is the town, not the country
			}
			if partyLeads[n.lead] && !locativeLeads[n.lead] {
				// "the works of Ada Moreno in Lyon": "of" leads a
				// person as often as a place, "in" a place.
				score += leadShared
			}
			// "between Oslo and Rome": the start is named first.
			if journeyLead(pp.name) == "to" {
				score++
			}
			return score, true
		}
	case classPerson, classOrg:
		if partyLeads[n.lead] {
			score := scoreClassLead + 5
			if locativeLeads[n.lead] {
				score += leadShared // "in Lyon" is more likely a place than a party
			}
			return score, true
		}
	case classWork:
		if n.quote || n.lead == "of" || n.lead == "about" || n.lead == "called" || n.lead == "titled" || n.lead == "named" {
			return scoreClassLead, true
		}
	case classAny:
		if n.quote || placeLeads[n.lead] || partyLeads[n.lead] || n.lead == "named" || n.lead == "called" {
			return scoreClassLead + 10, true
		}
	}
	for _, c := range pp.cues {
		if c == n.lead || c == lead {
			return scoreDescCue, true
		}
	}
	return 0, false
}

// journeyLead is the preposition before the value of a journey's start
// ("from") or end ("to") property, "" for other properties.
func journeyLead(name string) string {
	n := strings.ToLower(name)
	switch {
	case strings.Contains(n, "start") || strings.Contains(n, "origin") || strings.Contains(n, "from") ||
		strings.Contains(n, "source") || strings.Contains(n, "depart") || baseWord(name):
		return "from" // base_currency: what an exchange rate converts from
	case strings.Contains(n, "end") || strings.Contains(n, "destination") || n == "to" ||
		strings.HasPrefix(n, "to_") || strings.Contains(n, "arriv") || strings.Contains(n, "target"):
		return "to"
	}
	return ""
}

// baseWord: a name that starts with the word "base" (base_currency,
// baseUnit), not "baseball".
func baseWord(name string) bool {
	return name == "base" || len(name) > 4 && strings.HasPrefix(name, "base") && (name[4] == '_' || name[4] >= 'A' && name[4] <= 'Z')
}

// sentenceEnd cuts a capitalised run at a full stop that ends a sentence
// ("Texas. Please"): after a word of four letters or more, unlike "Mr. X"
// or "Acme Inc.".
func sentenceEnd(s string) int {
	for i := 0; i+1 < len(s); i++ {
		if s[i] != '.' || s[i+1] != ' ' {
			continue
		}
		w := i
		for w > 0 && s[w-1] != ' ' {
			w--
		}
		if i-w >= 4 && !strings.Contains(s[w:i], ".") {
			return i
		}
	}
	return len(s)
}

// namesItsKind reports whether a name of two words or more holds one of a
// property's name words other than "name": "Grand Hotel" and "Hotel
// Lumen" for hotel_name, "Museum of Flight" for museum.
func namesItsKind(name string, cues []string) bool {
	words := strings.Fields(lowerASCII(name))
	if len(words) < 2 {
		return false
	}
	for _, w := range words {
		w = strings.TrimSuffix(strings.Trim(w, ".,'"), "s")
		if w != "name" && slices.Contains(cues, w) {
			return true
		}
	}
	return false
}

// numberedStem is a property name without its trailing index: "team1",
// "team_2" and "player2" give "team" and "player"; "" when the name has no
// index.
func numberedStem(name string) string {
	i := len(name)
	for i > 0 && name[i-1] >= '0' && name[i-1] <= '9' {
		i--
	}
	if i == len(name) || i == 0 {
		return ""
	}
	return strings.TrimRight(name[:i], "_-")
}

// pairJoiners join the members of a pair written in a request: "Oslo and
// Rome", "Ajax vs Celtic", "a cat with a dog".
var pairJoiners = []string{",", "and", "&", "vs", "vs.", "versus", "against", "with", "or", "to"}

// assignNumbered fills indexed string properties (team1, team2) from a
// written pair or list of as many names, in order: "Ajax vs Celtic",
// "between Oslo, Rome and Lima". In a bare tool schema plain words count
// too: "compare a cat and a dog".
func assignNumbered(p *extractPlan, text, lower string, taken *spans, out map[string]any) {
	groups := map[string][]int{}
	var stems []string
	for i := range p.props {
		pp := &p.props[i]
		if pp.kind != propString {
			continue
		}
		if _, done := out[pp.name]; done {
			continue
		}
		if st := numberedStem(pp.name); st != "" {
			if _, seen := groups[st]; !seen {
				stems = append(stems, st)
			}
			groups[st] = append(groups[st], i)
		}
	}
	for _, st := range stems {
		props := groups[st]
		if len(props) < 2 {
			continue
		}
		slices.SortFunc(props, func(a, b int) int { return strings.Compare(p.props[a].name, p.props[b].name) })
		items := joinedRun(text, properNameSpans(text, taken), len(props))
		if items == nil && !p.examples {
			items = joinedRun(text, plainWordSpans(lower, taken), len(props))
		}
		for k, i := range props {
			if items == nil {
				break
			}
			out[p.props[i].name] = formatName(&p.props[i], text, items[k])
			taken.add(items[k].from, items[k].to)
		}
	}
}

func properNameSpans(text string, taken *spans) []span {
	var out []span
	for _, n := range properNames(text, taken) {
		out = append(out, n.span)
	}
	return out
}

// plainWordSpans are the content words of lower, one span each.
func plainWordSpans(lower string, taken *spans) []span {
	var out []span
	for _, w := range wordsOf(lower) {
		if contentWord(w.w) && !taken.overlaps(w.from, w.to) {
			out = append(out, w.span)
		}
	}
	return out
}

// joinedRun finds n consecutive items joined only by pair joiners (and
// articles), and returns them, or nil.
func joinedRun(text string, items []span, n int) []span {
	for k := 0; k+n <= len(items); k++ {
		ok := true
		for j := k; j < k+n-1 && ok; j++ {
			gap := strings.Fields(lowerASCII(strings.NewReplacer(",", " , ").Replace(text[items[j].to:items[j+1].from])))
			joined := false
			for _, g := range gap {
				switch {
				case slices.Contains(pairJoiners, g):
					joined = true
				case g != "a" && g != "an" && g != "the":
					ok = false
				}
			}
			ok = ok && joined
		}
		if ok {
			return items[k : k+n]
		}
	}
	return nil
}
