package harness_test

import (
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
)

// Specs for anchors and aliases that multiply ("billion laughs"): the
// loaders follow aliases themselves, so each file is counted as it is
// parsed, at most 100000 values for all its aliases together.
//
// The bombs here have six levels: p5 alone stands for a million strings,
// which a loader without the count builds in well under a second and a
// few hundred MB, so these specs fail rather than hang or exhaust memory
// when the count is gone. Ten levels took a real run past 9 GB.

// aliasBomb is levels lines at indent: key(0) an anchored list of ten
// strings, each next line ten aliases of the one before, so line k stands
// for 10^(k+1) strings. key gives each line's start: "p%d: " in a
// mapping, "- " in a list.
func aliasBomb(indent string, levels int, key func(int) string) string {
	var b strings.Builder
	for k := range levels {
		items := make([]string, 10)
		for i := range items {
			items[i] = "lol"
			if k > 0 {
				items[i] = fmt.Sprintf("*a%d", k-1)
			}
		}
		fmt.Fprintf(&b, "%s%s&a%d [%s]\n", indent, key(k), k, strings.Join(items, ", "))
	}
	return b.String()
}

func paramKey(k int) string { return fmt.Sprintf("p%d: ", k) }

func listKey(int) string { return "- " }

// lineOf is the line of text on which the first line starting (after its
// indentation) with prefix is.
func lineOf(text, prefix string) int {
	for i, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimLeft(l, " "), prefix) {
			return i + 1
		}
	}
	Fail(fmt.Sprintf("no line starts with %q", prefix))
	return 0
}

// tooMany is the problem of the alias that takes a file past the count.
// With aliasBomb's levels, p1 to p3 use 12,330 values and each *a3
// another 11,111: p4's eighth alias (p4[7]) is the one.
func tooMany(file string, line int, field, anchor string) string {
	return fmt.Sprintf("%s:%d: %s: *%s makes this file's aliases hold more than 100000 values (an alias counts each time it is used); "+
		"write the values out plainly, or use fewer aliases", file, line, field, anchor)
}

var _ = Describe("aliases that multiply", func() {
	// Each file is loaded as a run loads it (from a folder, a few case
	// items at a time where the layout allows) and as a single file's
	// bytes (ParseSuite); both must stop at the same alias.
	expectStopped := func(ctx SpecContext, text, field string, line int) {
		dir := GinkgoT().TempDir()
		path := writeFile(dir, "bomb.yaml", text)
		_, err := harness.LoadSuites([]string{dir})
		Expect(problemLines(err)).To(Equal([]string{tooMany(path, line, field, "a3")}))
		_, err = harness.ParseSuite("bomb.yaml", []byte(text))
		Expect(problemLines(err)).To(Equal([]string{tooMany("bomb.yaml", line, field, "a3")}))
	}

	It("stops a suite whose expect.params multiply, at the alias that goes past, with its field", func(ctx SpecContext) {
		text := "suite: normal\ncases:\n" +
			"  - id: fine\n    input: x\n    expect: {action: refuse}\n" +
			"  - id: bomb\n    input: y\n    expect:\n      action: execute\n      skill: query_orders\n      params:\n" +
			aliasBomb("        ", 6, paramKey)
		expectStopped(ctx, text, "cases[1].expect.params.p4[7]", lineOf(text, "p4:"))
	}, SpecTimeout(time.Minute))

	It("stops a workflow case whose tools_sim payloads multiply", func(ctx SpecContext) {
		text := "suite: normal\ncases:\n  - id: wf\n    input: y\n    expect: {outcome: completed}\n" +
			"    tools_sim:\n      query_orders:\n        - ok:\n" + aliasBomb("            ", 6, paramKey)
		expectStopped(ctx, text, "cases[0].tools_sim.query_orders[0].ok.p4[7]", lineOf(text, "p4:"))
	}, SpecTimeout(time.Minute))

	It("stops a conversation whose turn's expect.params multiply", func(ctx SpecContext) {
		text := "suite: boundary\ncases:\n  - id: conv\n    turns:\n      - {input: hi, expect: {action: refuse}}\n" +
			"      - input: the east orders\n        expect:\n          action: execute\n          skill: query_orders\n          params:\n" +
			aliasBomb("            ", 6, paramKey)
		expectStopped(ctx, text, "cases[0].turns[1].expect.params.p4[7]", lineOf(text, "p4:"))
	}, SpecTimeout(time.Minute))

	It("stops a file whose parse the loader cannot split (a flow list of cases) the same way", func(ctx SpecContext) {
		text := "suite: normal\nanchors:\n" + aliasBomb("  ", 6, paramKey) + "cases: [{id: a, input: x, expect: {action: refuse}}]\n"
		_, err := harness.ParseSuite("bomb.yaml", []byte(text))
		Expect(problemLines(err)).To(Equal([]string{tooMany("bomb.yaml", lineOf(text, "p4:"), "anchors.p4[7]", "a3")}))
	}, SpecTimeout(time.Minute))

	It("counts the whole file: cases each well within the count, one anchor used from case to case, stop where the file goes past", func(ctx SpecContext) {
		var b strings.Builder
		b.WriteString("suite: normal\ncases:\n  - id: c-0\n    input: x\n    expect:\n      action: execute\n      skill: query_orders\n      params:\n")
		b.WriteString(aliasBomb("        ", 4, paramKey)) // p3: &a3, 12,330 values through aliases so far
		for i := 1; i <= 20; i++ {
			// 11,111 values each: the eighth goes past.
			fmt.Fprintf(&b, "  - id: c-%d\n    input: x\n    expect: {action: execute, skill: query_orders, params: {p: *a3}}\n", i)
		}
		text := b.String()
		expectStopped(ctx, text, "cases[8].expect.params.p", lineOf(text, "- id: c-8")+2)
	}, SpecTimeout(time.Minute))

	It("stops a baseline and a config (its gate rules too) whose aliases multiply", func(ctx SpecContext) {
		dir := GinkgoT().TempDir()
		base := "v1:\n  - {case: a, failure: wrong_skill}\n  - nested:\n" + aliasBomb("      ", 6, paramKey)
		path := writeFile(dir, "baseline.yaml", base)
		_, err := harness.LoadBaseline(path)
		Expect(problemLines(err)).To(Equal([]string{tooMany(path, lineOf(base, "p4:"), "v1[1].nested.p4[7]", "a3")}))

		cfg := "versions: [v1]\nsuites: [s]\ngate:\n  thresholds:\n" + aliasBomb("    ", 6, listKey)
		path = writeFile(dir, "routebench.yaml", cfg)
		_, err = harness.LoadConfig(path)
		Expect(problemLines(err)).To(Equal([]string{tooMany(path, 9, "gate.thresholds[4][7]", "a3")}))
	}, SpecTimeout(time.Minute))

	It("still loads ordinary anchors: a shared caller, shared tools, a repeated params block and expectation", func() {
		text := `suite: normal
defaults:
  now: "2026-11-30T10:00:00+08:00"
cases:
  - id: a-1
    input: orders of the east
    caller: &ops {scopes: [orders:read, alerts:read]}
    tools: &tools
      - name: query_orders
        description: Look up orders of a region.
        side_effect: read
        permission_scope: [orders:read]
        params_schema:
          type: object
          properties:
            region: {type: string}
            ids: {type: array, items: {type: integer}}
    expect: {action: execute, skill: query_orders, params: &east {region: east, ids: [1, 2, 3]}}
  - id: a-2
    input: east orders again
    caller: *ops
    tools: *tools
    expect: {action: execute, skill: query_orders, params: *east}
  - id: a-3
    caller: *ops
    tools: *tools
    turns:
      - {input: hi, expect: &no {action: refuse}}
      - {input: bye, expect: *no}
`
		for i := range 2000 {
			// A params block used in every case of a large file: 5
			// values each, 10,000 in all.
			text += fmt.Sprintf("  - id: r-%d\n    input: east %d\n    caller: *ops\n    expect: {action: execute, skill: query_orders, params: *east}\n", i, i)
		}
		dir := GinkgoT().TempDir()
		writeFile(dir, "anchors.yaml", text)
		for _, load := range []func() ([]harness.Case, error){
			func() ([]harness.Case, error) { return harness.LoadSuites([]string{dir}) },
			func() ([]harness.Case, error) { return harness.ParseSuite("anchors.yaml", []byte(text)) },
		} {
			cases, err := load()
			Expect(err).NotTo(HaveOccurred())
			Expect(cases).To(HaveLen(2003))
			east := map[string]any{"region": "east", "ids": []any{1.0, 2.0, 3.0}}
			for _, c := range []harness.Case{cases[0], cases[1], cases[2000]} {
				Expect(c.Caller.Scopes).To(Equal([]string{"orders:read", "alerts:read"}))
				Expect(c.Expect.Params).To(HaveKey("region"))
				Expect(c.Expect.Params["region"].Equals).To(Equal(east["region"]))
				Expect(c.Expect.Params["ids"].Equals).To(Equal(east["ids"]))
			}
			Expect(cases[1].Tools.Names()).To(Equal([]string{"query_orders"}))
			Expect(cases[2].Turns).To(HaveLen(2))
			Expect(cases[2].Turns[1].Expect.Action).To(BeEquivalentTo("refuse"))
		}
	})
})
