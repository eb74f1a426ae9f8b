package builtin

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/routebench/routebench/internal/jsonstr"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

// Judge is the builtin judge: a similarity scorer with a trained linear
// correction over the registry's own texts, and a calibrated confidence.
type Judge struct {
	fit *fitted
}

// NewJudge learns a judge from reg's texts. Fitting is cached by the
// registry's content, so calling it again for the same skills is cheap.
func NewJudge(reg *registry.Registry) router.Judge {
	return newJudge(reg, defaultTopK)
}

func newJudge(reg *registry.Registry, topK int) *Judge {
	return &Judge{fit: fittedFor(reg.Skills, topK)}
}

// Name identifies the judge in traces.
func (j *Judge) Name() string { return "builtin" }

// verdict is the judge's answer in the contract's shape.
type verdict struct {
	Skill      string         `json:"skill"`
	Confidence float64        `json:"confidence"`
	Params     map[string]any `json:"params"`
	Reason     string         `json:"reason,omitempty"`
}

// rankedCandidate is one candidate's standing for a request.
type rankedCandidate struct {
	skill *registry.Skill
	index int // in the fitted model; -1 when the model does not know it
	fit   float64
	prob  float64 // softmax probability among the candidates
	conf  float64 // calibrated
	in    calInput
	// params are the candidate's params read from the request (nil when
	// the skill requires none and they were not needed to rank it).
	params map[string]any
}

// Judge ranks req.Candidates and answers the best one, or "none" when
// the calibration finds "nothing fits" likelier than any candidate being
// right.
func (j *Judge) Judge(ctx context.Context, req router.JudgeRequest) (router.JudgeResponse, error) {
	if err := ctx.Err(); err != nil {
		return router.JudgeResponse{}, err
	}
	if len(req.Candidates) == 0 {
		v := verdict{Skill: router.NoneChoice, Confidence: 1, Params: map[string]any{}, Reason: "no candidate skills"}
		raw, _ := json.Marshal(v)
		return router.JudgeResponse{Raw: string(raw), Value: v.value()}, nil
	}
	f := j.fit
	if !f.knowsAll(req.Candidates) {
		// Candidates from another skill set (per-request tools): learn them.
		f = fittedFor(req.Candidates, f.topK)
	}
	now := req.Now
	if now.IsZero() {
		now = time.Now()
	}
	sc := getScratch()
	defer putScratch(sc)
	lower := lowered(req.Text)
	dates := appendDates(sc.found[:0], lower, now)
	sc.found = dates
	sc.dated, sc.lower, sc.dates = true, lower, appendSpans(sc.dates[:0], dates)
	ranked := f.rank(sc, req.Text, lower, dates, req.Candidates)
	top := ranked[0]

	v := verdict{Skill: top.skill.Name, Confidence: top.conf}
	var reasonJSON []byte // v.Reason's JSON string, when the reason wrote it
	if o := f.cal.outcome(top.in); o.none() {
		v = verdict{
			Skill:      router.NoneChoice,
			Confidence: round4(1 - o.inScope),
			Params:     map[string]any{},
			Reason: fmt.Sprintf("no candidate fits: the closest, %s (fit %.2f), is in scope with probability %.2f and right with %.2f",
				top.skill.Name, top.fit, o.inScope, top.conf),
		}
	} else {
		v.Params = top.params
		if v.Params == nil {
			v.Params = extractDated(planFor(top.skill), req.Text, lower, dates, f.known)
		}
		settleParams(v.Params)
		v.Reason = f.reason(sc, ranked)
		reasonJSON = sc.reasonJSON
	}
	// The params read only to weigh a candidate go back for the next
	// request; the answer's (the top one's, unless nothing fits) stay.
	nothingFits := v.Skill == router.NoneChoice && top.skill.Name != router.NoneChoice
	for i, r := range ranked {
		if i > 0 || nothingFits {
			releaseParams(r.params)
		}
	}
	raw, err := appendVerdict(sc.raw[:0], v, reasonJSON)
	if err != nil {
		return router.JudgeResponse{}, fmt.Errorf("encode builtin verdict: %w", err)
	}
	sc.raw = raw
	ans := v.answer(len(ranked))
	for _, r := range ranked {
		ans.scores = append(ans.scores, router.Candidate{Skill: r.skill.Name, Score: r.conf})
	}
	return router.JudgeResponse{Raw: string(raw), Scores: ans.scores, Value: &ans.value}, nil
}

// judgeAnswer is what the judge hands over besides its JSON, in one
// allocation: the verdict as a value (router.Verdict, so the router need
// not parse what was just encoded) and the candidates' scores.
type judgeAnswer struct {
	value  router.Verdict
	scores []router.Candidate
	room   [8]router.Candidate
}

func (v verdict) answer(candidates int) *judgeAnswer {
	a := &judgeAnswer{value: router.Verdict{Skill: v.Skill, Confidence: v.Confidence, Params: v.Params, Reason: v.Reason}}
	a.scores = a.room[:0]
	if candidates > len(a.room) {
		a.scores = make([]router.Candidate, 0, candidates)
	}
	return a
}

// value is the verdict as a value (router.Verdict).
func (v verdict) value() *router.Verdict { return &v.answer(0).value }

// coverageMargin is how many logits behind the best a candidate may be
// and still have its params read for its coverage.
const coverageMargin = 2.0

// knowsAll reports whether every candidate is a skill the model learned.
func (f *fitted) knowsAll(cands []*registry.Skill) bool {
	for _, c := range cands {
		if _, ok := f.byName[c.Name]; !ok {
			return false
		}
	}
	return true
}

// rank scores the candidates for text, best first by calibrated
// confidence, ties by name.
func (f *fitted) rank(sc *scratch, text, lower string, dates []dateSpan, cands []*registry.Skill) []rankedCandidate {
	f.query(sc, text)
	n := len(cands)
	idx := sc.candIdx[:0]
	for _, c := range cands {
		idx = append(idx, int32(f.byName[c.Name]))
	}
	f.accumulateFor(sc, idx)
	evs := sc.evs[:0]
	for _, i := range idx {
		evs = append(evs, f.evidenceFor(sc, int(i), -1))
	}
	z := slices.Grow(sc.logits[:0], n)[:n]
	clear(z)
	f.lin.logits(sparseVec{idx: sc.qIdx, val: sc.qVal}, idx, evs, z)
	// The ranking lives in the scratch too: the judge is done with it
	// before the scratch goes back to the pool.
	ranked := slices.Grow(sc.ranked[:0], n)[:n]
	sc.candIdx, sc.evs, sc.logits, sc.ranked = idx, evs, z, ranked
	best := slices.Max(z)
	words := appendContentStems(sc.words[:0], text, lower)
	sc.words = words
	sm := softmaxOf(z)
	for c := range cands {
		in := candidateInputIn(z, c, evs, sm)
		var params map[string]any
		if z[c] >= best-coverageMargin {
			in.nameCover, in.paramCover, in.schemaCover, params = f.coverage(int(idx[c]), text, lower, dates, words)
		} else {
			// Far behind: right with nearly no chance whatever it covers,
			// so its params are not read (the costly part of coverage).
			in.nameCover, in.schemaCover = nameCover(f.stems[idx[c]], lower), schemaCoverOf(f.schemaStems[idx[c]], words, len(cands[c].Examples) == 0)
			if !requiresAny(cands[c]) {
				in.paramCover = 1 // nothing required, nothing missing
			}
		}
		// Rounded here, so the order below is the order callers see.
		ranked[c] = rankedCandidate{skill: cands[c], index: int(idx[c]), fit: in.fit, prob: in.prob,
			conf: round4(f.cal.confidence(in)), in: in, params: params}
	}
	slices.SortFunc(ranked, func(a, b rankedCandidate) int {
		if c := cmp.Compare(b.conf, a.conf); c != 0 {
			return c
		}
		return strings.Compare(a.skill.Name, b.skill.Name)
	})
	return ranked
}

// requiresAny is len(s.Required()) > 0 without building the list.
func requiresAny(s *registry.Skill) bool {
	req, _ := s.ParamsSchema["required"].([]any)
	for _, r := range req {
		if _, ok := r.(string); ok {
			return true
		}
	}
	return false
}

// reason says why the top candidate won: the registry text it is closest
// to, and the runner-up. Built by hand: it is on every request's path. Its
// JSON string is written beside it, in sc.reasonJSON (see reasonText).
func (f *fitted) reason(sc *scratch, ranked []rankedCandidate) string {
	top := ranked[0]
	best, bestCos := int32(-1), 0.0
	for _, t := range f.positives[top.index] {
		if c := float64(sc.docAcc[t]); c > bestCos {
			best, bestCos = t, c
		}
	}
	r := reasonText{plain: sc.reason[:0], json: append(sc.reasonJSON[:0], '"')}
	r.text(top.skill.Name)
	r.ascii(" fits best (p=")
	r.float(top.prob)
	r.ascii(", fit ")
	r.float(top.fit)
	r.ascii(")")
	if best >= 0 {
		r.ascii("; closest registry text ")
		r.quoted(f.quotedClip(best))
		r.ascii(" (cos ")
		r.float(bestCos)
		r.ascii(")")
	}
	if len(ranked) > 1 {
		r.ascii("; runner-up ")
		r.text(ranked[1].skill.Name)
		r.ascii(" (p=")
		r.float(ranked[1].prob)
		r.ascii(")")
	}
	sc.reason, sc.reasonJSON = r.plain, append(r.json, '"')
	return string(r.plain)
}

// reasonText is a reason being written, and its JSON string (jsonstr.Append's
// bytes) beside it. JSON escapes rune by rune (an invalid byte on its own),
// and each part of a reason meets the next at an ASCII byte, so the JSON of
// the whole is the parts' escaped forms joined: the quote of a registry
// text is escaped once per text, not on every request (a Chinese text is
// decoded rune by rune).
type reasonText struct{ plain, json []byte }

// ascii appends s, ASCII that JSON writes as it is.
func (r *reasonText) ascii(s string) {
	r.plain = append(r.plain, s...)
	r.json = append(r.json, s...)
}

// text appends s, escaped in the JSON.
func (r *reasonText) text(s string) {
	r.plain = append(r.plain, s...)
	r.json = appendEscaped(r.json, s)
}

// float appends x with two decimals.
func (r *reasonText) float(x float64) {
	n := len(r.plain)
	r.plain = strconv.AppendFloat(r.plain, x, 'f', 2, 64)
	r.json = append(r.json, r.plain[n:]...)
}

// quoted appends a quoted registry text.
func (r *reasonText) quoted(q *quotedText) {
	r.plain = append(r.plain, q.plain...)
	r.json = append(r.json, q.json...)
}

// appendEscaped appends s as JSON writes it inside a string: jsonstr.Append
// without the quotes.
func appendEscaped(b []byte, s string) []byte {
	k := len(b)
	b = jsonstr.Append(b, s)
	return append(b[:k], b[k+1:len(b)-1]...)
}

// quotedText is a registry text as a reason quotes it (quoted and
// shortened), and that as JSON writes it inside a string.
type quotedText struct{ plain, json string }

// quotedClip is registry text t shortened to reasonClip runes and quoted
// (appendQuotedClip), made once per text.
func (f *fitted) quotedClip(t int32) *quotedText {
	if q := f.quoted[t].Load(); q != nil {
		return q
	}
	plain := string(appendQuotedClip(nil, f.texts[t].text, reasonClip))
	q := &quotedText{plain: plain, json: string(appendEscaped(nil, plain))}
	f.quoted[t].Store(q) // a racing request stores the same texts
	return q
}

// reasonClip is how many runes of the closest registry text a reason
// quotes.
const reasonClip = 60

// appendQuotedClip appends s shortened to at most n runes, the cut marked
// with "…", quoted as strconv.AppendQuote quotes it; the quoted cut, then
// the mark, without building the shortened string (quoting goes rune by
// rune and the cut is at a rune boundary, so the bytes are the same).
func appendQuotedClip(b []byte, s string, n int) []byte {
	k := 0
	for i := range s {
		if k == n {
			b = appendQuoted(b, s[:i])
			return append(b[:len(b)-1], "…\""...)
		}
		k++
	}
	return appendQuoted(b, s)
}

// appendQuoted is strconv.AppendQuote. A registry text is usually
// printable ASCII and CJK ideographs, which AppendQuote copies as they
// are (but '"' and '\\'); such a text is copied here, without the
// printability tables AppendQuote searches rune by rune, and any other
// text is left to AppendQuote.
func appendQuoted(b []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < ' ' || c > '~' || c == '"' || c == '\\' {
				return strconv.AppendQuote(b, s)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !inUnifiedIdeographs(r) { // printable, a spec checks every one
			return strconv.AppendQuote(b, s)
		}
		i += size
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// settleParams readies extracted params for the answer, at any depth:
// numbers JSON cannot hold (NaN, ±Inf: "1e400", "NaN" written by the
// user) are removed, so the param is missing and asked for rather than
// failing the whole decision; and ints (integer properties' values) become
// the float64 that decoding their JSON gives, which is written the same
// (every int up to 2^53 is a float64 and encodes to its digits), so the
// router takes the answer as a value instead of parsing its JSON again.
// An int past 2^53 stays as it is. A list holding an int is copied, not
// changed.
func settleParams(params map[string]any) {
	for k, v := range params {
		d, keep, changed := settledValue(v)
		switch {
		case !keep:
			delete(params, k)
		case changed:
			params[k] = d
		}
	}
}

// exactInts is the largest magnitude up to which every integer is a
// float64 (2^53).
const exactInts = 1 << 53

// settledValue is v as settleParams leaves it: keep is false for a value to
// remove (a list is removed whole for one such number), changed is true
// when d replaces v.
func settledValue(v any) (d any, keep, changed bool) {
	switch x := v.(type) {
	case float64:
		return v, !math.IsNaN(x) && !math.IsInf(x, 0), false
	case float32:
		return v, !math.IsNaN(float64(x)) && !math.IsInf(float64(x), 0), false
	case int:
		if x >= -exactInts && x <= exactInts {
			return float64(x), true, true
		}
	case map[string]any:
		settleParams(x)
	case []any:
		var out []any
		for i, e := range x {
			d, keep, changed := settledValue(e)
			if !keep {
				return v, false, false
			}
			if changed {
				if out == nil {
					out = slices.Clone(x)
				}
				out[i] = d
			}
		}
		if out != nil {
			return out, true, true
		}
	}
	return v, true, false
}
