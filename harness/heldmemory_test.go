package harness_test

import (
	"fmt"
	"runtime"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.yaml.in/yaml/v3"

	"github.com/routebench/routebench/harness"
)

var _ = Describe("what a loaded case keeps", func() {
	It("is a node of its own for a workflow's confirm script, not a piece of the parser's batch", func() {
		var doc yaml.Node
		Expect(yaml.Unmarshal([]byte("a: &x {answer: yes, notes: [one, two]}\nb: *x\n"), &doc)).To(Succeed())
		root := doc.Content[0]
		c := harness.OwnNode(root)
		Expect(c).To(Equal(root)) // every field, children and aliases alike
		// Nothing is shared: every node is new, and so is every value's memory.
		var walk func(a, b *yaml.Node)
		walk = func(a, b *yaml.Node) {
			Expect(a).NotTo(BeIdenticalTo(b))
			if b.Value != "" {
				Expect(&[]byte(a.Value)[0]).NotTo(BeIdenticalTo(&[]byte(b.Value)[0]))
				Expect(strings.Clone(a.Value)).To(Equal(b.Value))
			}
			for i := range a.Content {
				walk(a.Content[i], b.Content[i])
			}
		}
		walk(c, root)
		// An alias points at the copy of its anchor, which is copied once.
		Expect(c.Content[3].Alias).To(BeIdenticalTo(c.Content[1]))
	})

	// A workflow suite loaded item by item (fastyaml's nodes, cut from
	// blocks a batch shares) must hold about what the whole parse holds:
	// a kept confirm node of the batch's own once held 4x as much.
	// Serial: it reads the heap, which specs run beside it would move.
	It("holds about what the whole parse holds when workflow cases keep confirm scripts", Serial, func() {
		var b strings.Builder
		for i := range 1500 {
			fmt.Fprintf(&b, "  - id: c%d\n    input: %s %d\n%s    resume: {confirm: {answer: no}}\n    expect: {outcome: completed}\n", i, holdInput, i, happyTools)
		}
		body := b.String()
		held := func(body string) (uint64, int) {
			// Twice: after the spec of a 70 MB plan, one collection left
			// 67 MB of its garbage in HeapAlloc and the next freed it, so
			// "before" was over "after" and the difference wrapped round
			// (about 1 run in 8 with that spec just before this one).
			runtime.GC()
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			cases := wfCases(body)
			runtime.GC()
			runtime.ReadMemStats(&after)
			n := len(cases)
			runtime.KeepAlive(cases)
			return after.HeapAlloc - before.HeapAlloc, n
		}
		split, n := held(body)
		// A lone carriage return at the end is a line break only YAML
		// knows, which sends the file to the whole parse (yaml.v3).
		whole, m := held(body + "\r")
		Expect(n).To(Equal(1500))
		Expect(m).To(Equal(n))
		Expect(split).To(BeNumerically("<", 2*whole), "item by item %d KB, whole %d KB", split>>10, whole>>10)
	})
})
