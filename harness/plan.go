package harness

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/routebench/routebench/internal/inputfile"
	"github.com/routebench/routebench/internal/jsonstr"
)

// PlanFile records, in an output directory, what the run there set out to
// do, so `merge` can check that its shards make one complete run.
const PlanFile = "plan.json"

// PlanFormat is the format of plan.json. Format 2 keeps in a shard's
// plan only the shard's own cases (each with its place in the whole
// plan): format 1 gave every shard the whole run's list, 132 MB at a
// million cases, in each of 100 shards.
const PlanFormat = 2

// Plan is plan.json: the whole run's (version, case) pairs before
// sharding, and which shard of it this directory holds. A shard's plan
// lists only its own cases; merge puts the whole plan together again from
// every shard's and checks it against Hash.
type Plan struct {
	Format int `json:"format"`
	// Hash is sha256 over Versions and the whole plan's Cases (without
	// Seq): equal hashes, equal plans, sharded or not.
	Hash string `json:"hash"`
	// PartHash is sha256 over what a shard's plan holds (partHash):
	// its cases with their Seq, Hash, Shard, ShardCases and Versions, so
	// the file is checked on its own. Empty when the plan is not sharded
	// (Hash checks it).
	PartHash string `json:"part_hash,omitempty"`
	Shard    Shard  `json:"shard"`
	// ShardCases counts the cases of each shard of the split, shard 1
	// first (sharded plans only): merge says how much a missing shard
	// holds, and that a shard the filter left empty is not missing.
	ShardCases []int `json:"shard_cases,omitempty"`
	// Versions are IDs with their full fingerprints, in run order.
	Versions []PlanVersion `json:"versions"`
	// Cases are in loaded order (Seq); a case runs under the versions
	// listed, or under every version when Versions is empty. A shard's
	// plan holds the shard's cases only.
	Cases []PlanCase `json:"cases"`
	// Suites are the suite paths the cases came from, as given, so
	// `replay` finds a recorded case again. Not in Hash.
	Suites []string `json:"suites,omitempty"`
}

// PlanVersion is one prompt version of a plan.
type PlanVersion struct {
	ID          string `json:"id"`
	Fingerprint string `json:"fingerprint"`
	// Dir is where the version was loaded from (a directory or
	// git:REV:DIR), for `replay`. Not in Hash: shards run elsewhere are
	// still one plan.
	Dir string `json:"dir,omitempty"`
	// Description is the version's own (version.yaml), so a merged run's
	// reports describe its versions as the unsharded run's do. Not in
	// Hash either.
	Description string `json:"description,omitempty"`
}

// PlanCase is one case of a plan.
type PlanCase struct {
	ID   string `json:"id"`
	Hash string `json:"hash"`
	// Versions are indexes into Plan.Versions when a label filter left
	// some versions out; empty means all.
	Versions []int `json:"versions,omitempty"`
	// Seq is the case's place in the whole plan, from 0: written in a
	// shard's plan (but for 0), whose cases are only some of the whole
	// plan's. Hash is over the whole plan's cases, which have none.
	Seq int `json:"seq,omitempty"`
}

// writePlanOf writes cfg's plan to path: every included (version, case)
// when the run is not sharded, else the shard's own cases with their
// place in the whole plan, whose hash the shards share. The cases are read
// off plan one at a time, for the hashes and again for the file, never
// gathered into a list (a million of them are 140 MB).
func writePlanOf(path string, cfg RunConfig, plan *planSet) error {
	p := Plan{Format: PlanFormat, Shard: cfg.Shard, Versions: make([]PlanVersion, len(cfg.Versions)), Suites: cfg.SuitePaths}
	for i, v := range cfg.Versions {
		p.Versions[i] = PlanVersion{ID: v.ID(), Fingerprint: v.Fingerprint, Dir: v.Dir, Description: v.Description}
	}
	return writeShardPlan(path, p, plan.eachPlanCase)
}

// writeShardPlan writes the plan.json of p's shard (p.Shard; the zero
// Shard or 1/1 for an unsharded run) of the whole plan whose cases are
// all: its hashes, shard sizes and cases are filled in here.
func writeShardPlan(path string, p Plan, all planCases) error {
	if p.Shard.Count <= 1 {
		p.Shard = Shard{}
		var err error
		if p.Hash, err = hashPlan(p.Versions, all, false); err != nil {
			return err
		}
		return writePlan(path, p, all, false)
	}
	// One walk for both hashes, the whole plan's and the shard's part's
	// (whose tail, Hash and the shard sizes, is known only at the end),
	// then one to write the shard's cases.
	whole, part := newPlanHash(p.Versions), newPartHash()
	p.ShardCases = make([]int, p.Shard.Count)
	seq := -1
	err := all(func(pc *PlanCase) error {
		seq++
		whole.add(pc)
		shard := shardIndexOf(pc.ID, p.Shard.Count)
		p.ShardCases[shard-1]++
		if shard == p.Shard.Index {
			c := *pc
			c.Seq = seq
			part.add(&c)
		}
		return nil
	})
	if err != nil {
		return err
	}
	p.Hash = whole.sum(false)
	p.PartHash = part.sum(p, false)
	return writePlan(path, p, p.ownCases(all), false)
}

// ownCases is the cases of the whole plan (all) that p's shard holds,
// each with its place in the whole plan.
func (p *Plan) ownCases(all planCases) planCases {
	return func(fn func(pc *PlanCase) error) error {
		seq := -1
		return all(func(pc *PlanCase) error {
			seq++
			if shardIndexOf(pc.ID, p.Shard.Count) != p.Shard.Index {
				return nil
			}
			c := *pc
			c.Seq = seq
			return fn(&c)
		})
	}
}

// planCases calls fn with each case of a plan in order, stopping at its
// first error.
type planCases func(fn func(pc *PlanCase) error) error

// eachPlanCase is the plan's cases: those some version includes, in
// loaded order, each with the versions that include it when not all do.
func (p *planSet) eachPlanCase(fn func(pc *PlanCase) error) error {
	under := make([]int, 0, p.versions)
	return p.src.Keys(func(i int, id, hash string) error {
		under = under[:0]
		for v := range p.versions {
			if p.includes(v, i) {
				under = append(under, v)
			}
		}
		if len(under) == 0 {
			return nil
		}
		pc := PlanCase{ID: id, Hash: hash}
		if len(under) < p.versions {
			pc.Versions = slices.Clone(under)
		}
		return fn(&pc)
	})
}

// listCases is a list of plan cases as planCases.
func listCases(cases []PlanCase) planCases {
	return func(fn func(pc *PlanCase) error) error {
		for i := range cases {
			if err := fn(&cases[i]); err != nil {
				return err
			}
		}
		return nil
	}
}

// hash is sha256 over the JSON of {Versions, Cases}, the versions without
// their Dir and Description.
func (p *Plan) hash() string {
	h, _ := hashPlan(p.Versions, listCases(p.Cases), p.Cases == nil) // a list cannot fail
	return h
}

// hashPlan is Plan.hash of the versions and cases (null when isNil). It
// is written to the hash case by case: encoding/json keeps the buffer of
// its largest value pooled for the rest of the process, and a whole plan
// is a buffer of megabytes that every result line would then be encoded
// in.
func hashPlan(pvs []PlanVersion, cases planCases, isNil bool) (string, error) {
	h := newPlanHash(pvs)
	if !isNil {
		if err := cases(func(pc *PlanCase) error { h.add(pc); return nil }); err != nil {
			return "", err
		}
	}
	return h.sum(isNil), nil
}

// caseListHash is a sha256 being written over one JSON value whose cases
// array is added a case at a time.
type caseListHash struct {
	h   hash.Hash
	n   int
	buf []byte
}

func (c *caseListHash) add(pc *PlanCase) {
	if c.n == 0 {
		c.h.Write([]byte("["))
	} else {
		c.h.Write([]byte(","))
	}
	c.n++
	c.buf = appendPlanCase(c.buf[:0], pc, "", "")
	c.h.Write(c.buf)
}

// endCases closes the cases array: null when isNil (and nothing added).
func (c *caseListHash) endCases(isNil bool) {
	switch {
	case isNil && c.n == 0:
		c.h.Write([]byte("null"))
	case c.n == 0:
		c.h.Write([]byte("[]"))
	default:
		c.h.Write([]byte("]"))
	}
}

// hashVersions are a plan's versions as its hashes hold them: ids and
// fingerprints.
func hashVersions(pvs []PlanVersion) []byte {
	versions := make([]PlanVersion, len(pvs))
	for i, v := range pvs {
		versions[i] = PlanVersion{ID: v.ID, Fingerprint: v.Fingerprint}
	}
	vb, _ := json.Marshal(versions)
	return vb
}

// planHash is hashPlan's sha256 being written.
type planHash struct{ caseListHash }

func newPlanHash(pvs []PlanVersion) *planHash { return newPlanHashOf(hashVersions(pvs)) }

// newPlanHashOf is newPlanHash of versions as hashVersions gives them.
func newPlanHashOf(versions []byte) *planHash {
	// Shard and Hash are left out: every shard of one run has the same plan.
	h := &planHash{caseListHash{h: sha256.New()}}
	h.h.Write([]byte(`{"Versions":`))
	h.h.Write(versions)
	h.h.Write([]byte(`,"Cases":`))
	return h
}

func (h *planHash) sum(isNil bool) string {
	h.endCases(isNil)
	h.h.Write([]byte("}"))
	return hex.EncodeToString(h.h.Sum(nil))
}

// partHash is the sha256 of a shard's plan being written: the JSON of
// {Cases, Hash, Shard, ShardCases, Versions}, the cases with their Seq and
// the versions without Dir and Description. The cases come first, so the
// rest (the whole plan's hash, the shard sizes) may be known only once
// they have been walked.
type partHash struct{ caseListHash }

func newPartHash() *partHash {
	h := &partHash{caseListHash{h: sha256.New()}}
	h.h.Write([]byte(`{"Cases":`))
	return h
}

func (h *partHash) sum(p Plan, isNil bool) string {
	h.endCases(isNil)
	rest, _ := json.Marshal(struct {
		Hash       string
		Shard      Shard
		ShardCases []int
	}{p.Hash, p.Shard, p.ShardCases})
	h.h.Write([]byte(","))
	h.h.Write(rest[1 : len(rest)-1])
	h.h.Write([]byte(`,"Versions":`))
	h.h.Write(hashVersions(p.Versions))
	h.h.Write([]byte("}"))
	return hex.EncodeToString(h.h.Sum(nil))
}

// writeCaseList writes cases as a JSON array (null when isNil), each
// encoded on its own.
func writeCaseList(w io.Writer, cases planCases, isNil bool, encode func(*PlanCase) ([]byte, error), open, sep, close string) error {
	if isNil {
		_, err := io.WriteString(w, "null")
		return err
	}
	bw := bufio.NewWriter(w)
	n := 0
	err := cases(func(pc *PlanCase) error {
		if n == 0 {
			bw.WriteString(open)
		} else {
			bw.WriteString(sep)
		}
		n++
		b, err := encode(pc)
		if err != nil {
			return err
		}
		_, err = bw.Write(b)
		return err
	})
	if err != nil {
		return err
	}
	if n == 0 {
		bw.WriteString("[]")
	} else {
		bw.WriteString(close)
	}
	return bw.Flush()
}

// pairKey is one (version, case) of a plan or of results.
type pairKey struct{ version, caseID string }

// planPair is a (version, case) a run's plan gives it: the case's hash,
// and the pair's rank in plan order (version, then case).
type planPair struct {
	key  pairKey
	hash string
	rank int64
}

// WritePlanFile writes plan.json, indented as json.MarshalIndent would,
// one case at a time (see hashPlan for why not in one buffer).
func WritePlanFile(path string, p Plan) error {
	cases := p.Cases
	return writePlan(path, p, listCases(cases), cases == nil)
}

// writePlan is WritePlanFile with the cases given one at a time.
func writePlan(path string, p Plan, cases planCases, isNil bool) error {
	p.Cases = []PlanCase{}
	frame, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return fmt.Errorf("encode plan: %w", err)
	}
	const key = "\n  \"cases\": []"
	at := bytes.Index(frame, []byte(key))
	if at < 0 {
		return fmt.Errorf("encode plan: no cases field in %.40q", frame)
	}
	at += len(key) - len("[]")
	return writeAtomic(path, func(w io.Writer) error {
		if _, err := w.Write(frame[:at]); err != nil {
			return err
		}
		var buf []byte
		encode := func(pc *PlanCase) ([]byte, error) {
			buf = appendPlanCase(buf[:0], pc, "    ", "  ")
			return buf, nil
		}
		if err := writeCaseList(w, cases, isNil, encode, "[\n    ", ",\n    ", "\n  ]"); err != nil {
			return err
		}
		_, err := w.Write(append(frame[at+len("[]"):], '\n'))
		return err
	})
}

// appendPlanCase appends pc as json.MarshalIndent(pc, prefix, indent)
// writes it (json.Marshal's bytes when both are ""), without reflection:
// a plan has a case a line, and encoding them took a good part of writing
// a large run's plan.
func appendPlanCase(b []byte, pc *PlanCase, prefix, indent string) []byte {
	// newline starts a member at depth (1 for the case's fields, 2 for
	// its versions); indented output only.
	newline := func(b []byte, depth int) []byte {
		if indent == "" && prefix == "" {
			return b
		}
		b = append(append(b, '\n'), prefix...)
		for range depth {
			b = append(b, indent...)
		}
		return b
	}
	colon := ":"
	if indent != "" || prefix != "" {
		colon = ": "
	}
	b = append(b, '{')
	b = newline(b, 1)
	b = append(append(b, `"id"`...), colon...)
	b = jsonstr.Append(b, pc.ID)
	b = append(b, ',')
	b = newline(b, 1)
	b = append(append(b, `"hash"`...), colon...)
	b = jsonstr.Append(b, pc.Hash)
	if len(pc.Versions) > 0 {
		b = append(b, ',')
		b = newline(b, 1)
		b = append(append(b, `"versions"`...), colon...)
		b = append(b, '[')
		for i, v := range pc.Versions {
			if i > 0 {
				b = append(b, ',')
			}
			b = newline(b, 2)
			b = strconv.AppendInt(b, int64(v), 10)
		}
		b = newline(b, 1)
		b = append(b, ']')
	}
	if pc.Seq != 0 {
		b = append(b, ',')
		b = newline(b, 1)
		b = append(append(b, `"seq"`...), colon...)
		b = strconv.AppendInt(b, int64(pc.Seq), 10)
	}
	b = newline(b, 0)
	return append(b, '}')
}

// ReadPlanFile reads plan.json. The file may hold a whole run's case list
// (132 MB for a million cases), so it is decoded as a stream, a case at a
// time, with no bound on its size but the run's: it is a record routebench
// wrote, checked by its hash, not an input a person writes. A shard's plan
// is checked by its PartHash; only merge, which has every shard's, can
// check their Hash.
func ReadPlanFile(path string) (Plan, error) {
	var cases []PlanCase
	p, isNil, err := decodePlanFile(path, func(pc *PlanCase) error {
		cases = append(cases, *pc)
		return nil
	})
	if err == nil && !isNil && cases == nil {
		cases = []PlanCase{}
	}
	p.Cases = cases
	return p, checkPlan(path, p, err, func() (string, error) { return planHashOf(p, listCases(cases), isNil) })
}

// ReadPlanVersions reads the versions of the plan at path and stops at
// its first case: what a run recorded of its versions (full fingerprints,
// directories, descriptions), which its results name only by ID. The
// plan is not checked against its hash (that takes every case): callers
// take a version only where its ID and fingerprint match what they have.
func ReadPlanVersions(path string) ([]PlanVersion, error) {
	p, _, err := decodePlanFile(path, func(*PlanCase) error { return errPlanEnough })
	if err != nil && err != errPlanEnough {
		return nil, err
	}
	if p.Versions == nil && err == errPlanEnough {
		// Versions written after the cases: not as routebench writes a
		// plan, so not worth reading every case for.
		return nil, fmt.Errorf("%s: no versions before its cases", path)
	}
	return p.Versions, nil
}

// errPlanEnough, returned by decodePlanFile's fn, stops the decoding with
// what was read so far.
var errPlanEnough = errors.New("plan read far enough")

// checkPlan turns what decoding path gave into ReadPlanFile's errors:
// a missing file, another format, a hash (from sum: planHashOf) other
// than the one recorded (PartHash for a shard's plan, Hash for a whole
// one).
func checkPlan(path string, p Plan, err error, sum func() (string, error)) error {
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s does not exist: the run there predates plan records or did not start; re-run it with this routebench: %w", path, err)
	}
	if err != nil {
		return err
	}
	if p.Format != PlanFormat {
		return planFormatError(path, p.Format)
	}
	if err := p.Shard.check(); err != nil {
		return fmt.Errorf("%s: %w (edited by hand?); re-run the shard", path, err)
	}
	got, err := sum()
	if err != nil {
		return err
	}
	want := p.Hash
	if p.Shard.Count > 1 {
		want = p.PartHash
	}
	if got != want {
		return fmt.Errorf("%s: its hash does not match its content (edited by hand?); re-run the shard", path)
	}
	return nil
}

// planHashOf is the hash p with cases is checked by: its part hash for a
// shard's plan, the whole plan's hash else.
func planHashOf(p Plan, cases planCases, isNil bool) (string, error) {
	h := newCaseHashes(&p)
	if !isNil {
		if err := cases(func(pc *PlanCase) error { h.add(pc); return nil }); err != nil {
			return "", err
		}
	}
	sum, _ := h.sum(isNil) // p is as it was at its first case
	return sum, nil
}

// caseHashes is planHashOf's hash of a plan's cases as they are decoded,
// so that a plan is checked in the pass that reads it. Which hash, and
// the versions a whole plan's hash begins with, are taken from the plan
// as it stands at the first case (as routebench writes a plan, its shard
// and versions come before its cases); sum says when the plan changed
// after that, and the cases must be hashed again.
type caseHashes struct {
	plan    *Plan // being decoded
	started bool
	// sharded and versionsAt are the plan at its first case.
	sharded    bool
	versionsAt []byte
	whole      *planHash
	part       *partHash
}

func newCaseHashes(p *Plan) *caseHashes { return &caseHashes{plan: p} }

func (c *caseHashes) add(pc *PlanCase) {
	if !c.started {
		c.started = true
		if c.sharded = c.plan.Shard.Count > 1; c.sharded {
			c.part = newPartHash()
		} else {
			c.versionsAt = hashVersions(c.plan.Versions)
			c.whole = newPlanHashOf(c.versionsAt)
		}
	}
	if c.sharded {
		c.part.add(pc)
	} else {
		c.whole.add(pc)
	}
}

// sum is planHashOf the plan decoded, its cases those added; false when
// they must be hashed again (the plan's shard or versions changed after
// its first case).
func (c *caseHashes) sum(isNil bool) (string, bool) {
	p := *c.plan
	sharded := p.Shard.Count > 1
	switch {
	case !c.started && sharded:
		return newPartHash().sum(p, isNil), true
	case !c.started:
		return newPlanHash(p.Versions).sum(isNil), true
	case sharded != c.sharded:
		return "", false
	case sharded:
		return c.part.sum(p, isNil), true
	case !bytes.Equal(c.versionsAt, hashVersions(p.Versions)):
		return "", false
	}
	return c.whole.sum(isNil), true
}

func planFormatError(path string, format int) error {
	return fmt.Errorf("%s: plan format %d, this routebench reads format %d; re-run the shard with this version", path, format, PlanFormat)
}

// planFile is a plan.json read without its cases, which are read from
// the file again, one at a time, each time they are walked: a merge of a
// million cases holds the plan's versions, not its cases.
type planFile struct {
	path string
	// plan is the file's plan but for Cases (nil); cases counts them,
	// isNil says the file has null for them.
	plan  Plan
	cases int
	isNil bool
	// found is the file as it was before it was first read: each refuses
	// a file changed since (its size or modification time), as the plan
	// checked by its hash would no longer be the one walked.
	found os.FileInfo
}

// openPlanFile reads path's plan as ReadPlanFile does (the same checks,
// the same errors) without keeping its cases.
func openPlanFile(path string) (*planFile, error) {
	pf := &planFile{path: path}
	pf.found, _ = os.Stat(path) // decodePlanFile says what is wrong when this fails
	hashes := newCaseHashes(&pf.plan)
	var err error
	pf.isNil, err = decodePlanFileInto(path, &pf.plan, func(pc *PlanCase) error {
		pf.cases++
		hashes.add(pc)
		return nil
	})
	if err != nil {
		pf.plan = Plan{}
	}
	return pf, checkPlan(path, pf.plan, err, func() (string, error) {
		if sum, ok := hashes.sum(pf.isNil); ok {
			return sum, nil
		}
		return planHashOf(pf.plan, pf.each, pf.isNil)
	})
}

// each is the plan's cases in order, read off the file (planCases).
func (pf *planFile) each(fn func(pc *PlanCase) error) error {
	n := 0
	_, _, err := decodePlanFile(pf.path, func(pc *PlanCase) error {
		n++
		return fn(pc)
	})
	if err == nil && (n != pf.cases || !sameFile(pf.path, pf.found)) {
		err = fmt.Errorf("%s changed while it was read", pf.path)
	}
	return err
}

// sameFile says path is still the file found was (size and modification time).
func sameFile(path string, found os.FileInfo) bool {
	now, err := os.Stat(path)
	return err == nil && found != nil && now.Size() == found.Size() && now.ModTime().Equal(found.ModTime())
}

// decodePlanFile decodes plan.json as json.Unmarshal would into a Plan
// (field names matched without regard to case, unknown ones skipped, a
// repeated one decoded over the first), handing each case to fn instead
// of keeping it: the Plan has no Cases, isNil says they were null or
// absent. A repeated cases field is refused instead.
func decodePlanFile(path string, fn func(*PlanCase) error) (p Plan, isNil bool, err error) {
	isNil, err = decodePlanFileInto(path, &p, fn)
	if err != nil && err != errPlanEnough {
		return Plan{}, false, err
	}
	return p, isNil, err
}

// decodePlanFileInto is decodePlanFile decoding into p, which fn may read
// as it stands when each case is handed over.
func decodePlanFileInto(path string, p *Plan, fn func(*PlanCase) error) (isNil bool, err error) {
	info, err := os.Stat(path) // before open: opening a FIFO blocks
	if err != nil {
		return false, fmt.Errorf("read plan: %w", err)
	}
	if !info.Mode().IsRegular() {
		return false, fmt.Errorf("read plan: %s: %w; give a regular file", path, inputfile.ErrNotRegular)
	}
	f, err := os.Open(path)
	if err != nil {
		return false, fmt.Errorf("read plan: %w", err)
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(f, 1<<16))
	if isNil, err = decodePlan(dec, p, fn); errors.Is(err, errPlanEnough) {
		return false, errPlanEnough // what was read before fn had enough
	} else if err != nil {
		return false, fmt.Errorf("%s: not a plan record: %w", path, err)
	}
	return isNil, nil
}

func decodePlan(dec *json.Decoder, p *Plan, fn func(*PlanCase) error) (isNil bool, err error) {
	if err := expectDelim(dec, '{'); err != nil {
		return false, err
	}
	// Without a cases field, json.Unmarshal leaves them nil: hashed as null.
	isNil = true
	casesSeen := false
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return false, err
		}
		key, _ := t.(string)
		if strings.EqualFold(key, "cases") {
			// A repeated cases field is refused, however short the second:
			// json.Unmarshal would keep the last, but fn has seen the first.
			if casesSeen {
				return false, errors.New("cases: given twice")
			}
			casesSeen = true
			if isNil, err = decodePlanCases(dec, fn); err != nil {
				return false, fmt.Errorf("cases: %w", err)
			}
			continue
		}
		// Not reset first: a repeated field is decoded over what the first
		// left (a list's elements too), as json.Unmarshal does.
		var dst any = new(json.RawMessage) // an unknown field, skipped
		for _, f := range planFields(p) {
			if strings.EqualFold(key, f.name) {
				dst = f.dst
				break
			}
		}
		if err := dec.Decode(dst); err != nil {
			return false, fmt.Errorf("%s: %w", key, err)
		}
	}
	if err := expectDelim(dec, '}'); err != nil {
		return false, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return false, errors.New("more after the plan's closing brace")
	}
	return isNil, nil
}

// planField is a field of a Plan by its JSON name.
type planField struct {
	name string
	dst  any
}

// planFields are the fields of p that decodePlan decodes whole (all but
// the cases).
func planFields(p *Plan) []planField {
	return []planField{{"format", &p.Format}, {"hash", &p.Hash}, {"part_hash", &p.PartHash}, {"shard", &p.Shard},
		{"shard_cases", &p.ShardCases}, {"versions", &p.Versions}, {"suites", &p.Suites}}
}

// decodePlanCases reads the cases array a case at a time, handing each to
// fn; isNil when it is null.
func decodePlanCases(dec *json.Decoder, fn func(*PlanCase) error) (isNil bool, err error) {
	t, err := dec.Token()
	if err != nil {
		return false, err
	}
	if t == nil {
		return true, nil
	}
	if t != json.Delim('[') {
		return false, fmt.Errorf("want an array, have %v", t)
	}
	for n := 1; dec.More(); n++ {
		var pc PlanCase
		if err := dec.Decode(&pc); err != nil {
			return false, fmt.Errorf("case %d: %w", n, err)
		}
		if err := fn(&pc); err != nil {
			return false, err
		}
	}
	return false, expectDelim(dec, ']')
}

func expectDelim(dec *json.Decoder, d json.Delim) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if t != d {
		return fmt.Errorf("want %v, have %v", d, t)
	}
	return nil
}

// planVersionIDs are the plan's version IDs, for messages.
func planVersionIDs(vs []PlanVersion) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.ID
	}
	return out
}
