package builtin

import (
	"regexp"
	"slices"
	"strings"
)

// regionExampleRe finds a description's example of a place written with
// its region: "e.g. Austin, TX", "such as Lyon, France".
var regionExampleRe = regexp.MustCompile(`\b[A-Z][a-z]+(?:\s[A-Z][a-z]+)*,\s?([A-Z]{2}|[A-Z][a-z]+(?:\s[A-Z][a-z]+)*)\b`)

// usStates maps US state names to their postal codes: a description
// whose example writes "Austin, TX" wants "Boise, Idaho" as "Boise, ID".
var usStates = map[string]string{"alabama": "AL", "alaska": "AK", "arizona": "AZ", "arkansas": "AR",
	"california": "CA", "colorado": "CO", "connecticut": "CT", "delaware": "DE", "florida": "FL", "georgia": "GA",
	"hawaii": "HI", "idaho": "ID", "illinois": "IL", "indiana": "IN", "iowa": "IA", "kansas": "KS", "kentucky": "KY",
	"louisiana": "LA", "maine": "ME", "maryland": "MD", "massachusetts": "MA", "michigan": "MI", "minnesota": "MN",
	"mississippi": "MS", "missouri": "MO", "montana": "MT", "nebraska": "NE", "nevada": "NV", "new hampshire": "NH",
	"new jersey": "NJ", "new mexico": "NM", "new york": "NY", "north carolina": "NC", "north dakota": "ND",
	"ohio": "OH", "oklahoma": "OK", "oregon": "OR", "pennsylvania": "PA", "rhode island": "RI",
	"south carolina": "SC", "south dakota": "SD", "tennessee": "TN", "texas": "TX", "utah": "UT", "vermont": "VT",
	"virginia": "VA", "washington": "WA", "west virginia": "WV", "wisconsin": "WI", "wyoming": "WY",
	"district of columbia": "DC"}

// regionFormat is how a place property writes a region after the place.
type regionFormat uint8

const (
	regionAsWritten regionFormat = iota // as the request writes it: "Lyon" or "Lyon, France"
	regionAsIs                          // the place and the region written after it: "Lyon, France"
	regionCode                          // a two-letter code: "Austin, TX"
)

// regionFormatOf reads a place property's description: an example with a
// two-letter code wants codes; one with a spelled-out region, or words
// such as "city and state", want the region written after the place too;
// otherwise the name is taken as the request writes it.
func regionFormatOf(desc string) regionFormat {
	if m := regionExampleRe.FindStringSubmatch(desc); m != nil {
		if len(m[1]) == 2 && strings.ToUpper(m[1]) == m[1] {
			return regionCode
		}
		return regionAsIs
	}
	d := lowerASCII(desc)
	for _, w := range []string{"city and state", "city and country", "city, state", "city, country", "state or country", "city/state"} {
		if strings.Contains(d, w) {
			return regionAsIs
		}
	}
	return regionAsWritten
}

// formatName writes a name found at sp as the property wants it: a place
// with or without the region the request writes after it ("Boise,
// Idaho"), a region as a code when the description's example uses codes.
func formatName(pp *propPlan, text string, sp span) string {
	v := strings.TrimSpace(text[sp.from:sp.to])
	if pp.class != classPlace {
		return v
	}
	place, region, hasRegion := strings.Cut(v, ",")
	region = strings.TrimSpace(region)
	if !hasRegion {
		// A region written after the name: ", Idaho", ", France".
		if m := trailingRegionRe.FindStringSubmatch(text[sp.to:]); m != nil {
			region, hasRegion = m[1], true
		}
	}
	switch pp.region {
	case regionAsWritten:
		return v
	case regionCode:
		if code, ok := usStates[lowerASCII(region)]; ok {
			region = code
		}
	}
	if !hasRegion {
		// "weather in Boston" for "e.g. Austin, TX": a well-known city's
		// region is known.
		if region, hasRegion = regionOf(strings.TrimSpace(place)); !hasRegion {
			return strings.TrimSpace(place)
		}
	}
	return strings.TrimSpace(place) + ", " + region
}

// trailingRegionRe reads ", Region" right after a name.
var trailingRegionRe = regexp.MustCompile(`^,\s*([A-Z][a-z]+(?:\s[A-Z][a-z]+)*|[A-Z]{2,3})\b`)

// describedRe finds the values a description quotes: "The unit of the
// price, like 'kg' or 'lb'".
var describedRe = regexp.MustCompile(`'([^']{1,40})'|"([^"]{1,40})"`)

// describedValues lists a description's quoted values and the values it
// gives as examples ("like Sourdough", "e.g. Oak, Ash or Elm"), longest
// first. A place's examples show how to write one ("e.g. Austin, TX"),
// which the region format reads; they are no values.
func describedValues(desc string, class nameClass) []string {
	var out []string
	add := func(v string) {
		if v = strings.TrimSpace(v); v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	for _, m := range describedRe.FindAllStringSubmatch(desc, -1) {
		add(m[1] + m[2])
	}
	if class != classPlace {
		for _, v := range exampleValues(desc) {
			add(v)
		}
	}
	slices.SortStableFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

// exampleCueRe finds where a description starts listing examples.
var exampleCueRe = regexp.MustCompile(`(?i)\b(?:e\.g\.|eg\.|e\.g\b|for example|for instance|such as|like|including)[,:]?\s+|\(`)

// exampleValues are the unquoted examples a description lists after
// "e.g.", "like", "such as", "including" and the like, up to the end of
// the clause, or in parentheses as a list: "Kind of bread like
// Sourdough" gives Sourdough; "e.g. Oak, Ash, Elm" and "(walk, cycle, tram)"
// give all three. An item of more than three words is prose, not a
// value, and ends the list; so do "etc" and quotes (read as quoted
// values already). A parenthesis holding no comma is an aside.
func exampleValues(desc string) []string {
	var out []string
	for _, m := range exampleCueRe.FindAllStringIndex(desc, -1) {
		rest := desc[m[1]:]
		if likeAsVerb(desc[:m[0]], desc[m[0]:m[1]], rest) {
			continue
		}
		if desc[m[0]] == '(' {
			end := strings.IndexByte(rest, ')')
			if end < 0 || !strings.Contains(rest[:end], ",") {
				continue
			}
			rest = rest[:end]
		}
		for k := 0; k < len(rest); k++ {
			if strings.IndexByte(".;:()[]'\"\n", rest[k]) >= 0 && !decimalPoint(rest, k) {
				rest = rest[:k]
				break
			}
		}
		for _, item := range strings.FieldsFunc(rest, func(r rune) bool { return r == ',' || r == '/' }) {
			for _, v := range strings.Split(item, " or ") {
				v = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), "and "))
				if v == "" || strings.EqualFold(v, "etc") || len(strings.Fields(v)) > 3 {
					return out
				}
				out = append(out, v)
			}
		}
	}
	return out
}

// likeAsVerb: "like" in "the dates you would like to book" wants
// something; it lists no examples.
func likeAsVerb(before, cue, rest string) bool {
	if !strings.EqualFold(strings.TrimSpace(cue), "like") {
		return false
	}
	prev := strings.ToLower(lastWord(strings.TrimSpace(before)))
	return strings.HasPrefix(strings.ToLower(rest), "to ") ||
		slices.Contains([]string{"would", "i", "you", "we", "they", "he", "she", "users", "user", "don't", "not"}, prev)
}

// decimalPoint: the full stop at k sits between two digits ("Windows
// 8.1").
func decimalPoint(s string, k int) bool {
	return s[k] == '.' && k > 0 && k+1 < len(s) && s[k-1] >= '0' && s[k-1] <= '9' && s[k+1] >= '0' && s[k+1] <= '9'
}

// assignDescribedValues fills a string property with a value its
// description quotes when the text says that value: as a whole word ("a
// description's "like 'kg' or 'lb'" and "the price per kg" give "kg"), or
// a word of the same stem ("in detail" gives 'detailed'), written as the
// description writes it. An array of strings takes every quoted value the
// text says, in the text's order. A quoted value the text does not say is
// not chosen.
func assignDescribedValues(p *extractPlan, lower, text string, taken *spans, out map[string]any) {
	for i := range p.props {
		assignDescribed(&p.props[i], lower, text, taken, out)
	}
}

// assignDescribedNumerals runs assignDescribedValues, before numbers are
// read, for the properties whose quoted values the text says with digits
// in them ('Model 3', 'Route 66'): as with dates, those digits are part
// of a name, not a number for another property.
func assignDescribedNumerals(p *extractPlan, lower, text string, taken *spans, out map[string]any) {
	for i := range p.props {
		pp := &p.props[i]
		for _, v := range pp.described {
			if !strings.ContainsAny(v, "0123456789") {
				continue
			}
			if _, ok := saysValue(lower, v, taken); ok {
				assignDescribed(pp, lower, text, taken, out)
				break
			}
		}
	}
}

// assignDescribed is assignDescribedValues for one property.
func assignDescribed(pp *propPlan, lower, text string, taken *spans, out map[string]any) {
	if _, done := out[pp.name]; done || pp.kind != propString && pp.kind != propStringList || len(pp.described) == 0 {
		return
	}
	type hit struct {
		span
		value string
	}
	var hits []hit
	for _, v := range pp.described {
		if sp, ok := saysValue(lower, v, taken); ok {
			value := v
			if strings.EqualFold(lower[sp.from:sp.to], v) {
				value = text[sp.from:sp.to]
			}
			hits = append(hits, hit{sp, value})
			taken.add(sp.from, sp.to)
			if pp.kind == propString {
				break
			}
		}
	}
	if len(hits) == 0 {
		return
	}
	if pp.kind == propString {
		out[pp.name] = hits[0].value
		return
	}
	slices.SortFunc(hits, func(a, b hit) int { return a.from - b.from })
	vals := make([]any, len(hits))
	for k, h := range hits {
		vals[k] = h.value
	}
	out[pp.name] = vals
}

// saysValue finds where lower says value v: the whole phrase, or, for a
// one-word value of five letters or more, a word sharing its first five.
func saysValue(lower, v string, taken *spans) (span, bool) {
	lv := lowerASCII(strings.TrimSpace(v))
	var found span
	ok := false
	cueAt(lower, lv, func(at int) {
		end := at + len(lv)
		if !ok && wordBounded(lower, at, end) && !taken.overlaps(at, end) {
			found, ok = span{at, end}, true
		}
	})
	if ok || len(lv) < 5 || strings.ContainsAny(lv, " _-") {
		return found, ok
	}
	for _, w := range wordsOf(lower) {
		if len(w.w) >= 5 && w.w[:5] == lv[:5] && !taken.overlaps(w.from, w.to) {
			return w.span, true
		}
	}
	return span{}, false
}

func stringItems(schema map[string]any) bool {
	items, _ := schema["items"].(map[string]any)
	return items["type"] == "string"
}

// assignStringLists fills one array-of-strings property from a written
// list: names joined by commas and "and" ("Oslo, Lima and Pune") for a
// property of names, quoted values ("'age', 'height' and 'weight'") for
// any, and, for a property of a bare tool schema, the plain words listed
// right after its own word ("toppings cheese, olives and basil"). A lone
// name fills a list of names only after a preposition or the property's
// own word ("the price of Acme"). With two such properties nothing is
// filled: which list is which would be a guess.
func assignStringLists(p *extractPlan, text, lower string, taken *spans, out map[string]any) {
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
	if pp.class != classNone {
		items = properNames(text, taken)
	} else if quoteMarks.in(text) {
		for _, q := range quotedSpans(text) {
			if !taken.overlaps(q.from, q.to) {
				items = append(items, properName{span: q, quote: true})
			}
		}
	}
	var best []properName
	for k := 0; k < len(items); {
		run := []properName{items[k]}
		// Quoted spans can nest or overlap ("'a "b' c""): such items are
		// no written list.
		for k+1 < len(items) && items[k+1].from >= items[k].to &&
			listSeparator(strings.Trim(text[items[k].to:items[k+1].from], "'\"`”」』“「『")) {
			k++
			run = append(run, items[k])
		}
		k++
		lone := len(run) == 1 && (pp.class == classNone || !placeLeads[run[0].lead] && !partyLeads[run[0].lead] &&
			!slices.Contains(pp.nameCues, strings.TrimSuffix(run[0].lead, "s")))
		if !lone && len(run) > len(best) {
			best = run
		}
	}
	if len(best) == 0 && !p.examples {
		if words := cuedWordList(pp, lower, taken); len(words) > 0 {
			vals := make([]any, len(words))
			for k, w := range words {
				vals[k] = text[w.from:w.to]
				taken.add(w.from, w.to)
			}
			out[pp.name] = vals
		}
		return
	}
	if len(best) == 0 {
		return
	}
	vals := make([]any, len(best))
	for k, n := range best {
		vals[k] = formatName(pp, text, n.span)
		taken.add(n.from, n.to)
	}
	out[pp.name] = vals
}

// listSeparator reports whether s joins two items of a written list.
func listSeparator(s string) bool {
	s = strings.TrimSpace(s)
	if s == "," {
		return true
	}
	s = strings.TrimSpace(strings.TrimPrefix(s, ","))
	return s == "and" || s == "or" || s == "&" || s == ""
}
