package builtin

// The places a description's "City, ST" or "City, Country" format can be
// completed for when a request names the city alone ("weather in Boston"
// for "The city and state, e.g. Austin, TX"). Chosen by an outside
// measure, not by any request: the 50 most populous US cities (2020
// census), the 40 largest urban areas of the world (UN World
// Urbanization Prospects 2018) and the G20's capitals. A name two of
// them share goes to the larger.

// usCityStates are the 50 most populous US cities and their states.
var usCityStates = map[string]string{
	"new york": "NY", "los angeles": "CA", "chicago": "IL", "houston": "TX", "phoenix": "AZ",
	"philadelphia": "PA", "san antonio": "TX", "san diego": "CA", "dallas": "TX", "san jose": "CA",
	"austin": "TX", "jacksonville": "FL", "fort worth": "TX", "columbus": "OH", "indianapolis": "IN",
	"charlotte": "NC", "san francisco": "CA", "seattle": "WA", "denver": "CO", "washington": "DC",
	"nashville": "TN", "oklahoma city": "OK", "el paso": "TX", "boston": "MA", "portland": "OR",
	"las vegas": "NV", "detroit": "MI", "memphis": "TN", "louisville": "KY", "baltimore": "MD",
	"milwaukee": "WI", "albuquerque": "NM", "tucson": "AZ", "fresno": "CA", "sacramento": "CA",
	"kansas city": "MO", "mesa": "AZ", "atlanta": "GA", "omaha": "NE", "colorado springs": "CO",
	"raleigh": "NC", "long beach": "CA", "virginia beach": "VA", "miami": "FL", "oakland": "CA",
	"minneapolis": "MN", "tulsa": "OK", "bakersfield": "CA", "wichita": "KS", "arlington": "TX",
}

// worldCityCountries are the other cities of the lists above and their
// countries, as English writes them.
var worldCityCountries = map[string]string{
	"tokyo": "Japan", "delhi": "India", "new delhi": "India", "shanghai": "China", "são paulo": "Brazil",
	"sao paulo": "Brazil", "mexico city": "Mexico", "cairo": "Egypt", "mumbai": "India", "beijing": "China",
	"dhaka": "Bangladesh", "osaka": "Japan", "karachi": "Pakistan", "buenos aires": "Argentina",
	"chongqing": "China", "istanbul": "Turkey", "kolkata": "India", "manila": "Philippines", "lagos": "Nigeria",
	"rio de janeiro": "Brazil", "tianjin": "China", "kinshasa": "Democratic Republic of the Congo",
	"guangzhou": "China", "moscow": "Russia", "shenzhen": "China", "lahore": "Pakistan", "bangalore": "India",
	"bengaluru": "India", "paris": "France", "bogotá": "Colombia", "bogota": "Colombia", "jakarta": "Indonesia",
	"chennai": "India", "lima": "Peru", "bangkok": "Thailand", "seoul": "South Korea", "nagoya": "Japan",
	"hyderabad": "India", "london": "UK", "tehran": "Iran", "chengdu": "China", "canberra": "Australia",
	"brasília": "Brazil", "brasilia": "Brazil", "ottawa": "Canada", "berlin": "Germany", "rome": "Italy",
	"riyadh": "Saudi Arabia", "pretoria": "South Africa", "ankara": "Turkey",
}

// regionOf is the region a description's format wants after a city the
// request names alone: the state's code for a US city, the country for
// another; ok is false for a place the lists do not hold.
func regionOf(place string) (string, bool) {
	k := lowerASCII(place)
	if st, ok := usCityStates[k]; ok {
		return st, true
	}
	c, ok := worldCityCountries[k]
	return c, ok
}
