// Package lint checks prompt versions and case suites against the registry
// checklist of DESIGN §10: layered skill text, examples, confirmation gates,
// distinct descriptions, precise triggers, suite coverage and the version
// fingerprint in traces. It computes findings as values; rendering them is
// a separate step (WriteText, WriteJSON).
package lint

import (
	"context"
	"sort"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/router/registry"
	"github.com/routebench/routebench/workflow"
)

// Severity says whether a finding fails lint.
type Severity string

const (
	// Error findings fail lint (exit code 1).
	Error Severity = "error"
	// Warning findings are advice; lint still passes.
	Warning Severity = "warning"
)

// Check names, as printed in every finding.
const (
	CheckLoad            = "load"              // the version's files do not load (loader problems)
	CheckWhenNotToUse    = "when_not_to_use"   // a skill has no when_not_to_use
	CheckCounterExamples = "counter_examples"  // a skill has no counter_examples
	CheckExamples        = "examples"          // fewer than 2 examples
	CheckConfirmGate     = "confirm_gate"      // a side effect without a written confirm gate
	CheckNearDuplicate   = "near_duplicate"    // two descriptions too close in embedding space
	CheckDescriptionFit  = "description_fit"   // a description reads closer to another skill's examples
	CheckTriggerPrecise  = "trigger_precision" // a trigger matches other skills' examples or own counter_examples
	CheckCoverage        = "coverage"          // a skill lacks normal, boundary or adversarial cases
	CheckFailurePath     = "failure_path"      // a side-effect skill has no refuse/clarify case
	CheckConfusablePair  = "confusable_pair"   // clarify candidates that do not name each other in when_not_to_use
	CheckSuiteSkill      = "suite_skill"       // a case names a skill this version lacks
	CheckSuiteLoad       = "suite_load"        // the suites do not load
	CheckFingerprint     = "fingerprint"       // a routed decision does not carry the version id
)

// Finding is one thing to change.
type Finding struct {
	Severity Severity `json:"severity"`
	// Version is the version's ID ("v2@3f9a1c2e"), or its directory when it
	// did not load; empty for suite problems that concern no version.
	Version string `json:"version,omitempty"`
	Skill   string `json:"skill,omitempty"`
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Check   string `json:"check"`
	// Message says what is wrong and what to change.
	Message string `json:"message"`
}

// Pos is the finding's place in an input file.
func (f Finding) Pos() registry.Pos { return registry.Pos{File: f.File, Line: f.Line} }

// Options tune the checks.
type Options struct {
	// MaxSimilarity is the cosine above which two skills' descriptions
	// (with when_to_use) count as near-duplicates. Zero means
	// DefaultMaxSimilarity.
	MaxSimilarity float64
}

// DefaultMaxSimilarity is --max-similarity's default.
const DefaultMaxSimilarity = 0.9

// Input is what one lint run looks at.
type Input struct {
	Targets []Target
	// Cases are the loaded suite cases. Nil skips the suite checks
	// (coverage, failure paths), as when no suites were given or they did
	// not load; SuiteFindings then say why.
	Cases []harness.Case
	// SuiteFindings are problems found loading the suites.
	SuiteFindings []Finding
}

// Report is the outcome of a lint run.
type Report struct {
	// Versions are the IDs of the versions that loaded, in input order.
	Versions []string  `json:"versions"`
	Findings []Finding `json:"findings"`
}

// Count returns how many findings have the severity.
func (r Report) Count(s Severity) int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == s {
			n++
		}
	}
	return n
}

// Failed reports whether any finding is an error.
func (r Report) Failed() bool { return r.Count(Error) > 0 }

// Lint runs every check on every target and the suites. It never fails:
// whatever stops a check (a version that does not load, suites with
// problems) is itself a finding.
func Lint(ctx context.Context, in Input, opts Options) Report {
	if opts.MaxSimilarity == 0 {
		opts.MaxSimilarity = DefaultMaxSimilarity
	}
	var r Report
	r.Findings = append(r.Findings, in.SuiteFindings...)
	for _, t := range in.Targets {
		if t.Version == nil {
			r.Findings = append(r.Findings, loadFindings(t)...)
			continue
		}
		v := t.Version
		// workflows.yaml is part of the version: a problem in it is a load
		// problem like any other, with its file and line.
		set, err := harness.LoadWorkflows(v)
		if err != nil {
			r.Findings = append(r.Findings, loadFindings(Target{Spec: t.Spec, Err: err})...)
			continue
		}
		r.Versions = append(r.Versions, v.ID())
		c := &checker{v: v, raw: parseRaw(t.RawSkills), opts: opts, workflows: set}
		c.space(ctx)
		c.skills()
		c.similarity(ctx)
		c.triggers()
		if in.Cases != nil {
			c.suites(in.Cases)
		}
		c.fingerprint(ctx)
		r.Findings = append(r.Findings, c.found...)
	}
	Sort(r.Findings)
	return r
}

// checker runs the checks of one loaded version.
type checker struct {
	v *registry.Version
	// workflows are the version's, which cases may name like skills.
	workflows *workflow.Set
	raw       rawRegistry
	opts      Options
	found     []Finding
	sp        *space // embeddings, built on first use
	spErr     bool
}

func (c *checker) add(sev Severity, check string, s *registry.Skill, pos registry.Pos, msg string) {
	f := Finding{Severity: sev, Version: c.v.ID(), File: pos.File, Line: pos.Line, Check: check, Message: msg}
	if s != nil {
		f.Skill = s.Name
	}
	c.found = append(c.found, f)
}

// severityRank puts errors before warnings at the same place.
func severityRank(s Severity) int {
	if s == Error {
		return 0
	}
	return 1
}

// Sort orders findings by file, line, severity, check, version, skill and
// message, so output is the same on every run.
func Sort(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		switch {
		case a.File != b.File:
			return a.File < b.File
		case a.Line != b.Line:
			return a.Line < b.Line
		case a.Severity != b.Severity:
			return severityRank(a.Severity) < severityRank(b.Severity)
		case a.Check != b.Check:
			return a.Check < b.Check
		case a.Version != b.Version:
			return a.Version < b.Version
		case a.Skill != b.Skill:
			return a.Skill < b.Skill
		}
		return a.Message < b.Message
	})
}
