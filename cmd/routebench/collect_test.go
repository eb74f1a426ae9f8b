package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
)

// writeResultLines writes n made-up results (case c0, c1, …), and then
// the given extra lines.
func writeResultLines(t *testing.T, n int, extra ...string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"format":1,"version":"v1@abcd","case":"c%d","suite":"normal","input":"ask %d"}`+"\n", i, i)
	}
	for _, l := range extra {
		b.WriteString(l + "\n")
	}
	path := filepath.Join(t.TempDir(), harness.ResultsFile)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestInTwoHandsEveryResultToBothInOrder(t *testing.T) {
	g := NewWithT(t)
	// Fewer than one batch, exactly one, and some left over after several.
	for _, n := range []int{0, 5, collectBatch, 3*collectBatch + 7} {
		var first, second []string
		err := readInto(harness.NewFileStream(writeResultLines(t, n)), startInTwo(
			func(i int, r *harness.Result) { first = append(first, fmt.Sprintf("%d:%s", i, r.Case)) },
			func(i int, r *harness.Result) { second = append(second, fmt.Sprintf("%d:%s", i, r.Case)) }))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(first).To(HaveLen(n))
		for i, s := range first {
			g.Expect(s).To(Equal(fmt.Sprintf("%d:c%d", i, i)))
		}
		g.Expect(second).To(Equal(first), "%d results", n)
	}
}

func TestInTwoReturnsABadLineAfterBothHaveStopped(t *testing.T) {
	g := NewWithT(t)
	path := writeResultLines(t, collectBatch+3, `{"format":1,"version":`)
	seen := 0
	err := readInto(harness.NewFileStream(path), startInTwo(func(int, *harness.Result) {}, func(int, *harness.Result) { seen++ }))
	g.Expect(err).To(MatchError(ContainSubstring(fmt.Sprintf("%s:%d", path, collectBatch+4))))
	// Every result before the bad line reached the second reader, and it
	// had finished when readInto returned (no race on seen).
	g.Expect(seen).To(Equal(collectBatch + 3))
}
