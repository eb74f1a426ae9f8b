package fastyaml

import (
	"os"
	"testing"

	"go.yaml.in/yaml/v3"
)

// BenchmarkParse parses the ops normal suite (33 KB) with Parse and, for
// comparison, with yaml.Unmarshal into a yaml.Node.
//
//	go test ./internal/fastyaml -run '^$' -bench Parse -benchmem -count 5
func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile("../../suites/ops/normal.yaml")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("fastyaml", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, ok := Parse(data); !ok {
				b.Fatal("declined")
			}
		}
	})
	b.Run("yaml.v3", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			var doc yaml.Node
			if err := yaml.Unmarshal(data, &doc); err != nil {
				b.Fatal(err)
			}
		}
	})
}
