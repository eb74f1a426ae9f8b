package harness

import (
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// Shard selects a deterministic part of the cases: shard Index of Count,
// 1-based. The zero Shard selects everything. A case lands in the same
// shard for every version, so each shard's results still pair up.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// MaxShards is the most shards a run may be split into. A shard's plan
// counts the cases of every shard, and a split finer than this has
// shards of a case or two on any suite routebench is meant for.
const MaxShards = 10000

// ParseShard reads "i/n" with 1 <= i <= n <= MaxShards.
func ParseShard(s string) (Shard, error) {
	if s == "" {
		return Shard{}, nil
	}
	i, n, ok := strings.Cut(s, "/")
	idx, err1 := strconv.Atoi(i)
	count, err2 := strconv.Atoi(n)
	sh := Shard{Index: idx, Count: count}
	err := sh.validate()
	if !ok || err1 != nil || err2 != nil {
		err = errWantSplit
	}
	if err != nil {
		return Shard{}, fmt.Errorf("shard %q: %w", s, err)
	}
	return sh, nil
}

var errWantSplit = errors.New("want i/n with 1 <= i <= n, e.g. 2/4")

// validate says what is wrong with s as one shard of a split.
func (s Shard) validate() error {
	if s.Count < 1 || s.Index < 1 || s.Index > s.Count {
		return errWantSplit
	}
	if s.Count > MaxShards {
		return fmt.Errorf("at most %d shards; split the run into fewer", MaxShards)
	}
	return nil
}

// check says what is wrong with s as a run's shard: the zero Shard (or
// 1/1) is the whole run, anything else one shard of a split.
func (s Shard) check() error {
	if s == (Shard{}) {
		return nil
	}
	if err := s.validate(); err != nil {
		return fmt.Errorf("shard %d/%d: %w", s.Index, s.Count, err)
	}
	return nil
}

// Has reports whether the case belongs to the shard, by a hash of its id
// (stable across machines and Go versions: FNV-1a).
func (s Shard) Has(caseID string) bool {
	if s.Count <= 1 {
		return true
	}
	return shardIndexOf(caseID, s.Count) == s.Index
}

// shardIndexOf is the shard (1..n) of an n-way split that holds caseID.
func shardIndexOf(caseID string, n int) int {
	h := fnv.New64a()
	h.Write([]byte(caseID))
	return int(h.Sum64()%uint64(n)) + 1
}

func (s Shard) String() string {
	if s.Count <= 1 {
		return "all"
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}
