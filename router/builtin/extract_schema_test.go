package builtin

import (
	"github.com/routebench/routebench/router/registry"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// toolSkill is a skill made from a JSON Schema of the kind function-calling
// benchmarks (BFCL) and OpenAI tools give: typed properties with
// descriptions, no examples, no x-synonyms.
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

var _ = Describe("ExtractParams on JSON-Schema tools", func() {
	triangle := toolSkill("triangle_properties", map[string]any{
		"side1": prop("integer", "The length of first side of the triangle."),
		"side2": prop("integer", "The length of second side of the triangle."),
		"side3": prop("integer", "The length of third side of the triangle."),
	}, "side1", "side2", "side3")
	quadratic := toolSkill("solve_quadratic", map[string]any{
		"a": prop("integer", "Coefficient of x squared."),
		"b": prop("integer", "Coefficient of x."),
		"c": prop("integer", "Constant term."),
	}, "a", "b", "c")
	entropy := toolSkill("entropy_change", map[string]any{
		"initial_temp":  prop("number", "The initial temperature in Kelvin."),
		"final_temp":    prop("number", "The final temperature in Kelvin."),
		"heat_capacity": prop("number", "The heat capacity in J/K."),
	}, "initial_temp", "final_temp", "heat_capacity")

	It("fills numeric params in order when the counts agree and no param is named", func() {
		Expect(ExtractParams(triangle, "its three sides are 5 units, 4 units and 3 units long", testNow)).
			To(Equal(map[string]any{"side1": 5, "side2": 4, "side3": 3}))
	})
	It("does not spread numbers over unnamed params when the counts differ", func() {
		Expect(ExtractParams(triangle, "triangle with sides 5 and 4", testNow)).To(HaveLen(2))
		Expect(ExtractParams(toolSkill("f", map[string]any{"n": prop("integer", "How many.")}, "n"), "compare 3, 4 and 9", testNow)).To(BeEmpty())
	})
	It("reads negative numbers and single-letter names as whole words", func() {
		Expect(ExtractParams(quadratic, "roots of a quadratic equation with coefficients a=1, b=-3, c=2", testNow)).
			To(Equal(map[string]any{"a": 1, "b": -3, "c": 2}))
	})
	It("keeps a hyphen after a letter part of an id, not a minus sign", func() {
		Expect(ExtractParams(quadratic, "see ticket ABC-3", testNow)).NotTo(HaveKey("b"))
	})
	It("ties a number to the param all of whose name words are near it", func() {
		Expect(ExtractParams(entropy, "an initial temperature of 300K, a final temperature of 400K, and a heat capacity of 5J/K", testNow)).
			To(Equal(map[string]any{"initial_temp": 300.0, "final_temp": 400.0, "heat_capacity": 5.0}))
	})
	It("accepts units glued to a number but not other letters", func() {
		dist := toolSkill("d", map[string]any{"distance": prop("number", "Distance in meters.")}, "distance")
		Expect(ExtractParams(dist, "a distance of 5000m", testNow)).To(HaveKeyWithValue("distance", 5000.0))
		Expect(ExtractParams(dist, "the distance on node7x", testNow)).To(BeEmpty())
		Expect(ExtractParams(dist, "p99 distance", testNow)).To(BeEmpty())
	})
	It("scales numbers written with million", func() {
		pop := toolSkill("density", map[string]any{"population": prop("integer", "The population.")}, "population")
		Expect(ExtractParams(pop, "the population is 213 million", testNow)).To(HaveKeyWithValue("population", 213000000))
	})

	Describe("arrays of numbers", func() {
		avg := toolSkill("average", map[string]any{"numbers": numberArray("integer", "The list of numbers.")}, "numbers")
		ttest := toolSkill("t_test", map[string]any{
			"group1": numberArray("number", "First group."), "group2": numberArray("number", "Second group."),
		}, "group1", "group2")
		It("takes a bracketed or written list", func() {
			Expect(ExtractParams(avg, "average of [12, 15, 18, 20]", testNow)).To(HaveKeyWithValue("numbers", []any{12, 15, 18, 20}))
			Expect(ExtractParams(avg, "average of 1, 2 and 3", testNow)).To(HaveKeyWithValue("numbers", []any{1, 2, 3}))
			Expect(ExtractParams(avg, "cash flows [-500, 100, 200]", testNow)).To(HaveKeyWithValue("numbers", []any{-500, 100, 200}))
		})
		It("gives several lists to several arrays in order", func() {
			Expect(ExtractParams(ttest, "compare group A [3, 4, 5] and group B [7.5, 8, 9]", testNow)).
				To(Equal(map[string]any{"group1": []any{3.0, 4.0, 5.0}, "group2": []any{7.5, 8.0, 9.0}}))
		})
		It("does not make a list of one number, nor guess which list goes where", func() {
			Expect(ExtractParams(avg, "the average of 12", testNow)).To(BeEmpty())
			Expect(ExtractParams(ttest, "compare [1, 2], [3, 4] and [5, 6]", testNow)).To(BeEmpty())
		})
	})

	Describe("booleans", func() {
		caseInfo := toolSkill("case_info", map[string]any{
			"include_dissent": prop("boolean", "If true, include dissenting opinions."),
			"full_text":       prop("boolean", "Return the full text."),
			"verbose":         prop("boolean", "More output."),
		})
		It("sets a flag the text names, off after a negator", func() {
			Expect(ExtractParams(caseInfo, "Retrieve the case. Include dissent information.", testNow)).To(HaveKeyWithValue("include_dissent", true))
			Expect(ExtractParams(caseInfo, "Find the case in Texas. Don't return full text", testNow)).To(HaveKeyWithValue("full_text", false))
			Expect(ExtractParams(caseInfo, "the case without dissent", testNow)).To(HaveKeyWithValue("include_dissent", false))
		})
		It("leaves a flag the text does not name unset", func() {
			Expect(ExtractParams(caseInfo, "Retrieve the case Roe v. Wade", testNow)).To(BeEmpty())
		})
	})

	Describe("places, people and organisations", func() {
		route := toolSkill("directions", map[string]any{
			"start_location": prop("string", "The starting point of the journey."),
			"end_location":   prop("string", "The destination point of the journey."),
		}, "start_location", "end_location")
		density := toolSkill("density", map[string]any{"country": prop("string", "The country.")}, "country")
		concert := toolSkill("concert", map[string]any{
			"artist":   prop("string", "Name of the artist."),
			"location": prop("string", "The city and state, e.g. New York, NY."),
		}, "artist", "location")
		It("gives the name after from to the start and after to to the end", func() {
			Expect(ExtractParams(route, "Get directions to Melbourne from Sydney using the fastest route.", testNow)).
				To(Equal(map[string]any{"start_location": "Sydney", "end_location": "Melbourne"}))
		})
		It("keeps multi-word names and a state code, drops a sentence's full stop", func() {
			Expect(ExtractParams(density, "What is the density for United States?", testNow)).To(HaveKeyWithValue("country", "United States"))
			Expect(ExtractParams(route, "from San Francisco, CA to Washington D.C.", testNow)).
				To(Equal(map[string]any{"start_location": "San Francisco, CA", "end_location": "Washington D.C."}))
			Expect(ExtractParams(density, "Density in Brazil. Use the 2022 census.", testNow)).To(HaveKeyWithValue("country", "Brazil"))
		})
		It("prefers the name right after the param's own word", func() {
			Expect(ExtractParams(concert, "concert details for the artist Beyonce performing in San Diego", testNow)).
				To(Equal(map[string]any{"artist": "Beyonce", "location": "San Diego"}))
		})
		It("takes a quoted name", func() {
			co := toolSkill("lawsuits", map[string]any{"company": prop("string", "The company.")}, "company")
			Expect(ExtractParams(co, "lawsuits against the company 'Google' filed in 2021", testNow)).To(HaveKeyWithValue("company", "Google"))
		})
		It("does not take a sentence's first word, a capitalised phrase after 'the' or a lowercase word", func() {
			Expect(ExtractParams(density, "Calculate the Population Density", testNow)).To(BeEmpty())
			Expect(ExtractParams(density, "Brazil", testNow)).To(BeEmpty())
			Expect(ExtractParams(density, "a small green bird in forest", testNow)).To(BeEmpty())
		})
	})

	Describe("quotes", func() {
		review := toolSkill("sentiment", map[string]any{"text": prop("string", "The text to analyse.")}, "text")
		It("keeps apostrophes inside single quotes and reads backticks", func() {
			Expect(ExtractParams(review, "Analyze the review 'Let's meet at 10, it's great'.", testNow)).To(HaveKeyWithValue("text", "Let's meet at 10, it's great"))
			Expect(ExtractParams(review, "sentiment of `DNA123`", testNow)).To(HaveKeyWithValue("text", "DNA123"))
		})
		It("does not take the text between two apostrophes as a quote", func() {
			Expect(ExtractParams(review, "What's the timing for The Weeknd's concert?", testNow)).NotTo(HaveKey("text"))
		})
	})

	Describe("identifiers, years and values a description quotes", func() {
		snp := toolSkill("mutation_type", map[string]any{"snp_id": prop("string", "The ID of the SNP.")}, "snp_id")
		census := toolSkill("census", map[string]any{"year": prop("string", "The year.")}, "year")
		gold := toolSkill("metal_price", map[string]any{
			"measure": prop("string", "The measure unit for price, like 'ounce' or 'kg'."),
		}, "measure")
		It("takes an id-shaped token for an id param", func() {
			Expect(ExtractParams(snp, "mutation for SNP ID rs6034464.", testNow)).To(HaveKeyWithValue("snp_id", "rs6034464"))
			Expect(ExtractParams(snp, "which mutation is this?", testNow)).To(BeEmpty())
		})
		It("takes a four-digit year for a year string, nothing else", func() {
			Expect(ExtractParams(census, "density for Brazil in 2022", testNow)).To(HaveKeyWithValue("year", "2022"))
			Expect(ExtractParams(census, "density with 300 people", testNow)).To(BeEmpty())
		})
		It("takes a value the description quotes only when the text says it", func() {
			Expect(ExtractParams(gold, "current Gold price per ounce", testNow)).To(HaveKeyWithValue("measure", "ounce"))
			Expect(ExtractParams(gold, "current Gold price", testNow)).To(BeEmpty())
			Expect(ExtractParams(gold, "price in kgs", testNow)).To(BeEmpty())
		})
		It("orders a journey named with between: the start first", func() {
			dist := toolSkill("distance", map[string]any{
				"start_location": prop("string", "The starting location."),
				"end_location":   prop("string", "The ending location."),
			}, "start_location", "end_location")
			Expect(ExtractParams(dist, "the distance between Boston, MA, and Washington, D.C. in miles", testNow)).
				To(Equal(map[string]any{"start_location": "Boston, MA", "end_location": "Washington, D.C."}))
		})
	})

	It("does not let a description's loose words claim a number", func() {
		power := toolSkill("math.power", map[string]any{
			"base": prop("integer", "The base number."), "exponent": prop("integer", "The exponent."),
			"mod": prop("integer", "The modulus. Default is 1. Calculates pow(base, exponent) % mod when provided."),
		}, "base", "exponent")
		power.Description = "Calculate the power of one number raised to another."
		Expect(ExtractParams(power, "Calculate the power of 3 raised to the power 4.", testNow)).
			To(Equal(map[string]any{"base": 3, "exponent": 4}))
	})

	Describe("arrays of strings", func() {
		stocks := toolSkill("stock_prices", map[string]any{
			"companies": map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "List of companies."},
		}, "companies")
		model := toolSkill("regression", map[string]any{
			"predictors": map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "Predictor variables."},
		}, "predictors")
		It("takes names joined by commas and 'and', or a lone name after a preposition", func() {
			Expect(ExtractParams(stocks, "Retrieve stock prices of Microsoft and Google for the last 2 weeks.", testNow)).
				To(HaveKeyWithValue("companies", []any{"Microsoft", "Google"}))
			Expect(ExtractParams(stocks, "What's the stock price of Apple?", testNow)).To(HaveKeyWithValue("companies", []any{"Apple"}))
		})
		It("takes quoted values for other string arrays", func() {
			Expect(ExtractParams(model, "predictor variables 'Age', 'Income' and 'Education'", testNow)).
				To(HaveKeyWithValue("predictors", []any{"Age", "Income", "Education"}))
		})
		It("does not make a list from a lone unquoted word or a sentence's first word", func() {
			Expect(ExtractParams(model, "predictor variables age and income", testNow)).To(BeEmpty())
			Expect(ExtractParams(stocks, "Google stock prices", testNow)).To(BeEmpty())
		})
	})

	Describe("order and named values", func() {
		gdp := toolSkill("gdp", map[string]any{
			"start_year": prop("integer", "First year."), "end_year": prop("integer", "Last year."),
		}, "start_year", "end_year")
		clock := toolSkill("clock_angle", map[string]any{
			"hours": prop("integer", "The hour."), "minutes": prop("integer", "The minute."),
		}, "hours", "minutes")
		dna := toolSkill("mutations", map[string]any{
			"sequence":           prop("string", "The DNA sequence to be analyzed."),
			"reference_sequence": prop("string", "The reference DNA sequence."),
		}, "sequence", "reference_sequence")
		ranking := toolSkill("ranking", map[string]any{
			"team": prop("string", "The team."), "league": prop("string", "The league."),
		}, "team", "league")
		It("fills unnamed start/end numbers start first", func() {
			Expect(ExtractParams(gdp, "GDP data for United States from 1960 to 2000.", testNow)).
				To(Equal(map[string]any{"start_year": 1960, "end_year": 2000}))
		})
		It("does not read a time of day as two quantities", func() {
			Expect(ExtractParams(clock, "angle between the hands at 6:30 PM", testNow)).To(BeEmpty())
		})
		It("gives each quote to the param whose words stand before it", func() {
			Expect(ExtractParams(dna, "Analyze the DNA sequence 'AGTCGA' based on a reference sequence 'AGTCCA'.", testNow)).
				To(Equal(map[string]any{"sequence": "AGTCGA", "reference_sequence": "AGTCCA"}))
		})
		It("reads one-letter quoted items and gives a quoted list to the array, not to a string", func() {
			chords := toolSkill("chords", map[string]any{
				"progression": map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
				"order":       prop("string", "asc or desc"),
			}, "progression")
			Expect(ExtractParams(chords, "progression=['I', 'V', 'vi', 'IV']", testNow)).
				To(Equal(map[string]any{"progression": []any{"I", "V", "vi", "IV"}}))
		})
		It("gives a name that says its kind to that param", func() {
			Expect(ExtractParams(ranking, "What is the ranking of Manchester United in Premier League?", testNow)).
				To(Equal(map[string]any{"team": "Manchester United", "league": "Premier League"}))
		})
	})
})
