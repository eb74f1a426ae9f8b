package registry_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing/fstest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router/registry"
)

// validFS copies testdata/v1 into a MapFS under root, so specs can break one file.
func validFS(root string) fstest.MapFS {
	GinkgoHelper()
	fsys := fstest.MapFS{}
	for _, name := range registry.VersionFiles {
		data, err := os.ReadFile(filepath.Join("testdata", "v1", name))
		Expect(err).NotTo(HaveOccurred())
		fsys[root+"/"+name] = &fstest.MapFile{Data: data}
	}
	return fsys
}

func with(fsys fstest.MapFS, file, content string) fstest.MapFS {
	fsys[file] = &fstest.MapFile{Data: []byte(content)}
	return fsys
}

var _ = Describe("Load", func() {
	It("loads a valid version with its four layers, settings and identity", func() {
		v, err := registry.Load(filepath.Join("testdata", "v1"))
		Expect(err).NotTo(HaveOccurred())
		Expect(v.Name).To(Equal("v1"))
		Expect(v.Dir).To(Equal("testdata/v1"))
		Expect(v.Description).To(Equal("small hand-written version for loader tests"))
		Expect(v.Persona).To(ContainSubstring("ops assistant"))
		Expect(v.Constraints).To(ContainSubstring("5000"))
		Expect(v.Contract.Validate(map[string]any{"skill": "ping", "confidence": 0.9, "params": map[string]any{}})).To(Succeed())
		Expect(v.Contract.Validate(map[string]any{"skill": "ping", "confidence": 1.5, "params": map[string]any{}})).NotTo(Succeed())
		Expect(string(v.ContractRaw)).To(HavePrefix("{"))

		Expect(v.Router.TopK).To(Equal(3))
		Expect(v.Router.Embedder).To(Equal("builtin"))
		Expect(v.Router.Bands.Execute).To(Equal(0.80))
		Expect(v.Router.Bands.Clarify).To(Equal(0.55))

		Expect(v.Registry.Names()).To(Equal([]string{"query_orders_by_region", "refund_order", "restart_service", "ping"}))
		q := v.Registry.Skill("query_orders_by_region")
		Expect(q.Pos).To(Equal(registry.Pos{File: "testdata/v1/skills.yaml", Line: 2}))
		Expect(q.WhenNotToUse).To(ConsistOf("用户问告警 (use query_alerts_by_zone)"))
		Expect(q.PermissionScope).To(Equal([]string{"orders:read"}))
		Expect(q.Required()).To(Equal([]string{"region", "start", "end"}))
		Expect(q.Properties()["region"]["x-synonyms"]).To(HaveKeyWithValue("east", []any{"华东", "east china"}))
		Expect(q.Glossary).To(HaveKeyWithValue("区域", "销售大区 (sales region)"))
		Expect(q.Cost).To(Equal(registry.Cost{LatencyMS: 300, Quota: 1}))
		Expect(q.Examples).To(HaveLen(2))
		Expect(q.CounterExamples).To(HaveLen(1))
		Expect(q.PropSchemas).To(HaveLen(4))
		Expect(q.PropSchemas["region"].Validate("east")).To(Succeed())
		Expect(q.PropSchemas["region"].Validate("华东")).NotTo(Succeed())
		Expect(q.PropSchemas["start"].Validate("2026-13-01")).NotTo(Succeed(), "format: date is asserted")
		Expect(q.Schema.Validate(map[string]any{"region": "east"})).NotTo(Succeed(), "start and end are required")

		r := v.Registry.Skill("refund_order")
		Expect(r.Confirm).To(Equal(registry.GateIrreversible))
		Expect(r.Triggers).To(HaveLen(1))
		Expect(r.Triggers[0].Re.MatchString("please refund ord-12345678 now")).To(BeTrue())
		Expect(r.Triggers[0].Pos.Line).To(Equal(44))
		Expect(v.Registry.Skill("restart_service").Confirm).To(Equal(registry.GateNormal))
		Expect(v.Registry.Skill("ping").ParamsSchema).To(HaveKeyWithValue("type", "object"))
	})

	It("fills defaults for what version.yaml leaves out", func() {
		v, err := registry.LoadFS(with(validFS("v7"), "v7/version.yaml", "description: bare\n"), "v7", "prompts/v7")
		Expect(err).NotTo(HaveOccurred())
		Expect(v.Router).To(Equal(registry.RouterSettings{
			TopK: 5, Embedder: "builtin", Judge: "builtin",
			Bands: registry.Bands{Execute: 0.85, Clarify: 0.60, SideEffects: map[registry.SideEffect]registry.Band{}},
		}))
	})

	It("names the version after root, or after display when root is .", func() {
		v, err := registry.LoadFS(validFS("a/b/v9"), "a/b/v9", "git:origin/main:a/b/v9")
		Expect(err).NotTo(HaveOccurred())
		Expect(v.Name).To(Equal("v9"))
		Expect(v.Dir).To(Equal("git:origin/main:a/b/v9"))
		Expect(v.ID()).To(Equal("v9@" + v.Fingerprint[:8]))

		flat := fstest.MapFS{}
		for name, f := range validFS("x") {
			flat[strings.TrimPrefix(name, "x/")] = f
		}
		v, err = registry.LoadFS(flat, ".", "git:HEAD~1:fixtures/ops/prompts/v2")
		Expect(err).NotTo(HaveOccurred())
		Expect(v.Name).To(Equal("v2"))
	})

	// An imported version lives in DIR/version; its data set names it, so
	// results read clinc150@… instead of version@….
	It("takes the name version.yaml gives over the directory's", func() {
		v, err := registry.LoadFS(with(validFS("out/version"), "out/version/version.yaml", "name: bfcl-live_multiple\ndescription: x\n"), "out/version", "out/version")
		Expect(err).NotTo(HaveOccurred())
		Expect(v.Name).To(Equal("bfcl-live_multiple"))
		Expect(v.ID()).To(HavePrefix("bfcl-live_multiple@"))

		_, err = registry.LoadFS(with(validFS("v1"), "v1/version.yaml", "name: a b@c\n"), "v1", "v1")
		expectProblem(problemLines(err), "v1/version.yaml:1: name:", "letters, digits")
	})

	It("shows display in every problem's file name", func() {
		_, err := registry.LoadFS(with(validFS("v1"), "v1/version.yaml", "router: {top_k: 0}\n"), "v1", "git:origin/main:prompts/v1")
		expectProblem(problemLines(err), "git:origin/main:prompts/v1/version.yaml:1: router.top_k:", "at least 1")
	})

	Describe("fingerprint", func() {
		It("is the sha256 over the files in name order, pinned so it is the same on any machine", func() {
			v, err := registry.LoadFS(validFS("v1"), "v1", "v1")
			Expect(err).NotTo(HaveOccurred())
			Expect(v.Fingerprint).To(MatchRegexp(`^[0-9a-f]{64}$`))
			Expect(v.Fingerprint).To(Equal(registry.Fingerprint(map[string][]byte{
				"constraints.md":       validFS("v1")["v1/constraints.md"].Data,
				"contract.schema.json": validFS("v1")["v1/contract.schema.json"].Data,
				"persona.md":           validFS("v1")["v1/persona.md"].Data,
				"skills.yaml":          validFS("v1")["v1/skills.yaml"].Data,
				"version.yaml":         validFS("v1")["v1/version.yaml"].Data,
			})))
			Expect(registry.Fingerprint(map[string][]byte{"a": []byte("x"), "b": []byte("")})).
				To(Equal("8ec54942a19c1649603c347e2673ca591bdc9afdf0b36e9e70c4f2c932145aba"), "sha256 of a NUL x NUL b NUL NUL")
		})

		It("is stable across loads and directory names", func() {
			a, err := registry.LoadFS(validFS("one/v1"), "one/v1", "one/v1")
			Expect(err).NotTo(HaveOccurred())
			b, err := registry.Load(filepath.Join("testdata", "v1"))
			Expect(err).NotTo(HaveOccurred())
			Expect(a.Fingerprint).To(Equal(b.Fingerprint))
		})

		It("ignores CRLF line endings", func() {
			crlf := validFS("v1")
			crlf["v1/persona.md"].Data = []byte(strings.ReplaceAll(string(crlf["v1/persona.md"].Data), "\n", "\r\n"))
			a, err := registry.LoadFS(crlf, "v1", "v1")
			Expect(err).NotTo(HaveOccurred())
			b, err := registry.LoadFS(validFS("v1"), "v1", "v1")
			Expect(err).NotTo(HaveOccurred())
			Expect(a.Fingerprint).To(Equal(b.Fingerprint))
		})

		DescribeTable("changes when any file changes",
			func(file string) {
				base, err := registry.LoadFS(validFS("v1"), "v1", "v1")
				Expect(err).NotTo(HaveOccurred())
				changed := validFS("v1")
				changed["v1/"+file].Data = append(changed["v1/"+file].Data, []byte("\n")...)
				v, err := registry.LoadFS(changed, "v1", "v1")
				Expect(err).NotTo(HaveOccurred())
				Expect(v.Fingerprint).NotTo(Equal(base.Fingerprint))
			},
			Entry(nil, "version.yaml"), Entry(nil, "persona.md"), Entry(nil, "constraints.md"),
			Entry(nil, "contract.schema.json"), Entry(nil, "skills.yaml"),
		)

		It("does not change for files outside the version's five", func() {
			base, err := registry.LoadFS(validFS("v1"), "v1", "v1")
			Expect(err).NotTo(HaveOccurred())
			v, err := registry.LoadFS(with(validFS("v1"), "v1/NOTES.md", "scratch"), "v1", "v1")
			Expect(err).NotTo(HaveOccurred())
			Expect(v.Fingerprint).To(Equal(base.Fingerprint))
		})
	})

	DescribeTable("reports version problems with file:line and field",
		func(file, content, prefix string, fragments ...string) {
			v, err := registry.LoadFS(with(validFS("v1"), "v1/"+file, content), "v1", "v1")
			Expect(v).To(BeNil())
			expectProblem(problemLines(err), prefix, fragments...)
		},
		Entry("unknown top-level field", "version.yaml", "description: x\nrouters: {}\n",
			"v1/version.yaml:2: routers:", "unknown field", "did you mean router?"),
		Entry("unknown router field", "version.yaml", "router:\n  topk: 3\n",
			"v1/version.yaml:2: router.topk:", "unknown field", "did you mean top_k?"),
		Entry("unknown bands field", "version.yaml", "router:\n  bands:\n    exec: 0.9\n",
			"v1/version.yaml:3: router.bands.exec:", "unknown field", "did you mean execute?"),
		Entry("unknown side-effect band field", "version.yaml", "router:\n  bands:\n    side_effects:\n      write: {executes: 0.9}\n",
			"v1/version.yaml:4: router.bands.side_effects.write.executes:", "unknown field"),
		Entry("unknown side-effect key", "version.yaml", "router:\n  bands:\n    side_effects:\n      writes: {execute: 0.9}\n",
			"v1/version.yaml:4: router.bands.side_effects.writes:", "is not a side effect", "did you mean write?"),
		Entry("band above 1", "version.yaml", "router:\n  bands:\n    execute: 85\n",
			"v1/version.yaml:3: router.bands.execute:", "outside [0,1]"),
		Entry("negative band", "version.yaml", "router:\n  bands:\n    side_effects:\n      delete: {execute: -0.1}\n",
			"v1/version.yaml:4: router.bands.side_effects.delete.execute:", "outside [0,1]"),
		Entry("clarify above execute", "version.yaml", "router:\n  bands:\n    execute: 0.5\n    clarify: 0.7\n",
			"v1/version.yaml:4: router.bands.clarify:", "0.70 is above execute 0.50"),
		Entry("clarify above the default execute", "version.yaml", "router:\n  bands:\n    clarify: 0.9\n",
			"v1/version.yaml:3: router.bands.clarify:", "above execute 0.85"),
		Entry("side-effect clarify above its execute", "version.yaml", "router:\n  bands:\n    side_effects:\n      send: {execute: 0.5}\n",
			"v1/version.yaml:4: router.bands.side_effects.send:", "clarify 0.60 is above execute 0.50"),
		Entry("top_k below 1", "version.yaml", "router:\n  top_k: 0\n",
			"v1/version.yaml:2: router.top_k:", "at least 1"),
		Entry("top_k not a number", "version.yaml", "router:\n  top_k: five\n",
			"v1/version.yaml:2: router.top_k:", "must be a whole number"),
		Entry("top_k too large", "version.yaml", "router:\n  top_k: 99999999999999999999999\n",
			"v1/version.yaml:2: router.top_k:", "99999999999999999999999 is too large"),
		Entry("a band that is not a finite number", "version.yaml", "router:\n  bands:\n    execute: .nan\n",
			"v1/version.yaml:3: router.bands.execute:", "must be a finite number, got .nan"),
		Entry("bad model reference", "version.yaml", "router:\n  judge: gpt-4o\n",
			"v1/version.yaml:2: router.judge:", "provider:model"),
		Entry("empty version.yaml", "version.yaml", "",
			"v1/version.yaml:", "is empty"),
		Entry("contract that is not JSON", "contract.schema.json", "{\n  \"type\": \"object\",\n  \"required\": [\"skill\"\n}\n",
			"v1/contract.schema.json:4:", "is not valid JSON"),
		Entry("contract with text after its object", "contract.schema.json", "{\n  \"type\": \"object\"\n}\n\n}\n",
			"v1/contract.schema.json:5:", "is not valid JSON"),
		Entry("empty contract", "contract.schema.json", " \n\t\n",
			"v1/contract.schema.json:1:", "is empty; write the JSON Schema"),
		Entry("contract cut off", "contract.schema.json", "{\n  \"type\": \"object\",\n  \"required\": [\"skill\"\n\n",
			"v1/contract.schema.json:3:", "is not valid JSON"),
		Entry("contract that does not compile", "contract.schema.json", "{\n  \"type\": \"object\",\n  \"properties\": {\n    \"skill\": {\"type\": \"text\"}\n  }\n}\n",
			"v1/contract.schema.json:4: properties.skill.type:", "does not compile"),
		Entry("contract that rejects a well-formed answer", "contract.schema.json", `{"type": "object", "required": ["answer"]}`,
			"v1/contract.schema.json:1:", "rejects a well-formed judge answer", "answer"),
		Entry("skills problems come through Load", "skills.yaml", "skills:\n  - name: a\n    description: x\n    side_effect: maybe\n",
			"v1/skills.yaml:4: skills[0].side_effect:", "maybe"),
	)

	It("reports every missing file", func() {
		fsys := validFS("v1")
		delete(fsys, "v1/persona.md")
		delete(fsys, "v1/skills.yaml")
		_, err := registry.LoadFS(fsys, "v1", "v1")
		lines := problemLines(err)
		Expect(lines).To(HaveLen(2))
		Expect(lines[0]).To(HavePrefix("v1/persona.md: is missing;"))
		Expect(lines[1]).To(HavePrefix("v1/skills.yaml: is missing;"))
	})

	It("reports a directory that does not exist", func() {
		_, err := registry.Load(filepath.Join("testdata", "nope"))
		expectProblem(problemLines(err), "testdata/nope:", "does not exist", "prompt version")
	})

	It("collects problems from every file, sorted by file then line", func() {
		fsys := with(validFS("v1"), "v1/version.yaml", "router:\n  top_k: 0\n  bands: {execute: 2}\n")
		fsys = with(fsys, "v1/skills.yaml", "skills:\n  - name: a\n    description: x\n    side_effect: nope\n    confirm: never\n")
		fsys = with(fsys, "v1/contract.schema.json", "{")
		_, err := registry.LoadFS(fsys, "v1", "v1")
		lines := problemLines(err)
		Expect(lines).To(HaveLen(5))
		Expect(lines[0]).To(HavePrefix("v1/contract.schema.json:"))
		Expect(lines[1]).To(HavePrefix("v1/skills.yaml:4: "))
		Expect(lines[2]).To(HavePrefix("v1/skills.yaml:5: "))
		Expect(lines[3]).To(HavePrefix("v1/version.yaml:2: "))
		Expect(lines[4]).To(HavePrefix("v1/version.yaml:3: "))
	})
})
