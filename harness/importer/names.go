package importer

import (
	"fmt"
	"strings"
)

// registryName makes s a skill name the registry accepts: letters, digits,
// '_', '.' and '-' are kept, every run of anything else becomes one '_'
// ("reverted_card_payment?" -> "reverted_card_payment"). "none" is reserved
// by the registry for "nothing fits".
func registryName(s string) string {
	var b strings.Builder
	under := false
	for _, r := range s {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '.' || r == '-') {
			b.WriteRune(r)
			under = false
		} else if !under {
			b.WriteByte('_')
			under = true
		}
	}
	name := strings.Trim(b.String(), "_")
	switch name {
	case "":
		return "unnamed"
	case "none":
		return "none_"
	}
	return name
}

// namer gives every original name one registry name, in the order the
// names are first seen: a cleaned name already taken by another original
// gets _2, _3, ... So the same input always yields the same names, and
// every rename is recorded for the report.
type namer struct {
	byOriginal map[string]string
	taken      map[string]string // registry name -> original
	renames    []string
}

func newNamer() *namer {
	return &namer{byOriginal: map[string]string{}, taken: map[string]string{}}
}

// name returns the registry name of original.
func (n *namer) name(original string) string {
	if got, ok := n.byOriginal[original]; ok {
		return got
	}
	base := registryName(original)
	name := base
	for i := 2; ; i++ {
		if _, clash := n.taken[name]; !clash {
			break
		}
		name = fmt.Sprintf("%s_%d", base, i)
	}
	n.byOriginal[original] = name
	n.taken[name] = original
	if name != original {
		why := "the registry allows only letters, digits, _ . -"
		if name != base {
			why = fmt.Sprintf("%q is taken by %q", base, n.taken[base])
		}
		n.renames = append(n.renames, fmt.Sprintf("%q renamed %q (%s)", original, name, why))
	}
	return name
}

// report adds the renames to the report's notes.
func (n *namer) report(r *Report, what string) {
	for _, s := range n.renames {
		r.note("%s %s", what, s)
	}
}
