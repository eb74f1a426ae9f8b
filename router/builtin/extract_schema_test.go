package builtin

import (
	"github.com/routebench/routebench/router/registry"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// toolSkill is a skill made from a JSON Schema of the kind function-calling
// benchmarks and OpenAI tools give: typed properties with descriptions, no
// examples, no x-synonyms. The schemas and sentences below are made up for
// these specs; none comes from a benchmark.
func toolSkill(name string, props map[string]any, required ...string) *registry.Skill {
	req := make([]any, len(required))
	for i, r := range required {
		req[i] = r
	}
	return &registry.Skill{Name: name, ParamsSchema: map[string]any{"type": "object", "properties": props, "required": req}}
}

func prop(typ, desc string) map[string]any { return map[string]any{"type": typ, "description": desc} }

func numberArray(item, desc string) map[string]any {
	return map[string]any{"type": "array", "items": map[string]any{"type": item}, "description": desc}
}

func stringArray(desc string) map[string]any {
	return map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": desc}
}

func extractTool(s *registry.Skill, text string) map[string]any {
	return ExtractParams(s, text, testNow)
}

var _ = Describe("ExtractParams on JSON-Schema tools", func() {
	Describe("numbers", func() {
		box := toolSkill("crate_volume", map[string]any{
			"width":  prop("integer", "Width of the crate."),
			"height": prop("integer", "Height of the crate."),
			"depth":  prop("integer", "Depth of the crate."),
		}, "width", "height", "depth")
		coeffs := toolSkill("fit_line", map[string]any{
			"m": prop("integer", "Slope."),
			"k": prop("integer", "Offset."),
		}, "m", "k")

		It("fills required numbers in order when the counts agree and none is named", func() {
			Expect(extractTool(box, "a crate of 7, 2 and 9 units")).To(Equal(map[string]any{"depth": 7, "height": 2, "width": 9}))
			Expect(extractTool(box, "a crate of 7 and 2 units")).To(HaveLen(0))
		})
		It("reads a range for a start/end pair whose one shared word is said once", func() {
			levels := toolSkill("level_stats", map[string]any{
				"start_level": prop("integer", "First level."), "end_level": prop("integer", "Last level."),
			}, "start_level", "end_level")
			Expect(extractTool(levels, "stats between level 12 and 30")).To(Equal(map[string]any{"start_level": 12, "end_level": 30}))
			Expect(extractTool(levels, "stats from level 12 to 30")).To(Equal(map[string]any{"start_level": 12, "end_level": 30}))
		})
		It("counts periods per year from how often something happens", func() {
			loan := toolSkill("loan_cost", map[string]any{
				"principal":    prop("number", "Amount borrowed."),
				"years":        prop("integer", "Term in years."),
				"installments": prop("integer", "Payment frequency: installments per year."),
			}, "principal", "years")
			Expect(extractTool(loan, "a loan of 9000 over 6 years, repaid quarterly")).To(
				Equal(map[string]any{"principal": 9000.0, "years": 6, "installments": 4}))
			Expect(extractTool(loan, "a loan of 9000 over 6 years with semi-annually due payments")).To(HaveKeyWithValue("installments", 2))
			Expect(extractTool(loan, "a loan of 9000 over 6 years")).NotTo(HaveKey("installments"))
			wear := toolSkill("tyre_wear", map[string]any{
				"wear_rate": prop("integer", "The percentage of tread lost per year."),
			})
			Expect(extractTool(wear, "tyres driven daily")).NotTo(HaveKey("wear_rate"), "a yearly rate counts no periods")
		})
		It("reads the count in a relative period for a tool with no date to fill, and keeps a dated tool's range", func() {
			sales := toolSkill("bakery_sales", map[string]any{
				"days": prop("integer", "How many days back to sum."),
			}, "days")
			Expect(extractTool(sales, "bread sold over the past 9 days")).To(Equal(map[string]any{"days": 9}))
			dated := toolSkill("bakery_sales_since", map[string]any{
				"since": prop("string", "First day, YYYY-MM-DD."),
				"limit": prop("integer", "Most rows to return."),
			}, "since")
			Expect(extractTool(dated, "bread sold over the past 9 days")).NotTo(HaveKey("limit"), "a dated tool reads the period as dates")
		})
		It("reads a quoted value with digits as a name before numbers are paired", func() {
			bench := toolSkill("engine_bench", map[string]any{
				"engines": stringArray("Engines to compare, like 'V 12' or 'Flat 6'."),
				"laps":    prop("integer", "Number of laps."),
			}, "engines", "laps")
			Expect(extractTool(bench, "compare the V 12 and the Flat 6 over 40 laps")).To(Equal(map[string]any{
				"engines": []any{"V 12", "Flat 6"}, "laps": 40,
			}))
		})
		It("names the unit the quantities are written in, for a string param named unit", func() {
			fence := toolSkill("fence_cost", map[string]any{
				"length": prop("integer", "Length of the fence."),
				"unit":   prop("string", "Unit of the length. Default is 'm'."),
			}, "length")
			Expect(extractTool(fence, "a fence 12 yards long")).To(Equal(map[string]any{"length": 12, "unit": "yards"}))
			Expect(extractTool(fence, "a fence of 12 yards, then 3 metres of gate")).NotTo(HaveKey("unit"), "two units are doubt")
			oven := toolSkill("oven_plan", map[string]any{
				"days":      prop("integer", "Days of baking."),
				"temp_unit": prop("string", "Unit of the temperature."),
			}, "days")
			Expect(extractTool(oven, "a bake plan for 3 days")).NotTo(HaveKey("temp_unit"), "days measure no temperature")
		})
		It("counts a stretch of weeks, months, years or decades in the unit a param counts", func() {
			forecast := toolSkill("pollen_forecast", map[string]any{
				"city":       prop("string", "City."),
				"days_ahead": prop("integer", "How far ahead to forecast."),
				"max_rows":   prop("integer", "Most rows to return."),
			}, "city", "days_ahead")
			Expect(extractTool(forecast, "pollen in Lyon over the coming week")).To(HaveKeyWithValue("days_ahead", 7))
			Expect(extractTool(forecast, "pollen in Lyon for the next 2 months, at most 40 rows")).To(
				And(HaveKeyWithValue("days_ahead", 60), HaveKeyWithValue("max_rows", 40)))
			rent := toolSkill("rent_outlook", map[string]any{
				"months": prop("integer", "Number of future months."),
				"span":   prop("integer", "The number of years to look back."),
			}, "months")
			Expect(extractTool(rent, "rents over the coming year")).To(HaveKeyWithValue("months", 12))
			Expect(extractTool(rent, "rents next month against the past decade")).To(
				And(HaveKeyWithValue("months", 1), HaveKeyWithValue("span", 10)))
			Expect(extractTool(rent, "rents over the next week")).NotTo(HaveKey("months"), "a week is no whole number of months")
			rows := toolSkill("log_rows", map[string]any{"max_rows": prop("integer", "Most rows to return.")}, "max_rows")
			Expect(extractTool(rows, "rows from the past week")).NotTo(HaveKey("max_rows"), "rows are no days")
		})
		It("ties a param's word to the number in its own sentence", func() {
			game := toolSkill("card_round", map[string]any{
				"joker_value": prop("integer", "What the joker counts."),
			}, "joker_value")
			Expect(extractTool(game, "my hand is a 10 and a 7. The joker counts 5")).To(Equal(map[string]any{"joker_value": 5}))
		})
		It("reads an ordinal as the number of the param its next word names", func() {
			churches := toolSkill("church_styles", map[string]any{
				"century": prop("integer", "The century."),
				"floor":   prop("integer", "Floor of the archive."),
			}, "century")
			Expect(extractTool(churches, "styles of the 12th century, archive on the 3rd floor")).To(Equal(map[string]any{"century": 12, "floor": 3}))
			Expect(extractTool(churches, "the 2nd style of the archive")).To(BeEmpty())
		})
		It("does not read a rate's unit ('kilometres per litre') as what the param measures", func() {
			trip := toolSkill("trip_fuel", map[string]any{
				"distance":     prop("integer", "Distance in kilometres."),
				"fuel_economy": prop("integer", "Fuel economy in kilometres per litre."),
				"fuel":         prop("string", "Kind of fuel."),
			}, "distance", "fuel_economy")
			Expect(extractTool(trip, "drove 300 kilometres with a fuel economy of 18")).To(
				Equal(map[string]any{"distance": 300, "fuel_economy": 18}))
		})
		It("does not take a word of another param's name as a value beside a param's word", func() {
			trip := toolSkill("trip_fuel", map[string]any{
				"fuel":         prop("string", "Kind of fuel."),
				"fuel_economy": prop("integer", "Fuel economy."),
			}, "fuel", "fuel_economy")
			Expect(extractTool(trip, "fuel economy 18 on the trip")).NotTo(HaveKey("fuel"))
		})
		It("gives a number written as a word only to a param its own name ties it to", func() {
			test := toolSkill("compare_groups", map[string]any{
				"alpha":  prop("number", "Significance level of the test."),
				"groups": prop("integer", "Number of groups."),
			})
			Expect(extractTool(test, "the significance of two samples")).NotTo(HaveKey("alpha"))
			Expect(extractTool(test, "compare three groups")).To(HaveKeyWithValue("groups", 3))
		})
		It("reads negative numbers and one-letter names as whole words", func() {
			Expect(extractTool(coeffs, "a line with m=-4 and k=11")).To(Equal(map[string]any{"m": -4, "k": 11}))
			Expect(extractTool(coeffs, "see part XK-3")).NotTo(HaveKey("k"))
		})
		It("gives a number to the param all of whose name words stand near it", func() {
			pump := toolSkill("pump_flow", map[string]any{
				"inlet_pressure":  prop("number", "Pressure at the inlet in bar."),
				"outlet_pressure": prop("number", "Pressure at the outlet in bar."),
			}, "inlet_pressure", "outlet_pressure")
			Expect(extractTool(pump, "an outlet pressure of 1.5 bar, and an inlet pressure of 6 bar")).
				To(Equal(map[string]any{"inlet_pressure": 6.0, "outlet_pressure": 1.5}))
		})
		It("gives a number with a unit to the param that measures it (m/s² to acceleration, metres to distance)", func() {
			sled := toolSkill("sled_speed", map[string]any{
				"acceleration": prop("number", "Constant acceleration."),
				"distance":     prop("number", "Distance covered."),
				"start_speed":  prop("number", "Speed at the start, in meters per second."),
			}, "acceleration", "distance", "start_speed")
			Expect(extractTool(sled, "a sled starting at 2 m/s that speeds up by 0.5 m/s^2 over 40 meters")).
				To(Equal(map[string]any{"acceleration": 0.5, "distance": 40.0, "start_speed": 2.0}))
		})
		It("never gives a number whose unit measures something else", func() {
			run := toolSkill("run_pace", map[string]any{"distance": prop("number", "Distance run, in km.")}, "distance")
			Expect(extractTool(run, "I ran for 45 minutes")).To(BeEmpty())
		})
		It("writes a percentage as a fraction for a rate, as written for a percentage", func() {
			loan := toolSkill("loan_cost", map[string]any{
				"annual_rate": prop("number", "Yearly interest rate."),
				"fee_percent": prop("number", "The fee as a percentage of the loan."),
				"amount":      prop("number", "Loan amount."),
			}, "annual_rate", "amount")
			Expect(extractTool(loan, "borrow $12,000 at an annual rate of 4.5% with a fee of 2%")).
				To(Equal(map[string]any{"annual_rate": 0.045, "fee_percent": 2.0, "amount": 12000.0}))
		})
		It("does not give a percentage to a count", func() {
			seats := toolSkill("seats", map[string]any{"count": prop("integer", "How many seats.")}, "count")
			Expect(extractTool(seats, "raise it by 10%")).To(BeEmpty())
		})
		It("pairs a written list of param names with a list of as many numbers, in order", func() {
			Expect(extractTool(box, "its width, height and depth are 3, 8 and 5")).
				To(Equal(map[string]any{"width": 3, "height": 8, "depth": 5}))
		})
		It("gives a written range's low end to the min param and its high end to the max param", func() {
			flat := toolSkill("find_flat", map[string]any{
				"min_rent": prop("integer", "Lowest monthly rent."),
				"max_rent": prop("integer", "Highest monthly rent."),
			})
			Expect(extractTool(flat, "a flat for $900 to $1,400 a month")).To(Equal(map[string]any{"min_rent": 900, "max_rent": 1400}))
			Expect(extractTool(flat, "rent between 1400 and 900")).To(Equal(map[string]any{"min_rent": 900, "max_rent": 1400}))
		})
		It("gives a list of numbers to ordinal params in order", func() {
			tones := toolSkill("beat", map[string]any{
				"first_tone":  prop("number", "Pitch of one tone in Hz."),
				"second_tone": prop("number", "Pitch of the other tone in Hz."),
			}, "first_tone", "second_tone")
			Expect(extractTool(tones, "the beat of tones at 330Hz and 333Hz")).To(Equal(map[string]any{"first_tone": 330.0, "second_tone": 333.0}))
		})
		It("gives the number after 'to' to the end of a change and the one after 'from' to its start", func() {
			oven := toolSkill("oven", map[string]any{
				"initial_temperature": prop("number", "Temperature at the start, in degrees C."),
				"final_temperature":   prop("number", "Temperature at the end, in degrees C."),
			}, "initial_temperature", "final_temperature")
			Expect(extractTool(oven, "dough at 20°C is baked until the temperature goes to 95°C")).
				To(Equal(map[string]any{"initial_temperature": 20.0, "final_temperature": 95.0}))
			span := toolSkill("curve_span", map[string]any{
				"start_t": prop("number", "Where the span starts."),
				"end_t":   prop("number", "Where the span ends."),
			}, "start_t", "end_t")
			Expect(extractTool(span, "the curve's length from t = -4 to t = 9")).
				To(Equal(map[string]any{"start_t": -4.0, "end_t": 9.0}), "past the variable the value is given to")
		})
		It("reads numbers written as words, magnitudes and exponents", func() {
			trip := toolSkill("trip", map[string]any{
				"nights":     prop("integer", "Nights booked."),
				"budget":     prop("number", "Budget in dollars."),
				"dust_grain": prop("number", "Grain size in meters."),
			}, "nights")
			Expect(extractTool(trip, "stay three nights on a budget of 2 million dollars; grain of 4e-6 meters")).
				To(Equal(map[string]any{"nights": 3, "budget": 2e6, "dust_grain": 4e-6}))
		})
		It("does not read a time of day as two quantities", func() {
			clock := toolSkill("hands", map[string]any{"hour": prop("integer", "Hour."), "minute": prop("integer", "Minute.")}, "hour", "minute")
			Expect(extractTool(clock, "the kitchen clock shows 4:15")).To(BeEmpty())
		})
	})

	Describe("arrays of enum values", func() {
		enumArray := func(values ...any) map[string]any {
			return map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": values}}
		}
		It("takes every value the text says, in its order, each once", func() {
			parks := toolSkill("find_park", map[string]any{
				"city":      prop("string", "City."),
				"amenities": enumArray("Dog Park", "Skate Ramp", "Splash Pad"),
			}, "city")
			Expect(extractTool(parks, "a park with a splash pad and a dog park, and another splash pad")).To(
				HaveKeyWithValue("amenities", []any{"Splash Pad", "Dog Park"}))
		})
		It("does not read a one-letter value in another case, or a word of a capitalised name", func() {
			strand := toolSkill("make_strand", map[string]any{"bases": enumArray("A", "C", "G", "T")})
			Expect(extractTool(strand, "a strand rich in G and C")).To(Equal(map[string]any{"bases": []any{"G", "C"}}))
			visit := toolSkill("hall_info", map[string]any{"topics": enumArray("history", "science", "hours")})
			Expect(extractTool(visit, "the hours and science wing of the Maritime History Hall")).To(
				Equal(map[string]any{"topics": []any{"hours", "science"}}))
		})
	})

	Describe("arrays of numbers", func() {
		avg := toolSkill("mean", map[string]any{"values": numberArray("integer", "The values.")}, "values")
		groups := toolSkill("compare_groups", map[string]any{
			"first": numberArray("number", "First sample."), "second": numberArray("number", "Second sample."),
		}, "first", "second")
		It("takes a bracketed or written list", func() {
			Expect(extractTool(avg, "the mean of [4, 9, 16, 25]")).To(HaveKeyWithValue("values", []any{4, 9, 16, 25}))
			Expect(extractTool(avg, "the mean of 4, 9 and 16")).To(HaveKeyWithValue("values", []any{4, 9, 16}))
		})
		It("reads a list of ordinals before the array's own word", func() {
			survey := toolSkill("survey_levels", map[string]any{"levels": numberArray("integer", "Levels to survey.")}, "levels")
			Expect(extractTool(survey, "survey the 1st, 5th and 12th levels of the mine")).To(
				Equal(map[string]any{"levels": []any{1, 5, 12}}))
			Expect(extractTool(survey, "the 1st and 5th shafts")).To(BeEmpty())
		})
		It("gives a list to the one array whose name words stand right before it", func() {
			npv := toolSkill("net_value", map[string]any{
				"cash_flows": numberArray("integer", "Cash flows."),
				"years":      numberArray("integer", "Years of the flows."),
				"rate":       prop("number", "Rate to discount at."),
			}, "cash_flows", "rate")
			Expect(extractTool(npv, "the value of cash flows: [-900, 300, 700] at a rate of 0.04")).To(
				Equal(map[string]any{"cash_flows": []any{-900, 300, 700}, "rate": 0.04}))
		})
		It("gives several lists to several arrays in order, and guesses nothing when the counts differ", func() {
			Expect(extractTool(groups, "compare [1.5, 2, 3] with [4, 5.5]")).
				To(Equal(map[string]any{"first": []any{1.5, 2.0, 3.0}, "second": []any{4.0, 5.5}}))
			Expect(extractTool(groups, "compare [1, 2], [3, 4] and [5, 6]")).To(BeEmpty())
		})
	})

	Describe("dates and times in string params", func() {
		It("writes a date in the layout the description asks, ISO when it does not say", func() {
			iso := toolSkill("book", map[string]any{"date": prop("string", "The day of the booking.")}, "date")
			us := toolSkill("book", map[string]any{"date": prop("string", "Booking day in MM/DD/YYYY format.")}, "date")
			words := toolSkill("book", map[string]any{"date": prop("string", "The day (day-month-year).")}, "date")
			example := toolSkill("book", map[string]any{"date": prop("string", "Booking day, such as '2031-07-04'.")}, "date")
			Expect(extractTool(iso, "a table on March 9, 2031")).To(HaveKeyWithValue("date", "2031-03-09"))
			Expect(extractTool(us, "a table on 9 March 2031")).To(HaveKeyWithValue("date", "03/09/2031"))
			Expect(extractTool(words, "a table on 2031-03-09")).To(HaveKeyWithValue("date", "09-03-2031"))
			Expect(extractTool(example, "a table on Mar. 9th, 2031")).To(HaveKeyWithValue("date", "2031-03-09"))
		})
		It("gives a range's ends to check-in and check-out, the year carried to the second date", func() {
			stay := toolSkill("stay", map[string]any{
				"check_in":  prop("string", "Arrival date."),
				"check_out": prop("string", "Departure date."),
			}, "check_in", "check_out")
			Expect(extractTool(stay, "a room from 2031 April 2nd to April 6th")).
				To(Equal(map[string]any{"check_in": "2031-04-02", "check_out": "2031-04-06"}))
			span := toolSkill("span", map[string]any{"from_date": prop("string", "First day."), "to_date": prop("string", "Last day.")}, "from_date", "to_date")
			Expect(extractTool(span, "from May 3, 2031 to May 9, 2031")).To(Equal(map[string]any{"from_date": "2031-05-03", "to_date": "2031-05-09"}))
		})
		It("ends a stay the nights it lasts after its one date", func() {
			stay := toolSkill("book_cabin", map[string]any{
				"start_date": prop("string", "First day, YYYY-MM-DD."),
				"end_date":   prop("string", "Last day, YYYY-MM-DD."),
				"guests":     prop("integer", "Number of guests."),
			}, "start_date", "end_date")
			Expect(extractTool(stay, "a cabin for 4 nights from May 30, 2031")).To(
				Equal(map[string]any{"start_date": "2031-05-30", "end_date": "2031-06-03"}), "the nights are no guests")
			counted := toolSkill("book_cabin", map[string]any{
				"start_date": prop("string", "First day, YYYY-MM-DD."),
				"end_date":   prop("string", "Last day, YYYY-MM-DD."),
				"nights":     prop("integer", "Nights booked."),
			}, "start_date", "end_date")
			Expect(extractTool(counted, "a cabin for 4 nights from May 30, 2031")).To(
				Equal(map[string]any{"start_date": "2031-05-30", "end_date": "2031-06-03", "nights": 4}))
		})
		It("writes a time of day as the description asks, 24-hour when it does not say", func() {
			alarm := toolSkill("alarm", map[string]any{"time": prop("string", "When to ring.")}, "time")
			ampm := toolSkill("alarm", map[string]any{"time": prop("string", "When to ring, as hh:mm AM/PM.")}, "time")
			Expect(extractTool(alarm, "wake me at 6:45 pm")).To(HaveKeyWithValue("time", "18:45"))
			Expect(extractTool(ampm, "wake me at 18:45")).To(HaveKeyWithValue("time", "06:45 PM"))
		})
		It("does not take a duration for a time of day", func() {
			walk := toolSkill("walk", map[string]any{"time": prop("string", "How long to walk, in minutes.")}, "time")
			Expect(extractTool(walk, "walk at 7pm")).NotTo(HaveKey("time"))
		})
		It("writes a date and time together for a date-time param", func() {
			meet := toolSkill("meet", map[string]any{"start": map[string]any{"type": "string", "format": "date-time", "description": "Start."}}, "start")
			Expect(extractTool(meet, "on 2031-05-14 at 9:30")).To(HaveKeyWithValue("start", "2031-05-14T09:30:00"))
		})
	})

	Describe("names of places, people, organisations and titles", func() {
		trip := toolSkill("train_trip", map[string]any{
			"origin":      prop("string", "City the trip starts from."),
			"destination": prop("string", "City the trip ends in."),
		}, "origin", "destination")
		It("gives the name after from to the start and after to to the end, and a between pair start first", func() {
			Expect(extractTool(trip, "a train to Lyon from Geneva")).To(Equal(map[string]any{"origin": "Geneva", "destination": "Lyon"}))
			Expect(extractTool(trip, "trains between Porto and Braga")).To(Equal(map[string]any{"origin": "Porto", "destination": "Braga"}))
		})
		It("takes a name after a role cue: directed by, starring, by", func() {
			film := toolSkill("find_film", map[string]any{
				"director": prop("string", "Who directed it."),
				"actor":    prop("string", "A cast member."),
			})
			Expect(extractTool(film, "a comedy directed by Ines Moreau starring Tom Adeyemi")).
				To(Equal(map[string]any{"director": "Ines Moreau", "actor": "Tom Adeyemi"}))
			book := toolSkill("find_book", map[string]any{"author": prop("string", "The writer.")}, "author")
			Expect(extractTool(book, "novels by Hana Ota")).To(HaveKeyWithValue("author", "Hana Ota"))
		})
		It("takes the name right after the param's own word, or a name that holds it", func() {
			hotel := toolSkill("hotel_rooms", map[string]any{"hotel_name": prop("string", "The hotel.")}, "hotel_name")
			team := toolSkill("team_form", map[string]any{"team": prop("string", "Team name.")}, "team")
			Expect(extractTool(hotel, "rooms at the Hotel Lumen tonight")).To(HaveKeyWithValue("hotel_name", "Hotel Lumen"))
			Expect(extractTool(team, "recent form of the team Westfield Rovers")).To(HaveKeyWithValue("team", "Westfield Rovers"))
		})
		It("writes a region as a code when the description's example uses codes, and as written otherwise", func() {
			coded := toolSkill("weather", map[string]any{"location": prop("string", "City and state, e.g. Austin, TX.")}, "location")
			plain := toolSkill("weather", map[string]any{"location": prop("string", "Where.")}, "location")
			Expect(extractTool(coded, "weather in Boise, Idaho")).To(HaveKeyWithValue("location", "Boise, ID"))
			Expect(extractTool(coded, "weather in Reno, NV")).To(HaveKeyWithValue("location", "Reno, NV"))
			Expect(extractTool(plain, "weather in Lyon, France")).To(HaveKeyWithValue("location", "Lyon"))
		})
		It("completes the format's region for a well-known city named alone, and leaves other places as written", func() {
			coded := toolSkill("plumbers", map[string]any{"location": prop("string", "City and state, e.g. Reno, NV.")}, "location")
			country := toolSkill("plumbers", map[string]any{"location": prop("string", "The city and country, such as Lyon, France.")}, "location")
			plain := toolSkill("plumbers", map[string]any{"location": prop("string", "Where.")}, "location")
			Expect(extractTool(coded, "a plumber in Denver")).To(HaveKeyWithValue("location", "Denver, CO"))
			Expect(extractTool(coded, "a plumber in Hollow Creek")).To(HaveKeyWithValue("location", "Hollow Creek"))
			Expect(extractTool(country, "a plumber in Lagos")).To(HaveKeyWithValue("location", "Lagos, Nigeria"))
			Expect(extractTool(plain, "a plumber in Denver")).To(HaveKeyWithValue("location", "Denver"))
		})
		It("gives a month's or a weekday's name to a param named for one", func() {
			yield := toolSkill("orchard_yield", map[string]any{
				"month":   prop("string", "Month of the harvest."),
				"weekday": prop("string", "Day of the week to pick."),
			})
			Expect(extractTool(yield, "apples picked in October, on a Tuesday")).To(Equal(map[string]any{"month": "October", "weekday": "Tuesday"}))
		})
		It("reads 'in' as leading a place and 'of' a person, and no month or weekday as a place", func() {
			murals := toolSkill("find_murals", map[string]any{
				"artist":   prop("string", "Name of the muralist."),
				"location": prop("string", "City to search."),
			}, "artist")
			Expect(extractTool(murals, "show me the murals of Ines Valdo in Porto")).
				To(Equal(map[string]any{"artist": "Ines Valdo", "location": "Porto"}))
			trip := toolSkill("trip_weather", map[string]any{"location": prop("string", "Town of the trip.")}, "location")
			Expect(extractTool(trip, "weather for my trip to Porto in October")).To(Equal(map[string]any{"location": "Porto"}))
			Expect(extractTool(trip, "weather on Sunday")).NotTo(HaveKey("location"))
		})
		It("reads a param whose name ends in id as an identifier, whole across hyphens", func() {
			scan := toolSkill("scan_report", map[string]any{
				"patient_id": prop("string", "The patient's identifier."),
				"ward":       prop("string", "Ward name."),
			}, "patient_id")
			Expect(extractTool(scan, "Given patient with id 771203, fetch the scan")).To(HaveKeyWithValue("patient_id", "771203"))
			Expect(extractTool(scan, "fetch the scan of patient 'PX-4471-B'")).To(HaveKeyWithValue("patient_id", "PX-4471-B"))
		})
		It("takes a web address or a bare domain for a param named for one, never a file name or a number", func() {
			calories := toolSkill("recipe_calories", map[string]any{
				"recipe":  prop("string", "The recipe."),
				"website": prop("string", "Site the recipe is from."),
			}, "website")
			Expect(extractTool(calories, "calories in the plum tart from Bakewise.co.uk?")).To(HaveKeyWithValue("website", "Bakewise.co.uk"))
			Expect(extractTool(calories, "the plum tart at https://bakewise.example/tart")).To(HaveKeyWithValue("website", "https://bakewise.example/tart"))
			Expect(extractTool(calories, "the plum tart in notes.txt, 3.5 stars")).NotTo(HaveKey("website"))
		})
		It("takes a name right after a word for its kind ('the player Ana Ruiz'), not after 'where' or 'who'", func() {
			profile := toolSkill("musician_profile", map[string]any{"name": prop("string", "Full name of the musician.")}, "name")
			Expect(extractTool(profile, "the profile of the jazz musician Ana Ruiz")).To(HaveKeyWithValue("name", "Ana Ruiz"))
			town := toolSkill("town_coords", map[string]any{"city_name": prop("string", "The city.")}, "city_name")
			Expect(extractTool(town, "the coordinates of the city where Dr. Ono works")).NotTo(HaveKeyWithValue("city_name", "Dr. Ono"))
		})
		It("takes a quoted name", func() {
			co := toolSkill("filings", map[string]any{"company": prop("string", "Company name.")}, "company")
			Expect(extractTool(co, "filings of the firm 'Northwind Ltd' this year")).To(HaveKeyWithValue("company", "Northwind Ltd"))
		})
		It("fills indexed params from a written pair, in order", func() {
			match := toolSkill("head_to_head", map[string]any{"team1": prop("string", "First team."), "team2": prop("string", "Second team.")}, "team1", "team2")
			Expect(extractTool(match, "results of Ashby United vs Carlow Town")).
				To(Equal(map[string]any{"team1": "Ashby United", "team2": "Carlow Town"}))
			pets := toolSkill("compare_pets", map[string]any{"pet1": prop("string", "A pet."), "pet2": prop("string", "Another pet.")}, "pet1", "pet2")
			Expect(extractTool(pets, "compare a ferret and a rabbit")).To(Equal(map[string]any{"pet1": "ferret", "pet2": "rabbit"}))
		})
		It("reads names written with letters outside ASCII, and no name inside a word", func() {
			city := toolSkill("city_facts", map[string]any{"city": prop("string", "A city.")}, "city")
			Expect(extractTool(city, "rainfall in São Tomé last year")).To(HaveKeyWithValue("city", "São Tomé"))
			Expect(extractTool(city, "rainfall in Škofja Loka")).To(HaveKeyWithValue("city", "Škofja Loka"))
			singer := toolSkill("play_artist", map[string]any{"artist": prop("string", "Name of the artist.")}, "artist")
			Expect(extractTool(singer, "play songs by Renée Ørsted")).To(HaveKeyWithValue("artist", "Renée Ørsted"))
			Expect(extractTool(singer, "play songs by éPhonic")).NotTo(HaveKeyWithValue("artist", "Phonic"))
			text := "查一下Lisboa的雨量"
			names := properNames(text, &spans{})
			Expect(names).To(HaveLen(1), "Chinese writes no space before a Latin name")
			Expect(text[names[0].from:names[0].to]).To(Equal("Lisboa"))
		})
		It("does not take a sentence's first word, a lowercase word or a name with no tie to the param", func() {
			city := toolSkill("city_facts", map[string]any{"city": prop("string", "A city.")}, "city")
			Expect(extractTool(city, "Tell me about rainfall")).To(BeEmpty())
			Expect(extractTool(city, "a little yellow house in the valley")).To(BeEmpty())
		})
	})

	Describe("quotes", func() {
		review := toolSkill("mood", map[string]any{"text": prop("string", "Text to score.")}, "text")
		It("keeps apostrophes inside single quotes and reads backticks", func() {
			Expect(extractTool(review, "Score 'It's late, we're tired'.")).To(HaveKeyWithValue("text", "It's late, we're tired"))
			Expect(extractTool(review, "Score `no way`")).To(HaveKeyWithValue("text", "no way"))
		})
		It("does not take the text between two apostrophes as a quote", func() {
			Expect(extractTool(review, "What's on at Maya's place?")).NotTo(HaveKey("text"))
		})
		It("gives each quote to the param whose words stand before it", func() {
			diff := toolSkill("diff_text", map[string]any{
				"text":           prop("string", "The new text."),
				"reference_text": prop("string", "The old text."),
			}, "text", "reference_text")
			Expect(extractTool(diff, "compare the text 'blue sky' with the reference text 'grey sky'")).
				To(Equal(map[string]any{"text": "blue sky", "reference_text": "grey sky"}))
		})
		It("keeps a bracketed list whole for the list param: no item of it goes to a string param", func() {
			sorter := toolSkill("sort_words", map[string]any{
				"words": stringArray("Words to sort."),
				"order": prop("string", "The order: 'up' or 'down'."),
				"label": prop("string", "A label for the result."),
			}, "words")
			out := extractTool(sorter, "sort these by order: ['Oak', 'Elm', 'Ash']")
			Expect(out).To(HaveKeyWithValue("words", []any{"Oak", "Elm", "Ash"}))
			Expect(out).NotTo(HaveKey("order"))
			Expect(out).NotTo(HaveKey("label"))
		})
		It("gives a quote to a title param before a free-text param, and leaves a quote another param's word names to that param", func() {
			ratings := toolSkill("board_game_ratings", map[string]any{
				"game":   prop("string", "The name of the board game."),
				"source": prop("string", "Where the ratings come from."),
			}, "game", "source")
			Expect(extractTool(ratings, "ratings of 'Moss Harbor' from 'Tabletop Weekly'")).
				To(Equal(map[string]any{"game": "Moss Harbor", "source": "Tabletop Weekly"}))
			Expect(extractTool(ratings, "ratings from 'Tabletop Weekly' for the game 'Moss Harbor'")).
				To(Equal(map[string]any{"game": "Moss Harbor", "source": "Tabletop Weekly"}))
		})
	})

	Describe("values a description gives as examples", func() {
		It("takes a value the description lists after e.g., like or such as, as the text writes it", func() {
			kiln := toolSkill("fire_pottery", map[string]any{
				"glaze": prop("string", "Glaze to use, e.g. Celadon, Tenmoku or Shino."),
				"clay":  prop("string", "Kind of clay like stoneware."),
				"kiln":  prop("string", "Kiln model such as Vulcan 8.2, Ember."),
			})
			Expect(extractTool(kiln, "fire the bowls in tenmoku, stoneware body, in the Vulcan 8.2")).To(
				Equal(map[string]any{"glaze": "tenmoku", "clay": "stoneware", "kiln": "Vulcan 8.2"}))
		})
		It("reads a parenthesised list and the values after 'including', not a parenthesised aside", func() {
			ride := toolSkill("plan_ride", map[string]any{
				"mode":    prop("string", "How to travel (walk, cycle, tram)."),
				"extras":  stringArray("Extras to add, including helmet, basket, lock."),
				"profile": prop("string", "Rider profile (optional)."),
			})
			Expect(extractTool(ride, "I want to cycle; add a lock and a basket, optional extras aside")).To(
				Equal(map[string]any{"mode": "cycle", "extras": []any{"lock", "basket"}}))
		})
		It("reads no examples after 'like' as a verb, nor a place's format example as a value", func() {
			slot := toolSkill("book_slot", map[string]any{
				"slot": prop("string", "The time you would like to book."),
				"city": prop("string", "City and state, e.g. Denver, CO."),
			})
			Expect(extractTool(slot, "I'd like to book a slot in Denver")).To(Equal(map[string]any{"city": "Denver, CO"}))
		})
	})

	Describe("values the schema's own words introduce", func() {
		shop := toolSkill("find_shoes", map[string]any{
			"color": prop("string", "Shoe color."),
			"style": prop("string", "Shoe style."),
			"size":  prop("string", "Size label."),
		}, "color", "style")
		It("takes plain words after the param's word and a connector, or beside it for a required param", func() {
			Expect(extractTool(shop, "shoes, the color is teal, in a loafer style")).To(And(HaveKeyWithValue("color", "teal"), HaveKeyWithValue("style", "loafer")))
		})
		It("takes the whole capitalised name that ends before the param's word", func() {
			hearings := toolSkill("court_hearings", map[string]any{"court": prop("string", "The court.")}, "court")
			Expect(extractTool(hearings, "hearings listed in the Port Vale court this week")).To(HaveKeyWithValue("court", "Port Vale"))
		})
		It("takes an optional param only after a connector", func() {
			Expect(extractTool(shop, "large size shoes")).NotTo(HaveKey("size"))
			Expect(extractTool(shop, "shoes; the size is large")).To(HaveKeyWithValue("size", "large"))
		})
		It("does so only for bare tool schemas: a registry's skill states values by example", func() {
			s := toolSkill("find_shoes", map[string]any{"color": prop("string", "Shoe color.")}, "color")
			s.Examples = []registry.Example{{Input: "red shoes", Params: map[string]any{"color": "red"}}}
			Expect(ExtractParams(s, "the color is teal", testNow)).NotTo(HaveKey("color"))
		})
		It("takes a value the description quotes when the text says it or a word of its stem, written as described", func() {
			report := toolSkill("report", map[string]any{"detail": prop("string", "Depth: 'summary' or 'exhaustive'.")}, "detail")
			Expect(extractTool(report, "an exhaustive report")).To(HaveKeyWithValue("detail", "exhaustive"))
			Expect(extractTool(report, "report it exhaustively")).To(HaveKeyWithValue("detail", "exhaustive"))
			Expect(extractTool(report, "a report please")).NotTo(HaveKey("detail"))
		})
		It("fills a list with every quoted value of the description the text says", func() {
			route := toolSkill("route", map[string]any{"avoid": stringArray("What to avoid: 'ferries', 'tunnels' or 'bridges'.")}, "avoid")
			Expect(extractTool(route, "a route without bridges or ferries")).To(HaveKeyWithValue("avoid", []any{"bridges", "ferries"}))
		})
		It("takes a value written as name=value or name: value", func() {
			stats := toolSkill("stats_test", map[string]any{
				"alpha":   prop("number", "Significance level."),
				"samples": numberArray("number", "The data."),
				"tail":    map[string]any{"type": "string", "enum": []any{"left", "right", "both"}},
			}, "alpha", "samples")
			Expect(extractTool(stats, "run it with alpha=0.01, samples=[3, 4.5, 6] and tail: both")).
				To(Equal(map[string]any{"alpha": 0.01, "samples": []any{3.0, 4.5, 6.0}, "tail": "both"}))
		})
		It("does not take a name=value pair for a name the schema lacks", func() {
			Expect(extractTool(shop, "beta=3")).To(BeEmpty())
		})
	})

	Describe("arrays of strings", func() {
		tickers := toolSkill("quotes", map[string]any{"companies": stringArray("Companies to quote.")}, "companies")
		columns := toolSkill("select", map[string]any{"columns": stringArray("Columns to return.")}, "columns")
		It("takes names joined by commas and 'and', or a lone name after a preposition", func() {
			Expect(extractTool(tickers, "share prices of Initech and Globex over the past month")).
				To(HaveKeyWithValue("companies", []any{"Initech", "Globex"}))
			Expect(extractTool(tickers, "What's the share price of Initech?")).To(HaveKeyWithValue("companies", []any{"Initech"}))
		})
		It("takes quoted values, or plain words listed after the param's own word", func() {
			Expect(extractTool(columns, "return columns 'name', 'age' and 'city'")).To(HaveKeyWithValue("columns", []any{"name", "age", "city"}))
			Expect(extractTool(columns, "return the columns: price, stock and rating")).To(HaveKeyWithValue("columns", []any{"price", "stock", "rating"}))
		})
		It("does not make a list from a lone unquoted word or a sentence's first word", func() {
			Expect(extractTool(columns, "return columns age")).To(BeEmpty())
			Expect(extractTool(tickers, "Initech share prices")).To(BeEmpty())
		})
	})

	Describe("objects", func() {
		It("fills a nested object's own properties and sets it when any is found", func() {
			order := toolSkill("order_pizza", map[string]any{
				"delivery": map[string]any{"type": "object", "description": "Where and when.", "properties": map[string]any{
					"city": prop("string", "City."),
					"time": prop("string", "Time of day."),
				}},
				"size": map[string]any{"type": "string", "enum": []any{"small", "large"}},
			}, "delivery")
			Expect(extractTool(order, "a large pizza delivered in Tampere at 19:30")).
				To(Equal(map[string]any{"size": "large", "delivery": map[string]any{"city": "Tampere", "time": "19:30"}}))
			Expect(extractTool(order, "a large pizza")).NotTo(HaveKey("delivery"))
		})
		It("fills an array of objects with one object per listed item", func() {
			cart := toolSkill("cart", map[string]any{
				"items": map[string]any{"type": "array", "description": "Items.", "items": map[string]any{"type": "object",
					"required": []any{"quantity"}, "properties": map[string]any{"quantity": prop("integer", "How many.")}}},
			}, "items")
			Expect(extractTool(cart, "add 3 lemons, 2 melons and 6 figs")).To(HaveKeyWithValue("items", []any{
				map[string]any{"quantity": 3}, map[string]any{"quantity": 2}, map[string]any{"quantity": 6}}))
		})
	})

	Describe("booleans", func() {
		search := toolSkill("find_build", map[string]any{
			"include_notes": prop("boolean", "Include the reviewer's notes."),
			"raw_log":       prop("boolean", "Show the raw log."),
		})
		It("sets a flag the text names, off after a negator", func() {
			Expect(extractTool(search, "include notes please")).To(HaveKeyWithValue("include_notes", true))
			Expect(extractTool(search, "find it, but don't show the raw log")).To(HaveKeyWithValue("raw_log", false))
		})
		It("leaves a flag the text does not name unset", func() {
			Expect(extractTool(search, "find the build")).To(BeEmpty())
		})
		It("meets a flag's word in another form, and reads a status flag by its subject", func() {
			review := toolSkill("review_claim", map[string]any{
				"normalize":      prop("boolean", "Normalize the amounts."),
				"settled_status": prop("boolean", "Whether the claim is settled."),
			})
			Expect(extractTool(review, "apply normalization, and check whether the claim is settled")).To(
				Equal(map[string]any{"normalize": true, "settled_status": true}))
		})
	})

	Describe("the two ends of a conversion", func() {
		money := toolSkill("convert_money", map[string]any{
			"amount":        prop("number", "Amount to convert."),
			"from_currency": prop("string", "Currency of the amount."),
			"to_currency":   prop("string", "Currency to convert to."),
		}, "amount", "from_currency", "to_currency")
		words := toolSkill("translate_text", map[string]any{
			"text":            prop("string", "Text to translate."),
			"source_language": prop("string", "Language of the text."),
			"target_language": prop("string", "Language to translate into."),
		}, "text", "source_language", "target_language")

		It("reads 'N A to B' after an amount and 'from A to B'", func() {
			Expect(extractTool(money, "Convert 300 yen to euros.")).To(
				Equal(map[string]any{"amount": 300.0, "from_currency": "JPY", "to_currency": "EUR"}))
			Expect(extractTool(money, "convert 300 Euros to Canadian dollars")).To(HaveKeyWithValue("to_currency", "CAD"))
			Expect(extractTool(words, "Translate 'good night' from German to Spanish.")).To(
				Equal(map[string]any{"text": "good night", "source_language": "German", "target_language": "Spanish"}))
		})
		It("reads a base currency as the end converted from", func() {
			rate := toolSkill("exchange_rate", map[string]any{
				"base_currency":   prop("string", "Currency the rate is quoted from."),
				"target_currency": prop("string", "The currency quoted."),
			}, "base_currency", "target_currency")
			Expect(extractTool(rate, "the rate from Swiss francs to yen")).To(
				Equal(map[string]any{"base_currency": "CHF", "target_currency": "JPY"}))
		})
		It("writes a currency as its ISO code, and ends an end before a participle", func() {
			Expect(extractTool(money, "convert 40 Swiss francs to US dollars using the card rate")).To(
				Equal(map[string]any{"amount": 40.0, "from_currency": "CHF", "to_currency": "USD"}))
			Expect(extractTool(money, "convert 40 bottle caps to seashells")).To(
				HaveKeyWithValue("to_currency", "seashells"), "a currency this table does not know is kept as written")
			written := *money
			written.Examples = []registry.Example{{Input: "change 5 euros to pesos", Params: map[string]any{"amount": 5, "from_currency": "euros", "to_currency": "pesos"}}}
			Expect(extractTool(&written, "convert 300 yen to euros")).NotTo(ContainElement("EUR"), "the examples write names, not codes")
		})
		It("leaves out words another param took and an end nothing introduces", func() {
			Expect(extractTool(money, "the rate from Peso to Rupee today")).To(HaveKeyWithValue("to_currency", "INR"))
			Expect(extractTool(money, "I want euros to spend")).NotTo(HaveKey("from_currency"))
		})
	})

	Describe("a lone missing value, by elimination", func() {
		// A tool about what enzymes do in a made-up lab: its texts say
		// "enzyme", "role" and "tissue", so a request's other words are
		// what it asks about.
		role := toolSkill("enzyme_role", map[string]any{
			"enzyme": prop("string", "The enzyme to look up."),
			"tissue": prop("string", "Optional tissue to narrow the answer to."),
		}, "enzyme")
		role.Description = "Describe the role an enzyme plays in a tissue."

		It("takes the one run of words the tool's own texts do not use, after an article or preposition", func() {
			Expect(extractTool(role, "describe the role of lactase dehydrogenase")).To(
				HaveKeyWithValue("enzyme", "lactase dehydrogenase"))
			Expect(extractTool(role, "what role does Glypase play")).To(HaveKeyWithValue("enzyme", "Glypase"))
		})
		It("leaves it missing when two runs could be the value", func() {
			Expect(extractTool(role, "the role of lactase for a patient")).NotTo(HaveKey("enzyme"))
		})
		It("ends the value at a possessive", func() {
			Expect(extractTool(role, "what role does Tom Lee's play")).To(HaveKeyWithValue("enzyme", "Tom Lee"))
		})
		It("drops leading modifiers and skips a sentence's opening word", func() {
			Expect(extractTool(role, "the strongest role of kinase")).To(HaveKeyWithValue("enzyme", "kinase"))
			Expect(extractTool(role, "Summarize its role")).NotTo(HaveKey("enzyme"))
		})
		It("cuts a name to its capitalised words, possessive aside, for a param that holds a name", func() {
			home := toolSkill("home_region", map[string]any{
				"town":    prop("string", "The town."),
				"country": prop("string", "Country the town lies in."),
			}, "town", "country")
			Expect(extractTool(home, "the tide times of Porto, Portugal tomorrow morning")).To(HaveKeyWithValue("country", "Portugal"))
			sci := toolSkill("inventor_work", map[string]any{"inventor": prop("string", "Name of the inventor.")}, "inventor")
			Expect(extractTool(sci, "what did Ada Moreno's lab publish on March 3, 2031?")).To(HaveKeyWithValue("inventor", "Ada Moreno"))
		})
		It("takes the one written list of unexplained things for a lone missing list", func() {
			prices := toolSkill("grocer_prices", map[string]any{
				"items": stringArray("Items to price."),
				"store": prop("string", "Store name."),
			}, "items")
			prices.Description = "Look up grocery prices at a store."
			Expect(extractTool(prices, "the prices of plums, quinces and pears at the corner store")).To(
				HaveKeyWithValue("items", []any{"plums", "quinces", "pears"}))
			Expect(extractTool(prices, "prices of plums and pears before I bake figs or dates")).NotTo(HaveKey("items"), "two lists are doubt")
			Expect(extractTool(prices, "the prices of plums at the store")).NotTo(HaveKey("items"), "one thing is no list")
		})
		It("does not take a unit written after a number", func() {
			Expect(extractTool(role, "the role of an enzyme at 40 IU")).NotTo(HaveKey("enzyme"))
		})
		It("does not guess when a second required value is missing too", func() {
			pair := toolSkill("enzyme_pair", map[string]any{
				"enzyme": prop("string", "The enzyme."), "partner": prop("string", "The enzyme it binds."),
			}, "enzyme", "partner")
			Expect(extractTool(pair, "does the binding of lactase work")).To(BeEmpty())
		})
		It("never guesses for a skill written with examples", func() {
			withExamples := *role
			withExamples.Examples = []registry.Example{{Input: "describe the role of amylase"}}
			Expect(extractTool(&withExamples, "describe the role of lactase")).NotTo(HaveKey("enzyme"))
		})
	})

	It("does not let a description's loose words claim a number", func() {
		power := toolSkill("raise", map[string]any{
			"base": prop("integer", "The base."), "exponent": prop("integer", "The exponent."),
			"mod": prop("integer", "Optional modulus, applied to base^exponent when set."),
		}, "base", "exponent")
		power.Description = "Raise one number to the power of another."
		Expect(extractTool(power, "Raise 5 by an exponent of 3.")).To(Equal(map[string]any{"base": 5, "exponent": 3}))
	})
})
