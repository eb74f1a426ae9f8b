package builtin

import "strings"

// currencyCodes are ISO 4217 codes by the ways people name the currency
// in English. A currency parameter is read as its code whatever the
// request says: APIs that take a currency take the code, and "dollars"
// alone is the US dollar, as in most English writing.
var currencyCodes = map[string]string{
	"dollar": "USD", "us dollar": "USD", "american dollar": "USD", "u.s. dollar": "USD", "usd": "USD",
	"euro": "EUR", "eur": "EUR",
	"pound": "GBP", "british pound": "GBP", "pound sterling": "GBP", "pounds sterling": "GBP", "sterling": "GBP", "gbp": "GBP",
	"yen": "JPY", "japanese yen": "JPY", "jpy": "JPY",
	"yuan": "CNY", "chinese yuan": "CNY", "renminbi": "CNY", "rmb": "CNY", "cny": "CNY",
	"canadian dollar": "CAD", "cad": "CAD",
	"australian dollar": "AUD", "aud": "AUD",
	"new zealand dollar": "NZD", "nzd": "NZD",
	"hong kong dollar": "HKD", "hkd": "HKD",
	"singapore dollar": "SGD", "sgd": "SGD",
	"swiss franc": "CHF", "franc": "CHF", "chf": "CHF",
	"rupee": "INR", "indian rupee": "INR", "inr": "INR",
	"peso": "MXN", "mexican peso": "MXN", "mxn": "MXN",
	"real": "BRL", "brazilian real": "BRL", "reais": "BRL", "brl": "BRL",
	"won": "KRW", "korean won": "KRW", "south korean won": "KRW", "krw": "KRW",
	"ruble": "RUB", "rouble": "RUB", "russian ruble": "RUB", "rub": "RUB",
	"rand": "ZAR", "south african rand": "ZAR", "zar": "ZAR",
	"lira": "TRY", "turkish lira": "TRY", "try": "TRY",
	"swedish krona": "SEK", "sek": "SEK", "norwegian krone": "NOK", "nok": "NOK", "danish krone": "DKK", "dkk": "DKK",
	"zloty": "PLN", "polish zloty": "PLN", "pln": "PLN",
	"baht": "THB", "thai baht": "THB", "thb": "THB",
	"dirham": "AED", "uae dirham": "AED", "aed": "AED",
	"riyal": "SAR", "saudi riyal": "SAR", "sar": "SAR",
	"shekel": "ILS", "israeli shekel": "ILS", "ils": "ILS",
	"rupiah": "IDR", "indonesian rupiah": "IDR", "idr": "IDR",
	"ringgit": "MYR", "malaysian ringgit": "MYR", "myr": "MYR",
	"dong": "VND", "vietnamese dong": "VND", "vnd": "VND",
	"forint": "HUF", "huf": "HUF", "koruna": "CZK", "czech koruna": "CZK", "czk": "CZK",
}

// currencyCode is the ISO 4217 code a written currency name stands for:
// "Euros", "US dollars", "usd". ok is false for anything else.
func currencyCode(v string) (string, bool) {
	k := strings.ToLower(strings.TrimSpace(v))
	if code, ok := currencyCodes[k]; ok {
		return code, true
	}
	// Plurals: "euros", "pesos", "rupees", "pounds", "dollars".
	if s, ok := strings.CutSuffix(k, "s"); ok {
		code, ok := currencyCodes[s]
		return code, ok
	}
	return "", false
}

// normalizeCurrencies writes a currency property's value as its code.
func normalizeCurrencies(p *extractPlan, out map[string]any) {
	for i := range p.props {
		pp := &p.props[i]
		if pp.kind != propString || !pp.currency {
			continue
		}
		if v, ok := out[pp.name].(string); ok {
			if code, ok := currencyCode(v); ok {
				out[pp.name] = code
			}
		}
	}
}
