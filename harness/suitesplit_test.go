package harness_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
)

var _ = Describe("loading a suite item by item", func() {
	It("gives exactly the cases and problems of a whole parse, for every suite in the repository", func() {
		var files []string
		for _, glob := range []string{"../suites/*.yaml", "../suites/*/*.yaml", "testdata/suites/*.yaml", "lint/testdata/*/*.yaml"} {
			m, err := filepath.Glob(glob)
			Expect(err).NotTo(HaveOccurred())
			files = append(files, m...)
		}
		Expect(len(files)).To(BeNumerically(">", 10))
		itemByItem := 0
		for _, f := range files {
			data, err := os.ReadFile(f)
			Expect(err).NotTo(HaveOccurred())
			if harness.LoadsItemByItem(data) {
				itemByItem++
			}
			split, whole := harness.LoadBothWays(f, data)
			Expect(split).To(Equal(whole), f+" "+harness.DiffOutcomes(split, whole))
		}
		// The usual layout is the one split: most files are loaded item by item.
		Expect(itemByItem).To(BeNumerically(">", len(files)/2))
	})

	DescribeTable("falls back to the whole parse where pieces would differ, with the same outcome",
		func(text string, splits bool) {
			data := []byte(text)
			Expect(harness.LoadsItemByItem(data)).To(Equal(splits))
			split, whole := harness.LoadBothWays("s.yaml", data)
			Expect(split).To(Equal(whole))
		},
		Entry("the usual layout", "suite: normal\ndefaults: {now: \"2026-01-02T03:04:05Z\", tags: [a]}\ncases:\n  - id: a-1\n    input: hello\n    expect: {action: refuse}\n  # a note\n\n  - id: a-2\n    input: |\n      two\n      lines\n    tags: [b]\n    expect: {action: refuse}\n", true),
		Entry("items at column 0 and a key after them", "suite: normal\ncases:\n- id: a-1\n  input: x\n  expect: {action: refuse}\n- id: a-2\n  input: y\n  expect: {action: refuse}\ndefaults: {tags: [late]}\n", true),
		Entry("a lone carriage return, a line break to YAML", "cases:\n  - \r0", false),
		Entry("a line separator in an item", "suite: normal\ncases:\n  - id: a\n    input: x\u2028y\n    expect: {action: jump}\n  - id: b\n    input: y\n    expect: {action: jump}\n", false),
		Entry("a folded text after the items, which the blanked items would make cases' value", "cases:\n- 0\n>", false),
		Entry("CRLF line ends", "suite: normal\r\ncases:\r\n  - id: a-1\r\n    input: x\r\n    expect: {action: refuse}\r\n", true),
		Entry("problems in items keep their lines", "suite: normal\ncases:\n  - id: a-1\n    input: x\n  - id: a-1\n    input: y\n    expect: {action: jump}\n    color: red\n", true),
		Entry("an anchor in one item used by later ones", "suite: normal\ncases:\n  - id: a-1\n    input: x\n    expect: &e {action: refuse}\n  - id: a-2\n    input: y\n    expect: *e\n  - id: a-3\n    input: |\n      z\n    expect: *e\n", true),
		Entry("an anchor redefined, with a problem where the alias points", "suite: normal\ncases:\n  - id: a-1\n    input: x\n    expect: &e {action: refuse}\n  - id: a-2\n    input: y\n    expect: &e {action: jump}\n  - id: a-3\n    input: z\n    tags: [q]\n    expect: *e\n", true),
		Entry("anchors redefined, read through aliases, after an item with two anchors", "suite: normal\ncases:\n  - id: a-0\n    input: &b zero\n    now: &c \"2026-01-02T03:04:05Z\"\n    expect: {action: refuse}\n  - id: a-1\n    input: &b one\n    expect: {action: refuse}\n  - id: a-2\n    input: *b\n    tags: &a [t]\n    now: *c\n    expect: {action: refuse}\n  - id: a-3\n    input: &b three\n    tags: *a\n    expect: {action: refuse}\n  - id: a-4\n    input: *b\n    expect: {action: refuse}\n", true),
		Entry("a hundred copies of a case that defines an anchor, then one that uses the last", "suite: normal\ncases:\n"+func() string {
			var b strings.Builder
			for i := range 100 {
				fmt.Fprintf(&b, "  - id: c-%d\n    input: &in text %d\n    expect: {action: refuse}\n", i, i)
			}
			return b.String() + "  - id: last\n    input: *in\n    expect: {action: refuse}\n"
		}(), true),
		// Items are parsed in batches (of 32); these cross batches.
		Entry("problems in items of later batches keep their lines", "suite: normal\ncases:\n"+func() string {
			var b strings.Builder
			for i := range 90 {
				fmt.Fprintf(&b, "  # case %d\n  - id: p-%d\n    input: |\n      text %d\n      more\n", i, i, i)
				switch i % 29 {
				case 3:
					b.WriteString("    expect: {action: jump}\n")
				case 7:
					b.WriteString("    color: red\n    expect: {action: refuse}\n")
				default:
					b.WriteString("    expect: {action: refuse}\n")
				}
			}
			return b.String()
		}(), true),
		Entry("anchors used within a batch and in the next", "suite: normal\ncases:\n"+func() string {
			var b strings.Builder
			for i := range 70 {
				switch {
				case i%10 == 0:
					fmt.Fprintf(&b, "  - id: q-%d\n    input: x\n    expect: &e%d {action: refuse}\n", i, i/10)
				case i%10 == 9 && i > 10:
					fmt.Fprintf(&b, "  - id: q-%d\n    input: x\n    expect: *e%d\n", i, i/10-1)
				default:
					fmt.Fprintf(&b, "  - id: q-%d\n    input: x\n    expect: *e%d\n", i, i/10)
				}
			}
			return b.String()
		}(), true),
		Entry("tools defined in the first item and aliased by every one after", "suite: normal\ncases:\n"+
			"  - id: t-0\n    input: x\n    tools: &t\n      - name: lookup\n        description: looks things up\n        side_effect: read\n    expect: {action: refuse}\n"+
			strings.Repeat("  - id: t\n    input: y\n    tools: *t\n    expect: {action: refuse}\n", 80), true),
		Entry("a syntax error in an item of a later batch", "suite: normal\ncases:\n"+strings.Repeat("  - id: r\n    input: x\n    expect: {action: refuse}\n", 40)+
			"  - id: bad\n    input: [x\n    expect: {action: refuse}\n", false),
		Entry("an item at column 0 after items indented", "suite: normal\ncases:\n  - id: a-1\n    input: x\n    expect: {action: refuse}\n- id: a-2\n", false),
		Entry("no suite key, and an item that does not parse", "cases:\n  - id: a-1\n    input: x\n    expect: {action: refuse}\n  - \"0\n", false),
		Entry("an alias to an anchor not defined yet", "suite: normal\ncases:\n  - id: a-1\n    input: x\n    expect: *e\n  - id: a-2\n    input: y\n    expect: &e {action: refuse}\n", false),
		Entry("an anchor in the defaults", "suite: normal\ndefaults: {caller: &c {scopes: [s]}}\ncases:\n  - id: a-1\n    input: x\n    caller: *c\n    expect: {action: refuse}\n", false),
		Entry("a quoted string running into the next item's indentation", "suite: normal\ncases:\n  - id: a-1\n    input: \"x\n  - y\"\n    expect: {action: refuse}\n", false),
		Entry("a flow list of cases", "suite: normal\ncases: [{id: a-1, input: x, expect: {action: refuse}}]\n", false),
		Entry("a second document", "suite: normal\ncases:\n  - id: a-1\n    input: x\n    expect: {action: refuse}\n---\nsuite: normal\n", false),
		Entry("cases given twice", "suite: normal\ncases:\n  - id: a-1\n    input: x\n    expect: {action: refuse}\ncases:\n  - id: a-2\n    input: x\n    expect: {action: refuse}\n", false),
		Entry("a syntax error in an item", "suite: normal\ncases:\n  - id: a-1\n    input: [x\n    expect: {action: refuse}\n", false),
		Entry("cases that is not a list", "suite: normal\ncases:\n  id: a-1\n", false),
		Entry("a line less indented than the items", "suite: normal\ncases:\n    - id: a-1\n      input: x\n      expect: {action: refuse}\n  - id: a-2\n", false),
	)

	It("blanks the items out of the frame but keeps every line", func() {
		data := []byte("suite: normal\ncases:\n  - id: a\n    input: x\n  - id: b\n    input: y\nextra: 1\n")
		frame, items, lines, ok := harness.SplitFrame(data)
		Expect(ok).To(BeTrue())
		Expect(frame).To(Equal("suite: normal\ncases:\n\n\n\n\nextra: 1\n"))
		Expect(items).To(Equal([]string{"  - id: a\n    input: x\n", "  - id: b\n    input: y\n"}))
		Expect(lines).To(Equal([]int{3, 5}))
		Expect(strings.Count(frame, "\n")).To(Equal(strings.Count(string(data), "\n")))
	})
})

// FuzzLoadItemByItem holds loading a suite item by item (in batches of
// items, one by one where a batch does not parse) to the whole parse's
// cases and problems, on any text.
//
//	go test ./harness/ -run '^$' -fuzz '^FuzzLoadItemByItem$' -fuzztime 60s
func FuzzLoadItemByItem(f *testing.F) {
	var many strings.Builder
	many.WriteString("suite: normal\ncases:\n")
	for i := range 70 {
		fmt.Fprintf(&many, "  - id: c-%d\n    input: &in%d text %d\n    expect: {action: refuse}\n", i, i%3, i)
		if i%9 == 4 {
			fmt.Fprintf(&many, "  - id: d-%d\n    input: *in%d\n    expect: {action: jump}\n", i, (i+1)%3)
		}
	}
	for _, seed := range []string{
		many.String(),
		"suite: normal\ncases:\n  - id: a-1\n    input: x\n    expect: &e {action: refuse}\n  - id: a-2\n    input: y\n    expect: *e\n",
		"suite: normal\ncases:\n  - id: a-1\n    input: \"x\n  - y\"\n    expect: {action: refuse}\n",
		// Aliases that multiply, each case's well within the count, the
		// file's not: item by item stops where the whole parse does.
		"suite: normal\ncases:\n  - id: a-0\n    input: x\n    expect:\n      action: refuse\n      params:\n" + aliasBombText("        ", 4) +
			strings.Repeat("  - id: a-1\n    input: y\n    expect: {action: execute, skill: s, params: {p: *a3}}\n", 12),
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		split, whole := harness.LoadBothWays("s.yaml", data)
		if !reflect.DeepEqual(split, whole) {
			t.Fatalf("item by item differs from the whole parse: %s", harness.DiffOutcomes(split, whole))
		}
	})
}
