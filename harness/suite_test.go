package harness_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

// problemLines returns the "file:line: field: message" lines of a load error.
func problemLines(err error) []string {
	var le *registry.LoadError
	ExpectWithOffset(1, errors.As(err, &le)).To(BeTrue(), "want a *registry.LoadError, got %v", err)
	return strings.Split(le.Error(), "\n")
}

var _ = Describe("LoadSuites", func() {
	var reg *registry.Registry
	BeforeEach(func() { reg = testRegistry() })

	It("loads a directory's suites sorted by file name, applying defaults", func() {
		cases, err := harness.LoadSuites([]string{"testdata/suites"}, reg)
		Expect(err).NotTo(HaveOccurred())
		ids := []string{}
		for _, c := range cases {
			ids = append(ids, c.ID)
		}
		// boundary.yaml sorts before normal.yaml
		Expect(ids).To(Equal([]string{"ambiguous-001", "own-tools-001", "injection-001", "orders-001", "refund-001", "restart-001"}))

		orders := cases[3]
		Expect(orders.Suite).To(Equal(harness.SuiteNormal))
		Expect(orders.Tags).To(Equal([]string{"ops", "zh", "region"}))
		Expect(orders.Now).To(Equal("2026-11-30T10:00:00+08:00"))
		Expect(orders.Caller.Scopes).To(ContainElement("orders:write"))
		Expect(orders.Pos).To(Equal(registry.Pos{File: "testdata/suites/normal.yaml", Line: 7}))
		Expect(orders.Expect.Params).To(Equal(map[string]harness.ParamMatcher{
			"region": eq("east"),
			"start":  eq("2026-11-23"), // an unquoted YAML date stays text
			"end":    eq("2026-11-29"),
			"status": {Absent: true},
		}))
		Expect(cases[4].Expect.Gate).To(Equal(registry.GateIrreversible))
		Expect(cases[4].Expect.Params["amount"]).To(Equal(eq(float64(120))))
		Expect(cases[4].Expect.Params["order_id"].Regex).To(Equal(`^ORD-\d{8}$`))
		Expect(cases[5].Expect.Params["env"].AnyOf).To(Equal([]any{"staging", "stage"}))

		ambiguous := cases[0]
		Expect(ambiguous.Now).To(Equal("2026-11-30T10:00:00Z"))
		Expect(ambiguous.Expect.Candidates).To(Equal([]string{"query_orders_by_region", "query_alerts_by_zone"}))

		tools := cases[1]
		Expect(tools.Tools).NotTo(BeNil())
		Expect(tools.Tools.Skill("get_weather")).NotTo(BeNil())
		Expect(tools.Caller.Scopes).To(BeEmpty())

		Expect(cases[2].Expect).To(Equal(harness.Expect{Action: router.Refuse, Never: []string{"delete_test_data"}}))
		for _, c := range cases {
			Expect(c.Hash).To(HaveLen(64))
		}
	})

	It("hashes what decides a result, and only that", func() {
		load := func(text string) harness.Case {
			cases, err := harness.ParseSuite("h.yaml", []byte(text), reg)
			Expect(err).NotTo(HaveOccurred())
			return cases[0]
		}
		base := "suite: normal\ncases:\n  - id: a\n    input: hi\n    expect: {action: refuse}\n"
		h := load(base).Hash
		Expect(load("# a comment moves lines\n" + base).Hash).To(Equal(h))
		Expect(load(strings.Replace(base, "id: a", "id: b", 1)).Hash).To(Equal(h), "the id is the key, not the content")
		Expect(load(strings.Replace(base, "input: hi", "input: hello", 1)).Hash).NotTo(Equal(h))
		Expect(load(strings.Replace(base, "{action: refuse}", "{action: refuse, never: [refund_order]}", 1)).Hash).NotTo(Equal(h))
		Expect(load(strings.Replace(base, "    input", "    now: \"2026-11-30T10:00:00Z\"\n    input", 1)).Hash).NotTo(Equal(h))
		Expect(load(strings.Replace(base, "    input", "    caller: {scopes: [x]}\n    input", 1)).Hash).NotTo(Equal(h))
	})

	It("reports a duplicate id across files, naming both places", func() {
		dir := GinkgoT().TempDir()
		write := func(name, text string) string {
			p := filepath.Join(dir, name)
			Expect(os.WriteFile(p, []byte(text), 0o644)).To(Succeed())
			return p
		}
		a := write("a.yaml", "suite: normal\ncases:\n  - id: dup\n    input: x\n    expect: {action: refuse}\n")
		b := write("b.yaml", "suite: boundary\ncases:\n  - id: other\n    input: y\n    expect: {action: refuse}\n  - id: dup\n    input: z\n    expect: {action: refuse}\n")
		_, err := harness.LoadSuites([]string{a, b}, reg)
		Expect(problemLines(err)).To(Equal([]string{
			b + `:6: cases[1].id: duplicate case id "dup" (first at ` + a + `:3); case ids must be unique across all suites`,
		}))
	})

	It("collects every problem with file, line and field", func() {
		text := `suite: normal
defaults:
  caller: {scopes: [orders:read], disabld: [x]}
  now: yesterday
cases:
  - id: c1
    expect: {action: execute, skill: query_orders_by_regoin}
  - id: c2
    input: hi
    expct: {action: refuse}
  - id: c3
    input: hi
    expect: {action: hurry}
  - id: c4
    input: hi
    expect: {action: clarify, candidates: [query_orders_by_region, nope]}
  - id: c5
    input: hi
    expect: {action: refuse, never: [delete_all]}
  - id: c6
    input: hi
    expect:
      action: execute
      skill: query_orders_by_region
      params:
        region: {any_of: [east], regex: "e"}
        start: {absent: false}
        end: {regex: "("}
        status: null
        colour: red
  - id: c7
    input: hi
    now: "30/11/2026"
    expect: {action: refuse, skill: refund_order}
`
		_, err := harness.ParseSuite("bad.yaml", []byte(text), reg)
		Expect(problemLines(err)).To(Equal([]string{
			`bad.yaml:3: defaults.caller.disabld: unknown field; did you mean "disabled"? known fields here: scopes, disabled`,
			`bad.yaml:4: defaults.now: must be an RFC 3339 time such as "2026-11-30T10:00:00+08:00", got "yesterday"`,
			`bad.yaml:6: cases[0].input: is missing; write the user's request as input ("" for an empty message), or a conversation as turns`,
			`bad.yaml:7: cases[0].expect.skill: unknown skill "query_orders_by_regoin"; did you mean "query_orders_by_region"?`,
			`bad.yaml:8: cases[1].expect: is missing; say what the router should do (action: execute|confirm|clarify|refuse)`,
			`bad.yaml:10: cases[1].expct: unknown field; did you mean "expect"? known fields here: id, input, turns, tags, caller, now, expect, tools, tools_sim, model_script, confirm, resume`,
			`bad.yaml:13: cases[2].expect.action: must be one of execute, confirm, clarify, refuse, got "hurry" (an error decision is never expected)`,
			`bad.yaml:16: cases[3].expect.candidates[1]: unknown skill "nope"; name a skill of the versions' registries (or the case's tools)`,
			`bad.yaml:19: cases[4].expect.never[0]: unknown skill "delete_all"; name a skill of the versions' registries (or the case's tools)`,
			`bad.yaml:26: cases[5].expect.params.region: a matcher has exactly one of any_of, regex, absent (plus optional: true with any_of or regex); got any_of, regex`,
			`bad.yaml:27: cases[5].expect.params.start.absent: must be true (the param must not be set); to allow anything, leave the param out`,
			`bad.yaml:28: cases[5].expect.params.end.regex: does not compile: error parsing regexp: missing closing ): ` + "`(`",
			`bad.yaml:29: cases[5].expect.params.status: is null; write a value, or {absent: true} for a param that must not be set`,
			`bad.yaml:30: cases[5].expect.params.colour: query_orders_by_region's params_schema defines no param "colour"; check the spelling`,
			`bad.yaml:33: cases[6].now: must be an RFC 3339 time such as "2026-11-30T10:00:00+08:00", got "30/11/2026"`,
			`bad.yaml:34: cases[6].expect.skill: is not allowed with action refuse; a refusal acts on no skill; list skills that must not act under never`,
		}))
	})

	It("reports bad suite kinds, missing cases and invalid YAML", func() {
		_, err := harness.ParseSuite("k.yaml", []byte("suite: edge\ncases: []\n"), reg)
		Expect(problemLines(err)).To(Equal([]string{`k.yaml:1: suite: must be one of normal, boundary, adversarial, got "edge"`}))
		_, err = harness.ParseSuite("m.yaml", []byte("suite: normal\n"), reg)
		Expect(problemLines(err)).To(Equal([]string{`m.yaml:1: cases: is missing`}))
		_, err = harness.ParseSuite("y.yaml", []byte("suite: normal\ncases:\n  - id: [\n"), reg)
		Expect(problemLines(err)[0]).To(HavePrefix("y.yaml:"))
		Expect(problemLines(err)[0]).To(ContainSubstring("is not valid YAML"))
	})

	It("checks a case with tools against its own skills, with the tools' lines", func() {
		text := `suite: adversarial
cases:
  - id: t1
    input: hi
    tools:
      - name: lookup
        description: Look things up.
        side_effect: reed
        params_schema: {type: object}
    expect: {action: execute, skill: lookup}
  - id: t2
    input: hi
    tools:
      - name: lookup
        description: Look things up.
        side_effect: read
        params_schema: {type: object}
    expect: {action: execute, skill: query_orders_by_region}
`
		_, err := harness.ParseSuite("tools.yaml", []byte(text), reg)
		lines := problemLines(err)
		Expect(lines).To(HaveLen(2))
		Expect(lines[0]).To(HavePrefix("tools.yaml:8: cases[0].tools[0].side_effect: "))
		Expect(lines[1]).To(HavePrefix(`tools.yaml:18: cases[1].expect.skill: unknown skill "query_orders_by_region"`))
	})

	It("reads optional beside any_of or regex, as the BFCL importer writes it", func() {
		text := "suite: normal\ncases:\n  - id: a\n    input: x\n    expect:\n      action: execute\n      skill: query_alerts_by_zone\n" +
			"      params:\n        zone: {any_of: [east], optional: true}\n        severity: {optional: true, any_of: []}\n"
		cases, err := harness.ParseSuite("o.yaml", []byte(text), reg)
		Expect(err).NotTo(HaveOccurred())
		Expect(cases[0].Expect.Params["zone"]).To(Equal(harness.ParamMatcher{AnyOf: []any{"east"}, Optional: true}))
		Expect(cases[0].Expect.Params["severity"].Optional).To(BeTrue())

		bad := strings.Replace(text, "{any_of: [east], optional: true}", "{absent: true, optional: true}", 1)
		_, err = harness.ParseSuite("o.yaml", []byte(bad), reg)
		Expect(problemLines(err)).To(Equal([]string{"o.yaml:9: cases[0].expect.params.zone.optional: must be true, beside any_of or regex (the param may also be left out)"}))
		bad = strings.Replace(text, "{any_of: [east], optional: true}", "{optional: true}", 1)
		_, err = harness.ParseSuite("o.yaml", []byte(bad), reg)
		Expect(problemLines(err)[0]).To(ContainSubstring("a matcher has exactly one of any_of, regex, absent"))
	})

	It("rejects tags that cannot be labels", func() {
		_, err := harness.ParseSuite("t.yaml", []byte("suite: normal\ncases:\n  - id: a\n    input: x\n    tags: [a/b]\n    expect: {action: refuse}\n"), reg)
		Expect(problemLines(err)[0]).To(HavePrefix(`t.yaml:5: cases[0].tags[0]: tag "a/b" is not usable as a label`))
	})

	It("names a missing suite path", func() {
		_, err := harness.LoadSuites([]string{"testdata/nope"}, reg)
		Expect(problemLines(err)).To(Equal([]string{"testdata/nope: no such suite file or directory; check the suites list"}))
	})
})
