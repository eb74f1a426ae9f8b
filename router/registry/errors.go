package registry

import (
	"fmt"
	"sort"
	"strings"

	"github.com/routebench/routebench/internal/textdist"
)

// Problem is one thing wrong with a prompt version's files.
type Problem struct {
	Pos Pos
	// Field is the path of the offending value, e.g. "skills[3].rules[0].expr".
	Field string
	// Message says what is wrong and what to change.
	Message string
}

func (p Problem) String() string {
	if p.Field == "" {
		return fmt.Sprintf("%s: %s", p.Pos, p.Message)
	}
	return fmt.Sprintf("%s: %s: %s", p.Pos, p.Field, p.Message)
}

// LoadError collects every problem found while loading, sorted by file and
// line, so one run of the loader shows the author everything to fix.
type LoadError struct {
	Problems []Problem
}

func (e *LoadError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// problems accumulates Problems for one file at a time.
type problems struct {
	list []Problem
}

func (ps *problems) add(pos Pos, field, format string, args ...any) {
	ps.list = append(ps.list, Problem{Pos: pos, Field: field, Message: fmt.Sprintf(format, args...)})
}

// err returns the sorted problems as a *LoadError, or nil when there are none.
func (ps *problems) err() error {
	if len(ps.list) == 0 {
		return nil
	}
	sorted := append([]Problem(nil), ps.list...)
	sort.SliceStable(sorted, func(i, j int) bool {
		if sorted[i].Pos.File != sorted[j].Pos.File {
			return sorted[i].Pos.File < sorted[j].Pos.File
		}
		return sorted[i].Pos.Line < sorted[j].Pos.Line
	})
	return &LoadError{Problems: sorted}
}

// merge appends the problems of a *LoadError (or a plain error as one
// file-level problem) so several files' problems are reported together.
func (ps *problems) merge(err error, file string) {
	if err == nil {
		return
	}
	if le, ok := err.(*LoadError); ok {
		ps.list = append(ps.list, le.Problems...)
		return
	}
	ps.add(Pos{File: file}, "", "%v", err)
}

// suggest returns the known word closest to got when it is a plausible typo.
func suggest(got string, known []string) string {
	best, bestDist := "", 3
	for _, k := range known {
		if d := textdist.Levenshtein(got, k); d < bestDist {
			best, bestDist = k, d
		}
	}
	if best == "" && len(got) >= 3 {
		// "latency" for "latency_ms": a prefix is a likely near miss too.
		for _, k := range known {
			if strings.HasPrefix(k, got) || strings.HasPrefix(got, k) {
				return k
			}
		}
	}
	return best
}
