package harness

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
)

// PlanFile records, in an output directory, what the run there set out to
// do, so `merge` can check that its shards make one complete run.
const PlanFile = "plan.json"

// Plan is plan.json: the whole run's (version, case) pairs before
// sharding, and which shard of it this directory holds.
type Plan struct {
	Format int `json:"format"`
	// Hash is sha256 over Versions and Cases: equal hashes, equal plans.
	Hash  string `json:"hash"`
	Shard Shard  `json:"shard"`
	// Versions are IDs with their full fingerprints, in run order.
	Versions []PlanVersion `json:"versions"`
	// Cases are in loaded order (Seq); a case runs under the versions
	// listed, or under every version when Versions is empty.
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
}

// PlanCase is one case of a plan.
type PlanCase struct {
	ID   string `json:"id"`
	Hash string `json:"hash"`
	// Versions are indexes into Plan.Versions when a label filter left
	// some versions out; empty means all.
	Versions []int `json:"versions,omitempty"`
}

// planOf records cfg's plan: every included (version, case) whatever the
// shard, so each shard's record describes the whole run.
func planOf(cfg RunConfig) Plan {
	p := Plan{Format: FormatVersion, Shard: cfg.Shard, Versions: make([]PlanVersion, len(cfg.Versions)), Cases: []PlanCase{}}
	if p.Shard.Count <= 1 {
		p.Shard = Shard{}
	}
	for i, v := range cfg.Versions {
		p.Versions[i] = PlanVersion{ID: v.ID(), Fingerprint: v.Fingerprint, Dir: v.Dir}
	}
	for ci := range cfg.Cases {
		c := &cfg.Cases[ci]
		var under []int
		for vi, v := range cfg.Versions {
			if cfg.Include == nil || cfg.Include(v, c) {
				under = append(under, vi)
			}
		}
		if len(under) == 0 {
			continue
		}
		pc := PlanCase{ID: c.ID, Hash: c.Hash}
		if len(under) < len(cfg.Versions) {
			pc.Versions = under
		}
		p.Cases = append(p.Cases, pc)
	}
	p.Suites = cfg.SuitePaths
	p.Hash = p.hash()
	return p
}

func (p *Plan) hash() string {
	// Shard and Hash are left out: every shard of one run has the same plan.
	versions := make([]PlanVersion, len(p.Versions))
	for i, v := range p.Versions {
		versions[i] = PlanVersion{ID: v.ID, Fingerprint: v.Fingerprint}
	}
	b, _ := json.Marshal(struct {
		Versions []PlanVersion
		Cases    []PlanCase
	}{versions, p.Cases})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// pairKey is one (version, case) of a plan or of results.
type pairKey struct{ version, caseID string }

// pairs lists the plan's (version, case) pairs that shard s holds, in plan
// order (version, then case), with each case's hash and position.
func (p *Plan) pairs(s Shard) []planPair {
	var out []planPair
	for vi, v := range p.Versions {
		for seq, c := range p.Cases {
			if len(c.Versions) > 0 && !slices.Contains(c.Versions, vi) {
				continue
			}
			if !s.Has(c.ID) {
				continue
			}
			out = append(out, planPair{key: pairKey{v.ID, c.ID}, hash: c.Hash, seq: seq})
		}
	}
	return out
}

type planPair struct {
	key  pairKey
	hash string
	seq  int
}

// WritePlanFile writes plan.json.
func WritePlanFile(path string, p Plan) error { return writeJSONFile(path, "plan", p) }

// ReadPlanFile reads plan.json.
func ReadPlanFile(path string) (Plan, error) {
	var p Plan
	err := readJSONFile(path, "plan", &p)
	if errors.Is(err, os.ErrNotExist) {
		return p, fmt.Errorf("%s does not exist: the run there predates plan records or did not start; re-run it with this routebench: %w", path, err)
	}
	if err != nil {
		return p, err
	}
	if p.Format != FormatVersion {
		return p, fmt.Errorf("%s: plan format %d, this routebench reads format %d; re-run the shard with this version", path, p.Format, FormatVersion)
	}
	if p.Hash != p.hash() {
		return p, fmt.Errorf("%s: its hash does not match its content (edited by hand?); re-run the shard", path)
	}
	return p, nil
}

// planVersionIDs are the plan's version IDs, for messages.
func planVersionIDs(vs []PlanVersion) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.ID
	}
	return out
}
