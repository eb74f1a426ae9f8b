package reports

import (
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/harness/compare"
	"github.com/routebench/routebench/router"
)

// digest is everything the page and summary.md read off the results
// themselves, gathered in one pass over the stream: counts, matrices,
// calibration bins and the few texts the page
// quotes (workflow runs up to their cap, inputs of flipped cases). It
// holds no result, so a report of any size needs memory for its counts,
// not its results.
type digest struct {
	// order is the versions in order of first appearance.
	order    []string
	versions map[string]*versionDigest
	// expected counts the cases expecting each skill, over all versions.
	expected map[string]int
	models   map[string]bool
	skills   *harness.SkillCounter
	// workflows are the drawn workflow runs (up to workflowRunLimit);
	// workflowTotal counts them all.
	workflows     []workflowCaseView
	workflowTotal int
	// ids are the case IDs with each one's results (stream positions
	// and views), for the case table (shared by copies of the digest);
	// rows counts the results.
	ids  *caseIDs
	rows int
	// views are what the case table shows of each result (shared by
	// copies of the digest).
	views *caseViews
	// flipInputs are the whole inputs of the cases a comparison flipped,
	// by head version and case, read back after the pass (fetchFlipInputs).
	flipInputs map[[2]string]string
	// fallback keeps each result's flip terms where no comparison pairs
	// a head with the base, so flips are read off the results by case ID.
	fallback bool
}

// versionDigest is one version's part of a digest.
type versionDigest struct {
	n, passed int
	failures  map[string]int
	// calibration bins the decisions by confidence (calibration).
	calibration calibration
	// actionRows and actionCols are the expected and decided actions seen.
	actionRows, actionCols map[string]bool
	actions                map[[2]string]int
	// skillCells counts (expected skill, decided skill or "(action)") over
	// cases expecting a skill; extraCols are the decided labels that are
	// no skill, in order of first appearance.
	skillCells map[[2]string]int
	extraCols  []string
	extraSeen  map[string]bool
	flips      []flipTerms
}

// flipTerms is what flipsFromResults reads of a result.
type flipTerms struct {
	id, suite, input, failure string
	pass                      bool
}

// newDigest starts an empty digest; fallback keeps every result's flip
// terms (see digest.fallback).
func newDigest(fallback bool) *digest {
	return &digest{versions: map[string]*versionDigest{}, expected: map[string]int{}, models: map[string]bool{},
		skills: harness.NewSkillCounter(), ids: newCaseIDs(), flipInputs: map[[2]string]string{},
		fallback: fallback, views: newCaseViews()}
}

// digestOf is the digest of in's results: the one a Collector gathered
// when in.Collected is set, else one read now (twice when a version only
// the results name turns out to need its flips read off the results). It
// sets in.seen to the versions the results name.
func digestOf(in *Input) (*digest, error) {
	if c := in.Collected; c != nil {
		in.seen = c.d.order
		if c.d.fallback || !in.needsFallbackFlips() {
			// Writers share the collection and may run side by side: each
			// reads its flips' inputs into its own copy.
			d := *c.d
			inputs, err := c.flipInputsFor(in)
			d.flipInputs = inputs
			return &d, err
		}
	}
	fallback := in.needsFallbackFlips()
	for {
		d := newDigest(fallback)
		err := in.results().Each(func(i int, r *harness.Result) error {
			d.add(i, r)
			return nil
		})
		if err != nil {
			return nil, err
		}
		in.seen = d.order
		if fallback || !in.needsFallbackFlips() {
			return d, d.fetchFlipInputs(in)
		}
		fallback = true
	}
}

// fetchFlipInputs finds the whole inputs (a comparison keeps them cut) of
// the cases in.Comparisons flipped, in their heads' views: no result is
// read back. Each flipped case's views are read, all its versions' (the
// few flips a report quotes), and those of the flipped heads kept.
func (d *digest) fetchFlipInputs(in *Input) error {
	want := wantedFlips(in)
	type at struct {
		res caseResult
		id  string
	}
	var positions []at
	var buf []caseResult
	for k := range want {
		var ok bool
		var err error
		if buf, ok, err = d.ids.lookup(k[1], buf[:0]); err != nil {
			return err
		} else if !ok {
			continue
		}
		for _, p := range buf {
			positions = append(positions, at{p, k[1]})
		}
	}
	if len(positions) == 0 {
		return nil
	}
	// A case flipped in two comparisons is read once.
	slices.SortFunc(positions, func(a, b at) int { return a.res.pos - b.res.pos })
	positions = slices.CompactFunc(positions, func(a, b at) bool { return a.res.pos == b.res.pos })
	rd, err := d.views.reader()
	if err != nil {
		return err
	}
	for _, p := range positions {
		version, input, err := rd.versionInput(p.res.view)
		if err != nil {
			return err
		}
		if k := (flipKey{version, p.id}); want[k] {
			d.flipInputs[k] = input
		}
	}
	return nil
}

// wantedFlips is the (head, case) of every flip a report lists: the
// first flipsShown each way of each head's comparison with the base, as
// flipSets takes them (in.seen set).
func wantedFlips(in *Input) map[flipKey]bool {
	want := map[flipKey]bool{}
	versions := in.versionOrder()
	if len(versions) < 2 {
		return want
	}
	for _, head := range versions[1:] {
		c := in.comparison(versions[0], head)
		if c == nil {
			continue
		}
		for _, k := range append(flipKeys(head, firstFlips(c.Fixed, flipsShown)), flipKeys(head, firstFlips(c.Broken, flipsShown))...) {
			want[k] = true
		}
	}
	return want
}

// flipsShown is the most flips a report lists each way: report.html's
// (summary.md lists fewer).
const flipsShown = max(flipLimit, mdFlipRows)

// Collector gathers what report.html, summary.md and junit.xml read off
// the results in one pass shared with other readers (scoring, the paired
// comparison): pass its Add to the stream's Each, then set
// Input.Collected. It holds counts and positions, not results.
type Collector struct {
	d     *digest
	junit *junitIndex
	// flipWant and flipInputs are the flips whose inputs were read back
	// and those inputs, shared by the writers (see flipInputsFor).
	flipMu     sync.Mutex
	flipWant   map[flipKey]bool
	flipInputs map[flipKey]string
}

// flipInputsFor is the collected digest's fetchFlipInputs for in, read
// once for all the writers that share the collection (report.html and
// summary.md quote the same flips, and may be written side by side): a
// later call whose flips the first read covers gets the same map, which
// is not changed after, and looks up only its own flips in it.
func (c *Collector) flipInputsFor(in *Input) (map[flipKey]string, error) {
	c.flipMu.Lock()
	defer c.flipMu.Unlock()
	want := wantedFlips(in)
	covered := c.flipWant != nil
	for k := range want {
		covered = covered && c.flipWant[k]
	}
	if covered {
		return c.flipInputs, nil
	}
	d := *c.d
	d.flipInputs = map[flipKey]string{}
	if err := d.fetchFlipInputs(in); err != nil {
		return nil, err
	}
	c.flipWant, c.flipInputs = want, d.flipInputs
	return d.flipInputs, nil
}

// NewCollector starts an empty collection. Flips are read off the results
// by case ID only for heads the Input's comparisons do not cover; a
// Collector does not keep what that needs, so such a report reads the
// results once more.
func NewCollector() *Collector {
	d := newDigest(false)
	return &Collector{d: d, junit: newJUnitIndex()}
}

// Add counts the result at position i of the stream.
func (c *Collector) Add(i int, r *harness.Result) {
	c.d.add(i, r)
	c.junit.add(i, r)
}

// Meta is MetaFromResults of the results added.
func (c *Collector) Meta() Meta {
	var m Meta
	for _, id := range c.d.order {
		name, fp, _ := strings.Cut(id, "@")
		m.Versions = append(m.Versions, VersionMeta{ID: id, Name: name, Fingerprint: fp})
	}
	m.Models = c.d.modelList()
	return m
}

func (d *digest) add(i int, r *harness.Result) {
	d.rows++
	vd := d.versions[r.Version]
	if vd == nil {
		vd = &versionDigest{failures: map[string]int{}, actionRows: map[string]bool{}, actionCols: map[string]bool{},
			actions: map[[2]string]int{}, skillCells: map[[2]string]int{}, extraSeen: map[string]bool{}}
		d.versions[r.Version] = vd
		d.order = append(d.order, r.Version)
	}
	d.ids.add(i, r.Case, d.views.add(r))
	if r.Decision.Model != "" {
		d.models[r.Decision.Model] = true
	}
	if r.Expect.Skill != "" {
		d.expected[r.Expect.Skill]++
	}
	d.skills.Add(r)
	vd.n++
	if r.Pass {
		vd.passed++
	} else {
		cat := r.Failure
		if cat == "" {
			cat = "uncategorised"
		}
		vd.failures[cat]++
	}
	// What calibration counts: decision_accuracy's indicator over
	// decisions that are not errors.
	if c := r.Decision.Confidence; r.Decision.Action != router.Fail && !math.IsNaN(c) && !math.IsInf(c, 0) {
		right := harness.DecisionCorrect(r.Expect, r.Decision) && r.Failure != harness.FailPolicyViolation
		vd.calibration.add(c, right)
	}
	expected, decided := string(r.Expect.Action), string(r.Decision.Action)
	vd.actionRows[expected], vd.actionCols[decided] = true, true
	vd.actions[[2]string{expected, decided}]++
	if r.Expect.Skill != "" {
		label := "(" + decided + ")"
		if r.Decision.Action.Acts() {
			label = noSkill
			if r.Decision.Skill != "" {
				label = r.Decision.Skill
			}
		}
		if (label != r.Decision.Skill || !r.Decision.Action.Acts()) && !vd.extraSeen[label] {
			vd.extraSeen[label] = true
			vd.extraCols = append(vd.extraCols, label)
		}
		vd.skillCells[[2]string{r.Expect.Skill, label}]++
	}
	if r.Workflow != nil {
		d.workflowTotal++
		if len(d.workflows) < workflowRunLimit {
			d.workflows = append(d.workflows, workflowView(r))
		}
	}
	if d.fallback {
		vd.flips = append(vd.flips, flipTerms{id: r.Case, suite: r.Suite, input: r.Input, failure: r.Failure, pass: r.Pass})
	}
}

// modelList is the models the decisions name, sorted.
func (d *digest) modelList() []string {
	var out []string
	for m := range d.models {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// version is a version's digest, empty when the results never name it.
func (d *digest) version(id string) *versionDigest {
	if vd := d.versions[id]; vd != nil {
		return vd
	}
	return &versionDigest{failures: map[string]int{}, actionRows: map[string]bool{}, actionCols: map[string]bool{},
		actions: map[[2]string]int{}, skillCells: map[[2]string]int{}, extraSeen: map[string]bool{}}
}

// flipKey is a (head version, case) whose input a flip list quotes.
type flipKey = [2]string

func flipKeys(head string, flips []compare.Flip) []flipKey {
	out := make([]flipKey, len(flips))
	for i, f := range flips {
		out[i] = flipKey{head, f.Case}
	}
	return out
}
