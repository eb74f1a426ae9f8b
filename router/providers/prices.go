package providers

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/routebench/routebench/router"
)

// Price is what a model charges in USD per one million tokens.
type Price struct {
	InputPerM  float64 `json:"input_per_m" yaml:"input_per_m"`
	OutputPerM float64 `json:"output_per_m" yaml:"output_per_m"`
}

// PriceTable maps a model name (without the provider prefix) to its price.
// A model matches its exact entry, else the longest entry that prefixes it,
// so dated snapshots ("gpt-4o-mini-2024-07-18") find their family.
type PriceTable map[string]Price

// DefaultPrices is a small CONFIGURABLE table of list prices (USD per 1M
// tokens) as published when this was written. Prices change: override them
// with Options.Prices, ROUTEBENCH_PRICES or ParsePrices. Models not listed
// (local servers, anything new) cost 0 while their token usage is still
// recorded.
func DefaultPrices() PriceTable {
	return PriceTable{
		"gpt-4o":                 {2.50, 10.00},
		"gpt-4o-mini":            {0.15, 0.60},
		"gpt-4.1":                {2.00, 8.00},
		"gpt-4.1-mini":           {0.40, 1.60},
		"gpt-4.1-nano":           {0.10, 0.40},
		"text-embedding-3-small": {0.02, 0},
		"text-embedding-3-large": {0.13, 0},
		"claude-3-5-haiku":       {0.80, 4.00},
		"claude-haiku-4-5":       {1.00, 5.00},
		"claude-sonnet-4":        {3.00, 15.00},
		"claude-opus-4":          {15.00, 75.00},
	}
}

// With returns a copy of t with the entries of extra added or replaced.
func (t PriceTable) With(extra PriceTable) PriceTable {
	out := make(PriceTable, len(t)+len(extra))
	for k, v := range t {
		out[k] = v
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

// Lookup finds the price of a model; ok is false when nothing matches.
func (t PriceTable) Lookup(model string) (Price, bool) {
	if p, ok := t[model]; ok {
		return p, true
	}
	best := ""
	for name := range t {
		if strings.HasPrefix(model, name) && len(name) > len(best) {
			best = name
		}
	}
	if best == "" {
		return Price{}, false
	}
	return t[best], true
}

// Usage turns token counts into a router.Usage with its cost; unknown
// models cost 0.
func (t PriceTable) Usage(model string, input, output int) *router.Usage {
	u := &router.Usage{InputTokens: input, OutputTokens: output}
	if p, ok := t.Lookup(model); ok {
		u.CostUSD = (float64(input)*p.InputPerM + float64(output)*p.OutputPerM) / 1e6
	}
	return u
}

// ParsePrices reads "model=input/output" entries separated by commas or
// semicolons, in USD per 1M tokens: "gpt-4o-mini=0.15/0.60,my-local=0/0".
func ParsePrices(s string) (PriceTable, error) {
	out := PriceTable{}
	for _, entry := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' }) {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		name, pair, ok := strings.Cut(entry, "=")
		in, outp, ok2 := strings.Cut(pair, "/")
		if !ok || !ok2 || strings.TrimSpace(name) == "" {
			return nil, fmt.Errorf("price %q: write model=input/output in USD per 1M tokens, e.g. gpt-4o-mini=0.15/0.60", entry)
		}
		ip, err1 := strconv.ParseFloat(strings.TrimSpace(in), 64)
		op, err2 := strconv.ParseFloat(strings.TrimSpace(outp), 64)
		if err1 != nil || err2 != nil || ip < 0 || op < 0 {
			return nil, fmt.Errorf("price %q: input and output must be numbers >= 0", entry)
		}
		out[strings.TrimSpace(name)] = Price{InputPerM: ip, OutputPerM: op}
	}
	return out, nil
}

// String renders the table in ParsePrices' format, sorted by model.
func (t PriceTable) String() string {
	names := make([]string, 0, len(t))
	for n := range t {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		p := t[n]
		parts[i] = fmt.Sprintf("%s=%g/%g", n, p.InputPerM, p.OutputPerM)
	}
	return strings.Join(parts, ",")
}
