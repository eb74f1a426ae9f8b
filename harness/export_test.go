package harness

// Hooks for the external specs of item-by-item suite loading.

import (
	"encoding/json"
	"reflect"
	"strings"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

// LoadBothWays loads a suite's bytes item by item (as LoadSuites does when
// it can) and from the whole tree, and returns both outcomes as text.
func LoadBothWays(file string, data []byte) (split, whole LoadOutcome) {
	ls := &suiteLoader{ids: map[string]registry.Pos{}}
	if doc := parseData(file, data); doc.problem != nil {
		split.Problems = []string{doc.problem.String()}
	} else {
		split.setCases(ls.parsed(doc))
	}
	sortProblems(ls.problems)
	for _, p := range ls.problems {
		split.Problems = append(split.Problems, p.String())
	}
	lw := &suiteLoader{ids: map[string]registry.Pos{}}
	if root, problem := parseYAML(file, data, suiteEmpty); problem != nil {
		whole.Problems = []string{problem.String()}
	} else {
		whole.setCases(lw.file(file, root, nil))
	}
	sortProblems(lw.problems)
	for _, p := range lw.problems {
		whole.Problems = append(whole.Problems, p.String())
	}
	return split, whole
}

// LoadOutcome is a load's cases and problems, as text. A case's own
// tools are given as their skills' JSON (a compiled registry holds
// schemas that compare unequal even when loaded twice from one text);
// Case.Hash covers them too.
type LoadOutcome struct {
	Cases    []Case
	Tools    []string
	Problems []string
}

func (o *LoadOutcome) setCases(cases []Case) {
	for i := range cases {
		c := &cases[i]
		if c.Tools != nil {
			var skills []string
			for _, s := range c.Tools.Skills {
				b, err := json.Marshal(struct {
					Name, Description string
					WhenToUse, Scope  []string
					ParamsSchema      map[string]any
					Examples          []registry.Example
					Triggers, Rules   int
					Glossary          map[string]string
				}{s.Name, s.Description, s.WhenToUse, s.PermissionScope, s.ParamsSchema, s.Examples, len(s.Triggers), len(s.Rules), s.Glossary})
				if err != nil {
					panic(err)
				}
				skills = append(skills, string(b))
			}
			o.Tools = append(o.Tools, c.ID+": "+strings.Join(skills, ", "))
			c.Tools = nil
		}
	}
	o.Cases = cases
}

// LoadsItemByItem reports whether the loader parses data one case item at
// a time rather than whole.
func LoadsItemByItem(data []byte) bool {
	sp, ok := splitSuite(data)
	if !ok || parseData("s.yaml", data).split == nil {
		return false
	}
	items := &splitItems{data: data, items: sp.items}
	for i := range sp.items {
		if _, good := items.item(i); !good {
			return false
		}
	}
	return true
}

// SplitFrame is the frame and the items' texts and lines that splitSuite
// cuts data into.
func SplitFrame(data []byte) (frame string, items []string, lines []int, ok bool) {
	sp, ok := splitSuite(data)
	for _, it := range sp.items {
		items = append(items, string(data[it.start:it.end]))
		lines = append(lines, it.line)
	}
	return string(sp.frame), items, lines, ok
}

// DiffOutcomes names the first difference, for debugging.
func DiffOutcomes(a, b LoadOutcome) string {
	if len(a.Cases) != len(b.Cases) {
		return "count"
	}
	for i := range a.Cases {
		x, y := a.Cases[i], b.Cases[i]
		if x.Hash != y.Hash || x.Pos != y.Pos || x.ID != y.ID {
			return x.ID + " hash/pos " + x.Pos.String() + " " + y.Pos.String()
		}
		if !reflect.DeepEqual(x.Tools, y.Tools) {
			return x.ID + " tools"
		}
		if !reflect.DeepEqual(x.Workflow, y.Workflow) {
			return x.ID + " workflow"
		}
		if !reflect.DeepEqual(x.Expect, y.Expect) {
			return x.ID + " expect"
		}
		if !reflect.DeepEqual(x, y) {
			return x.ID + " other"
		}
	}
	return "problems"
}

// DecodeResultFast decodes a results line without the encoding/json
// fallback: ok says the reflection-free path read it whole. caseOnly is
// ReadCases' decoding (no decision, caller or workflow runs).
func DecodeResultFast(line []byte, caseOnly bool) (r Result, ok bool) {
	var d resultDecoder
	d.in.Reset(line)
	d.result(&r, caseOnly)
	return r, d.in.End()
}

// DecodeCaseLine is ReadCases' decoding of one line: the fast path, else
// encoding/json.
func DecodeCaseLine(line []byte) (Result, error) {
	var d resultDecoder
	var r Result
	err := d.decode(line, &r, true)
	return r, err
}

// UnmarshalCaseLine is ReadCases' decoding by encoding/json alone.
func UnmarshalCaseLine(line []byte) (Result, error) {
	var c caseLine
	err := json.Unmarshal(line, &c)
	return c.Result, err
}

// MarshalResult is encodeResult without the format and the newline:
// json.Marshal's bytes, by the reflection-free encoder when it can.
func MarshalResult(r *Result) ([]byte, error) {
	b, _, err := appendResult(nil, r)
	return b, err
}

// MarshalResultExact is MarshalResult that also says whether the bytes
// decode to r itself (a run then hands r on instead of the line).
func MarshalResultExact(r *Result) ([]byte, bool, error) { return appendResult(nil, r) }

// MarshalResultFast encodes r without the json.Marshal fallback: ok says
// the reflection-free encoder wrote it all.
func MarshalResultFast(r *Result) (b []byte, ok bool) {
	var e resultEncoder
	b = e.result(nil, r)
	return b, !e.failed
}

// StreamSuitesAbove makes OpenSuites stream suite sets larger than n
// bytes (0: every set), keeping up to inMemory bytes of their ids and
// hashes in memory (0: all in a file), until restore is called.
func StreamSuitesAbove(n int64, inMemory int) (restore func()) {
	oldHeld, oldKeys := heldSuiteBytes, keysInMemory
	heldSuiteBytes, keysInMemory = n, inMemory
	return func() { heldSuiteBytes, keysInMemory = oldHeld, oldKeys }
}

// CaseHashBothWays is a loaded case's hash as a case without tools or a
// workflow hashes, written without reflection and by json.Marshal.
func CaseHashBothWays(c Case) (fast, byJSON string) {
	return (&suiteLoader{}).caseHash(&c, nil, nil), caseHashByJSON(c, nil, nil)
}

// ParamsShared reports whether one load's interner shares the expected
// params b with a, seen before it.
func ParamsShared(a, b map[string]ParamMatcher) bool {
	in := newInterner()
	x, y := in.paramsMap(a), in.paramsMap(b)
	return reflect.ValueOf(x).Pointer() == reflect.ValueOf(y).Pointer()
}

// OwnNode is ownNode, for the spec of what a held case keeps.
var OwnNode = ownNode

// CheckQuietly is Check as a run judges (RunCase): the verdict without its
// problems in words.
func CheckQuietly(c *Case, d router.Decision, reg *registry.Registry) Verdict {
	return check(c, d, reg, false)
}

// WalkedThePlan says the merge checked its shards in one walk of the plan
// (as run writes them), not by indexing them.
func (m *Merger) WalkedThePlan() bool { return m.walked }

// ReadPlanFileAsMerged reads path as merge does (openPlanFile), its cases
// gathered from the walks that read them off the file again.
func ReadPlanFileAsMerged(path string) (Plan, error) {
	pf, err := openPlanFile(path)
	if err != nil {
		return Plan{}, err
	}
	p := pf.plan
	if !pf.isNil {
		p.Cases = []PlanCase{}
	}
	err = pf.each(func(pc *PlanCase) error {
		p.Cases = append(p.Cases, *pc)
		return nil
	})
	return p, err
}

// SetMaxResultLine lowers the longest results.jsonl line read, for a spec;
// the returned func puts it back.
func SetMaxResultLine(n int) (restore func()) {
	old := maxResultLine
	maxResultLine = n
	return func() { maxResultLine = old }
}
