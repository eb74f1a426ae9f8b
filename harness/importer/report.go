package importer

import (
	"fmt"
	"io"
	"strings"
)

// Report is what one import wrote and what it left out: the command prints
// it, so nothing an importer drops or assumes goes unsaid.
type Report struct {
	// Source names the data: "bfcl live_simple", "openai-tools", "rasa".
	Source string
	// Version is the prompt version directory written ("" when none was).
	Version     string
	VersionName string
	Skills      int
	Suites      []SuiteCount
	Skipped     []Skip
	// Notes are assumptions and ignored parts of the input, one line each.
	Notes []string
	// NoSuitesWhy says why an import that writes no suites has none.
	NoSuitesWhy string
}

// SuiteCount is one suite file written.
type SuiteCount struct {
	Path  string
	Kind  string // normal, boundary, adversarial
	Cases int
}

// Skip is one input item left out, and why.
type Skip struct {
	Item   string // an id, or file:line
	Reason string
}

func (r *Report) skip(item, format string, args ...any) {
	r.Skipped = append(r.Skipped, Skip{Item: item, Reason: fmt.Sprintf(format, args...)})
}

func (r *Report) note(format string, args ...any) {
	r.Notes = append(r.Notes, fmt.Sprintf(format, args...))
}

// Cases is the number of cases over every suite written.
func (r *Report) Cases() int {
	n := 0
	for _, s := range r.Suites {
		n += s.Cases
	}
	return n
}

// Write prints the report: what was written, then every skipped item with
// its reason, then the notes.
func (r *Report) Write(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "imported %s\n", r.Source)
	if r.Version != "" {
		fmt.Fprintf(&b, "  wrote %s (version %s, %d skills)\n", r.Version, r.VersionName, r.Skills)
	}
	for _, s := range r.Suites {
		fmt.Fprintf(&b, "  wrote %s (%s suite, %d cases)\n", s.Path, s.Kind, s.Cases)
	}
	if len(r.Suites) == 0 {
		why := r.NoSuitesWhy
		if why == "" {
			why = "the input holds no cases"
		}
		fmt.Fprintf(&b, "  no suites written: %s\n", why)
	}
	if len(r.Skipped) > 0 {
		fmt.Fprintf(&b, "  skipped %d:\n", len(r.Skipped))
		for _, s := range r.Skipped {
			fmt.Fprintf(&b, "    %s: %s\n", s.Item, s.Reason)
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "  note: %s\n", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
