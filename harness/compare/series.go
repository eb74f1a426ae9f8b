package compare

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/harness/stats"
	"github.com/routebench/routebench/router"
)

// What a comparison in a Series is against.
const (
	AgainstBase     = "base"     // the first version of the run
	AgainstPrevious = "previous" // the version just before the head
)

// Series is a run of several versions compared the two ways a lead reads
// them: each later version against the base (has it improved since the
// baseline?) and, from the third version on, against the version before it
// (did this step improve or undo the last one?). For the second version the
// previous one is the base, so one comparison serves both.
type Series struct {
	// Versions in run order (first appearance in the results); the first
	// is the base.
	Versions []string `json:"versions"`
	// Comparisons: every later version against the base in version order,
	// then every version from the third on against its previous one.
	Comparisons []Comparison `json:"comparisons"`
}

// PairedSeries splits results by version, in order of first appearance,
// and pairs as Series says with harness.Indicators.
func PairedSeries(results []harness.Result, th stats.Thresholds) Series {
	return PairedSeriesWith(results, th, nil)
}

// PairedSeriesWith is PairedSeries with another indicator function.
func PairedSeriesWith(results []harness.Result, th stats.Thresholds, indicators IndicatorFunc) Series {
	var s Series
	byVersion := map[string][]harness.Result{}
	for _, r := range results {
		if _, seen := byVersion[r.Version]; !seen {
			s.Versions = append(s.Versions, r.Version)
		}
		byVersion[r.Version] = append(byVersion[r.Version], r)
	}
	pair := func(base, head, against string) {
		c := PairedWith(byVersion[base], byVersion[head], th, indicators)
		c.Against = against
		s.Comparisons = append(s.Comparisons, c)
	}
	for i := 1; i < len(s.Versions); i++ {
		pair(s.Versions[0], s.Versions[i], AgainstBase)
	}
	for i := 2; i < len(s.Versions); i++ {
		pair(s.Versions[i-1], s.Versions[i], AgainstPrevious)
	}
	return s
}

// PairedSeriesStream is PairedSeries over a stream (results.jsonl): one
// pass keeps a compact record per result (ids, outcome, its terms as
// bits) and what a flip shows of it (flipTerms).
// The Series is PairedSeries's for the same results.
func PairedSeriesStream(rs harness.ResultStream, th stats.Thresholds) (Series, error) {
	return PairedSeriesStreamWith(rs, th, nil)
}

// PairedSeriesStreamWith is PairedSeriesStream with another indicator
// function.
func PairedSeriesStreamWith(rs harness.ResultStream, th stats.Thresholds, indicators IndicatorFunc) (Series, error) {
	c := NewSeriesCollector(indicators)
	if err := rs.Each(func(i int, r *harness.Result) error { c.Add(i, r); return nil }); err != nil {
		return Series{}, err
	}
	return c.Series(rs, th)
}

// SeriesCollector gathers a PairedSeries from a pass over a stream that
// other readers share (scoring, reports): a compact record per result,
// kept encoded (recordSpill) until Series pairs two versions' records.
type SeriesCollector struct {
	indicators indicatorReader
	// own says indicators are harness's own (AddScored may take them).
	own      bool
	versions []string
	version  map[string]uint64 // a version's number in versions
	// counts are the records of each version, so records reads them back
	// into slices made at their size.
	counts []int
	// words numbers each suite, failure, action and skill name, so a
	// record holds a number for each, and decoded ones share one copy.
	words     []string
	wordIndex map[string]uint64
	spill     recordSpill
	// flips keeps what a flip shows of each result, should it be a
	// flipped head.
	flips flipTerms
}

// NewSeriesCollector starts an empty collection; indicators is nil
// (harness.Indicators) unless a caller defines its own metrics.
func NewSeriesCollector(indicators IndicatorFunc) *SeriesCollector {
	return &SeriesCollector{indicators: readerOf(indicators), own: indicators == nil,
		version: map[string]uint64{}, wordIndex: map[string]uint64{}}
}

// Add records the result at position i of the stream.
func (c *SeriesCollector) Add(i int, r *harness.Result) { c.add(i, r, nil) }

// AddScored is Add for a result a harness.Scorer has just added:
// decisions are its indicators (Scorer.DecisionIndicators), which a
// collector of harness's own indicators takes instead of working them out
// again. They are only read.
func (c *SeriesCollector) AddScored(i int, r *harness.Result, decisions []harness.IndicatorBits) {
	n := 1
	if r.IsConversation() {
		n = len(r.Turns)
	}
	if !c.own || len(decisions) != n {
		decisions = nil
	}
	c.add(i, r, decisions)
}

func (c *SeriesCollector) add(i int, r *harness.Result, decisions []harness.IndicatorBits) {
	v, seen := c.version[r.Version]
	if !seen {
		v = uint64(len(c.versions))
		c.version[r.Version] = v
		c.versions = append(c.versions, r.Version)
		c.counts = append(c.counts, 0)
	}
	c.counts[v]++
	rec := recordWith(i, r, c.indicators, decisions)
	rec.hash = compactHash(rec.hash)
	c.spill.put(v, &rec, c.word)
	// The first version is every comparison's base, never a head: its
	// results are never a flip's head, and a run of one version keeps no
	// flip terms at all.
	if v > 0 {
		c.flips.put(i, r)
	}
}

func (c *SeriesCollector) word(s string) uint64 {
	if i, ok := c.wordIndex[s]; ok {
		return i
	}
	i := uint64(len(c.words))
	c.wordIndex[s] = i
	c.words = append(c.words, s)
	return i
}

// records reads back the records of versions a and b, each in stream order.
func (c *SeriesCollector) records(a, b string) (ra, rb []record, err error) {
	va, vb := c.version[a], c.version[b]
	ra, rb = make([]record, 0, c.counts[va]), make([]record, 0, c.counts[vb])
	want := func(v uint64) bool { return v == va || v == vb }
	err = c.spill.each(c.words, want, func(v uint64, rec record) {
		switch v {
		case va:
			rec.version = a
			ra = append(ra, rec)
		case vb:
			rec.version = b
			rb = append(rb, rec)
		}
	})
	return ra, rb, err
}

// compactHash is a case hash as its 32 bytes rather than 64 hex digits;
// only equality is asked of it. Anything else (another length, a digit
// outside 0-9a-f, upper case included since decoding would lose it) is
// kept as it is.
func compactHash(h string) string {
	var b [32]byte
	if len(h) != 2*len(b) {
		return h
	}
	for i := range b {
		hi, lo := lowerHex[h[2*i]], lowerHex[h[2*i+1]]
		if hi|lo > 0xf {
			return h
		}
		b[i] = hi<<4 | lo
	}
	return string(b[:])
}

// lowerHex is each byte's value as a lower-case hex digit, 0xff for a
// byte that is not one.
var lowerHex = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for c := byte('0'); c <= '9'; c++ {
		t[c] = c - '0'
	}
	for c := byte('a'); c <= 'f'; c++ {
		t[c] = c - 'a' + 10
	}
	return t
}()

// Series pairs the collected results; rs is the stream they came from,
// which is not read again: the flipped cases' texts were kept as they
// were collected. Each comparison reads back only its two versions'
// records.
func (c *SeriesCollector) Series(rs harness.ResultStream, th stats.Thresholds) (Series, error) {
	s := Series{Versions: c.versions}
	var pending []pendingFlip
	// The comparisons share their intervals: metrics that two versions
	// decide alike tally alike in each comparison with a third.
	ci := stats.NewMemoBootstrap(th)
	pair := func(base, head, against string) error {
		b, h, err := c.records(base, head)
		if err != nil {
			return err
		}
		cmp, p := pairRecordsWith(b, h, th, ci)
		cmp.Against = against
		s.Comparisons = append(s.Comparisons, cmp)
		pending = append(pending, p...)
		return nil
	}
	for i := 1; i < len(s.Versions); i++ {
		if err := pair(s.Versions[0], s.Versions[i], AgainstBase); err != nil {
			return Series{}, err
		}
	}
	for i := 2; i < len(s.Versions); i++ {
		if err := pair(s.Versions[i-1], s.Versions[i], AgainstPrevious); err != nil {
			return Series{}, err
		}
	}
	return s, c.flips.fill(pending)
}

// Against returns head's comparison with the base or with its previous
// version (for the second version, that is its comparison with the base).
func (s Series) Against(head, against string) (Comparison, bool) {
	i := slices.Index(s.Versions, head)
	if i < 1 {
		return Comparison{}, false
	}
	base := s.Versions[0]
	if against == AgainstPrevious {
		base = s.Versions[i-1]
	}
	for _, c := range s.Comparisons {
		if c.Base == base && c.Head == head {
			return c, true
		}
	}
	return Comparison{}, false
}

// seriesColumns is how many comparisons one table holds, so a row stays
// within 100 columns; more comparisons continue in another table.
const seriesColumns = 4

// WriteSeriesText renders the series for a terminal: over all cases, each
// metric's delta and symbol per comparison, then each comparison's broken
// and fixed counts. Every figure comes from s; use WriteText for one
// comparison in full.
func WriteSeriesText(w io.Writer, s Series) error {
	p := &printer{w: w}
	p.f("versions: %s (base)", s.Versions[0])
	for _, v := range s.Versions[1:] {
		p.f(", %s", v)
	}
	p.f("\n")
	if len(s.Comparisons) == 0 {
		p.f("one version: nothing to compare\n")
		return p.err
	}
	p.f("all cases, head - base per comparison; ~ no significant change, + better, - worse, * changed\n")
	for start := 0; start < len(s.Comparisons); start += seriesColumns {
		cs := s.Comparisons[start:min(start+seriesColumns, len(s.Comparisons))]
		var table bytes.Buffer
		tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
		fmt.Fprint(tw, "\nmetric")
		for _, c := range cs {
			fmt.Fprintf(tw, "\t%s", seriesLabel(c))
		}
		fmt.Fprint(tw, "\t\n")
		for _, name := range seriesMetrics(s.Comparisons) {
			fmt.Fprint(tw, name)
			for _, c := range cs {
				fmt.Fprintf(tw, "\t%s", seriesCell(c, name))
			}
			fmt.Fprint(tw, "\t\n")
		}
		tw.Flush() // writes to memory: cannot fail
		trimLines(p, table.Bytes())
	}
	p.f("\n")
	for _, c := range s.Comparisons {
		p.f("%s: %d broken, %d fixed, %d paired cases\n", seriesLabel(c), len(c.Broken), len(c.Fixed), c.Paired)
	}
	return p.err
}

// seriesLabel names a comparison by version names: "v3 vs v2 (previous)".
func seriesLabel(c Comparison) string {
	return fmt.Sprintf("%s vs %s (%s)", harness.VersionName(c.Head), harness.VersionName(c.Base), c.Against)
}

// seriesMetrics are the "all" group's metrics that some comparison counts,
// in report order.
func seriesMetrics(cs []Comparison) []string {
	var names []string
	for _, c := range cs {
		g, _ := c.Group(GroupAll)
		for _, m := range g.Metrics {
			if (m.BaseN > 0 || m.HeadN > 0) && !slices.Contains(names, m.Name) {
				names = append(names, m.Name)
			}
		}
	}
	order := RateMetrics()
	slices.SortStableFunc(names, func(a, b string) int { return slices.Index(order, a) - slices.Index(order, b) })
	return names
}

func seriesCell(c Comparison, name string) string {
	g, _ := c.Group(GroupAll)
	m, ok := g.Metric(name)
	if !ok || m.BaseN == 0 || m.HeadN == 0 {
		return "-"
	}
	return fmt.Sprintf("%+.3f %s", m.Delta, m.Symbol)
}

// PairedStreams is Paired over two streams, base and head each holding one
// version's results: a compact record per result, then only the flipped
// cases are read back for their texts. The Comparison is Paired's for the
// same results.
func PairedStreams(base, head harness.ResultStream, th stats.Thresholds) (Comparison, error) {
	records := func(rs harness.ResultStream) ([]record, error) {
		words := map[string]string{}
		word := func(s string) string {
			if w, ok := words[s]; ok {
				return w
			}
			words[s] = s
			return s
		}
		var out []record
		read := readerOf(nil)
		err := rs.Each(func(i int, r *harness.Result) error {
			rec := recordOf(i, r, read)
			rec.version, rec.suite = word(rec.version), word(rec.suite)
			rec.failure, rec.skill = word(rec.failure), word(rec.skill)
			rec.action = router.Action(word(string(rec.action)))
			rec.hash = compactHash(rec.hash)
			out = append(out, rec)
			return nil
		})
		return out, err
	}
	b, err := records(base)
	if err != nil {
		return Comparison{}, err
	}
	h, err := records(head)
	if err != nil {
		return Comparison{}, err
	}
	c, pending := pairRecords(b, h, th)
	return c, fillFlips(head, pending)
}

// fillFlips reads each flipped head result once, in stream order.
func fillFlips(rs harness.ResultStream, pending []pendingFlip) error {
	byPos := map[int][]pendingFlip{}
	for _, p := range pending {
		byPos[p.pos] = append(byPos[p.pos], p)
	}
	positions := make([]int, 0, len(byPos))
	for pos := range byPos {
		positions = append(positions, pos)
	}
	slices.Sort(positions)
	return harness.ReadCases(rs, positions, func(i int, r *harness.Result) error {
		for _, p := range byPos[i] {
			p.fill(r)
		}
		return nil
	})
}
