package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// Merge joins the results of sharded runs into what one full run would
// have written: each (version, case) once, versions in order of first
// appearance, cases in their Seq order. A (version, case) present twice
// with different case hashes means the shards ran different suites, which
// is an error: their numbers do not add up.
func Merge(sets ...[]Result) ([]Result, error) {
	type key struct{ version, id string }
	versionRank := map[string]int{}
	seen := map[key]string{} // -> case hash
	var out []Result
	for _, set := range sets {
		for _, r := range set {
			if _, ok := versionRank[r.Version]; !ok {
				versionRank[r.Version] = len(versionRank)
			}
			k := key{r.Version, r.Case}
			if hash, dup := seen[k]; dup {
				if hash != r.CaseHash {
					return nil, fmt.Errorf("merge: case %s under %s has two different contents (hash %.12s and %.12s); re-run the shards from the same suites", r.Case, r.Version, hash, r.CaseHash)
				}
				continue
			}
			seen[k] = r.CaseHash
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := &out[i], &out[j]
		if ra, rb := versionRank[a.Version], versionRank[b.Version]; ra != rb {
			return ra < rb
		}
		if a.Seq != b.Seq {
			return a.Seq < b.Seq
		}
		return a.Case < b.Case
	})
	return out, nil
}

// ReadResultSets reads results.jsonl from each path: an output directory or
// the file itself.
func ReadResultSets(paths []string) ([][]Result, error) {
	sets := make([][]Result, 0, len(paths))
	for _, p := range paths {
		file := p
		if info, err := os.Stat(p); err == nil && info.IsDir() {
			file = filepath.Join(p, ResultsFile)
		}
		rs, err := ReadResults(file)
		if err != nil {
			return nil, err
		}
		sets = append(sets, rs)
	}
	return sets, nil
}
