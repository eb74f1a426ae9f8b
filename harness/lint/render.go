package lint

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/routebench/routebench/internal/textwrap"
)

// String is the finding as one text line: file:line: severity: check: message.
func (f Finding) String() string {
	return fmt.Sprintf("%s: %s: %s: %s", f.Pos(), f.Severity, f.Check, f.Message)
}

// WriteText writes one line per finding and a closing count line.
func WriteText(w io.Writer, r Report) error {
	return WriteTextWidth(w, r, 0)
}

// WriteTextWidth is WriteText with each finding's message wrapped to width
// columns (0: no limit), continuation lines indented under their finding,
// so a terminal never wraps one into the next.
func WriteTextWidth(w io.Writer, r Report, width int) error {
	var b strings.Builder
	for _, f := range r.Findings {
		head := fmt.Sprintf("%s: %s: %s:", f.Pos(), f.Severity, f.Check)
		for _, line := range textwrap.Wrap(f.Message, width, head+" ", "    ") {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	fmt.Fprintf(&b, "lint: %d error%s, %d warning%s", r.Count(Error), plural(r.Count(Error)), r.Count(Warning), plural(r.Count(Warning)))
	if len(r.Versions) > 0 {
		fmt.Fprintf(&b, " in %s", strings.Join(r.Versions, ", "))
	}
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}

// jsonReport is the --json shape: the report plus its counts.
type jsonReport struct {
	Format   int            `json:"format"`
	Versions []string       `json:"versions"`
	Counts   map[string]int `json:"counts"`
	Findings []Finding      `json:"findings"`
}

// WriteJSON writes the report as one indented JSON object.
func WriteJSON(w io.Writer, r Report) error {
	out := jsonReport{
		Format:   1,
		Versions: r.Versions,
		Counts:   map[string]int{string(Error): r.Count(Error), string(Warning): r.Count(Warning)},
		Findings: r.Findings,
	}
	if out.Versions == nil {
		out.Versions = []string{}
	}
	if out.Findings == nil {
		out.Findings = []Finding{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}
