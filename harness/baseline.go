package harness

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"

	"go.yaml.in/yaml/v3"

	"github.com/routebench/routebench/router/registry"
)

// Baseline is the committed list of known failures: per version name, the
// cases known to fail and their failure category. A failing case that is
// not listed is a regression; a listed case that passes is progress to
// record. It never weakens an expectation: the case still runs and is
// still scored as failed.
type Baseline map[string][]KnownFailure

// KnownFailure is one case known to fail under a version.
type KnownFailure struct {
	Case    string `yaml:"case"`
	Failure string `yaml:"failure"`
}

// Known returns the listed failure category of (version name, case).
func (b Baseline) Known(version, caseID string) (string, bool) {
	for _, k := range b[version] {
		if k.Case == caseID {
			return k.Failure, true
		}
	}
	return "", false
}

// BaselineOutcome says what a case's verdict means against the baseline.
type BaselineOutcome int

const (
	// Passing: passes and is not listed.
	Passing BaselineOutcome = iota
	// KnownFailing: fails the way the baseline says.
	KnownFailing
	// Fixed: passes although listed; the baseline should drop it.
	Fixed
	// Regressed: fails and is not listed.
	Regressed
	// Changed: fails, but with another category than listed.
	Changed
)

// Judge compares a case's verdict with the baseline.
func (b Baseline) Judge(version, caseID string, v Verdict) BaselineOutcome {
	known, listed := b.Known(version, caseID)
	switch {
	case v.Pass && listed:
		return Fixed
	case v.Pass:
		return Passing
	case !listed:
		return Regressed
	case known != v.Failure:
		return Changed
	default:
		return KnownFailing
	}
}

// LoadBaseline reads a baseline file; a missing file is an empty baseline.
func LoadBaseline(path string) (Baseline, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Baseline{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read baseline: %w", err)
	}
	var b Baseline
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&b); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read baseline %s: %w; the format is `VERSION: [{case: ID, failure: CATEGORY}]`", path, err)
	}
	if b == nil {
		b = Baseline{}
	}
	var ps []registry.Problem
	for version, list := range b {
		for i, k := range list {
			if !validCategory(k.Failure) {
				ps = append(ps, registry.Problem{Pos: registry.Pos{File: path}, Field: fmt.Sprintf("%s[%d].failure", version, i),
					Message: fmt.Sprintf("unknown failure category %q (case %s)", k.Failure, k.Case)})
			}
		}
	}
	if len(ps) > 0 {
		sortProblems(ps)
		return nil, &registry.LoadError{Problems: ps}
	}
	return b, nil
}

func validCategory(c string) bool {
	for _, k := range FailureCategories {
		if k == c {
			return true
		}
	}
	return false
}

// WriteBaseline writes the baseline sorted by version then case id, so
// regenerating it gives a reviewable diff.
func WriteBaseline(path string, b Baseline) error {
	var buf bytes.Buffer
	buf.WriteString("# Known failures: per prompt version, the cases known to fail and their\n" +
		"# primary failure category. A failing case not listed here fails its spec\n" +
		"# (a regression); a listed case that passes is reported. Regenerate on purpose with\n" +
		"#   go test ./suites -args -update-baseline   (or ROUTEBENCH_UPDATE_BASELINE=1)\n")
	versions := make([]string, 0, len(b))
	for v := range b {
		versions = append(versions, v)
	}
	sort.Strings(versions)
	if len(versions) == 0 {
		buf.WriteString("{}\n")
	}
	for _, v := range versions {
		list := append([]KnownFailure(nil), b[v]...)
		sort.Slice(list, func(i, j int) bool { return list[i].Case < list[j].Case })
		fmt.Fprintf(&buf, "%s:\n", yamlScalar(v))
		if len(list) == 0 {
			buf.Truncate(buf.Len() - 1)
			buf.WriteString(" []\n")
		}
		for _, k := range list {
			fmt.Fprintf(&buf, "  - {case: %s, failure: %s}\n", yamlScalar(k.Case), k.Failure)
		}
	}
	return writeAtomic(path, func(w io.Writer) error {
		_, err := w.Write(buf.Bytes())
		return err
	})
}

// yamlScalar quotes a string only when YAML needs it.
func yamlScalar(s string) string {
	out, err := yaml.Marshal(s)
	if err != nil {
		return fmt.Sprintf("%q", s)
	}
	return string(bytes.TrimSpace(out))
}
