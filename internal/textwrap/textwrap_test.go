package textwrap

import "testing"

func TestWidthWrapTruncate(t *testing.T) {
	if got := Width("ab退款"); got != 6 {
		t.Errorf("Width: a CJK character takes two columns, got %d", got)
	}
	got := Wrap("one two three four", 10, "- ", "  ")
	want := []string{"- one two", "  three", "  four"}
	if len(got) != len(want) {
		t.Fatalf("Wrap = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Wrap = %q, want %q", got, want)
		}
	}
	if got := Wrap("a  b", 10, "", ""); got[0] != "a  b" {
		t.Errorf("a line that fits keeps its spacing: %q", got)
	}
	if got := Truncate("退款进度查询", 7); got != "退款进…" {
		t.Errorf("Truncate = %q", got)
	}
}

func TestFoldCutsWordsLongerThanALine(t *testing.T) {
	got := Fold(`trace {"a":1,"bb":22,"ccc":333,"dddd":4444}`, 20, "  ", "    ")
	want := []string{`  trace`, `    {"a":1,"bb":22,`, `    "ccc":333,`, `    "dddd":4444}`}
	if len(got) != len(want) {
		t.Fatalf("Fold = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Fold = %q, want %q", got, want)
		}
	}
	for _, l := range Fold("退款进度查询退款进度查询退款进度查询", 12, "", "") {
		if Width(l) > 12 {
			t.Errorf("Fold cut %q wider than 12 columns", l)
		}
	}
}
