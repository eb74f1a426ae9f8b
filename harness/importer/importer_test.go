package importer_test

import (
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/harness/importer"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

var _ = Describe("ImportCLINC150", func() {
	It("writes a loadable version with one skill per intent and suites per split", func() {
		out := GinkgoT().TempDir()
		_, err := importer.ImportCLINC150("testdata/clinc_small.json", out, importer.CLINC150Options{
			EvalSplits: []string{"val", "oos_val"},
			Bands:      importer.BandsDoc{Execute: 0.4, Clarify: 0.3},
		})
		Expect(err).NotTo(HaveOccurred())

		v, err := registry.Load(filepath.Join(out, "version"))
		Expect(err).NotTo(HaveOccurred())
		Expect(v.Registry.Names()).To(Equal([]string{"balance", "tell_joke"}), "oos is not an intent")
		Expect(v.Registry.Skill("balance").Examples).To(HaveLen(2))
		Expect(v.Registry.Skill("tell_joke").Description).To(Equal("Tell joke."))
		Expect(v.Router.Bands.Execute).To(Equal(0.4))

		cases, err := harness.LoadSuites([]string{filepath.Join(out, "suites")}, v.Registry)
		Expect(err).NotTo(HaveOccurred())
		Expect(cases).To(HaveLen(3))
		byID := map[string]harness.Case{}
		for _, c := range cases {
			byID[c.ID] = c
		}
		Expect(byID["clinc-val-0001"].Expect.Skill).To(Equal("balance"))
		Expect(byID["clinc-val-0001"].Expect.Action).To(Equal(router.Execute))
		Expect(byID["clinc-val-0001"].Suite).To(Equal("normal"))
		Expect(byID["clinc-oos_val-0001"].Expect.Action).To(Equal(router.Refuse))
		Expect(byID["clinc-oos_val-0001"].Suite).To(Equal("boundary"))
		Expect(byID["clinc-oos_val-0001"].Tags).To(ContainElement("oos"))
	})

	It("names the missing split and the ones the file has", func() {
		_, err := importer.ImportCLINC150("testdata/clinc_small.json", GinkgoT().TempDir(), importer.CLINC150Options{EvalSplits: []string{"test"}})
		Expect(err).To(MatchError(ContainSubstring(`no split "test"; it has oos_val, train, val`)))
	})

	It("rejects a file that is not CLINC150", func() {
		bad := filepath.Join(GinkgoT().TempDir(), "bad.json")
		Expect(os.WriteFile(bad, []byte(`{"train": [["only text"]]}`), 0o644)).To(Succeed())
		_, err := importer.ImportCLINC150(bad, GinkgoT().TempDir(), importer.CLINC150Options{})
		Expect(err).To(MatchError(ContainSubstring("[text, intent]")))
	})
})

var _ = Describe("ImportBFCL", func() {
	It("maps Python types, keeps per-case tools and writes optional any_of matchers", func() {
		out := GinkgoT().TempDir()
		_, err := importer.ImportBFCL("testdata/bfcl_multiple.json", out, importer.BFCLOptions{Answers: "testdata/bfcl_multiple_answers.json"})
		Expect(err).NotTo(HaveOccurred())
		v, err := registry.Load(filepath.Join(out, "version"))
		Expect(err).NotTo(HaveOccurred())
		cases, err := harness.LoadSuites([]string{filepath.Join(out, "suites")}, v.Registry)
		Expect(err).NotTo(HaveOccurred())
		Expect(cases).To(HaveLen(1))
		c := cases[0]
		Expect(c.Tools).NotTo(BeNil())
		tri := c.Tools.Skill("triangle_properties.get")
		Expect(tri).NotTo(BeNil())
		props := tri.Properties()
		Expect(tri.ParamsSchema["type"]).To(Equal("object"))
		Expect(props["weights"]["items"]).To(HaveKeyWithValue("type", "number"))
		Expect(props["origin"]["type"]).To(Equal("array"))
		Expect(props["origin"]["items"]).NotTo(HaveKey("type"), "any has no type constraint")
		Expect(props["get_area"]).NotTo(HaveKey("optional"))
		Expect(c.Expect.Skill).To(Equal("triangle_properties.get"))
		Expect(c.Expect.Params["get_area"].Optional).To(BeTrue())
		Expect(c.Expect.Params["side1"].Optional).To(BeFalse())
		Expect(c.Tags).To(ContainElement("category:multiple"))
	})

	It("needs the answers for categories other than irrelevance", func() {
		_, err := importer.ImportBFCL("testdata/bfcl_multiple.json", GinkgoT().TempDir(), importer.BFCLOptions{})
		Expect(err).To(MatchError(ContainSubstring("category multiple needs its possible answers: pass --answers")))
	})
})

// Every importer writes DIR/version; the version's name comes from the data
// set, so results and reports read clinc150@… rather than version@….
var _ = Describe("imported version names", func() {
	load := func(out string) string {
		GinkgoHelper()
		v, err := registry.Load(filepath.Join(out, "version"))
		Expect(err).NotTo(HaveOccurred())
		return v.Name
	}
	It("names a CLINC150 version clinc150", func() {
		out := GinkgoT().TempDir()
		_, err := importer.ImportCLINC150("testdata/clinc_small.json", out, importer.CLINC150Options{EvalSplits: []string{"val"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(load(out)).To(Equal("clinc150"))
	})
	It("names a BFCL version after its category, live ones included", func() {
		out := GinkgoT().TempDir()
		_, err := importer.ImportBFCL("testdata/bfcl_multiple.json", out, importer.BFCLOptions{Answers: "testdata/bfcl_multiple_answers.json"})
		Expect(err).NotTo(HaveOccurred())
		Expect(load(out)).To(Equal("bfcl-multiple"))

		dir := GinkgoT().TempDir()
		for _, f := range []string{"bfcl_multiple.json", "bfcl_multiple_answers.json"} {
			data, err := os.ReadFile(filepath.Join("testdata", f))
			Expect(err).NotTo(HaveOccurred())
			live := strings.ReplaceAll(string(data), `"multiple_0"`, `"live_multiple_0-0"`)
			Expect(os.WriteFile(filepath.Join(dir, f), []byte(live), 0o644)).To(Succeed())
		}
		out = GinkgoT().TempDir()
		_, err = importer.ImportBFCL(filepath.Join(dir, "bfcl_multiple.json"), out, importer.BFCLOptions{Answers: filepath.Join(dir, "bfcl_multiple_answers.json")})
		Expect(err).NotTo(HaveOccurred())
		Expect(load(out)).To(Equal("bfcl-live_multiple"))
	})
	It("names an OpenAI tools version after its file", func() {
		out := GinkgoT().TempDir()
		_, err := importer.ImportOpenAITools("testdata/tools.json", out, importer.ToolsOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(load(out)).To(Equal("openai-tools"))
	})
})

var _ = Describe("ImportOpenAITools", func() {
	It("turns each function into a read skill", func() {
		out := GinkgoT().TempDir()
		_, err := importer.ImportOpenAITools("testdata/tools.json", out, importer.ToolsOptions{})
		Expect(err).NotTo(HaveOccurred())
		v, err := registry.Load(filepath.Join(out, "version"))
		Expect(err).NotTo(HaveOccurred())
		s := v.Registry.Skill("get_weather")
		Expect(s.SideEffect).To(Equal(registry.Read))
		Expect(s.Required()).To(Equal([]string{"city"}))
	})

	It("gives side-effect skills a confirm gate", func() {
		out := GinkgoT().TempDir()
		_, err := importer.ImportOpenAITools("testdata/tools.json", out, importer.ToolsOptions{SideEffects: importer.SideEffects{Default: "send"}})
		Expect(err).NotTo(HaveOccurred())
		v, err := registry.Load(filepath.Join(out, "version"))
		Expect(err).NotTo(HaveOccurred())
		Expect(v.Registry.Skill("get_weather").Confirm).To(Equal(registry.GateNormal))
	})
})

var _ = Describe("CheckBFCL", func() {
	expect := harness.Expect{Action: router.Execute, Skill: "f", Params: map[string]harness.ParamMatcher{
		"city":  {AnyOf: []any{"San Francisco, CA", "SF"}},
		"days":  {AnyOf: []any{3.0}},
		"units": {AnyOf: []any{"celsius"}, Optional: true},
	}}
	result := func(action router.Action, skill string, params map[string]any) harness.Result {
		return harness.Result{Tags: []string{"category:simple_python"}, Expect: expect,
			Decision: router.Decision{Action: action, Skill: skill, Params: params}}
	}
	DescribeTable("BFCL's checker outcome",
		func(r harness.Result, want string) { Expect(importer.CheckBFCL(r)).To(Equal(want)) },
		Entry("strings compared after normalization", result(router.Execute, "f", map[string]any{"city": "san francisco ca", "days": 3.0}), ""),
		Entry("optional param left out", result(router.Execute, "f", map[string]any{"city": "SF", "days": 3.0}), ""),
		Entry("required param missing", result(router.Execute, "f", map[string]any{"city": "SF"}), importer.BFCLMissing),
		Entry("param the answer lacks", result(router.Execute, "f", map[string]any{"city": "SF", "days": 3.0, "extra": 1.0}), importer.BFCLUnexpected),
		Entry("wrong type", result(router.Execute, "f", map[string]any{"city": "SF", "days": "3"}), importer.BFCLType),
		Entry("wrong value", result(router.Execute, "f", map[string]any{"city": "LA", "days": 3.0}), importer.BFCLValue),
		Entry("another function", result(router.Execute, "g", map[string]any{}), importer.BFCLWrongFunction),
		// Abstaining where a call was due is BFCL's "no call", not a wrong
		// function: the router picked no function at all.
		Entry("refused: no call", result(router.Refuse, "", nil), importer.BFCLNoCall),
		Entry("clarified on the right function: no call", result(router.Clarify, "f", nil), importer.BFCLNoCall),
		Entry("clarified between candidates: no call", result(router.Clarify, "", nil), importer.BFCLNoCall),
		Entry("router error", result(router.Fail, "", nil), importer.BFCLError),
	)

	It("lists no call apart from wrong functions in the bfcl-check table", func() {
		var b strings.Builder
		Expect(importer.WriteBFCL(&b, []harness.Result{
			result(router.Refuse, "", nil), result(router.Clarify, "f", nil), result(router.Execute, "g", map[string]any{}),
		})).To(Succeed())
		Expect(b.String()).To(ContainSubstring("no_call 2, wrong_function 1"))
	})

	It("counts abstention as right only where nothing should be called", func() {
		irrelevant := harness.Result{Tags: []string{"category:irrelevance"}, Expect: harness.Expect{Action: router.Refuse}}
		refused, clarified, called, failed := irrelevant, irrelevant, irrelevant, irrelevant
		refused.Decision.Action = router.Refuse
		clarified.Decision.Action = router.Clarify
		called.Decision = router.Decision{Action: router.Execute, Skill: "f"}
		failed.Decision.Action = router.Fail
		scores := importer.ScoreBFCL([]harness.Result{refused, clarified, called, failed})
		Expect(scores).To(HaveLen(1))
		Expect(scores[0].N).To(Equal(4))
		Expect(scores[0].Correct).To(Equal(2))
		Expect(scores[0].Errors).To(Equal(map[string]int{importer.BFCLNotAbstained: 1, importer.BFCLError: 1}))
	})
})
