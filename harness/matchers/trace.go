package matchers

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/routebench/routebench/router"
)

// FormatTrace shows a decision's stage trace, one stage per line, the way
// a person debugging a misroute reads it: what policy kept, what rules
// matched, what recall found, what the judge chose and how sure it was.
func FormatTrace(d router.Decision) string {
	var b strings.Builder
	b.WriteString("  trace:")
	if len(d.Trace) == 0 {
		b.WriteString(" (none)")
	}
	for _, st := range d.Trace {
		fmt.Fprintf(&b, "\n    %-7s", st.Stage)
		if st.Kept != nil {
			fmt.Fprintf(&b, " kept %d", *st.Kept)
		}
		if len(st.Dropped) > 0 {
			fmt.Fprintf(&b, " dropped %v", st.Dropped)
		}
		if st.Matched != nil {
			fmt.Fprintf(&b, " matched %v", st.Matched)
		}
		if st.Top != nil {
			fmt.Fprintf(&b, " top %v", st.Top)
		}
		if len(st.Scores) > 0 {
			parts := make([]string, 0, len(st.Scores))
			for i, c := range st.Scores {
				if i == 5 {
					parts = append(parts, "…")
					break
				}
				parts = append(parts, fmt.Sprintf("%s %.2f", c.Skill, c.Score))
			}
			fmt.Fprintf(&b, " scores [%s]", strings.Join(parts, ", "))
		}
		if st.Provider != "" {
			fmt.Fprintf(&b, " provider %s", st.Provider)
		}
		if st.Choice != "" {
			fmt.Fprintf(&b, " choice %s", st.Choice)
		}
		if st.Confidence != nil {
			fmt.Fprintf(&b, " confidence %.2f", *st.Confidence)
		}
		if st.Attempt > 0 {
			fmt.Fprintf(&b, " attempt %d", st.Attempt)
		}
		for _, e := range st.Errors {
			fmt.Fprintf(&b, " [%s", e.Category)
			if e.Layer != "" {
				fmt.Fprintf(&b, " %s", e.Layer)
			}
			if e.Path != "" {
				fmt.Fprintf(&b, " %s", e.Path)
			}
			fmt.Fprintf(&b, ": %s]", e.Message)
		}
		if st.Note != "" {
			fmt.Fprintf(&b, " (%s)", st.Note)
		}
	}
	return b.String()
}

func jsonish(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
