package builtin

import (
	"regexp"
	"slices"
	"strings"
)

// placeNameWords in a property's name say it holds a proper name;
// placeDescWords do so in its description.
var (
	placeNameWords = []string{"city", "country", "location", "place", "destination", "origin", "state",
		"province", "address", "venue", "company", "team", "player", "artist", "author", "person",
		"species", "brand", "restaurant", "hotel", "park", "museum", "club", "league", "name",
		"cities", "countries", "companies", "parties", "teams", "players"}
	placeDescWords = []string{"city", "country", "location", "destination", "company", "team"}
)

// namesPlace reports whether a string property holds a place, person or
// organisation, from its name or description.
func namesPlace(name, desc string) bool {
	for _, w := range placeNameWords {
		if strings.Contains(name, w) {
			return true
		}
	}
	for _, w := range placeDescWords {
		if strings.Contains(desc, w) {
			return true
		}
	}
	return false
}

// properNameRe finds a run of capitalised words, joined by spaces or a
// lowercase particle ("Isle of Man", "Rio de Janeiro"), optionally followed
// by a two-letter state code ("San Francisco, CA").
var properNameRe = regexp.MustCompile(`\b[A-Z][A-Za-z'&.-]*(?:\s+(?:(?:of|de|del|la|le|du|von|van|upon)\s+)?[A-Z][A-Za-z'&.-]*)*(?:,\s*(?:[A-Z]{2}\b|[A-Z]\.[A-Z]\.))?`)

// nameLeads are the words a proper name of a place or party follows in a
// request: "in Brazil", "from Sydney to Melbourne", "for Homo Sapiens".
// A capitalised phrase after anything else ("the Population Density",
// the sentence's first word) is not taken.
var nameLeads = map[string]bool{"in": true, "at": true, "from": true, "to": true, "for": true,
	"near": true, "between": true, "and": true, "of": true, "visit": true, "visiting": true,
	"around": true, "by": true, "with": true, "against": true, "vs": true, "versus": true}

// properName is a capitalised phrase and the word before it.
type properName struct {
	span
	lead string
}

func properNames(text string, taken *spans) []properName {
	var out []properName
	add := func(from, to int) {
		if taken.overlaps(from, to) || to-from < 2 {
			return
		}
		lead := strings.TrimRight(text[:from], " '\"`“「『")
		if k := strings.LastIndexAny(lead, " ,(\"'"); k >= 0 {
			lead = lead[k+1:]
		}
		out = append(out, properName{span{from, to}, lowerASCII(lead)})
	}
	for _, m := range properNameRe.FindAllStringIndex(text, -1) {
		from, to := m[0], m[1]
		to = from + sentenceEnd(text[from:to])
		for to > from && (text[to-1] == '.' || text[to-1] == '\'' || text[to-1] == '-') && !strings.Contains(text[from:to-1], ".") {
			to-- // a sentence's full stop, not "D.C."
		}
		if strings.HasSuffix(text[from:to], "'s") {
			to -= 2 // "Ronaldo's matches": the name is Ronaldo
		}
		if !inQuote(text, from) {
			add(from, to)
		}
	}
	// Quoted text is a name too: "the company 'Google'".
	if strings.ContainsAny(text, "\"“「『'`") {
		for _, q := range quotedSpans(text) {
			add(q.from, q.to)
		}
	}
	slices.SortStableFunc(out, func(a, b properName) int { return a.from - b.from })
	return out
}

// inQuote reports whether a capitalised run starts right after a quote
// mark; the quote's whole text is taken instead.
func inQuote(text string, from int) bool {
	return from > 0 && strings.ContainsRune("'\"`", rune(text[from-1]))
}

// assignNames fills place/person/organisation properties with capitalised
// names that follow a preposition. A property named for where a journey
// starts takes the name after "from", one named for where it ends the name
// after "to"; the others take the remaining names in order. Lowercase
// words are never taken: "a small green bird in forest" names no place.
func assignNames(p *extractPlan, text string, taken *spans, out map[string]any) {
	var props []int
	for i := range p.props {
		pp := &p.props[i]
		if _, done := out[pp.name]; !done && pp.kind == propString && pp.role == roleName {
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
	used := make([]bool, len(names))
	take := func(i, k int) {
		out[p.props[i].name] = text[names[k].from:names[k].to]
		taken.add(names[k].from, names[k].to)
		used[k] = true
	}
	// A name right after the property's own word is the surest: "the
	// artist Beyonce", "company Google", "player Messi"; then a name that
	// says what it is: "Premier League" is a league, "Louvre Museum" a museum.
	for _, i := range props {
		for k, n := range names {
			if !used[k] && slices.Contains(p.props[i].nameCues, strings.TrimSuffix(n.lead, "s")) {
				take(i, k)
				break
			}
		}
	}
	for _, i := range props {
		if _, done := out[p.props[i].name]; done {
			continue
		}
		for k, n := range names {
			if !used[k] && namesItsKind(text[n.from:n.to], p.props[i].nameCues) {
				take(i, k)
				break
			}
		}
	}
	for k, n := range names {
		if !nameLeads[n.lead] {
			used[k] = true // "the Population Density", a sentence's first word
		}
	}
	var rest []int
	for _, i := range props {
		if _, done := out[p.props[i].name]; done {
			continue
		}
		lead := journeyLead(p.props[i].name)
		found := false
		for k, n := range names {
			if lead != "" && !used[k] && n.lead == lead {
				take(i, k)
				found = true
				break
			}
		}
		if !found {
			rest = append(rest, i)
		}
	}
	// "between Boston and Washington": the start is named first.
	rank := map[string]int{"from": 0, "": 1, "to": 2}
	slices.SortStableFunc(rest, func(a, b int) int {
		return rank[journeyLead(p.props[a].name)] - rank[journeyLead(p.props[b].name)]
	})
	k := 0
	for _, i := range rest {
		for k < len(names) && used[k] {
			k++
		}
		if k == len(names) {
			return
		}
		take(i, k)
	}
}

// journeyLead is the preposition before the value of a journey's start
// ("from") or end ("to") property, "" for other properties.
func journeyLead(name string) string {
	n := strings.ToLower(name)
	switch {
	case strings.Contains(n, "start") || strings.Contains(n, "origin") || strings.Contains(n, "from") ||
		strings.Contains(n, "source") || strings.Contains(n, "depart"):
		return "from"
	case strings.Contains(n, "end") || strings.Contains(n, "destination") || n == "to" ||
		strings.HasPrefix(n, "to_") || strings.Contains(n, "arriv"):
		return "to"
	}
	return ""
}

// sentenceEnd cuts a capitalised run at a full stop that ends a sentence
// ("Texas. Don't"): after a word of four letters or more, unlike "Mr. X"
// or "Apple Inc.".
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

// describedRe finds the values a description quotes: "The measure unit
// for price, like 'ounce' or 'kg'".
var describedRe = regexp.MustCompile(`'([^']{1,40})'|"([^"]{1,40})"`)

// describedValues lists a description's quoted values, longest first.
func describedValues(desc string) []string {
	var out []string
	for _, m := range describedRe.FindAllStringSubmatch(desc, -1) {
		v := m[1] + m[2]
		if v = strings.TrimSpace(v); v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	slices.SortStableFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

// assignDescribedValues fills a string property with a value its
// description quotes when the text says that value as a whole word: a
// description's "like 'ounce' or 'kg'" and "price per ounce" give
// "ounce". A quoted value the text does not say is not chosen.
func assignDescribedValues(p *extractPlan, lower, text string, taken *spans, out map[string]any) {
	for i := range p.props {
		pp := &p.props[i]
		if _, done := out[pp.name]; done || pp.kind != propString || len(pp.described) == 0 {
			continue
		}
		for _, v := range pp.described {
			lv := lowerASCII(v)
			found := false
			cueAt(lower, lv, func(at int) {
				end := at + len(lv)
				if found || !wordBounded(lower, at, end) || taken.overlaps(at, end) {
					return
				}
				out[pp.name] = text[at:end]
				taken.add(at, end)
				found = true
			})
			if found {
				break
			}
		}
	}
}

func stringItems(schema map[string]any) bool {
	items, _ := schema["items"].(map[string]any)
	return items["type"] == "string"
}

// assignStringLists fills one array-of-strings property from a written
// list: capitalised names joined by commas and "and" ("Microsoft and
// Google", "John and Alice") for a property of names, quoted values
// ("'Age', 'Income' and 'Education'") for any. A lone name fills a list
// of names only after a preposition or the property's own word ("stock
// price of Apple"). With two such properties nothing is filled: which
// list is which would be a guess.
func assignStringLists(p *extractPlan, text string, taken *spans, out map[string]any) {
	prop := -1
	for i := range p.props {
		if p.props[i].kind == propStringList {
			if prop >= 0 {
				return
			}
			prop = i
		}
	}
	if prop < 0 {
		return
	}
	pp := &p.props[prop]
	var items []properName
	if pp.role == roleName {
		items = properNames(text, taken)
	} else if strings.ContainsAny(text, "\"“「『'`") {
		for _, q := range quotedSpans(text) {
			if !taken.overlaps(q.from, q.to) {
				items = append(items, properName{span: q})
			}
		}
	}
	var best []properName
	for k := 0; k < len(items); {
		run := []properName{items[k]}
		for k+1 < len(items) && listSeparator(strings.Trim(text[items[k].to:items[k+1].from], "'\"`”」』“「『")) {
			k++
			run = append(run, items[k])
		}
		k++
		lone := len(run) == 1 && (pp.role != roleName || !nameLeads[run[0].lead] && !slices.Contains(pp.nameCues, strings.TrimSuffix(run[0].lead, "s")))
		if !lone && len(run) > len(best) {
			best = run
		}
	}
	if len(best) == 0 {
		return
	}
	vals := make([]any, len(best))
	for k, n := range best {
		vals[k] = text[n.from:n.to]
		taken.add(n.from, n.to)
	}
	out[pp.name] = vals
}

// namesItsKind reports whether a name's last word is one of a property's
// name words other than "name": "Premier League" for league.
func namesItsKind(name string, cues []string) bool {
	words := strings.Fields(lowerASCII(name))
	if len(words) < 2 {
		return false
	}
	last := strings.TrimSuffix(strings.Trim(words[len(words)-1], ".,'"), "s")
	return last != "name" && slices.Contains(cues, last)
}
