package harness

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/routebench/routebench/internal/textdist"
)

// Labels are the Ginkgo labels of one (version, case): suite:X,
// version:NAME, skill:X for the expected skill and clarify candidates (of
// every turn, for a conversation), lang:zh|en, and the case's own tags.
// `run --label-filter` and the Ginkgo specs in suites/ select with the
// same labels.
func Labels(versionName string, c *Case) []string {
	labels := make([]string, 0, 4+len(c.Tags)+len(c.Expect.Candidates))
	labels = append(labels, "suite:"+c.Suite, "version:"+labelSafe(versionName))
	for _, e := range c.Expectations() {
		for _, s := range expectedSkills(e) {
			labels = appendUnique(labels, "skill:"+labelSafe(s))
		}
	}
	labels = appendUnique(labels, "lang:"+Lang(c))
	for _, t := range c.Tags {
		labels = appendUnique(labels, t)
	}
	return labels
}

// Lang is the case's language: its zh or en tag, else zh when the input
// (any turn's, for a conversation) has Han characters, else en.
func Lang(c *Case) string {
	for _, t := range c.Tags {
		if t == "zh" || t == "en" {
			return t
		}
	}
	inputs := []string{c.Input}
	for _, t := range c.Turns {
		inputs = append(inputs, t.Input)
	}
	for _, in := range inputs {
		for _, r := range in {
			if unicode.Is(unicode.Han, r) {
				return "zh"
			}
		}
	}
	return "en"
}

// Expectations are a case's expectations: its own, or each turn's.
func (c *Case) Expectations() []Expect {
	if !c.IsConversation() {
		return []Expect{c.Expect}
	}
	out := make([]Expect, len(c.Turns))
	for i, t := range c.Turns {
		out[i] = t.Expect
	}
	return out
}

// LabelFilter compiles a Ginkgo label-filter expression, e.g.
// "suite:adversarial && lang:zh" or "skill:refund_order || tag-x".
func LabelFilter(expr string) (func(labels []string) bool, error) {
	f, err := types.ParseLabelFilter(expr)
	if err != nil {
		return nil, plainLabelError(err)
	}
	return f, nil
}

// ginkgoMarkup matches the {{red}}-style tags Ginkgo's messages carry.
var ginkgoMarkup = regexp.MustCompile(`\{\{[a-z/-]*\}\}`)

// plainLabelError turns Ginkgo's label-filter error, which carries ANSI
// colour codes and a documentation link meant for its own CLI, into plain
// text: it ends up in logs and CI output, where the codes are garbage. The
// place of the error is shown with a caret under the filter.
func plainLabelError(err error) error {
	var ge types.GinkgoError
	if !errors.As(err, &ge) {
		return err
	}
	lines := strings.SplitN(ge.Message, "\n", 2)
	if len(lines) < 2 {
		return fmt.Errorf("%s", lowerFirst(strings.TrimSpace(ginkgoMarkup.ReplaceAllString(ge.Heading+": "+ge.Message, ""))))
	}
	at := strings.Index(lines[0], "{{")
	input := ginkgoMarkup.ReplaceAllString(lines[0], "")
	why := strings.TrimSuffix(lowerFirst(strings.TrimSpace(ginkgoMarkup.ReplaceAllString(lines[1], ""))), ".")
	if at < 0 {
		return fmt.Errorf("syntax error: %s in %q", why, input)
	}
	return fmt.Errorf("syntax error at column %d: %s\n  %s\n  %s^", len([]rune(input[:at]))+1, why, input, strings.Repeat(" ", len([]rune(input[:at]))))
}

func lowerFirst(s string) string {
	for i, r := range s {
		return string(unicode.ToLower(r)) + s[i+len(string(r)):]
	}
	return s
}

// labelSafe replaces what Ginkgo forbids in labels.
func labelSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if strings.ContainsRune("&|!,()/ ", r) {
			return '-'
		}
		return r
	}, s)
}

func appendUnique(xs []string, x string) []string {
	for _, y := range xs {
		if y == x {
			return xs
		}
	}
	return append(xs, x)
}

// labelKinds are the prefixes of Labels, in the order a listing shows
// them; anything else is a case's own tag.
var labelKinds = []string{"suite:", "version:", "skill:", "lang:"}

// NoMatchError explains a label filter that selects nothing: it names
// the labels in the expression that no (version, case) carries, with the
// nearest existing label, and lists the labels that exist by kind.
// existing may hold "id:CASE_ID" entries for the cases' ids: they count
// as existing and are suggested, but not listed.
func NoMatchError(expr string, pairs int, existing []string) error {
	have := map[string]bool{}
	var unique []string
	for _, l := range existing {
		if !have[strings.ToLower(l)] {
			have[strings.ToLower(l)] = true
			unique = append(unique, l)
		}
	}
	existing = unique
	var b strings.Builder
	fmt.Fprintf(&b, "--label-filter %q matches none of the %d (version, case) pairs", expr, pairs)
	var unknown []string
	for _, l := range filterLabels(expr) {
		if !have[strings.ToLower(l)] {
			unknown = append(unknown, l)
		}
	}
	if len(unknown) == 0 {
		b.WriteString("; each label in it exists, but no pair carries that combination")
	}
	for _, l := range unknown {
		if strings.HasPrefix(l, idPrefix) {
			fmt.Fprintf(&b, "; no case has id %s", strings.TrimPrefix(l, idPrefix))
		} else {
			fmt.Fprintf(&b, "; no case has label %q", l)
		}
		if near := nearestLabel(l, existing); near != "" {
			fmt.Fprintf(&b, " (did you mean %q?)", near)
		}
	}
	b.WriteString(". Labels that exist:")
	byKind := map[string][]string{}
	for _, l := range existing {
		if strings.HasPrefix(l, idPrefix) {
			continue // ids are many; the did-you-mean above names the near one
		}
		kind := "tags:"
		for _, k := range labelKinds {
			if strings.HasPrefix(l, k) {
				kind = k
				break
			}
		}
		byKind[kind] = append(byKind[kind], l)
	}
	for _, kind := range append(append([]string{}, labelKinds...), "tags:") {
		ls := byKind[kind]
		if len(ls) == 0 {
			continue
		}
		sort.Strings(ls)
		fmt.Fprintf(&b, "\n  %-8s %s", kind, strings.Join(ls, ", "))
	}
	return fmt.Errorf("%s", b.String())
}

// filterLabels are the plain labels of a label-filter expression: what is
// left between the operators & | ! , ( ), leaving out /regexes/ and set
// operations ("skill: containsAny {a,b}"), which name no single label.
func filterLabels(expr string) []string {
	var out []string
	var cur strings.Builder
	flush := func() {
		l := strings.TrimSpace(cur.String())
		cur.Reset()
		if l != "" && !strings.Contains(l, ": ") && !strings.HasSuffix(l, ":") {
			out = append(out, l)
		}
	}
	rs := []rune(expr)
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; {
		case r == '/' || r == '{':
			// A regex or a set operation's argument: skip to its end.
			end := '/'
			if r == '{' {
				end = '}'
				cur.Reset() // the set key and operation before it go too
			}
			for i++; i < len(rs) && rs[i] != end; i++ {
			}
		case strings.ContainsRune("&|!,()", r):
			flush()
		default:
			cur.WriteRune(r)
		}
	}
	flush()
	return out
}

// nearestLabel is the existing label closest to l by edit distance, when
// it is close enough to be a plausible typo.
func nearestLabel(l string, existing []string) string {
	best, bestDist := "", -1
	for _, e := range existing {
		d := textdist.Levenshtein(strings.ToLower(l), strings.ToLower(e))
		if bestDist < 0 || d < bestDist || d == bestDist && e < best {
			best, bestDist = e, d
		}
	}
	if bestDist < 0 || bestDist > max(2, len([]rune(l))/3) {
		return ""
	}
	return best
}

// idPrefix selects one case by its exact id in a label filter: id:CASE_ID,
// or id:"CASE ID" (Go quoting) for an id holding spaces, quotes or any of
// & | ! , ( ). Case ids are not Ginkgo labels (they may hold characters
// labels cannot), so `id:` exists only in routebench's own filters.
const idPrefix = "id:"

// idPlaceholder stands for the n-th id: term in the expression handed to
// Ginkgo's parser; it is added to a pair's labels only when the case's id
// is that term's id, and never leaves the filter.
func idPlaceholder(n int) string { return fmt.Sprintf("¶routebench-case-id-%d", n) }

// CaseFilter compiles a label-filter expression (LabelFilter's syntax)
// that may also name cases by id: "id:refund-001 || suite:boundary". The
// returned func selects a case under a version name.
func CaseFilter(expr string) (func(versionName string, c *Case) bool, error) {
	rewritten, ids, err := rewriteIDTerms(expr)
	if err != nil {
		return nil, err
	}
	match, err := LabelFilter(rewritten)
	if err != nil {
		return nil, err
	}
	return func(versionName string, c *Case) bool {
		labels := Labels(versionName, c)
		for i, id := range ids {
			if id == c.ID {
				labels = append(labels, idPlaceholder(i))
			}
		}
		return match(labels)
	}, nil
}

// rewriteIDTerms replaces each id: term of expr with its placeholder and
// returns the ids in order. A term starts where a label could: at the
// start, after a space or after one of & | ! , (.
func rewriteIDTerms(expr string) (string, []string, error) {
	var b strings.Builder
	var ids []string
	for i := 0; i < len(expr); {
		atStart := i == 0 || strings.ContainsRune(" \t&|!,(", rune(expr[i-1]))
		if !atStart || !strings.HasPrefix(expr[i:], idPrefix) {
			b.WriteByte(expr[i])
			i++
			continue
		}
		rest := expr[i+len(idPrefix):]
		var id string
		var n int
		if strings.HasPrefix(rest, `"`) {
			q, err := strconv.QuotedPrefix(rest)
			if err != nil {
				return "", nil, fmt.Errorf("id: term at offset %d: unterminated or bad quoted id %s; write id:\"CASE ID\" with Go string quoting", i, rest)
			}
			id, _ = strconv.Unquote(q)
			n = len(q)
		} else {
			n = strings.IndexAny(rest, " \t&|!,()")
			if n < 0 {
				n = len(rest)
			}
			id = rest[:n]
		}
		if id == "" {
			return "", nil, fmt.Errorf("id: term at offset %d names no case; write id:CASE_ID", i)
		}
		b.WriteString(idPlaceholder(len(ids)))
		ids = append(ids, id)
		i += len(idPrefix) + n
	}
	return b.String(), ids, nil
}
