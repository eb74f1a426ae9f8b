package yamldoc

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// aliasDoc is a mapping whose key a anchors a list of 999 strings (1,000
// values with the list) and whose key b lists uses uses of it.
func aliasDoc(uses int, more string) string {
	return "a: &a [" + strings.TrimSuffix(strings.Repeat("x, ", 999), ", ") + "]\n" +
		"s: &s one\n" +
		"b: [" + strings.TrimSuffix(strings.Repeat("*a, ", uses), ", ") + "]\n" + more
}

func TestAliasesCountEachUse(t *testing.T) {
	for _, c := range []struct {
		name, text string
		field      string // "" when within the count
		line       int
	}{
		{"exactly the limit", aliasDoc(100, ""), "", 0},
		{"one list past", aliasDoc(101, ""), "b[100]", 3},
		{"one scalar past", aliasDoc(100, "c: {d: *s}\n"), "c.d", 4},
		{"an alias as a key", aliasDoc(100, "? *s\n: v\n"), "s", 4}, // it stands for a value, as any alias
		{"a collection key", aliasDoc(100, "? [*s]\n: v\n"), "[0]", 4},
		{"values written out are free", "l: [" + strings.Repeat("x, ", 200_000) + "y]\n", "", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			root, err := Parse([]byte(c.text))
			if err != nil {
				t.Fatal(err)
			}
			e := (&Aliases{}).Check(root, "")
			if c.field == "" {
				if e != nil {
					t.Fatalf("Check = %s at line %d; want within the count", e.Field, e.Alias.Line)
				}
				return
			}
			if e == nil || e.Field != c.field || e.Alias.Line != c.line {
				t.Fatalf("Check = %+v; want %s at line %d", e, c.field, c.line)
			}
		})
	}
}

func TestAliasesCountAcrossChecks(t *testing.T) {
	// One file read in parts (a suite's case items): the count carries on.
	var a Aliases
	first, _ := Parse([]byte(aliasDoc(60, "")))
	if e := a.Check(first, "cases[0]"); e != nil {
		t.Fatalf("first part: %+v", e)
	}
	second, _ := Parse([]byte(aliasDoc(60, "")))
	e := a.Check(second, "cases[1]")
	if e == nil || e.Field != "cases[1].b[40]" { // 60 + 40 uses are the limit
		t.Fatalf("second part: %+v; want cases[1].b[40]", e)
	}
	// Once past, every alias is.
	third, _ := Parse([]byte("y: &y 2\nx: [1, *y]\n"))
	if e := a.Check(third, ""); e == nil || e.Field != "x[1]" {
		t.Fatalf("after the count: %+v; want x[1]", e)
	}
	if e := a.Check(&yaml.Node{Kind: yaml.ScalarNode, Value: "plain"}, ""); e != nil {
		t.Fatalf("a node without aliases: %+v", e)
	}
}

func TestAliasesStopOnACycle(t *testing.T) {
	// No parser makes one, but a walk must end all the same.
	list := &yaml.Node{Kind: yaml.SequenceNode}
	list.Content = []*yaml.Node{{Kind: yaml.AliasNode, Value: "l", Alias: list}}
	root := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
		{Kind: yaml.ScalarNode, Value: "k"}, {Kind: yaml.AliasNode, Value: "l", Alias: list},
	}}
	if e := (&Aliases{}).Check(root, "top"); e == nil || e.Field != "top.k" {
		t.Fatalf("Check = %+v; want top.k", e)
	}
}

func TestTooManyValues(t *testing.T) {
	got := TooManyValues("the skill's schema and examples")
	for _, want := range []string{"more than 100000 values", "an alias counts each time it is used", "write the values out plainly, or use fewer aliases"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
}
