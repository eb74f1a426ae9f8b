package yamlkind

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestOf(t *testing.T) {
	for src, want := range map[string]string{
		"{a: 1}": "a mapping", "[1]": "a list", "~": "nothing (null)",
		"3.5": "a number (3.5)", "true": "a boolean (true)", "east": `the string "east"`,
	} {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
			t.Fatal(err)
		}
		if got := Of(doc.Content[0]); got != want {
			t.Errorf("Of(%s) = %q, want %q", src, got, want)
		}
	}
}
