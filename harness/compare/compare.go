// Package compare pairs two versions' results case by case and says, per
// rate metric and per suite, what changed and whether the change is more
// than noise (DESIGN §7). It computes a Comparison; text.go and package
// reports render it.
package compare

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/harness/stats"
	"github.com/routebench/routebench/router"
)

// GroupAll is every paired case; suite groups are "suite:<name>".
const GroupAll = "all"

// Comparison kinds of warnings, besides the statistical ones in stats.
const (
	WarnUnpaired    = "unpaired"     // a case ran under one version only
	WarnHashChanged = "hash_changed" // the same id names a different case
	WarnDuplicate   = "duplicate"    // a case id appears twice in one version
	WarnMixed       = "mixed"        // one side holds several versions
	WarnSignFlip    = "sign_flip"    // delta and paired change disagree
)

// Comparison is a head version against a base version over the cases both
// ran.
type Comparison struct {
	Base string `json:"base"` // version id, "v1@0a1b2c3d"
	Head string `json:"head"`
	// Against is AgainstBase or AgainstPrevious inside a Series, "" for a
	// comparison of two versions on their own.
	Against    string           `json:"against,omitempty"`
	Thresholds stats.Thresholds `json:"thresholds"`
	// Paired is how many cases entered the comparison.
	Paired int `json:"paired"`
	// Groups: "all" first, then suites by severity (normal, boundary,
	// adversarial) and name.
	Groups []Group `json:"groups"`
	// Fixed failed under base and pass under head; Broken the reverse.
	// Both are sorted adversarial first, then boundary, normal, by id.
	Fixed  []Flip `json:"fixed"`
	Broken []Flip `json:"broken"`
	// Warnings about pairing itself (unpaired or changed cases).
	Warnings []stats.Warning `json:"warnings,omitempty"`
}

// Group is every rate metric over one slice of the paired cases.
type Group struct {
	Name    string   `json:"name"`
	N       int      `json:"n"`
	Metrics []Metric `json:"metrics"`
}

// Metric is one rate under both versions.
type Metric struct {
	Name      string    `json:"name"`
	Direction Direction `json:"direction"`
	stats.PairedDelta
	// Symbol: "~" not significant, "+" better, "-" worse, "*" a
	// significant change of a neutral metric.
	Symbol string `json:"symbol"`
}

// Flip is a case whose pass/fail changed between the versions.
type Flip struct {
	Case  string   `json:"case"`
	Suite string   `json:"suite"`
	Tags  []string `json:"tags,omitempty"`
	// Input is the case text, cut to InputLimit runes.
	Input  string        `json:"input"`
	Expect router.Action `json:"expect_action"`
	// ExpectSkill is the skill the case expects, if any.
	ExpectSkill string `json:"expect_skill,omitempty"`
	Base        Side   `json:"base"`
	Head        Side   `json:"head"`
}

// Side is what one version decided for a flipped case.
type Side struct {
	Action router.Action `json:"action"`
	Skill  string        `json:"skill,omitempty"`
	// Failure is the primary failure category, "" when the case passed.
	Failure string `json:"failure,omitempty"`
}

// InputLimit is how many runes of a case's input a Flip keeps.
const InputLimit = 80

// Group returns the named group, or false.
func (c Comparison) Group(name string) (Group, bool) {
	i := slices.IndexFunc(c.Groups, func(g Group) bool { return g.Name == name })
	if i < 0 {
		return Group{}, false
	}
	return c.Groups[i], true
}

// Metric returns the named metric of the group, or false.
func (g Group) Metric(name string) (Metric, bool) {
	i := slices.IndexFunc(g.Metrics, func(m Metric) bool { return m.Name == name })
	if i < 0 {
		return Metric{}, false
	}
	return g.Metrics[i], true
}

// IndicatorFunc gives a result's per-metric terms, as harness.Indicators.
// Where one is taken, nil means harness.Indicators.
type IndicatorFunc func(harness.Result) map[string]bool

// indicatorReader is an IndicatorFunc giving its terms as bits.
type indicatorReader func(r *harness.Result) unitTerms

// readerOf reads f's indicators; harness's own (nil) are read as bits
// (harness.IndicatorBitsOf), without a map a result.
func readerOf(f IndicatorFunc) indicatorReader {
	if f == nil {
		return func(r *harness.Result) unitTerms { return bitsTerms(harness.IndicatorBitsOf(r)) }
	}
	return func(r *harness.Result) unitTerms { return termsOf(f(*r)) }
}

// Paired compares head against base case by case, with harness.Indicators
// deciding each case's terms. base and head should each hold one version's
// results; a case is paired when both hold its id with the same case hash.
// Everything else becomes a warning, never an error: a comparison is always
// produced, and it says what it left out. Same inputs, same Comparison.
func Paired(base, head []harness.Result, th stats.Thresholds) Comparison {
	return PairedWith(base, head, th, nil)
}

// PairedWith is Paired with another indicator function (tests, or metrics
// a caller defines).
func PairedWith(base, head []harness.Result, th stats.Thresholds, indicators IndicatorFunc) Comparison {
	c, flipped := pairRecords(recordsOf(base, indicators), recordsOf(head, indicators), th)
	for _, f := range flipped {
		f.fill(&head[f.pos])
	}
	return c
}

// record is what a comparison keeps of one result: who it is, its
// outcome, and its paired terms as bits, a few dozen bytes and the ids.
// A flipped case's texts are read again from its result (pendingFlip).
type record struct {
	pos            int // in its side's results or stream
	id, hash       string
	version, suite string
	pass           bool
	failure, skill string
	action         router.Action
	units          []unitTerms
}

// unitTerms are one unit's indicators over RateMetrics: has says which
// metrics count the unit, val which of those it is in the numerator of.
type unitTerms struct{ has, val uint64 }

// metricBit numbers the rate metrics for unitTerms as
// harness.IndicatorBits numbers them (RateMetrics is
// harness.RateMetricNames), so harness's own terms are unitTerms as they
// are (bitsTerms).
var metricBit = func() map[string]uint {
	ms := RateMetrics()
	m := make(map[string]uint, len(ms))
	for i, name := range ms {
		m[name] = uint(i)
	}
	return m
}()

// bitsTerms is harness's own terms of a decision as unitTerms: the same
// bits.
func bitsTerms(b harness.IndicatorBits) unitTerms { return unitTerms{has: b.Has, val: b.Val} }

func termsOf(m map[string]bool) unitTerms {
	var t unitTerms
	for name, ok := range m {
		if bit, known := metricBit[name]; known {
			t.has |= 1 << bit
			if ok {
				t.val |= 1 << bit
			}
		}
	}
	return t
}

// with is t with the metric's term set to ok, as writing it into the
// unit's map would have it.
func (t unitTerms) with(name string, ok bool) unitTerms {
	if bit, known := metricBit[name]; known {
		t.has |= 1 << bit
		t.val &^= 1 << bit
		if ok {
			t.val |= 1 << bit
		}
	}
	return t
}

// get is the unit's term for the metric, as a map lookup would say.
func (t unitTerms) get(bit uint) (value, ok bool) {
	return t.val&(1<<bit) != 0, t.has&(1<<bit) != 0
}

func recordOf(pos int, r *harness.Result, indicators indicatorReader) record {
	return recordWith(pos, r, indicators, nil)
}

// recordWith is recordOf; given, when not nil, are harness's own
// indicators of r's decisions (harness.DecisionResults order) already
// worked out.
func recordWith(pos int, r *harness.Result, indicators indicatorReader, given []harness.IndicatorBits) record {
	return record{pos: pos, id: r.Case, hash: r.CaseHash, version: r.Version, suite: r.Suite, pass: r.Pass,
		failure: r.Failure, action: r.Decision.Action, skill: r.Decision.Skill, units: units(r, indicators, given)}
}

func recordsOf(rs []harness.Result, indicators IndicatorFunc) []record {
	read := readerOf(indicators)
	out := make([]record, len(rs))
	for i := range rs {
		out[i] = recordOf(i, &rs[i], read)
	}
	return out
}

// pendingFlip is a flip whose case texts (tags, input, expectation) come
// from the head's result at pos.
type pendingFlip struct {
	pos  int
	flip *Flip
}

func (p pendingFlip) fill(head *harness.Result) {
	p.flip.Tags = head.Tags
	p.flip.Input = truncate(head.Input, InputLimit)
	p.flip.Expect = head.Expect.Action
	p.flip.ExpectSkill = head.Expect.Skill
}

// pairRecords compares head against base; the flips it returns still need
// their texts (pendingFlip.fill).
func pairRecords(base, head []record, th stats.Thresholds) (Comparison, []pendingFlip) {
	return pairRecordsWith(base, head, th, stats.NewMemoBootstrap(th))
}

// pairRecordsWith is pairRecords working out intervals with ci, which
// may have worked out others under the same thresholds (another
// comparison of a series): an interval depends on its tally alone.
func pairRecordsWith(base, head []record, th stats.Thresholds, ci *stats.MemoBootstrap) (Comparison, []pendingFlip) {
	c := Comparison{Thresholds: th}
	var baseByID map[string]*record
	c.Base, baseByID = index("base", base, &c.Warnings)
	var headByID map[string]*record
	c.Head, headByID = index("head", head, &c.Warnings)

	pairs := pairCases(baseByID, headByID, &c.Warnings)
	c.Paired = len(pairs)

	metrics := RateMetrics()
	// A pair is one or more units: a single case is one decision; a
	// conversation is one unit per turn (paired turn by turn, both
	// versions having routed the same turns) and one for the
	// conversation's own success.
	// Pair i's units are terms[unitsFrom[i]:unitsFrom[i+1]].
	terms := make([][2]unitTerms, 0, len(pairs))
	unitsFrom := make([]int, len(pairs)+1)
	for i, p := range pairs {
		bs, hs := p.base.units, p.head.units
		for u := range max(len(bs), len(hs)) {
			var t [2]unitTerms
			if u < len(bs) {
				t[0] = bs[u]
			}
			if u < len(hs) {
				t[1] = hs[u]
			}
			terms = append(terms, t)
		}
		unitsFrom[i+1] = len(terms)
	}
	// Groups and metrics over the same cases often tally alike: each
	// interval is worked out once.
	members := make([]int, 0, len(terms))
	for _, g := range groupNames(pairs) {
		suite, isSuite := strings.CutPrefix(g, "suite:")
		members = members[:0]
		n := 0
		for i, p := range pairs {
			if !isSuite || p.head.suite == suite {
				for u := unitsFrom[i]; u < unitsFrom[i+1]; u++ {
					members = append(members, u)
				}
				n++
			}
		}
		grp := compareGroup(g, members, terms, metrics, th, ci)
		grp.N = n
		c.Groups = append(c.Groups, grp)
	}

	var fixed, broken []pair
	for _, p := range pairs {
		switch {
		case !p.base.pass && p.head.pass:
			fixed = append(fixed, p)
		case p.base.pass && !p.head.pass:
			broken = append(broken, p)
		}
	}
	// Each flip's texts come from its head's result, at the head's
	// position: sorted with the flips, so no map from case to position.
	type placed struct {
		Flip
		pos int
	}
	flips := func(ps []pair) ([]Flip, []int) {
		if len(ps) == 0 {
			return nil, nil
		}
		sorted := make([]placed, len(ps))
		for i, p := range ps {
			sorted[i] = placed{Flip{Case: p.head.id, Suite: p.head.suite, Base: sideOf(p.base), Head: sideOf(p.head)}, p.head.pos}
		}
		slices.SortFunc(sorted, func(a, b placed) int { return compareFlips(a.Flip, b.Flip) })
		out, pos := make([]Flip, len(ps)), make([]int, len(ps))
		for i := range sorted {
			out[i], pos[i] = sorted[i].Flip, sorted[i].pos
		}
		return out, pos
	}
	var fixedPos, brokenPos []int
	c.Fixed, fixedPos = flips(fixed)
	c.Broken, brokenPos = flips(broken)
	pending := make([]pendingFlip, 0, len(c.Fixed)+len(c.Broken))
	for i := range c.Fixed {
		pending = append(pending, pendingFlip{pos: fixedPos[i], flip: &c.Fixed[i]})
	}
	for i := range c.Broken {
		pending = append(pending, pendingFlip{pos: brokenPos[i], flip: &c.Broken[i]})
	}
	return c, pending
}

type pair struct{ base, head *record }

// units are a result's paired terms: its indicators for a single case; for
// a conversation, each turn's indicators with turn_accuracy, then the
// conversation's success alone.
func units(r *harness.Result, indicators indicatorReader, given []harness.IndicatorBits) []unitTerms {
	if !r.IsConversation() {
		if given != nil {
			return []unitTerms{bitsTerms(given[0])}
		}
		return []unitTerms{indicators(r)}
	}
	// A conversation's terms as harness.ConversationIndicators gives them:
	// each turn's pass, and the conversation's.
	out := make([]unitTerms, 0, len(r.Turns)+1)
	for k := range r.Turns {
		var t unitTerms
		if given != nil {
			t = bitsTerms(given[k])
		} else {
			tr := harness.TurnDecision(r, k)
			t = indicators(&tr)
		}
		out = append(out, t.with(harness.TurnAccuracy, r.Turns[k].Pass))
	}
	return append(out, unitTerms{}.with(harness.ConversationSuccessRate, r.Pass))
}

// index maps records by case id, keeping the first of duplicates, and
// names the side's version.
func index(side string, rs []record, warns *[]stats.Warning) (string, map[string]*record) {
	byID := make(map[string]*record, len(rs))
	var versions, dups []string
	for i := range rs {
		r := &rs[i]
		if !slices.Contains(versions, r.version) {
			versions = append(versions, r.version)
		}
		if _, seen := byID[r.id]; seen {
			dups = append(dups, r.id)
			continue
		}
		byID[r.id] = r
	}
	if len(versions) > 1 {
		*warns = append(*warns, stats.Warning{Kind: WarnMixed, Message: fmt.Sprintf(
			"%s holds %d versions (%s): compare one version against one; pick one with --base-version/--head-version",
			side, len(versions), strings.Join(versions, ", "))})
	}
	if len(dups) > 0 {
		*warns = append(*warns, stats.Warning{Kind: WarnDuplicate, Message: fmt.Sprintf(
			"%s has %d duplicate case %s (%s): the first result of each was used; merge shards with `routebench merge` instead of concatenating",
			side, len(dups), plural(len(dups), "id", "ids"), examples(dups))})
	}
	name := strings.Join(versions, ",")
	return name, byID
}

// pairCases pairs by id in sorted id order; a case whose hash differs
// between runs was edited in between, so its results are not comparable.
func pairCases(base, head map[string]*record, warns *[]stats.Warning) []pair {
	var pairs []pair
	var changed, onlyBase, onlyHead []string
	for _, id := range sortedKeys(base) {
		h, ok := head[id]
		switch {
		case !ok:
			onlyBase = append(onlyBase, id)
		case base[id].hash != h.hash:
			changed = append(changed, id)
		default:
			pairs = append(pairs, pair{base[id], h})
		}
	}
	// Only the head's unpaired ids need sorting (usually none), not all.
	for id := range head {
		if _, ok := base[id]; !ok {
			onlyHead = append(onlyHead, id)
		}
	}
	slices.Sort(onlyHead)
	if len(changed) > 0 {
		*warns = append(*warns, stats.Warning{Kind: WarnHashChanged, Message: fmt.Sprintf(
			"%d %s changed between the runs (case_hash differs: %s): left out; run both versions on the same suites",
			len(changed), plural(len(changed), "case", "cases"), examples(changed))})
	}
	for _, u := range []struct {
		side string
		ids  []string
	}{{"base", onlyBase}, {"head", onlyHead}} {
		if len(u.ids) > 0 {
			*warns = append(*warns, stats.Warning{Kind: WarnUnpaired, Message: fmt.Sprintf(
				"%d %s only in %s (%s): left out; run both versions on the same suites",
				len(u.ids), plural(len(u.ids), "case", "cases"), u.side, examples(u.ids))})
		}
	}
	return pairs
}

func compareGroup(name string, members []int, terms [][2]unitTerms, metrics []string, th stats.Thresholds, ci stats.DeltaInterval) Group {
	g := Group{Name: name, N: len(members)}
	ps := make([]stats.Pair, len(members))
	for _, metric := range metrics {
		bit := metricBit[metric]
		if (harness.IsWorkflowMetric(metric) || harness.IsConversationMetric(metric)) && !anyTerm(bit, members, terms) {
			continue // a comparison without workflow cases or conversations reads as before
		}
		for j, i := range members {
			b, bok := terms[i][0].get(bit)
			h, hok := terms[i][1].get(bit)
			ps[j] = stats.Pair{Base: stats.OutcomeOf(bok, b), Head: stats.OutcomeOf(hok, h)}
		}
		d := stats.ComparePairedWith(ps, th, stats.McNemar{}, ci)
		dir := DirectionOf(metric)
		gained := d.C - d.B
		if d.Significant && gained != 0 && d.Delta != 0 && (d.Delta > 0) != (gained > 0) {
			d.Warnings = append(d.Warnings, stats.Warning{Kind: WarnSignFlip, Message: fmt.Sprintf(
				"the rate moved %+.3f but paired cases moved the other way (b=%d, c=%d): the versions count different cases; read both n",
				d.Delta, d.B, d.C)})
		}
		moved := gained
		if d.Test == stats.TestBootstrap {
			// judged by the interval of the delta, so the delta's sign is
			// the direction, whatever the few cases counted twice did
			moved = sign(d.Delta)
		}
		g.Metrics = append(g.Metrics, Metric{Name: metric, Direction: dir, PairedDelta: d, Symbol: Symbol(dir, d.Significant, moved)})
	}
	return g
}

func sign(x float64) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

// anyTerm reports whether some member has the metric under either version.
func anyTerm(bit uint, members []int, terms [][2]unitTerms) bool {
	for _, i := range members {
		if _, ok := terms[i][0].get(bit); ok {
			return true
		}
		if _, ok := terms[i][1].get(bit); ok {
			return true
		}
	}
	return false
}

// groupNames: "all", then each suite present in the order the 5:3:2 mix
// reads (normal, boundary, adversarial), then other suites by name.
func groupNames(pairs []pair) []string {
	var suites []string
	for _, p := range pairs {
		if !slices.Contains(suites, p.head.suite) {
			suites = append(suites, p.head.suite)
		}
	}
	slices.SortFunc(suites, func(a, b string) int {
		return cmp.Or(cmp.Compare(mixOrder(a), mixOrder(b)), cmp.Compare(a, b))
	})
	names := []string{GroupAll}
	for _, s := range suites {
		names = append(names, "suite:"+s)
	}
	return names
}

// severity ranks suites for ordering flips: a broken adversarial case (an
// injection that now acts) matters more than a broken normal one.
func severity(suite string) int {
	switch suite {
	case harness.SuiteAdversarial:
		return 3
	case harness.SuiteBoundary:
		return 2
	case harness.SuiteNormal:
		return 1
	}
	return 0
}

func mixOrder(suite string) int {
	if s := severity(suite); s > 0 {
		return s
	}
	return 4
}

func compareFlips(a, b Flip) int {
	return cmp.Or(cmp.Compare(severity(b.Suite), severity(a.Suite)), cmp.Compare(a.Suite, b.Suite), cmp.Compare(a.Case, b.Case))
}

func sideOf(r *record) Side {
	return Side{Action: r.action, Skill: r.skill, Failure: r.failure}
}

// truncate cuts s to limit runes, the last an ellipsis: its first
// limit-1 runes as []rune gives them (bad UTF-8 as U+FFFD) and "…". A
// string that fits is s itself, found without converting it: every
// result's input passes through here.
func truncate(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	n, cut := 0, 0
	for i := range s {
		if n == limit-1 {
			cut = i
		}
		n++
	}
	if n <= limit {
		return s
	}
	if head := s[:cut]; utf8.ValidString(head) {
		return head + "…"
	}
	return string([]rune(s)[:limit-1]) + "…"
}

// examples names up to three ids, so a warning stays one line.
func examples(ids []string) string {
	if len(ids) <= 3 {
		return strings.Join(ids, ", ")
	}
	return strings.Join(ids[:3], ", ") + fmt.Sprintf(", and %d more", len(ids)-3)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
