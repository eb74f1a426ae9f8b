package harness

import (
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
	if !ok || err1 != nil || err2 != nil || count < 1 || idx < 1 || idx > count {
		return Shard{}, fmt.Errorf("shard %q: want i/n with 1 <= i <= n, e.g. 2/4", s)
	}
	if count > MaxShards {
		return Shard{}, fmt.Errorf("shard %q: at most %d shards; split the run into fewer", s, MaxShards)
	}
	return Shard{Index: idx, Count: count}, nil
}

// check says what is wrong with s as a run's shard (the zero Shard is
// the whole run), as ParseShard would.
func (s Shard) check() error {
	if s == (Shard{}) || s.Count == 1 && s.Index == 1 {
		return nil
	}
	_, err := ParseShard(fmt.Sprintf("%d/%d", s.Index, s.Count))
	return err
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
