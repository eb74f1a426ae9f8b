package builtin

import (
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// subProperties are an object schema's own properties.
func subProperties(schema map[string]any) map[string]any {
	props, _ := schema["properties"].(map[string]any)
	return props
}

// objectItems is the item schema of an array of objects with properties
// of their own, or nil.
func objectItems(schema map[string]any) map[string]any {
	items, _ := schema["items"].(map[string]any)
	if items == nil || items["type"] != "object" || len(subProperties(items)) == 0 {
		return nil
	}
	return items
}

// assignObjects fills object properties from the text the other
// properties left: the object's own properties are found the same way,
// and the object is set when any of them is. An array of objects takes
// one object per item of a written list ("2 apples, 3 pears and a
// melon"), each read on its own, when every item fills a required field
// of the object (or any field, when none is required).
func assignObjects(p *extractPlan, text, lower string, dates []dateSpan, known map[string][]string, taken *spans, out map[string]any) {
	for i := range p.props {
		pp := &p.props[i]
		if _, done := out[pp.name]; done {
			continue
		}
		switch pp.kind {
		case propObject:
			sub := map[string]any{}
			pp.sub.fill(text, lower, dates, known, taken, sub)
			if len(sub) > 0 {
				out[pp.name] = sub
			}
		case propObjectList:
			if items := objectList(pp.sub, text, lower, dates, known, taken); len(items) > 0 {
				out[pp.name] = items
			}
		}
	}
}

// listItemSplit separates the items of a written list.
var listItemSplit = regexp.MustCompile(`\s*(?:;|,\s*and\s+|,|\s+and\s+)\s*`)

func objectList(sub *extractPlan, text, lower string, dates []dateSpan, known map[string][]string, taken *spans) []any {
	var items []any
	from := 0
	bounds := listItemSplit.FindAllStringIndex(text, -1)
	bounds = append(bounds, []int{len(text), len(text)})
	var used []span
	for _, b := range bounds {
		seg := span{from, b[0]}
		from = b[1]
		if seg.to <= seg.from || taken.overlaps(seg.from, seg.to) {
			continue
		}
		obj := map[string]any{}
		var local spans
		// Each item is read alone, its offsets its own.
		var segDates []dateSpan
		for _, d := range dates {
			if d.from >= seg.from && d.to <= seg.to {
				d.span = span{d.from - seg.from, d.to - seg.from}
				segDates = append(segDates, d)
			}
		}
		sub.fill(text[seg.from:seg.to], lower[seg.from:seg.to], segDates, known, &local, obj)
		if !fillsRequired(sub, obj) {
			continue
		}
		items = append(items, obj)
		used = append(used, seg)
	}
	if len(items) == 0 {
		return nil
	}
	for _, sp := range used {
		taken.add(sp.from, sp.to)
	}
	return items
}

// fillsRequired reports whether obj holds a required property of the plan
// (or any property, when none is required).
func fillsRequired(p *extractPlan, obj map[string]any) bool {
	anyRequired := false
	for _, pp := range p.props {
		if !pp.required {
			continue
		}
		anyRequired = true
		if _, ok := obj[pp.name]; ok {
			return true
		}
	}
	return !anyRequired && len(obj) > 0
}

// explicitRe finds a value written after a property's name and "=" or
// ":" ("alpha=0.05", "weights=[0.2, 0.8]", "mode: 'fast'"): the name,
// then a bracketed list, a quoted string or a bare token. It is the
// definition; explicitMatches finds its matches by hand.
var explicitRe = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_]*)\s*(?:=|:)\s*(\[[^\]]*\]|"[^"]*"|'[^']*'|[^\s,;)]+)`)

var lastExplicit memoOf[[][]int]

// assignExplicit fills properties the text names outright with "=" or
// ":": the surest evidence there is. The value is read as the property's
// type wants it; one that does not read so is left to the other rules.
func assignExplicit(p *extractPlan, text string, taken *spans, out map[string]any) {
	if !strings.ContainsAny(text, "=:") {
		return
	}
	for _, m := range lastExplicit.recall(text, explicitMatches) {
		if m[2] > 0 && strings.ContainsRune("-._/@", rune(text[m[2]-1])) {
			continue // "order-service: disk full" names no param "service"
		}
		key := text[m[2]:m[3]]
		raw := text[m[4]:m[5]]
		for i := range p.props {
			pp := &p.props[i]
			if !strings.EqualFold(pp.name, key) {
				continue
			}
			if _, done := out[pp.name]; done || taken.overlaps(m[4], m[5]) {
				continue
			}
			if v, ok := explicitValue(pp, raw); ok {
				out[pp.name] = v
				taken.add(m[0], m[1])
			}
		}
	}
}

// explicitValue reads a written value as a property's type wants it.
func explicitValue(pp *propPlan, raw string) (any, bool) {
	unquoted := strings.Trim(raw, `"'`)
	switch pp.kind {
	case propNumber:
		f, err := strconv.ParseFloat(strings.TrimRight(raw, "."), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, false
		}
		return numberValue(pp, numberSpan{value: f}), true
	case propNumberList, propStringList:
		var list []any
		if err := json.Unmarshal([]byte(strings.ReplaceAll(raw, "'", `"`)), &list); err != nil {
			return nil, false
		}
		if pp.kind == propNumberList {
			for k, v := range list {
				f, ok := v.(float64)
				if !ok {
					return nil, false
				}
				list[k] = numberValue(&propPlan{integer: pp.integer}, numberSpan{value: f})
			}
		}
		return list, true
	case propBool:
		switch strings.ToLower(unquoted) {
		case "true", "yes":
			return true, true
		case "false", "no":
			return false, true
		}
		return nil, false
	case propEnum:
		for _, t := range pp.terms {
			if strings.EqualFold(t.term, unquoted) {
				return t.value, true
			}
		}
		return nil, false
	case propString:
		// Free text runs on past one token: only a quoted value is whole.
		free := pp.role == roleTitle || pp.role == roleMessage || pp.role == roleReason || pp.role == roleKeyword
		if unquoted == "" || free && unquoted == raw || strings.HasPrefix(raw, "[") || strings.HasPrefix(raw, "{") {
			return nil, false // "order: ['b', 'a']" writes a list, not the order
		}
		return unquoted, true
	}
	return nil, false
}
