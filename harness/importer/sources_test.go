package importer_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/harness/importer"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

// loaded is an import's output read back the way run reads it: the
// registry loader and the suite loader must both accept what was written.
type loaded struct {
	version *registry.Version
	cases   map[string]harness.Case
	order   []string
}

func loadImport(out string) loaded {
	GinkgoHelper()
	v, err := registry.Load(filepath.Join(out, "version"))
	Expect(err).NotTo(HaveOccurred())
	l := loaded{version: v, cases: map[string]harness.Case{}}
	if _, err := os.Stat(filepath.Join(out, "suites")); err == nil {
		cases, err := harness.LoadSuites([]string{filepath.Join(out, "suites")}, v.Registry)
		Expect(err).NotTo(HaveOccurred())
		for _, c := range cases {
			l.cases[c.ID] = c
			l.order = append(l.order, c.ID)
		}
	}
	return l
}

func printed(r *importer.Report) string {
	GinkgoHelper()
	var b strings.Builder
	Expect(r.Write(&b)).To(Succeed())
	return b.String()
}

var _ = Describe("ImportOpenAITools", func() {
	It("reads {\"tools\": [...]} with strict nullable params, skips hosted tools and says which tools it assumed read", func() {
		out := GinkgoT().TempDir()
		se, err := importer.ParseSideEffects([]string{"send_reply=send", "close_ticket=delete"})
		Expect(err).NotTo(HaveOccurred())
		r, err := importer.ImportOpenAITools("testdata/openai/assistant_tools.json", out, importer.ToolsOptions{SideEffects: se})
		Expect(err).NotTo(HaveOccurred())
		l := loadImport(out)
		Expect(l.version.Registry.Names()).To(ConsistOf("close_ticket", "search_tickets", "send_reply"))

		search := l.version.Registry.Skill("search_tickets")
		Expect(search.SideEffect).To(Equal(registry.Read))
		// ["string", "null"] in a strict schema means "may have no value":
		// one type the extractor reads, and no longer required.
		Expect(search.Properties()["status"]["type"]).To(Equal("string"))
		Expect(search.Properties()["status"]["enum"]).To(Equal([]any{"open", "pending", "closed"}))
		Expect(search.Properties()["labels"]["type"]).To(Equal("array"))
		Expect(search.Required()).To(Equal([]string{"query"}))

		reply := l.version.Registry.Skill("send_reply")
		Expect(reply.SideEffect).To(Equal(registry.Send))
		Expect(reply.Confirm).To(Equal(registry.GateNormal), "a side effect never runs without a gate")
		Expect(reply.Properties()["cc"]).To(HaveKeyWithValue("type", "string"), "anyOf [{string}, {null}] is its string branch")
		Expect(reply.Properties()["cc"]).To(HaveKeyWithValue("format", "email"))
		Expect(reply.Required()).To(ConsistOf("body", "ticket_id"))
		Expect(l.version.Registry.Skill("close_ticket").SideEffect).To(Equal(registry.Delete))

		text := printed(r)
		Expect(text).To(ContainSubstring(`tools[3] (line 46): type "web_search_preview" is a hosted tool`))
		Expect(text).To(ContainSubstring("assumed side_effect read (no annotation, no --side-effect NAME=KIND) for search_tickets\n"))
		Expect(text).To(ContainSubstring("no suites written: a tools file holds no cases"))
		Expect(text).NotTo(ContainSubstring("/suites"), "no suites were written, so none is named")
	})

	It("reads an array of bare and flattened function objects", func() {
		out := GinkgoT().TempDir()
		se, _ := importer.ParseSideEffects([]string{"void_invoice=write"})
		_, err := importer.ImportOpenAITools("testdata/openai/bare_functions.json", out, importer.ToolsOptions{SideEffects: se})
		Expect(err).NotTo(HaveOccurred())
		reg := loadImport(out).version.Registry
		Expect(reg.Skill("get_invoice").Properties()["number"]["type"]).To(Equal("integer"))
		Expect(reg.Skill("void_invoice").SideEffect).To(Equal(registry.Write))
		Expect(reg.Skill("void_invoice").Required()).To(Equal([]string{"number"}))
	})

	It("reads a single tool object", func() {
		out := GinkgoT().TempDir()
		_, err := importer.ImportOpenAITools("testdata/openai/single_tool.json", out, importer.ToolsOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(loadImport(out).version.Registry.Names()).To(Equal([]string{"convert_currency"}))
	})

	It("names the file, line and field of an unusable schema", func() {
		_, err := importer.ImportOpenAITools("testdata/openai/bad_type.json", GinkgoT().TempDir(), importer.ToolsOptions{})
		Expect(err).To(MatchError(`testdata/openai/bad_type.json:3: function bad_tool: parameters.properties.when.type: unknown type "datetime"; use a JSON Schema type (string, number, integer, boolean, array, object, null)`))
	})

	It("rejects a --side-effect naming a tool the file lacks, so a typo cannot leave a side effect as read", func() {
		se, _ := importer.ParseSideEffects([]string{"send_replies=send"})
		_, err := importer.ImportOpenAITools("testdata/openai/assistant_tools.json", GinkgoT().TempDir(), importer.ToolsOptions{SideEffects: se})
		Expect(err).To(MatchError(ContainSubstring("--side-effect names send_replies, which the file does not define; its tools are close_ticket, search_tickets, send_reply")))
	})

	It("names the line of a JSON syntax error", func() {
		bad := filepath.Join(GinkgoT().TempDir(), "tools.json")
		Expect(os.WriteFile(bad, []byte("[\n  {\"name\": \"a\",}\n]\n"), 0o644)).To(Succeed())
		_, err := importer.ImportOpenAITools(bad, GinkgoT().TempDir(), importer.ToolsOptions{})
		Expect(err).To(MatchError(ContainSubstring("tools.json:2:17: not valid JSON")))
	})
})

var _ = Describe("ParseSideEffects", func() {
	It("takes repeated and comma-separated NAME=KIND items and one bare default", func() {
		se, err := importer.ParseSideEffects([]string{"a=send, b=delete", "c=write", "read"})
		Expect(err).NotTo(HaveOccurred())
		Expect(se.ByName).To(Equal(map[string]string{"a": "send", "b": "delete", "c": "write"}))
		Expect(se.Default).To(Equal("read"))
	})
	DescribeTable("rejects what it cannot read",
		func(values []string, want string) {
			_, err := importer.ParseSideEffects(values)
			Expect(err).To(MatchError(ContainSubstring(want)))
		},
		Entry("unknown kind", []string{"a=email"}, `"email" is not a side effect; use one of read, write, delete, send`),
		Entry("no name", []string{"=send"}, "no tool name before '='"),
		Entry("contradiction", []string{"a=send", "a=write"}, "a is given twice (send, write)"),
		Entry("two defaults", []string{"send,write"}, "two defaults"),
	)
})

var _ = Describe("ImportMCPTools", func() {
	It("takes the side effect from annotations, then flags, else read, and reads the JSON-RPC envelope", func() {
		out := GinkgoT().TempDir()
		se, _ := importer.ParseSideEffects([]string{"share_note=send,list_notes=write"})
		r, err := importer.ImportMCPTools("testdata/mcp/tools_list_response.json", out, importer.ToolsOptions{SideEffects: se})
		Expect(err).NotTo(HaveOccurred())
		reg := loadImport(out).version.Registry
		Expect(reg.Skill("list_notes").SideEffect).To(Equal(registry.Read), "readOnlyHint wins over the flag")
		Expect(reg.Skill("add_note").SideEffect).To(Equal(registry.Write), "destructiveHint false")
		Expect(reg.Skill("purge_notebook").SideEffect).To(Equal(registry.Delete), "readOnlyHint false: destructiveHint defaults to true")
		Expect(reg.Skill("share_note").SideEffect).To(Equal(registry.Send), "a title alone says nothing: the flag decides")
		Expect(reg.Skill("notes_export").SideEffect).To(Equal(registry.Read))
		Expect(reg.Skill("add_note").ResultSchema).NotTo(BeNil(), "outputSchema is the result_schema")
		Expect(reg.Skill("list_notes").Description).To(Equal("List notes: List the notes in a notebook, newest first."))
		Expect(reg.Skill("list_notes").Required()).To(Equal([]string{"notebook"}))

		text := printed(r)
		Expect(text).To(ContainSubstring("list_notes: --side-effect list_notes=write not used: its annotations say read (readOnlyHint: true)"))
		Expect(text).To(ContainSubstring(`tool "notes/export" renamed "notes_export"`))
		Expect(text).To(ContainSubstring("assumed side_effect read (no annotation, no --side-effect NAME=KIND) for notes/export\n"))
		Expect(text).To(ContainSubstring(`nextCursor "page-2"`))
		Expect(text).To(ContainSubstring("idempotentHint not imported"))
	})

	It("reads a bare result, where destructiveHint alone means the tool is not read-only", func() {
		out := GinkgoT().TempDir()
		_, err := importer.ImportMCPTools("testdata/mcp/tools_result.json", out, importer.ToolsOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(loadImport(out).version.Registry.Skill("read_sensor").SideEffect).To(Equal(registry.Delete))
	})

	It("says a JSON-RPC error is not a tools list", func() {
		_, err := importer.ImportMCPTools("testdata/mcp/error_response.json", GinkgoT().TempDir(), importer.ToolsOptions{})
		Expect(err).To(MatchError(ContainSubstring("the response is a JSON-RPC error (-32601: Method not found)")))
	})
})

var _ = Describe("ImportBFCL live and language categories", func() {
	answers := "testdata/bfcl/possible_answer/BFCL_v4_live_simple.json"

	It("imports live_simple: dotted names, nulls and \"\" as optional, nested answers expanded; unscorable entries skipped and counted", func() {
		out := GinkgoT().TempDir()
		r, err := importer.ImportBFCL("testdata/bfcl/BFCL_v4_live_simple.json", out, importer.BFCLOptions{Answers: answers})
		Expect(err).NotTo(HaveOccurred())
		l := loadImport(out)
		Expect(l.version.Name).To(Equal("bfcl-live_simple"))
		Expect(l.order).To(Equal([]string{"bfcl-live_simple_0-0-0", "bfcl-live_simple_1-1-0", "bfcl-live_simple_4-4-0", "bfcl-live_simple_5-5-0"}))

		weather := l.cases["bfcl-live_simple_0-0-0"]
		Expect(weather.Expect.Skill).To(Equal("weather.current_conditions"))
		Expect(weather.Tools.Skill("weather.current_conditions")).NotTo(BeNil())
		Expect(weather.Expect.Params["units"]).To(Equal(harness.ParamMatcher{AnyOf: []any{"metric"}, Optional: true}))
		Expect(weather.Tags).To(ContainElements("bfcl", "category:live_simple"))

		room := l.cases["bfcl-live_simple_1-1-0"]
		Expect(room.Input).To(Equal("Book room B12 for me."), "the system message is not the user's text")
		Expect(room.Expect.Params["floor"]).To(Equal(harness.ParamMatcher{AnyOf: []any{}, Optional: true}), "[\"\", null]: left out")

		shirts := l.cases["bfcl-live_simple_4-4-0"]
		Expect(shirts.Expect.Params["filters"].AnyOf).To(ConsistOf(
			map[string]any{"color": "red"}, map[string]any{"color": "red", "size": "M"}))

		dice := l.cases["bfcl-live_simple_5-5-0"]
		Expect(dice.Expect.Params["count"]).To(Equal(harness.ParamMatcher{AnyOf: []any{3.0}}), "a required param is never optional")

		Expect(r.Skipped).To(ConsistOf(
			importer.Skip{Item: "live_simple_2-2-0 (line 3)", Reason: `the ground truth names param "volume", which speaker_control does not define`},
			importer.Skip{Item: "live_simple_3-3-0 (line 4)", Reason: `param "steps": the ground truth lists no acceptable value, so no call could ever pass`},
		))
		Expect(printed(r)).To(ContainSubstring("skipped 2:"))
		Expect(printed(r)).To(ContainSubstring("1 entries open with a system message"))
		Expect(printed(r)).To(ContainSubstring("1 answers in " + answers + " have no entry in testdata/bfcl/BFCL_v4_live_simple.json, not used: live_simple_6-6-0"))
	})

	It("imports live_relevance as workflow cases that pass exactly when the router acts", func() {
		out := GinkgoT().TempDir()
		_, err := importer.ImportBFCL("testdata/bfcl/BFCL_v4_live_relevance.json", out, importer.BFCLOptions{})
		Expect(err).NotTo(HaveOccurred())
		l := loadImport(out)
		c := l.cases["bfcl-live_relevance_0-0-0"]
		Expect(c.Workflow).NotTo(BeNil())
		Expect(c.Expect.Outcome).To(Equal("completed"))
		Expect(c.Expect.Action).To(BeEmpty(), "no one function is the right one")
		Expect(c.Workflow.Tools).To(HaveKey("image.generate"))
		Expect(c.Workflow.Tools).To(HaveKey("web.search"))
	})

	It("imports live_irrelevance as refusals without an answers file, and refuses one", func() {
		out := GinkgoT().TempDir()
		_, err := importer.ImportBFCL("testdata/bfcl/BFCL_v4_live_irrelevance.json", out, importer.BFCLOptions{})
		Expect(err).NotTo(HaveOccurred())
		l := loadImport(out)
		Expect(l.cases).To(HaveLen(2))
		Expect(l.cases["bfcl-live_irrelevance_0-0-0"].Expect.Action).To(Equal(router.Refuse))
		Expect(l.cases["bfcl-live_irrelevance_0-0-0"].Suite).To(Equal("boundary"))

		_, err = importer.ImportBFCL("testdata/bfcl/BFCL_v4_live_irrelevance.json", GinkgoT().TempDir(), importer.BFCLOptions{Answers: answers})
		Expect(err).To(MatchError(ContainSubstring("category live_irrelevance has no possible answers")))
	})

	It("skips, counting them, entries whose turn holds more than one user message or an assistant message", func() {
		file := filepath.Join(GinkgoT().TempDir(), "BFCL_v4_live_irrelevance.json")
		fn := `"function": [{"name": "get_stock_price", "description": "Latest price of a ticker.", "parameters": {"type": "dict", "properties": {"ticker": {"type": "string"}}}}]`
		lines := []string{
			`{"id": "live_irrelevance_0-0-0", "question": [[{"role": "user", "content": "Sing me a song."}]], ` + fn + `}`,
			`{"id": "live_irrelevance_1-0-1", "question": [[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}, {"role": "user", "content": "price of ACME?"}]], ` + fn + `}`,
			`{"id": "live_irrelevance_2-0-2", "question": [[{"role": "user", "content": "one"}, {"role": "user", "content": "two"}]], ` + fn + `}`,
		}
		Expect(os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644)).To(Succeed())
		out := GinkgoT().TempDir()
		r, err := importer.ImportBFCL(file, out, importer.BFCLOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(loadImport(out).cases).To(HaveLen(1))
		text := printed(r)
		Expect(text).To(ContainSubstring("an assistant message in its turn"))
		Expect(text).To(ContainSubstring("more than one user message"))
	})

	It("maps Java types and expands a HashMap answer", func() {
		out := GinkgoT().TempDir()
		_, err := importer.ImportBFCL("testdata/bfcl/BFCL_v4_simple_java.json", out, importer.BFCLOptions{Answers: "testdata/bfcl/possible_answer/BFCL_v4_simple_java.json"})
		Expect(err).NotTo(HaveOccurred())
		c := loadImport(out).cases["bfcl-simple_java_0"]
		props := c.Tools.Skill("CacheManager.reload").Properties()
		Expect(props["force"]["type"]).To(Equal("boolean"))
		Expect(props["options"]["type"]).To(Equal("object"))
		Expect(props["maxEntries"]["type"]).To(Equal("integer"))
		Expect(props["name"]["type"]).To(Equal("string"))
		Expect(props["cache"]).NotTo(HaveKey("type"), "any: no constraint")
		Expect(c.Expect.Params["options"].AnyOf).To(Equal([]any{map[string]any{"region": "eu", "timeout": 30.0}}))
		Expect(c.Expect.Params["name"]).To(Equal(harness.ParamMatcher{AnyOf: []any{}, Optional: true}))
	})

	It("refuses parallel categories, saying why and what is supported", func() {
		_, err := importer.ImportBFCL("testdata/bfcl/BFCL_v4_parallel.json", GinkgoT().TempDir(), importer.BFCLOptions{})
		Expect(err).To(MatchError(ContainSubstring("category parallel is not imported: each request expects several calls at once")))
		Expect(err).To(MatchError(ContainSubstring("Supported: irrelevance, java, javascript, live_irrelevance, live_multiple, live_relevance, live_simple, multiple")))
	})

	It("reads the category from the ids when the file is renamed, and lets --category override", func() {
		dir := GinkgoT().TempDir()
		data, err := os.ReadFile("testdata/bfcl/BFCL_v4_live_irrelevance.json")
		Expect(err).NotTo(HaveOccurred())
		renamed := filepath.Join(dir, "my_cases.jsonl")
		Expect(os.WriteFile(renamed, data, 0o644)).To(Succeed())
		out := GinkgoT().TempDir()
		_, err = importer.ImportBFCL(renamed, out, importer.BFCLOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(loadImport(out).version.Name).To(Equal("bfcl-live_irrelevance"))

		wrong := filepath.Join(dir, "BFCL_v4_irrelevance.json")
		Expect(os.WriteFile(wrong, data, 0o644)).To(Succeed())
		_, err = importer.ImportBFCL(wrong, GinkgoT().TempDir(), importer.BFCLOptions{})
		Expect(err).To(MatchError(ContainSubstring("the file name says category irrelevance but its ids say live_irrelevance")))
		out = GinkgoT().TempDir()
		_, err = importer.ImportBFCL(wrong, out, importer.BFCLOptions{Category: "irrelevance"})
		Expect(err).NotTo(HaveOccurred())
		Expect(loadImport(out).version.Name).To(Equal("bfcl-irrelevance"))

		_, err = importer.ImportBFCL(wrong, GinkgoT().TempDir(), importer.BFCLOptions{Category: "simple_rust"})
		Expect(err).To(MatchError(ContainSubstring("--category simple_rust: not a BFCL category")))
	})
})

var _ = Describe("ImportRasa", func() {
	It("turns intents into skills and entities into params, with synonyms, lookup tables and regexes where sound", func() {
		out := GinkgoT().TempDir()
		r, err := importer.ImportRasa("testdata/rasa/nlu.yml", out, importer.IntentOptions{})
		Expect(err).NotTo(HaveOccurred())
		l := loadImport(out)
		reg := l.version.Registry
		Expect(reg.Names()).To(Equal([]string{"check_balance", "find_branch", "reverted_card_payment", "reverted_card_payment_2", "transfer_money"}),
			"out_of_scope is not a skill; names are cleaned, the clash resolved")

		account := reg.Skill("check_balance").Properties()["account"]
		Expect(account["enum"]).To(Equal([]any{"checking", "credit", "savings"}))
		Expect(account["x-synonyms"]).To(Equal(map[string]any{"credit": []any{"credit card", "cc"}}))
		// [credit card](account) is the synonym's canonical value.
		Expect(reg.Skill("check_balance").Examples).To(ContainElement(HaveField("Params", HaveKeyWithValue("account", "credit"))))

		transfer := reg.Skill("transfer_money").Properties()
		Expect(transfer).To(HaveKey("account_source"), "a role is its own param")
		Expect(transfer).To(HaveKey("account_target"))
		Expect(transfer["amount"]["pattern"]).To(Equal(`^(?:\d+(?:\.\d{2})?)$`), "the regex named after the entity")
		Expect(reg.Skill("find_branch").Properties()["city"]["enum"]).To(Equal([]any{"Bruges", "Ghent", "Leuven", "Mons", "Namur"}),
			"the lookup table, and every annotated value (Mons is the second city of one example)")

		var inScope, oos int
		for _, c := range l.cases {
			if c.Expect.Action == router.Refuse {
				oos++
				Expect(c.Suite).To(Equal("boundary"))
			} else {
				inScope++
				Expect(c.Input).NotTo(ContainSubstring("]("), "markup is stripped from the text")
			}
		}
		Expect(oos).To(Equal(2), "every out_of_scope example is a refusal case")
		Expect(inScope).To(BeNumerically(">=", 3))

		text := printed(r)
		Expect(text).To(ContainSubstring("responses (testdata/rasa/nlu.yml:60) ignored"))
		Expect(text).To(ContainSubstring("stories (testdata/rasa/nlu.yml:70) ignored"))
		Expect(text).To(ContainSubstring("regex check_balance (testdata/rasa/nlu.yml:52) ignored: it names an intent"))
		Expect(text).To(ContainSubstring("synonym parking (testdata/rasa/nlu.yml:46) ignored"))
		Expect(text).To(ContainSubstring(`label "reverted_card_payment?" renamed "reverted_card_payment_2"`))
	})

	It("reads a project's data folder: every file with nlu: examples, the others skipped and named", func() {
		data := GinkgoT().TempDir()
		write := func(name, text string) {
			Expect(os.MkdirAll(filepath.Dir(filepath.Join(data, name)), 0o755)).To(Succeed())
			Expect(os.WriteFile(filepath.Join(data, name), []byte(text), 0o644)).To(Succeed())
		}
		write("nlu/greet.yml", "version: \"3.1\"\nnlu:\n- intent: greet\n  examples: |\n    - hello there\n    - good morning\n    - hi\n")
		write("nlu/orders.yaml", "version: \"3.1\"\nnlu:\n- intent: track_order\n  examples: |\n    - where is order [A-1234](order_id)\n    - track my parcel\n    - has my order shipped\n")
		write("rules.yml", "version: \"3.1\"\nrules:\n- rule: greet back\n  steps:\n  - intent: greet\n  - action: utter_greet\n")
		write(".hidden/nlu.yml", "nlu: [broken")
		out := GinkgoT().TempDir()
		r, err := importer.ImportRasa(data, out, importer.IntentOptions{})
		Expect(err).NotTo(HaveOccurred())
		reg := loadImport(out).version.Registry
		Expect(reg.Names()).To(Equal([]string{"greet", "track_order"}))
		Expect(reg.Skill("track_order").Properties()).To(HaveKey("order_id"))
		Expect(printed(r)).To(ContainSubstring(filepath.Join(data, "rules.yml") + " skipped: no nlu: section"))

		_, err = importer.ImportRasa(GinkgoT().TempDir(), out, importer.IntentOptions{})
		Expect(err).To(MatchError(ContainSubstring("no .yml or .yaml files in the folder")))
	})

	It("stops a file whose aliases multiply, at the alias that goes past", func() {
		// One list of 1,000 examples shared by 110 intents: the count is
		// 1,001 values a use, and the hundredth use goes past 100000.
		// Without it the import writes 110,000 examples (and a longer
		// list, or more intents, as many as memory holds).
		var b strings.Builder
		b.WriteString("version: \"3.1\"\nnlu:\n- intent: i0\n  examples: &e\n")
		for i := range 1000 {
			b.WriteString("  - example " + strconv.Itoa(i) + "\n")
		}
		for i := 1; i < 110; i++ {
			b.WriteString("- intent: i" + strconv.Itoa(i) + "\n  examples: *e\n")
		}
		file := filepath.Join(GinkgoT().TempDir(), "nlu.yml")
		Expect(os.WriteFile(file, []byte(b.String()), 0o644)).To(Succeed())
		line := 4 + 1000 + 2*99 + 2 // examples: *e of intent i100
		_, err := importer.ImportRasa(file, GinkgoT().TempDir(), importer.IntentOptions{})
		Expect(err).To(MatchError(file + ":" + strconv.Itoa(line) + ": nlu[100].examples: *e makes this file's aliases hold more than 100000 values " +
			"(an alias counts each time it is used); write the values out plainly, or use fewer aliases"))
	})

	It("carves the same val split every time, keeping a train example per intent", func() {
		a, b := GinkgoT().TempDir(), GinkgoT().TempDir()
		_, err := importer.ImportRasa("testdata/rasa/nlu.yml", a, importer.IntentOptions{})
		Expect(err).NotTo(HaveOccurred())
		_, err = importer.ImportRasa("testdata/rasa/nlu.yml", b, importer.IntentOptions{})
		Expect(err).NotTo(HaveOccurred())
		for _, f := range []string{"version/skills.yaml", "suites/val.yaml", "suites/oos_val.yaml"} {
			x, err := os.ReadFile(filepath.Join(a, f))
			Expect(err).NotTo(HaveOccurred())
			y, err := os.ReadFile(filepath.Join(b, f))
			Expect(err).NotTo(HaveOccurred())
			Expect(x).To(Equal(y), f)
		}
		for _, s := range loadImport(a).version.Registry.Skills {
			Expect(s.Examples).NotTo(BeEmpty(), s.Name)
		}
	})

	DescribeTable("names the line of bad input",
		func(file, want string) {
			_, err := importer.ImportRasa(file, GinkgoT().TempDir(), importer.IntentOptions{})
			Expect(err).To(MatchError(ContainSubstring(want)))
		},
		Entry("an example without its dash", "testdata/rasa/bad_example_line.yml", `bad_example_line.yml:6: "good morning": an example line starts with "- "`),
		Entry("an annotation that is not JSON", "testdata/rasa/bad_annotation.yml", `bad_annotation.yml:5: entity annotation {"entity": "size", value: large} is not valid JSON`),
	)
})

var _ = Describe("ImportCSV", func() {
	It("reads columns in header order past a BOM and quoted commas, with oos rows as refusals", func() {
		out := GinkgoT().TempDir()
		r, err := importer.ImportCSV("testdata/csv/intents.csv", out, importer.IntentOptions{})
		Expect(err).NotTo(HaveOccurred())
		l := loadImport(out)
		Expect(l.version.Registry.Names()).To(ConsistOf("book_table", "cancel_booking", "opening_hours", "opening_hours_2"),
			"a valid label keeps its name; the one the registry rejects is cleaned after it")
		var texts []string
		for _, s := range l.version.Registry.Skills {
			for _, e := range s.Examples {
				texts = append(texts, e.Input)
			}
		}
		for _, c := range l.cases {
			texts = append(texts, c.Input)
		}
		Expect(texts).To(ContainElement("book a table for two, tonight"))
		Expect(texts).To(ContainElement(`can I get a "quiet" table`))
		refusals := 0
		for _, c := range l.cases {
			if c.Expect.Action == router.Refuse {
				refusals++
			}
		}
		Expect(refusals).To(Equal(2))
		Expect(l.version.Registry.Skill("opening_hours").Examples).To(ContainElement(HaveField("Input", "when do you open")))
		Expect(printed(r)).To(ContainSubstring(`label "opening hours!" renamed "opening_hours_2"`))
	})

	It("carves val by distinct text: copies of one text never land on both sides", func() {
		file := filepath.Join(GinkgoT().TempDir(), "dup.csv")
		rows := "text,label\n"
		for _, t := range []string{"hi", "hi", "hi", "hey", "yo", "hello", "morning", "howdy"} {
			rows += t + ",greet\n"
		}
		for _, t := range []string{"book a flight", "book a flight", "fly me to lima", "a ticket to oslo", "plane to rome", "seat to kyiv"} {
			rows += t + ",book_flight\n"
		}
		Expect(os.WriteFile(file, []byte(rows), 0o644)).To(Succeed())
		out := GinkgoT().TempDir()
		_, err := importer.ImportCSV(file, out, importer.IntentOptions{})
		Expect(err).NotTo(HaveOccurred())
		l := loadImport(out)
		examples := map[string]bool{}
		for _, sk := range l.version.Registry.Skills {
			for _, e := range sk.Examples {
				examples[e.Input] = true
			}
		}
		Expect(l.cases).NotTo(BeEmpty())
		for _, c := range l.cases {
			Expect(examples).NotTo(HaveKey(c.Input), "val case %q is also an example", c.Input)
		}
	})

	It("keeps the file's split, and says what it did not import", func() {
		out := GinkgoT().TempDir()
		r, err := importer.ImportCSV("testdata/csv/with_split.csv", out, importer.IntentOptions{})
		Expect(err).NotTo(HaveOccurred())
		l := loadImport(out)
		Expect(l.order).To(ConsistOf("csv-val-0001", "csv-val-0002", "csv-oos_val-0001"))
		Expect(l.version.Registry.Skill("book_table").Examples).To(HaveLen(2))
		text := printed(r)
		Expect(text).To(ContainSubstring("split test: 1 examples not imported: not an eval split (pass --eval-splits val,test to run them)"))
		Expect(text).To(ContainSubstring("split train: 1 out-of-scope examples"))
		Expect(text).To(ContainSubstring(`column "source" ignored`))

		out = GinkgoT().TempDir()
		_, err = importer.ImportCSV("testdata/csv/with_split.csv", out, importer.IntentOptions{EvalSplits: []string{"val", "test"}, OOSLabels: []string{"nothing"}})
		Expect(err).NotTo(HaveOccurred())
		l = loadImport(out)
		Expect(l.cases).To(HaveKey("csv-test-0001"))
		Expect(l.version.Registry.Names()).To(ContainElement("oos"), "a label not named by --oos-label is a skill")
	})

	DescribeTable("names the line of a bad row or header",
		func(file, want string) {
			_, err := importer.ImportCSV(file, GinkgoT().TempDir(), importer.IntentOptions{})
			Expect(err).To(MatchError(ContainSubstring(want)))
		},
		Entry("a row with more fields", "testdata/csv/bad_row.csv", "bad_row.csv:3:1: wrong number of fields; give every row as many fields as the header"),
		Entry("no text column", "testdata/csv/no_label.csv", `no_label.csv:1: the header has no "text" column (it has utterance,intent)`),
	)
})

var _ = Describe("CheckBFCL on live categories", func() {
	It("counts any call as right in a relevance category, and no call as its failure", func() {
		rel := func(action router.Action, skill string) harness.Result {
			return harness.Result{Tags: []string{"category:live_relevance"}, Expect: harness.Expect{Outcome: "completed"},
				Decision: router.Decision{Action: action, Skill: skill}}
		}
		Expect(importer.CheckBFCL(rel(router.Execute, "web.search"))).To(Equal(""))
		Expect(importer.CheckBFCL(rel(router.Execute, "image.generate"))).To(Equal(""))
		Expect(importer.CheckBFCL(rel(router.Clarify, "web.search"))).To(Equal(importer.BFCLNoCall))
		Expect(importer.CheckBFCL(rel(router.Fail, ""))).To(Equal(importer.BFCLError))

		var b strings.Builder
		Expect(importer.WriteBFCL(&b, []harness.Result{rel(router.Execute, "a"), rel(router.Refuse, "")})).To(Succeed())
		Expect(b.String()).To(ContainSubstring("0.500 (1/2) (relevance: any call)"))
	})

	It("compares a dict param with BFCL's dict checker: no key more, no key less", func() {
		want := harness.Expect{Action: router.Execute, Skill: "f", Params: map[string]harness.ParamMatcher{
			"filters": {AnyOf: []any{map[string]any{"color": "red"}, map[string]any{"color": "red", "size": "M"}}},
		}}
		call := func(filters map[string]any) harness.Result {
			return harness.Result{Tags: []string{"category:live_simple"}, Expect: want,
				Decision: router.Decision{Action: router.Execute, Skill: "f", Params: map[string]any{"filters": filters}}}
		}
		Expect(importer.CheckBFCL(call(map[string]any{"color": "Red"}))).To(Equal(""), "strings normalised")
		Expect(importer.CheckBFCL(call(map[string]any{"color": "red", "size": "m"}))).To(Equal(""))
		Expect(importer.CheckBFCL(call(map[string]any{"color": "red", "size": "M", "fit": "slim"}))).To(Equal(importer.BFCLValue))
		Expect(importer.CheckBFCL(call(map[string]any{"size": "M"}))).To(Equal(importer.BFCLValue))
	})
})

var _ = Describe("ImportCLINC150 without a val split", func() {
	It("carves val from train the same way every time, and says so", func() {
		dir := GinkgoT().TempDir()
		file := filepath.Join(dir, "clinc.json")
		var train []string
		for i := range 10 {
			train = append(train, `["how much is in account `+string(rune('a'+i))+`", "balance"]`, `["tell me joke number `+string(rune('a'+i))+`", "tell_joke"]`)
		}
		Expect(os.WriteFile(file, []byte(`{"train": [`+strings.Join(train, ",")+`]}`), 0o644)).To(Succeed())
		outs := []string{GinkgoT().TempDir(), GinkgoT().TempDir()}
		var reports []*importer.Report
		for _, out := range outs {
			r, err := importer.ImportCLINC150(file, out, importer.CLINC150Options{EvalSplits: []string{"val"}})
			Expect(err).NotTo(HaveOccurred())
			reports = append(reports, r)
		}
		Expect(printed(reports[0])).To(ContainSubstring("no val split in the file: carved 4 items from train"))
		l := loadImport(outs[0])
		Expect(l.cases).To(HaveLen(4))
		Expect(l.version.Registry.Skill("balance").Examples).To(HaveLen(8))
		a, _ := os.ReadFile(filepath.Join(outs[0], "suites", "val.yaml"))
		b, _ := os.ReadFile(filepath.Join(outs[1], "suites", "val.yaml"))
		Expect(a).To(Equal(b))
	})
})

var _ = Describe("ImportBFCL with another category's answers", func() {
	It("says the answers file matches none of the entries", func() {
		_, err := importer.ImportBFCL("testdata/bfcl/BFCL_v4_live_simple.json", GinkgoT().TempDir(),
			importer.BFCLOptions{Answers: "testdata/bfcl/possible_answer/BFCL_v4_simple_java.json"})
		Expect(err).To(MatchError(ContainSubstring("has an answer for none of the 6 entries of testdata/bfcl/BFCL_v4_live_simple.json (its first id is simple_java_0)")))
	})
})
