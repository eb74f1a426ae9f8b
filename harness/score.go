package harness

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/routebench/routebench/harness/stats"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/workflow"
)

// GroupAll is the group of every case of a version.
const GroupAll = "all"

// calibrationBins is the number of equal-width confidence bins of ece.
const calibrationBins = 10

// Score computes every metric of DESIGN §6 per version (in order of first
// appearance in results), per suite ("suite:boundary"), per tag ("tag:zh")
// and over all cases ("all"). It is a pure function of the results, so
// summary.json can be recomputed from results.jsonl alone.
func Score(results []Result) Summary {
	s := NewScorer()
	for i := range results {
		s.Add(&results[i])
	}
	return s.Summary()
}

// ScoreStream is Score over a stream: one pass, holding per-group counters
// (and each group set's decisions counted by latency) rather than
// results.
func ScoreStream(rs ResultStream) (Summary, error) {
	s := NewScorer()
	err := rs.Each(func(_ int, r *Result) error { s.Add(r); return nil })
	return s.Summary(), err
}

// Scorer folds results into every group's counters one at a time, in the
// order they come: the same sums in the same order as Score, so the same
// numbers.
type Scorer struct {
	order    []string
	versions map[string]*versionScore
	// indicators are each decision's of the result being added, drs the
	// decisions and ts their terms, reused from one result to the next.
	indicators []IndicatorBits
	drs        []Result
	ts         []terms
	// key is the group set key of the result being added
	// (appendGroupSetKey).
	key []byte
}

type versionScore struct {
	model string
	accs  map[string]*accumulator
	// latencies counts the decisions of each group set (by its index in
	// sets) at each latency: exact percentiles need each group's
	// latencies, and a decision is in several groups (all, its suite,
	// each tag), so they are kept once, not once a group, each set's
	// counted by value (latencyTally).
	latencies []*latencyTally
	// sets are the distinct group sets (a suite and its tags), setIndex
	// finds one by its key (appendGroupSetKey of the sorted tags), listed
	// by the key of the tags as a result lists them.
	sets     [][]*accumulator
	setIndex map[string]uint32
	listed   map[string]uint32
}

// groupSet is the number of the group set of suite and tags (sorted, each
// once), made with get's accumulators if new.
func (v *versionScore) groupSet(suite string, tags []string, get func(string) *accumulator) uint32 {
	key := string(appendGroupSetKey(nil, suite, tags))
	if set, ok := v.setIndex[key]; ok {
		return set
	}
	groups := []*accumulator{get(GroupAll), get("suite:" + suite)}
	for _, tag := range tags {
		groups = append(groups, get("tag:"+tag))
	}
	set := uint32(len(v.sets))
	v.sets = append(v.sets, groups)
	v.latencies = append(v.latencies, &latencyTally{})
	v.setIndex[key] = set
	return set
}

// NewScorer starts an empty summary.
func NewScorer() *Scorer {
	return &Scorer{versions: map[string]*versionScore{}}
}

// Add counts one result; r is not kept.
func (s *Scorer) Add(r *Result) {
	vs := s.versions[r.Version]
	if vs == nil {
		vs = &versionScore{accs: map[string]*accumulator{}, setIndex: map[string]uint32{}, listed: map[string]uint32{}}
		s.versions[r.Version] = vs
		s.order = append(s.order, r.Version)
	}
	if vs.model == "" {
		vs.model = r.Decision.Model
	}
	get := func(name string) *accumulator {
		a, ok := vs.accs[name]
		if !ok {
			a = newAccumulator()
			vs.accs[name] = a
		}
		return a
	}
	// A conversation adds one decision per turn; a single case one. Both
	// lists are the Scorer's own, reused for every result.
	s.drs = appendDecisionResults(s.drs[:0], r)
	drs := s.drs
	s.ts = slices.Grow(s.ts[:0], len(drs))[:len(drs)]
	s.indicators = slices.Grow(s.indicators[:0], len(drs))[:len(drs)]
	ts := s.ts
	for k := range drs {
		ts[k] = termsOf(&drs[k])
		s.indicators[k] = ts[k].indicators
	}
	// The set is found by the suite and the tags as the result lists
	// them, so they are sorted only the first time they come in that
	// order. The key is built in a buffer of the Scorer's; looking a map
	// up by string(bytes) copies nothing, so only a new key is allocated.
	s.key = appendGroupSetKey(s.key[:0], r.Suite, r.Tags)
	set, ok := vs.listed[string(s.key)]
	if !ok {
		set = vs.groupSet(r.Suite, uniqueSorted(r.Tags), get)
		vs.listed[string(s.key)] = set
	}
	// A conversation's own terms are the same in every group: worked out
	// once here, not once a group.
	conv, hasConv := conversationTerms(r)
	for _, a := range vs.sets[set] {
		a.add(r, drs, ts)
		if hasConv {
			a.addConversation(conv)
		}
	}
	for k := range drs {
		vs.latencies[set].add(drs[k].LatencyUS)
	}
}

// DecisionIndicators are the indicators (IndicatorBitsOf) of each
// decision of the result last added, in DecisionResults order, for
// another reader of the same pass: the Scorer's own list, to read before
// the next Add.
func (s *Scorer) DecisionIndicators() []IndicatorBits { return s.indicators }

// Summary is every version's groups so far.
func (s *Scorer) Summary() Summary {
	sum := Summary{Format: FormatVersion, Versions: make([]VersionSummary, len(s.order))}
	for i, id := range s.order {
		v := s.versions[id]
		out := VersionSummary{Name: VersionName(id), Version: id, Model: v.model, Groups: make(map[string]Group, len(v.accs))}
		var lat []latencyCount
		for name, a := range v.accs {
			lat = v.sortedLatencies(a, lat[:0])
			out.Groups[name] = a.group(lat)
		}
		sum.Versions[i] = out
	}
	return sum
}

// appendGroupSetKey appends to b a key naming a suite and its tags
// unambiguously, whatever bytes they hold: each is written after its
// length.
func appendGroupSetKey(b []byte, suite string, tags []string) []byte {
	b = strconv.AppendInt(b, int64(len(suite)), 10)
	b = append(append(b, ':'), suite...)
	for _, t := range tags {
		b = strconv.AppendInt(b, int64(len(t)), 10)
		b = append(append(b, ':'), t...)
	}
	return b
}

// latencyCount is how many of a group's decisions took a latency.
type latencyCount struct {
	us int64
	n  int
}

// sortedLatencies are the distinct latencies of a's decisions, in
// increasing order, each with its count, in buf.
func (v *versionScore) sortedLatencies(a *accumulator, buf []latencyCount) []latencyCount {
	for i, groups := range v.sets {
		if slices.Contains(groups, a) {
			buf = v.latencies[i].appendTo(buf)
		}
	}
	slices.SortFunc(buf, func(x, y latencyCount) int { return cmp.Compare(x.us, y.us) })
	// Sets share latencies: one count a latency.
	out := buf[:0]
	for _, lc := range buf {
		if len(out) > 0 && out[len(out)-1].us == lc.us {
			out[len(out)-1].n += lc.n
			continue
		}
		out = append(out, lc)
	}
	return out
}

// VersionName is the name part of a version ID ("v2" of "v2@3f9a1c2e").
func VersionName(id string) string {
	if i := strings.LastIndex(id, "@"); i > 0 {
		return id[:i]
	}
	return id
}

// terms is what one result contributes to every group it belongs to.
type terms struct {
	indicators  IndicatorBits
	judgeCalls  int
	judgePassed int
	tokens      int
	cost        float64
	guards      workflow.GuardCounts
}

// termsOf is r's terms.
func termsOf(r *Result) terms {
	var t terms
	t.judgeCalls, t.judgePassed = JudgeCalls(r.Decision)
	t.indicators = indicatorBits(r, t.judgeCalls, t.judgePassed)
	if r.Workflow != nil {
		t.guards = GuardTotals(r.Workflow, r.Resume)
	}
	u := decisionUsage(r.Decision)
	t.tokens = u.InputTokens + u.OutputTokens
	t.cost = u.CostUSD
	return t
}

// decisionUsage is the decision's own usage, or the sum over its trace.
func decisionUsage(d router.Decision) router.Usage {
	if d.Usage != nil {
		return *d.Usage
	}
	var u router.Usage
	for _, st := range d.Trace {
		if st.Usage != nil {
			u.InputTokens += st.Usage.InputTokens
			u.OutputTokens += st.Usage.OutputTokens
			u.CostUSD += st.Usage.CostUSD
		}
	}
	return u
}

// accumulator sums one group. n, mix and failures count cases (a
// conversation once, with its own verdict); the decision metrics, policy
// violations, calibration, latency, tokens and cost count decisions (a
// conversation's every turn), so with only single cases the two agree.
type accumulator struct {
	n         int
	decisions int
	// conversations, those that passed, and their turns
	convN, convOK, turnN, turnOK int
	// workflow cases and their guard counts (first run and resume)
	wfN      int
	guards   workflow.GuardCounts
	mix      map[string]int
	failures map[string]int
	// k and den count each rate metric (by its bit in IndicatorBits)
	// where it held and where it applied.
	k, den              [64]int
	judgeCalls, judgeOK int
	violations          int
	// calibration over decisions that are not errors
	calN                int
	binN                [calibrationBins]int
	binConf, binCorrect [calibrationBins]float64
	brier               float64
	tokens              int
	cost                float64
}

func newAccumulator() *accumulator {
	a := &accumulator{mix: map[string]int{}, failures: map[string]int{}}
	for _, c := range FailureCategories {
		a.failures[c] = 0
	}
	return a
}

func (a *accumulator) add(r *Result, drs []Result, ts []terms) {
	a.n++
	a.mix[r.Suite]++
	if r.Failure != "" {
		a.failures[r.Failure]++
	}
	for k := range drs {
		a.addDecision(&drs[k], ts[k])
	}
	if r.Workflow != nil {
		a.wfN++
		addGuards(&a.guards, ts[0].guards)
	}
}

// convTerms are a conversation's own terms as ConversationIndicators
// gives them, counted: its success, its turns and the turns that passed.
type convTerms struct {
	success       bool
	turns, passed int
}

// conversationTerms are r's conversation terms; ok is false for a single
// case, which has none.
func conversationTerms(r *Result) (t convTerms, ok bool) {
	if !r.IsConversation() {
		return convTerms{}, false
	}
	t = convTerms{success: r.Pass, turns: len(r.Turns)}
	for i := range r.Turns {
		if r.Turns[i].Pass {
			t.passed++
		}
	}
	return t, true
}

// addConversation adds a conversation's own terms.
func (a *accumulator) addConversation(t convTerms) {
	a.convN++
	if t.success {
		a.convOK++
	}
	a.turnN += t.turns
	a.turnOK += t.passed
}

// addDecision adds one routing decision: a single case, or a turn.
func (a *accumulator) addDecision(r *Result, t terms) {
	a.decisions++
	if r.Failure == FailPolicyViolation {
		a.violations++
	}
	// Schema pass rate is counted per judge call below.
	for h := t.indicators.Has &^ (1 << bitSchemaPassRate); h != 0; h &= h - 1 {
		i := bits.TrailingZeros64(h)
		a.den[i]++
		a.k[i] += int(t.indicators.Val >> i & 1)
	}
	a.judgeCalls += t.judgeCalls
	a.judgeOK += t.judgePassed
	if r.Decision.Action != router.Fail {
		conf := math.Min(1, math.Max(0, r.Decision.Confidence))
		if math.IsNaN(conf) {
			conf = 0 // only an in-process judge can produce one; JSON cannot carry it
		}
		correct := 0.0
		if hit, _ := t.indicators.Get(bitDecisionAccuracy); hit {
			correct = 1
		}
		b := min(int(conf*calibrationBins), calibrationBins-1)
		a.calN++
		a.binN[b]++
		a.binConf[b] += conf
		a.binCorrect[b] += correct
		a.brier += (conf - correct) * (conf - correct)
	}
	a.tokens += t.tokens
	a.cost += t.cost
}

// group is the accumulator's figures; lat are its decisions' latencies,
// counted (sortedLatencies).
func (a *accumulator) group(lat []latencyCount) Group {
	g := Group{N: a.n, Mix: a.mix, Failures: a.failures, Metrics: map[string]Rate{}}
	for i, den := range a.den {
		if den > 0 {
			g.Metrics[RateMetricNames[i]] = rate(a.k[i], den)
		}
	}
	if a.judgeCalls > 0 {
		g.Metrics[SchemaPassRate] = rate(a.judgeOK, a.judgeCalls)
	}
	g.Metrics[PolicyViolations] = Rate{Value: float64(a.violations), N: a.decisions, K: a.violations}
	if a.calN > 0 {
		ece := 0.0
		for b := range calibrationBins {
			if a.binN[b] == 0 {
				continue
			}
			nb := float64(a.binN[b])
			ece += nb / float64(a.calN) * math.Abs(a.binCorrect[b]/nb-a.binConf[b]/nb)
		}
		g.Metrics[ECE] = Rate{Value: ece, N: a.calN}
		g.Metrics[Brier] = Rate{Value: a.brier / float64(a.calN), N: a.calN}
	}
	if a.decisions > 0 {
		g.Metrics[LatencyP50] = Rate{Value: percentileMS(lat, 0.50), N: a.decisions}
		g.Metrics[LatencyP95] = Rate{Value: percentileMS(lat, 0.95), N: a.decisions}
		g.Metrics[LatencyP99] = Rate{Value: percentileMS(lat, 0.99), N: a.decisions}
		g.Metrics[Tokens] = Rate{Value: float64(a.tokens) / float64(a.decisions), N: a.decisions}
		g.Metrics[Cost] = Rate{Value: a.cost / float64(a.decisions), N: a.decisions}
	}
	if a.convN > 0 {
		// Only groups with conversations show these, so a run without
		// them scores exactly as before.
		g.Metrics[ConversationSuccessRate] = rate(a.convOK, a.convN)
		g.Metrics[TurnAccuracy] = rate(a.turnOK, a.turnN)
	}
	if a.wfN > 0 {
		// Only groups with workflow cases show workflow figures, so a run
		// without them scores exactly as before.
		for _, c := range WorkflowFailureCategories {
			g.Failures[c] += 0
		}
		count := func(name string, v int) { g.Metrics[name] = Rate{Value: float64(v), N: a.wfN, K: v} }
		count(IllegalRetries, a.guards.IllegalRetries)
		count(DuplicateSideEffects, a.guards.DuplicateSideEffects)
		count(UnverifiedClaims, a.guards.UnverifiedClaims)
		count(WriteOrderViolations, a.guards.WriteOrderViolations)
		count(ConfirmationMisses, a.guards.ConfirmationMisses)
		count(SilentFailures, a.guards.SilentFailures)
		count(DoomLoopsStopped, a.guards.DoomLoopsStopped)
		count(ResumeSkippedNodes, a.guards.ResumeSkippedNodes)
	}
	return g
}

// rate is k of n with its 95% Wilson interval.
func rate(k, n int) Rate {
	lo, hi := stats.Wilson(k, n, stats.Confidence)
	r := Rate{Lo: &lo, Hi: &hi, N: n, K: k}
	if n > 0 {
		r.Value = float64(k) / float64(n)
	}
	return r
}

// percentileMS is the nearest-rank percentile of microseconds, counted
// in increasing order (sortedLatencies), in milliseconds.
func percentileMS(sorted []latencyCount, p float64) float64 {
	total := 0
	for _, lc := range sorted {
		total += lc.n
	}
	if total == 0 {
		return 0
	}
	// The i-th (from 0) of the latencies listed one by one, sorted.
	i := int(math.Ceil(p*float64(total))) - 1
	i = max(0, min(i, total-1))
	for _, lc := range sorted {
		if i < lc.n {
			return float64(lc.us) / 1000
		}
		i -= lc.n
	}
	return float64(sorted[len(sorted)-1].us) / 1000 // not reached: i < total
}

func uniqueSorted(xs []string) []string {
	if len(xs) < 2 || strictlySorted(xs) {
		return xs // already what it would be: no copy
	}
	out := slices.Clone(xs)
	sort.Strings(out)
	return slices.Compact(out)
}

func strictlySorted(xs []string) bool {
	for i := 1; i < len(xs); i++ {
		if xs[i-1] >= xs[i] {
			return false
		}
	}
	return true
}
