package lint

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// String is the finding as one text line: file:line: severity: check: message.
func (f Finding) String() string {
	return fmt.Sprintf("%s: %s: %s: %s", f.Pos(), f.Severity, f.Check, f.Message)
}

// WriteText writes one line per finding and a closing count line.
func WriteText(w io.Writer, r Report) error {
	var b strings.Builder
	for _, f := range r.Findings {
		b.WriteString(f.String())
		b.WriteByte('\n')
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
