package linediff

import (
	"slices"
	"strings"
	"testing"
)

func TestUnified(t *testing.T) {
	for _, tc := range []struct {
		name     string
		old, new string
		want     []string
	}{
		{"identical", "a\nb\n", "a\nb\n", nil},
		{"crlf and lf are the same line", "a\r\nb\r\n", "a\nb\n", nil},
		{"insert", "a\nb\nc\n", "a\nb\nnew\nc\n",
			[]string{"--- old", "+++ new", "@@ -2,2 +2,3 @@", " b", "+new", " c"}},
		{"delete", "a\nb\nc\n", "a\nc\n",
			[]string{"--- old", "+++ new", "@@ -1,3 +1,2 @@", " a", "-b", " c"}},
		{"change", "a\nb\nc\n", "a\nB\nc\n",
			[]string{"--- old", "+++ new", "@@ -1,3 +1,3 @@", " a", "-b", "+B", " c"}},
		{"change under crlf", "a\r\nb\r\nc\r\n", "a\nB\nc\n",
			[]string{"--- old", "+++ new", "@@ -1,3 +1,3 @@", " a", "-b", "+B", " c"}},
		{"from empty", "", "x\ny\n",
			[]string{"--- old", "+++ new", "@@ -0,0 +1,2 @@", "+x", "+y"}},
		{"to empty", "x\n", "",
			[]string{"--- old", "+++ new", "@@ -1 +0,0 @@", "-x"}},
	} {
		got := Unified("old", "new", tc.old, tc.new, 1)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: Unified =\n%s\nwant\n%s", tc.name, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
		}
	}
}

// Changes far apart get a hunk each, with context lines around them only.
func TestUnifiedHunks(t *testing.T) {
	old := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"
	new := "one\n2\n3\n4\n5\n6\n7\n8\n9\nten\n"
	want := []string{"--- a", "+++ b",
		"@@ -1,2 +1,2 @@", "-1", "+one", " 2",
		"@@ -9,2 +9,2 @@", " 9", "-10", "+ten"}
	if got := Unified("a", "b", old, new, 1); !slices.Equal(got, want) {
		t.Errorf("Unified =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Close enough that their contexts touch: one hunk.
	got := Unified("a", "b", old, new, 4)
	if n := countPrefix(got, "@@"); n != 1 {
		t.Errorf("changes 8 lines apart with context 4 make one hunk, got %d:\n%s", n, strings.Join(got, "\n"))
	}
}

// The shortest diff keeps the common lines, whatever their order.
func TestEditsShortest(t *testing.T) {
	edits := Edits("a\nb\nc\nd\n", "b\nx\nd\ne\n")
	var kept, changed int
	for _, e := range edits {
		if e.Op == Equal {
			kept++
		} else {
			changed++
		}
	}
	if kept != 2 || changed != 4 {
		t.Errorf("Edits kept %d lines and changed %d, want 2 kept (b, d) and 4 changed: %v", kept, changed, edits)
	}
	// Same inputs, same diff: deletions first where the order is free.
	again := Edits("a\nb\nc\nd\n", "b\nx\nd\ne\n")
	if !slices.Equal(edits, again) {
		t.Errorf("Edits is not deterministic: %v then %v", edits, again)
	}
	if got := Edits("a\n", "b\n"); !slices.Equal(got, []Edit{{Delete, "a"}, {Insert, "b"}}) {
		t.Errorf("a changed line is deleted, then inserted: %v", got)
	}
}

// Past the table bound the middle is replaced whole, still a valid diff.
func TestEditsBounded(t *testing.T) {
	var a, b strings.Builder
	for i := range 3000 {
		a.WriteString("a" + strings.Repeat("x", i%7) + "\n")
		b.WriteString("b" + strings.Repeat("x", i%7) + "\n")
	}
	edits := Edits(a.String(), b.String())
	if len(edits) != 6000 || edits[0].Op != Delete || edits[5999].Op != Insert {
		t.Errorf("a diff over the bound deletes all 3000 old lines and inserts all 3000 new ones, got %d edits", len(edits))
	}
}

func countPrefix(lines []string, prefix string) int {
	n := 0
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			n++
		}
	}
	return n
}
