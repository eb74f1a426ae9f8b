// Package reports renders what the harness computed: one self-contained
// HTML report for leads, junit.xml for CI, and summary.md for a CI step
// summary or pull-request comment. It formats values; scoring and paired
// comparison live in package harness. The only numbers computed here are
// view data drawn straight from results (confusion matrices, histograms,
// flipped cases when no comparison is given).
package reports

import (
	"sort"
	"strings"
	"time"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/harness/compare"
	"github.com/routebench/routebench/harness/gate"
)

// Input is everything a report shows.
type Input struct {
	Meta Meta
	// Results are the results in memory; Stream, when set, reads them
	// instead (results.jsonl), so a report of any size holds counts and
	// one case at a time rather than every result.
	Results []harness.Result
	Stream  harness.ResultStream
	// Collected, when set, is what a Collector gathered from the same
	// results in a pass the caller made, so the writers do not read them
	// for it again.
	Collected *Collector
	Summary   harness.Summary
	// Comparisons are paired comparisons (compare.Paired) of later
	// versions against the first (base) one, one per head version, and,
	// with three versions or more, of each against its previous one
	// (compare.Series; Comparison.Against says which).
	// Optional: without them deltas are plain differences, with no
	// interval or significance, and flipped cases are paired by case ID.
	Comparisons []compare.Comparison
	// Gate is the gate's verdict per head version, which a gate's
	// report.html opens with (DESIGN §7); empty outside `gate`.
	Gate []GateVerdict
	// Changes are the prompt files that differ between each gated head
	// version and its base, with their diffs, shown beside the flipped
	// cases (DESIGN §9); empty outside `gate`.
	Changes []FileChange
	// Trend is the headline metrics over the last runs of the history
	// file (harness.NewTrend), drawn one chart per metric; nil draws none.
	Trend *harness.Trend

	// seen are the versions the results name, in order of first
	// appearance, once a digest has read them.
	seen []string
}

// results is the stream the report reads.
func (in *Input) results() harness.ResultStream {
	if in.Stream != nil {
		return in.Stream
	}
	return harness.SliceStream(in.Results)
}

// GateVerdict is the gate's outcome for one head version, as computed by
// package harness/gate; the report only shows it.
type GateVerdict struct {
	Head, Base string
	// Outcome is "PASS", "FAIL" or "NOT EVALUATED".
	Outcome string
	// Reasons say why, one line each: crossed checks, layers the judge
	// does not read, notes.
	Reasons []string
	// Thresholds and Regressions are every check the gate made, passing
	// or not, with the values it measured, so a lead sees how close each
	// came.
	Thresholds  []gate.ThresholdResult
	Regressions []gate.RuleResult
}

// FileChange is one prompt file that differs between a base version and
// its head, as a unified line diff computed by the caller.
type FileChange struct {
	// Head and Base are the version IDs ("v2@3f9a1c2e").
	Head, Base string
	// File is the file's name in the version directory ("skills.yaml").
	File string
	// Diff is the unified diff, one line each ("--- …", "@@ … @@",
	// " kept", "-old", "+new"); empty when only the final newline changed.
	Diff []string
	// Omitted counts the diff lines past the cap, left off to keep the
	// page small.
	Omitted int
	// Note says what the diff cannot show ("only the newline at the end
	// of the file changed").
	Note string
}

// Meta is the run header.
type Meta struct {
	Title    string
	Versions []VersionMeta
	// Models are the judges and embedders the run used ("builtin",
	// "openai:gpt-4o-mini").
	Models      []string
	GeneratedAt time.Time
	// Commit is the git commit the run was made at; empty when unknown.
	Commit string
}

// VersionMeta identifies one prompt version.
type VersionMeta struct {
	// ID is name plus short fingerprint, "v2@3f9a1c2e", as in results.
	ID          string
	Name        string
	Fingerprint string
	// Dir is where it was loaded from (a path or "git:REV:path").
	Dir         string
	Description string
	// Role is "base" or "head" where the caller knows it (a gate); empty
	// means the first version shown is the base and the rest are heads.
	Role string
}

// MetaFromResults fills what the results themselves tell: the versions in
// order of first appearance and the models their decisions name. Callers
// add Dir, Description, Commit and GeneratedAt when they know them.
func MetaFromResults(results []harness.Result) Meta {
	m, _ := MetaFromStream(harness.SliceStream(results))
	return m
}

// MetaFromStream is MetaFromResults reading a stream.
func MetaFromStream(rs harness.ResultStream) (Meta, error) {
	var m Meta
	seenVersion := map[string]bool{}
	models := map[string]bool{}
	err := rs.Each(func(_ int, r *harness.Result) error {
		if !seenVersion[r.Version] {
			seenVersion[r.Version] = true
			name, fp, _ := strings.Cut(r.Version, "@")
			m.Versions = append(m.Versions, VersionMeta{ID: r.Version, Name: name, Fingerprint: fp})
		}
		if r.Decision.Model != "" {
			models[r.Decision.Model] = true
		}
		return nil
	})
	for model := range models {
		m.Models = append(m.Models, model)
	}
	sort.Strings(m.Models)
	return m, err
}

// versionOrder is the order versions are shown in: the summary's order
// (its first version is the base of every delta), then any version that
// only the results or the header name.
func (in *Input) versionOrder() []string {
	var order []string
	seen := map[string]bool{}
	add := func(id string) {
		if id != "" && !seen[id] {
			seen[id] = true
			order = append(order, id)
		}
	}
	for _, v := range in.Summary.Versions {
		add(v.Version)
	}
	for _, v := range in.Meta.Versions {
		add(v.ID)
	}
	for _, id := range in.seen {
		add(id)
	}
	return order
}

// versionSummary finds a version's summary by ID.
func (in *Input) versionSummary(id string) (harness.VersionSummary, bool) {
	for _, v := range in.Summary.Versions {
		if v.Version == id {
			return v, true
		}
	}
	return harness.VersionSummary{}, false
}

// comparison finds the comparison of head against base, if given.
func (in *Input) comparison(base, head string) *compare.Comparison {
	for i := range in.Comparisons {
		c := &in.Comparisons[i]
		if c.Base == base && c.Head == head {
			return c
		}
	}
	return nil
}
