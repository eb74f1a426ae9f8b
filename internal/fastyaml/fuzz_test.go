package fastyaml

import (
	"math/rand/v2"
	"testing"
)

// FuzzParse holds Parse to yaml.v3 on any input: whatever Parse takes,
// yaml.v3 takes too and builds the same tree (comments aside). Seeded with
// the repository's suites and fixtures, the made-up documents above and
// random documents of the generator.
func FuzzParse(f *testing.F) {
	for _, file := range repositoryYAML(f) {
		f.Add(file.data)
	}
	for _, s := range inSubset {
		f.Add([]byte(s))
	}
	for _, s := range outside {
		f.Add([]byte(s))
	}
	g := &docGen{r: rand.New(rand.NewPCG(1, 2))}
	for range 50 {
		f.Add(g.doc())
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if problem, _ := check(in); problem != "" {
			t.Fatalf("%q: %s", in, problem)
		}
	})
}
