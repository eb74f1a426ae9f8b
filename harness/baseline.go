package harness

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/routebench/routebench/internal/inputfile"
	"github.com/routebench/routebench/internal/yamlkind"
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

var knownFailureFields = []string{"case", "failure"}

// LoadBaseline reads a baseline file, `VERSION: [{case: ID, failure:
// CATEGORY}]`, as a regular file of at most inputfile.DefaultLimit bytes
// holding one YAML document. A missing or empty file is an empty baseline;
// every problem comes back as a *registry.LoadError naming file and line.
func LoadBaseline(path string) (Baseline, error) {
	data, err := inputfile.ReadFile(path, inputfile.DefaultLimit)
	if errors.Is(err, fs.ErrNotExist) {
		return Baseline{}, nil
	}
	if err != nil {
		return nil, &registry.LoadError{Problems: []registry.Problem{readProblem(path, err)}}
	}
	return parseBaseline(path, data)
}

func parseBaseline(path string, data []byte) (Baseline, error) {
	l := &suiteLoader{}
	y := &ynode{file: path, l: l}
	b := Baseline{}
	// An empty file is a fresh baseline: nothing is known to fail yet.
	root, problem := parseYAML(path, data, "")
	switch {
	case root == nil && problem == nil:
	case problem != nil:
		l.problems = append(l.problems, *problem)
	case root.Kind != yaml.MappingNode:
		y.problem(root, "", "must be a mapping of version names to known failures, `VERSION: [{case: ID, failure: CATEGORY}]`; got %s", yamlkind.Of(root))
	default:
		for i := 0; i+1 < len(root.Content); i += 2 {
			k, v := resolve(root.Content[i]), resolve(root.Content[i+1])
			version := y.str(k, "")
			if _, dup := b[version]; dup {
				y.problem(k, version, "appears twice; keep one list per version")
				continue
			}
			b[version] = y.knownFailures(v, version)
		}
	}
	if len(l.problems) > 0 {
		sortProblems(l.problems)
		return nil, &registry.LoadError{Problems: l.problems}
	}
	return b, nil
}

func (y *ynode) knownFailures(n *yaml.Node, version string) []KnownFailure {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return []KnownFailure{}
	}
	if n.Kind != yaml.SequenceNode {
		y.problem(n, version, "must be a list of {case: ID, failure: CATEGORY}, got %s", yamlkind.Of(n))
		return nil
	}
	out := make([]KnownFailure, 0, len(n.Content))
	for i, item := range n.Content {
		item = resolve(item)
		field := fmt.Sprintf("%s[%d]", version, i)
		if item.Kind != yaml.MappingNode {
			y.problem(item, field, "must be {case: ID, failure: CATEGORY}, got %s", yamlkind.Of(item))
			continue
		}
		var k KnownFailure
		var failureNode *yaml.Node
		before := len(y.l.problems)
		y.fields(item, field, knownFailureFields, func(key string, v *yaml.Node) {
			switch key {
			case "case":
				k.Case = y.str(v, field+".case")
			case "failure":
				k.Failure, failureNode = y.str(v, field+".failure"), v
			}
		})
		// A misspelt key is reported as such, not again as a missing one.
		if len(y.l.problems) > before ||
			y.missing(item, field, "case", !hasKey(item, "case")) || y.missing(item, field, "failure", failureNode == nil) {
			continue
		}
		if k.Failure != "" && !validCategory(k.Failure) {
			y.problem(failureNode, field+".failure", "unknown failure category %q (case %s); use one of %s", k.Failure, k.Case, strings.Join(AllFailureCategories(), ", "))
		}
		out = append(out, k)
	}
	return out
}

func validCategory(c string) bool {
	for _, k := range AllFailureCategories() {
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
