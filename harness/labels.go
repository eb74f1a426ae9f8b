package harness

import (
	"strings"
	"unicode"

	"github.com/onsi/ginkgo/v2/types"
)

// Labels are the Ginkgo labels of one (version, case): suite:X,
// version:NAME, skill:X for the expected skill and clarify candidates,
// lang:zh|en, and the case's own tags. `run --label-filter` and the Ginkgo
// specs in suites/ select with the same labels.
func Labels(versionName string, c *Case) []string {
	labels := make([]string, 0, 4+len(c.Tags)+len(c.Expect.Candidates))
	labels = append(labels, "suite:"+c.Suite, "version:"+labelSafe(versionName))
	for _, s := range expectedSkills(c.Expect) {
		labels = appendUnique(labels, "skill:"+labelSafe(s))
	}
	labels = appendUnique(labels, "lang:"+Lang(c))
	for _, t := range c.Tags {
		labels = appendUnique(labels, t)
	}
	return labels
}

// Lang is the case's language: its zh or en tag, else zh when the input has
// Han characters, else en.
func Lang(c *Case) string {
	for _, t := range c.Tags {
		if t == "zh" || t == "en" {
			return t
		}
	}
	for _, r := range c.Input {
		if unicode.Is(unicode.Han, r) {
			return "zh"
		}
	}
	return "en"
}

// LabelFilter compiles a Ginkgo label-filter expression, e.g.
// "suite:adversarial && lang:zh" or "skill:refund_order || tag-x".
func LabelFilter(expr string) (func(labels []string) bool, error) {
	f, err := types.ParseLabelFilter(expr)
	if err != nil {
		return nil, err
	}
	return f, nil
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
