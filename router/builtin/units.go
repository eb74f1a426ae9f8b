package builtin

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// dimension is what a measured number measures. A number written with a
// unit ("5 m/s", "300K", "$200", "7%") belongs to a property whose name or
// description measures the same thing ("velocity", "in Kelvin", "the
// amount", "the rate"), not to the nearest property of another kind.
type dimension uint8

const (
	dimNone dimension = iota
	dimLength
	dimArea
	dimVolume
	dimTime
	dimMass
	dimSpeed
	dimAcceleration
	dimTemperature
	dimFrequency
	dimMoney
	dimEnergy
	dimPower
	dimPercent
	dimData
	dimAngle
	dimPressure
	dimElectric
)

// unitWords names units as they are written after a number, longest
// spellings first where one is the start of another ("m/s^2" before
// "m/s" before "m"). Single letters are matched case-sensitively where
// case tells units apart ("K" kelvin, "k" is not a unit).
var unitWords = []struct {
	word string
	dim  dimension
}{
	{"meters per second squared", dimAcceleration}, {"meters/second^2", dimAcceleration}, {"metres/second^2", dimAcceleration},
	{"m/s^2", dimAcceleration}, {"m/s²", dimAcceleration}, {"m/s2", dimAcceleration}, {"ft/s^2", dimAcceleration},
	{"meters/second", dimSpeed}, {"metres/second", dimSpeed}, {"miles/hour", dimSpeed}, {"ft/s", dimSpeed},
	{"meters per second", dimSpeed}, {"metres per second", dimSpeed}, {"kilometers per hour", dimSpeed}, {"miles per hour", dimSpeed},
	{"m/s", dimSpeed}, {"km/h", dimSpeed}, {"km/hr", dimSpeed}, {"kmh", dimSpeed}, {"kph", dimSpeed}, {"mph", dimSpeed}, {"knots", dimSpeed},
	{"square meters", dimArea}, {"square metres", dimArea}, {"square feet", dimArea}, {"square kilometers", dimArea}, {"square miles", dimArea},
	{"sq ft", dimArea}, {"sq.ft", dimArea}, {"sq m", dimArea}, {"m^2", dimArea}, {"m²", dimArea}, {"km²", dimArea}, {"km^2", dimArea}, {"acres", dimArea}, {"hectares", dimArea},
	{"cubic meters", dimVolume}, {"m^3", dimVolume}, {"m³", dimVolume}, {"liters", dimVolume}, {"litres", dimVolume}, {"liter", dimVolume}, {"litre", dimVolume},
	{"ml", dimVolume}, {"mL", dimVolume}, {"L", dimVolume}, {"gallons", dimVolume}, {"gallon", dimVolume}, {"cups", dimVolume}, {"cup", dimVolume},
	{"light years", dimLength}, {"light-years", dimLength}, {"kilometers", dimLength}, {"kilometres", dimLength}, {"kilometer", dimLength}, {"kilometre", dimLength},
	{"centimeters", dimLength}, {"centimetres", dimLength}, {"millimeters", dimLength}, {"meters", dimLength}, {"metres", dimLength}, {"meter", dimLength}, {"metre", dimLength},
	{"miles", dimLength}, {"mile", dimLength}, {"feet", dimLength}, {"foot", dimLength}, {"inches", dimLength}, {"inch", dimLength}, {"yards", dimLength},
	{"km", dimLength}, {"cm", dimLength}, {"mm", dimLength}, {"nm", dimLength}, {"ft", dimLength}, {"mi", dimLength}, {"m", dimLength}, {"ly", dimLength}, {"AU", dimLength},
	{"milliseconds", dimTime}, {"seconds", dimTime}, {"second", dimTime}, {"minutes", dimTime}, {"minute", dimTime}, {"hours", dimTime}, {"hour", dimTime},
	{"days", dimTime}, {"day", dimTime}, {"weeks", dimTime}, {"week", dimTime}, {"months", dimTime}, {"month", dimTime}, {"years", dimTime}, {"year", dimTime},
	{"secs", dimTime}, {"sec", dimTime}, {"mins", dimTime}, {"min", dimTime}, {"hrs", dimTime}, {"hr", dimTime}, {"yrs", dimTime}, {"s", dimTime}, {"h", dimTime},
	{"kilograms", dimMass}, {"kilogram", dimMass}, {"grams", dimMass}, {"gram", dimMass}, {"milligrams", dimMass}, {"tonnes", dimMass}, {"tons", dimMass},
	{"pounds", dimMass}, {"pound", dimMass}, {"ounces", dimMass}, {"ounce", dimMass}, {"kg", dimMass}, {"mg", dimMass}, {"lbs", dimMass}, {"lb", dimMass}, {"oz", dimMass}, {"g", dimMass},
	{"degrees celsius", dimTemperature}, {"degrees fahrenheit", dimTemperature}, {"degree celsius", dimTemperature}, {"celsius", dimTemperature},
	{"fahrenheit", dimTemperature}, {"kelvin", dimTemperature}, {"°C", dimTemperature}, {"°F", dimTemperature}, {"°", dimAngle}, {"C", dimTemperature}, {"F", dimTemperature}, {"K", dimTemperature},
	{"degrees", dimAngle}, {"radians", dimAngle},
	{"kHz", dimFrequency}, {"MHz", dimFrequency}, {"GHz", dimFrequency}, {"Hz", dimFrequency}, {"hz", dimFrequency}, {"hertz", dimFrequency},
	{"dollars", dimMoney}, {"dollar", dimMoney}, {"euros", dimMoney}, {"euro", dimMoney}, {"usd", dimMoney}, {"USD", dimMoney}, {"EUR", dimMoney}, {"GBP", dimMoney},
	{"kilojoules", dimEnergy}, {"joules", dimEnergy}, {"joule", dimEnergy}, {"calories", dimEnergy}, {"kcal", dimEnergy}, {"kJ", dimEnergy}, {"J", dimEnergy}, {"kWh", dimEnergy},
	{"watts", dimPower}, {"kilowatts", dimPower}, {"kW", dimPower}, {"W", dimPower},
	{"percent", dimPercent}, {"per cent", dimPercent}, {"%", dimPercent},
	{"GB", dimData}, {"MB", dimData}, {"KB", dimData}, {"TB", dimData},
	{"atmospheres", dimPressure}, {"atmosphere", dimPressure}, {"atm", dimPressure}, {"pascals", dimPressure}, {"Pa", dimPressure}, {"kPa", dimPressure}, {"psi", dimPressure}, {"bar", dimPressure},
	{"volts", dimElectric}, {"amperes", dimElectric}, {"amps", dimElectric}, {"ohms", dimElectric}, {"coulombs", dimElectric}, {"V", dimElectric}, {"A", dimElectric},
}

// currencySigns before a number make it money.
const currencySigns = "$€£¥￥"

// dimensionWords are the words a property's name or description uses for
// what it measures; the unit words themselves count too ("in meters").
var dimensionWords = map[dimension][]string{
	dimLength:       {"length", "distance", "height", "width", "radius", "diameter", "depth", "altitude", "elevation", "perimeter", "circumference", "wavelength", "displacement", "range"},
	dimArea:         {"area", "surface", "coverage"},
	dimVolume:       {"volume", "capacity"},
	dimTime:         {"time", "duration", "period", "age", "term", "interval", "lifetime", "delay", "timeout"},
	dimMass:         {"mass", "weight"},
	dimSpeed:        {"velocity", "speed"},
	dimAcceleration: {"acceleration", "gravity"},
	dimTemperature:  {"temperature", "temp"},
	dimFrequency:    {"frequency", "pitch"},
	dimMoney:        {"amount", "price", "cost", "principal", "investment", "payment", "fee", "salary", "income", "revenue", "budget", "deposit", "balance", "loan", "profit", "expenses", "expense", "worth", "money", "cash", "fund", "capital", "value"},
	dimEnergy:       {"energy", "heat", "work", "calories"},
	dimPower:        {"power", "wattage"},
	dimPercent:      {"rate", "percent", "percentage", "ratio", "yield", "return", "probability", "proportion", "share", "fraction", "growth", "interest", "discount", "tax", "inflation", "chance"},
	dimAngle:        {"angle", "degrees"},
	dimPressure:     {"pressure"},
	dimElectric:     {"voltage", "current", "charge", "resistance"},
}

// unitAfter reads a unit written right after a number ending at to:
// glued ("6cm") or after one space ("6 cm", "10 meters per second").
// It returns the unit's dimension and the byte length read (0 if none).
func unitAfter(text string, to int) (dimension, int) {
	rest := text[to:]
	skip := 0
	if strings.HasPrefix(rest, " ") {
		skip = 1
	}
	cand := rest[skip:]
	if cand == "" {
		return dimNone, 0
	}
	first, _ := utf8.DecodeRuneInString(cand)
	for _, i := range unitsByFirst[foldKey(first)] {
		u := unitWords[i]
		w := u.word
		if len(cand) < len(w) {
			continue
		}
		// Short units are case-sensitive ("K", "C", "mL"); words are not.
		head := cand[:len(w)]
		if len(w) <= 3 {
			if head != w && !(isLowerWord(w) && strings.EqualFold(head, w) && head != strings.ToUpper(head)) {
				continue
			}
		} else if !strings.EqualFold(head, w) {
			continue
		}
		end := len(w)
		if end < len(cand) && (isLatinOrDigit(rune(cand[end])) || cand[end] == '_') && !strings.HasSuffix(w, "%") {
			continue // "5 cmd" holds no centimetres
		}
		// A one-letter unit after a space is a word of its own ("5 m"),
		// but "3 a day" or "2 A and B" are not units.
		if skip == 1 && len(w) == 1 && w != "%" && w != "K" && w != "C" && w != "F" {
			continue
		}
		if skip == 1 && len(w) <= 2 && (w == "s" || w == "h" || w == "g" || w == "m") && end < len(cand) && cand[end] == '\'' {
			continue
		}
		return u.dim, skip + end
	}
	return dimNone, 0
}

func isLowerWord(w string) bool { return w == strings.ToLower(w) }

// unitsByFirst lists, in unitWords' order, the units whose first rune has
// each fold key: a unit can be read only where the text's first rune folds
// to its own (both comparisons unitAfter makes, exact and case-folded,
// start with the first runes), so a number is checked against a few units
// rather than all of them.
var unitsByFirst = func() map[rune][]int {
	m := map[rune][]int{}
	for i, u := range unitWords {
		r, _ := utf8.DecodeRuneInString(u.word)
		m[foldKey(r)] = append(m[foldKey(r)], i)
	}
	return m
}()

// foldKey is the smallest rune of r's case-folding orbit: runes that
// strings.EqualFold takes for one another share it.
func foldKey(r rune) rune {
	k := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		k = min(k, f)
	}
	return k
}

// propDimensions lists what a property measures, from the words of its
// name and description: dimension words ("velocity") and units ("in
// Kelvin", "in meters").
func propDimensions(nameParts []string, desc string) []dimension {
	var out []dimension
	add := func(d dimension) {
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	words := append([]string(nil), nameParts...)
	for _, t := range segment(desc, nil) {
		if t.kind == tokLatin {
			words = append(words, t.text)
		}
	}
	for _, w := range words {
		for d, list := range dimensionWords {
			for _, dw := range list {
				if w == dw || strings.TrimSuffix(w, "s") == dw {
					add(d)
				}
			}
		}
	}
	lower := " " + lowerASCII(desc) + " "
	for _, u := range unitWords {
		if len(u.word) < 4 || u.dim == dimPercent {
			continue // long unit names only: "in meters", "in kelvin"
		}
		if strings.Contains(lower, " "+lowerASCII(u.word)+" per ") {
			continue // "in kilometres per litre" measures no distance
		}
		if strings.Contains(lower, " "+lowerASCII(u.word)+" ") || strings.Contains(lower, " "+lowerASCII(u.word)+".") ||
			strings.Contains(lower, " "+lowerASCII(u.word)+",") || strings.Contains(lower, "("+lowerASCII(u.word)+")") {
			add(u.dim)
		}
	}
	slices.Sort(out)
	return out
}

// asPercent reports whether a property wants a percentage written as the
// number before "%" ("as a percentage", "in percent"); otherwise a
// percentage given to a rate is a fraction: 5% is 0.05.
func asPercent(nameParts []string, desc string) bool {
	d := lowerASCII(desc)
	if strings.Contains(d, "decimal") || strings.Contains(d, "fraction") || strings.Contains(d, "between 0 and 1") {
		return false
	}
	return slices.Contains(nameParts, "percentage") || slices.Contains(nameParts, "percent") || slices.Contains(nameParts, "pct") ||
		strings.Contains(d, "percent") || strings.Contains(d, "%")
}

// assignUnitNames fills a string property that names a unit of
// measurement ("unit", "units") with the unit the request's quantities
// are written in: "a beam of 9 feet" gives "feet", as written.
// Two different units are doubt; a unit of something else than what the
// property's words measure is none of its.
func assignUnitNames(p *extractPlan, text string, nums []numberSpan, out map[string]any) {
	for pp := range p.unfilled(out, propString) {
		if !slices.Contains(pp.nameCues, "unit") && !slices.Contains(pp.nameCues, "units") {
			continue
		}
		unit := ""
		for _, n := range nums {
			if n.dim == dimNone || n.dim == dimPercent || n.unit.from == n.unit.to || len(pp.dims) > 0 && !slices.Contains(pp.dims, n.dim) {
				continue // "2 hours" is no temperature unit
			}
			u := strings.TrimSpace(text[n.unit.from:n.unit.to])
			if unit != "" && !strings.EqualFold(u, unit) {
				unit = ""
				break
			}
			unit = u
		}
		if unit != "" {
			out[pp.name] = unit
		}
	}
}
