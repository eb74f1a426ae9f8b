package harness_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/routebench/routebench/harness"
)

// FuzzReadPlanFile holds the streamed plan.json reader to what json.Unmarshal
// reads into a Plan, on arbitrary bytes: a file is taken exactly when
// Unmarshal takes it with this format and a hash that matches, and then as
// Unmarshal reads it. Merge's reader (the cases read off the file again)
// must agree too. The one refusal Unmarshal does not make is a repeated
// "cases" field. A "HASH" in the input is replaced by the hash of what
// Unmarshal reads, so mutations reach plans that are taken.
//
//	go test ./harness/ -run '^$' -fuzz '^FuzzReadPlanFile$' -fuzztime 60s
func FuzzReadPlanFile(f *testing.F) {
	for _, seed := range []string{
		`{"format":2,"hash":"HASH","versions":[{"id":"v1@aa","fingerprint":"aa","dir":"d","description":"x"}],"cases":[{"id":"c-1","hash":"h1"},{"id":"c-2","hash":"h2","versions":[0]}],"suites":["s"]}`,
		`{"format":2,"hash":"5e5e","part_hash":"PSUM","shard":{"index":1,"count":2},"shard_cases":[2,1],"versions":[{"id":"v1@aa","fingerprint":"aa","dir":"d","description":"x"}],"cases":[{"id":"c-1","hash":"h1"},{"id":"c-2","hash":"h2","versions":[0],"seq":2}],"suites":["s"]}`,
		`{"format":2,"hash":"5e","PART_HASH":"PSUM","shard":{"index":3,"count":3},"shard_cases":null,"Shard_Cases":[0,0,1],"cases":[{"id":"c","hash":"h","seq":-1,"Seq":7}]}`,
		`{"format":2,"hash":"HASH","versions":[],"cases":null}`,
		`{"format":2,"hash":"HASH","cases":[]}`,
		`{"Format":2,"HASH":"HASH","Versions":[{"ID":"a@1","Fingerprint":"1"}],"versions":[{"id":"b@2"}],"CASES":[null]}`,
		`{"format":2,"hash":"HASH","x":{"y":[1,2,{"z":null}]},"cases":[{"id":"a","hash":"h"}],"cases":[]}`,
		"\ufeff{\"format\":1,\"hash\":\"HASH\"}",
		`{"format":2e400,"hash":"HASH"}`,
		`{"format":2,"hash":"HASH"} `,
		`null`,
		// Unknown values nested to just under and just over the decoder's
		// depth limit (10,000).
		`{"format":2,"hash":"HASH","deep":` + strings.Repeat("[", 9998) + strings.Repeat("]", 9998) + `,"cases":[]}`,
		`{"format":2,"hash":"HASH","deep":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `,"cases":[]}`,
		`{"format":2,"hash":"HASH","format":2.5}`,
		`{"format":2,"hash":"HASH","shard":{"index":2,"count":3},"shard":{"index":1}}`,
		`{"format":2,"hash":"5e","part_hash":"PSUM","shard":{"index":1,"count":100000000000},"cases":[]}`,
		`{"format":2,"hash":"HASH","shard":{"index":3,"count":0},"cases":[]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var pre harness.Plan
		if json.Unmarshal(data, &pre) == nil {
			data = bytes.ReplaceAll(data, []byte("HASH"), []byte(refPlanHash(pre)))
		}
		if json.Unmarshal(data, &pre) == nil {
			data = bytes.ReplaceAll(data, []byte("PSUM"), []byte(refPartHash(pre)))
		}
		var want harness.Plan
		err := json.Unmarshal(data, &want)
		hashed := want.Hash == refPlanHash(want)
		if want.Shard.Count > 1 {
			hashed = want.PartHash == refPartHash(want) // a shard's plan, checked on its own
		}
		takes := err == nil && want.Format == harness.PlanFormat && hashed && validShard(want.Shard)
		path := filepath.Join(t.TempDir(), harness.PlanFile)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		for name, read := range map[string]func(string) (harness.Plan, error){
			"ReadPlanFile": harness.ReadPlanFile, "merge's reader": harness.ReadPlanFileAsMerged,
		} {
			got, err := read(path)
			switch {
			case err == nil && !takes:
				t.Fatalf("%s takes %q, which json.Unmarshal and the hash check refuse", name, data)
			case err != nil && takes && !strings.Contains(err.Error(), "cases: given twice"):
				t.Fatalf("%s refuses %q, which json.Unmarshal and the hash check take: %v", name, data, err)
			case err == nil && !reflect.DeepEqual(got, want):
				t.Fatalf("%s reads %q as\n%#v\njson.Unmarshal as\n%#v", name, data, got, want)
			}
		}
	})
}

// validShard says a plan's shard is none (zero, or 1/1) or one of a split
// that `run --shard` takes.
func validShard(s harness.Shard) bool {
	return s == harness.Shard{} || s == harness.Shard{Index: 1, Count: 1} ||
		1 <= s.Index && s.Index <= s.Count && s.Count <= harness.MaxShards
}

// refPartHash is a shard's plan's PartHash written apart from the code
// under test: sha256 over one JSON value of its cases (with their seq),
// the whole plan's hash, the shard, the shards' sizes and the versions
// (ids and fingerprints).
func refPartHash(p harness.Plan) string {
	return sha256Hex(struct {
		Cases      []harness.PlanCase
		Hash       string
		Shard      harness.Shard
		ShardCases []int
		Versions   []harness.PlanVersion
	}{p.Cases, p.Hash, p.Shard, p.ShardCases, hashedVersions(p.Versions)})
}

// refPlanHash is the plan hash as it was always computed, written here
// apart from the code under test: sha256 over one JSON value of the
// versions (ids and fingerprints) and the cases.
func refPlanHash(p harness.Plan) string {
	return sha256Hex(struct {
		Versions []harness.PlanVersion
		Cases    []harness.PlanCase
	}{hashedVersions(p.Versions), p.Cases})
}

// hashedVersions are versions as a plan's hashes hold them: ids and
// fingerprints.
func hashedVersions(pvs []harness.PlanVersion) []harness.PlanVersion {
	vs := make([]harness.PlanVersion, len(pvs))
	for i, v := range pvs {
		vs[i] = harness.PlanVersion{ID: v.ID, Fingerprint: v.Fingerprint}
	}
	return vs
}

// sha256Hex is the sha256 of v's JSON, in hex.
func sha256Hex(v any) string {
	b, _ := json.Marshal(v)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
