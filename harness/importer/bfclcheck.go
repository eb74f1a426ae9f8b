package importer

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/routebench/routebench/harness"
)

// BFCL checker outcomes, one per case: the first failure BFCL's AST checker
// would report, or "" when the call is accepted.
const (
	BFCLWrongFunction = "wrong_function" // a call to another function
	BFCLNoCall        = "no_call"        // refused or clarified where a call was due
	BFCLMissing       = "missing"        // a required param was left out
	BFCLUnexpected    = "unexpected"     // a param the answer does not have
	BFCLType          = "type"           // a value of another type
	BFCLValue         = "value"          // a value outside the acceptable list
	BFCLNotAbstained  = "called"         // irrelevance: a call was made
	// relevance (any call is right) fails only with BFCLNoCall or BFCLError.
	BFCLError = "error" // the router failed; not an abstention
)

// BFCLScore is a BFCL-style accuracy for one category.
type BFCLScore struct {
	Category string         `json:"category"`
	N        int            `json:"n"`
	Correct  int            `json:"correct"`
	Errors   map[string]int `json:"errors"`
}

// Accuracy is Correct/N.
func (s BFCLScore) Accuracy() float64 {
	if s.N == 0 {
		return 0
	}
	return float64(s.Correct) / float64(s.N)
}

// ScoreBFCL applies BFCL's checker to imported BFCL results, grouped by the
// case's category tag. It reads expectations from the results themselves:
// the importer wrote every ground-truth param as {any_of, optional}.
func ScoreBFCL(results []harness.Result) []BFCLScore {
	byCat := map[string]*BFCLScore{}
	for _, r := range results {
		cat := bfclTag(r.Tags)
		if cat == "" {
			continue
		}
		s := byCat[cat]
		if s == nil {
			s = &BFCLScore{Category: cat, Errors: map[string]int{}}
			byCat[cat] = s
		}
		s.N++
		if kind := CheckBFCL(r); kind == "" {
			s.Correct++
		} else {
			s.Errors[kind]++
		}
	}
	out := make([]BFCLScore, 0, len(byCat))
	for _, cat := range sortedKeys(byCat) {
		out = append(out, *byCat[cat])
	}
	return out
}

func bfclTag(tags []string) string {
	for _, t := range tags {
		if c, ok := strings.CutPrefix(t, "category:"); ok {
			return c
		}
	}
	return ""
}

// CheckBFCL returns the BFCL failure kind of one result, or "" when BFCL
// would accept it. Abstention (refuse or clarify) is right only where the
// answer is to call nothing; in a relevance category any call is right; a
// router error is never an abstention.
func CheckBFCL(r harness.Result) string {
	d := r.Decision
	if d.Action == "error" {
		return BFCLError
	}
	acted := d.Action.Acts()
	if bfclKindOf(bfclTag(r.Tags)) == bfclRelevance {
		if !acted {
			return BFCLNoCall
		}
		return ""
	}
	if r.Expect.Action == "refuse" {
		if acted {
			return BFCLNotAbstained
		}
		return ""
	}
	if !acted {
		// Clarifying or refusing calls nothing, even when the clarify names
		// the right function: BFCL sees an empty answer, not a wrong name.
		return BFCLNoCall
	}
	if d.Skill != r.Expect.Skill {
		return BFCLWrongFunction
	}
	got := make([]string, 0, len(d.Params))
	for name := range d.Params {
		got = append(got, name)
	}
	sort.Strings(got)
	for _, name := range got {
		if _, ok := r.Expect.Params[name]; !ok {
			return BFCLUnexpected
		}
	}
	names := make([]string, 0, len(r.Expect.Params))
	for name := range r.Expect.Params {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		want := r.Expect.Params[name]
		v, present := d.Params[name]
		if !present || v == nil {
			if !want.Optional {
				return BFCLMissing
			}
			continue
		}
		if kind := bfclValue(want.AnyOf, v); kind != "" {
			return kind
		}
	}
	return ""
}

// BFCLEqual reports whether BFCL's checker takes got for the acceptable
// value want; measurements outside the importer use it so there is one
// checker.
func BFCLEqual(want, got any) bool { return bfclEqual(want, got) }

// bfclValue checks a decided value against the acceptable ones.
func bfclValue(accept []any, v any) string {
	sameType := false
	for _, a := range accept {
		if bfclEqual(a, v) {
			return ""
		}
		sameType = sameType || bfclValueKind(a) == bfclValueKind(v)
	}
	if sameType || len(accept) == 0 {
		return BFCLValue
	}
	return BFCLType
}

// bfclEqual compares as BFCL does: strings after its normalization, numbers
// numerically (an int where a float is due is the same number, as BFCL
// converts it), lists element-wise, objects key by key with the same keys
// (BFCL's dict checker fails an unexpected or missing key; the importer
// expanded the keys a ground truth lets be left out into separate
// accepted values).
func bfclEqual(want, got any) bool {
	switch w := want.(type) {
	case string:
		g, ok := got.(string)
		return ok && normalizeBFCL(w) == normalizeBFCL(g)
	case float64, int, int64:
		wf, _ := toNumber(w)
		gf, ok := toNumber(got)
		return ok && wf == gf
	case bool:
		g, ok := got.(bool)
		return ok && g == w
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !bfclEqual(w[i], g[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok || !bfclEqual(wv, gv) {
				return false
			}
		}
		return true
	}
	return want == got
}

func toNumber(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}

func bfclValueKind(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case float64, int, int64:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "null"
}

// normalizeBFCL is BFCL's string standardization: lower-case, and drop
// spaces and the characters , . / - _ * ^, and read ' as ".
func normalizeBFCL(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.ReplaceAll(s, "'", `"`)) {
		if strings.ContainsRune(" ,./-_*^", r) {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// nameOutcome says whether the router acted on the expected function, and
// whether it chose it at all (acting, or asking for params it could not
// find). BFCL's function-name accuracy is the first; the second shows how
// much of the gap is params extraction rather than routing.
func nameOutcome(r harness.Result) (acted, chose bool) {
	d := r.Decision
	right := d.Skill == r.Expect.Skill
	return right && d.Action.Acts(), right && (d.Action.Acts() || d.Action == "clarify")
}

// WriteBFCL prints BFCL-style figures next to each other: full AST accuracy
// (function and params under BFCL's checker), function-name accuracy, and
// abstention for irrelevance, with the failure kinds.
func WriteBFCL(w io.Writer, results []harness.Result) error {
	type counts struct{ acted, chose, n int }
	names := map[string]counts{}
	for _, r := range results {
		cat := bfclTag(r.Tags)
		if cat == "" || r.Expect.Action == "refuse" || bfclKindOf(cat) == bfclRelevance {
			continue
		}
		c := names[cat]
		acted, chose := nameOutcome(r)
		c.n++
		if acted {
			c.acted++
		}
		if chose {
			c.chose++
		}
		names[cat] = c
	}
	frac := func(k, n int) string { return fmt.Sprintf("%.3f (%d/%d)", float64(k)/float64(n), k, n) }
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "category\tn\tbfcl_accuracy\tfunction_name_called\tfunction_name_chosen\tfailures")
	for _, s := range ScoreBFCL(results) {
		acted, chose := "-", "-"
		label := "(abstention)"
		if bfclKindOf(s.Category) == bfclRelevance {
			label = "(relevance: any call)"
		}
		if c, ok := names[s.Category]; ok {
			acted, chose, label = frac(c.acted, c.n), frac(c.chose, c.n), ""
		}
		kinds := make([]string, 0, len(s.Errors))
		for _, k := range sortedKeys(s.Errors) {
			kinds = append(kinds, fmt.Sprintf("%s %d", k, s.Errors[k]))
		}
		fmt.Fprintf(tw, "%s\t%d\t%s %s\t%s\t%s\t%s\n", s.Category, s.N, frac(s.Correct, s.N), label, acted, chose, strings.Join(kinds, ", "))
	}
	return tw.Flush()
}
