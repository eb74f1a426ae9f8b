package builtin

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

// fuzzTools are made-up tool schemas with every kind of property the
// extractor fills: numbers with units and ranges, periods per year, from/to
// pairs, names, enums, dates, times, flags, lists, patterns and objects.
func fuzzTools() []*registry.Skill {
	str := func(desc string) map[string]any { return prop("string", desc) }
	tools := []*registry.Skill{
		toolSkill("convert_money", map[string]any{
			"amount": prop("number", "Amount to convert."), "from_currency": str("Currency of the amount."),
			"to_currency": str("Currency to convert to."),
		}, "amount", "from_currency", "to_currency"),
		toolSkill("loan_cost", map[string]any{
			"principal": prop("number", "Amount borrowed in dollars."), "min_rate": prop("number", "Lowest rate in percent."),
			"max_rate": prop("number", "Highest rate in percent."), "installments": prop("integer", "Installments per year."),
		}, "principal"),
		toolSkill("book_room", map[string]any{
			"city":      str("City and state, e.g. Austin, TX"),
			"check_in":  map[string]any{"type": "string", "format": "date", "description": "Arrival date, YYYY-MM-DD."},
			"arrival":   str("Arrival time in HH:MM"),
			"room_kind": map[string]any{"type": "string", "enum": []any{"single", "double", "suite"}},
			"guests":    stringArray("Names of the guests."),
			"pets":      prop("boolean", "Whether pets come along."),
			"code":      map[string]any{"type": "string", "pattern": "^RM-[0-9]{4}$"},
			"contact": map[string]any{"type": "object", "properties": map[string]any{
				"email": str("Email address."), "phone": str("Phone number."),
			}},
			"stops": map[string]any{"type": "array", "items": map[string]any{"type": "object", "properties": map[string]any{
				"place": str("A place."), "nights": prop("integer", "Nights there."),
			}}},
		}, "city", "check_in"),
		toolSkill("enzyme_role", map[string]any{
			"enzyme": str("The enzyme to look up."), "start_level": prop("integer", "First level."),
			"end_level": prop("integer", "Last level."), "weights": numberArray("number", "Weights in kg."),
		}, "enzyme"),
		toolSkill("court_archive", map[string]any{
			"court": str("The court."), "patient_id": str("Identifier."), "website": str("Site."),
			"unit": str("Unit of the length."), "length": prop("integer", "Length."), "month": str("Month."),
			"days_ahead": prop("integer", "Days ahead."), "months": prop("integer", "Number of months."),
			"century": prop("integer", "Century."), "game": str("The game."), "country": str("Country it lies in."),
			"topics": map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": []any{"A", "history", "Splash Pad"}}},
		}, "court", "country"),
	}
	withExamples := *tools[0]
	withExamples.Name = "convert_cash"
	withExamples.Examples = []registry.Example{{Input: "change 20 pounds to yen", Params: map[string]any{"from_currency": "pounds"}}}
	return append(tools, &withExamples)
}

// FuzzExtractParams feeds arbitrary request text to the extractor and the
// builtin judge: a request is user input and must never crash a run. What
// comes out must encode as JSON (the verdict is JSON) and hold, for every
// param, a value of the type its schema names.
func FuzzExtractParams(f *testing.F) {
	for _, s := range []string{
		"convert 300 yen to euros", "from German to Spanish", "a loan of 9000 over 6 years, repaid quarterly",
		"rates between 3% and 7%", "book a suite in Austin, TX on 2026-03-04 at 14:30 for Ana, Bo and Cy with pets",
		"stops: Oslo for 2 nights and Rome for 3 nights", "code RM-1234, email a@b.co", "the role of Tom Lee's",
		"between level 12 and 30", "weights 1.5, 2e3 and -4 kg", "1e400 NaN Inf to", "from  to  ", "'unclosed \"quote",
		"到 从 300 元 to 美元", "\x00\xff to \u2028",
		"the New York court, id 'AB-12-C' on shop.example.org, 4 inches in December over the next 2 weeks",
		"the 16th century game 'Moss' in Porto, Portugal tomorrow", "-1st -th x-12- a.b. 3rd",
	} {
		f.Add(s)
	}
	tools := fuzzTools()
	reg := &registry.Registry{Skills: tools}
	j := newJudge(reg, defaultTopK)
	f.Fuzz(func(t *testing.T, text string) {
		for _, s := range tools {
			out := ExtractParams(s, text, testNow)
			if _, err := json.Marshal(out); err != nil {
				t.Fatalf("%s: params of %q do not encode: %v", s.Name, text, err)
			}
			props := s.Properties()
			for name, v := range out {
				schema, ok := props[name]
				if !ok {
					t.Fatalf("%s: %q gave %q, which the schema does not have", s.Name, text, name)
				}
				if !holdsType(schema["type"], v) {
					t.Fatalf("%s: %q gave %s = %#v, not of type %v", s.Name, text, name, v, schema["type"])
				}
			}
		}
		if _, err := j.Judge(context.Background(), router.JudgeRequest{Text: text, Now: testNow, Candidates: tools}); err != nil {
			t.Fatalf("judge %q: %v", text, err)
		}
	})
}

// holdsType reports whether v is a Go value of JSON Schema type typ as
// the extractor writes them (int or float64 for numbers).
func holdsType(typ any, v any) bool {
	switch typ {
	case "string":
		_, ok := v.(string)
		return ok
	case "integer":
		_, ok := v.(int)
		return ok
	case "number":
		switch v.(type) {
		case int, float64:
			return true
		}
		return false
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	}
	return true
}
