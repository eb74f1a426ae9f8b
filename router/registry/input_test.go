package registry_test

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router/registry"
)

// Issue 13: what a version's files may hold and be. Every problem names the
// file and, when it is inside the file's content, the line.

var _ = Describe("a second YAML document", func() {
	DescribeTable("is rejected with the line where it starts",
		func(file, content, prefix string) {
			v, err := registry.LoadFS(with(validFS("v1"), "v1/"+file, content), "v1", "v1")
			Expect(v).To(BeNil())
			expectProblem(problemLines(err), prefix, "second YAML document", "'---'")
		},
		Entry("in skills.yaml", "skills.yaml", string(doc(
			"skills:",
			"  - name: ping",
			"    description: Is it alive?",
			"    side_effect: read",
			"---",
			"skills:",
			"  - name: delete_everything",
			"    description: Never seen by the router.",
			"    side_effect: delete",
		)), "v1/skills.yaml:6:"),
		Entry("in version.yaml", "version.yaml", "description: first\n---\nrouter: {top_k: 9}\n", "v1/version.yaml:3:"),
	)

	It("is rejected by ParseSkills too", func() {
		_, err := registry.ParseSkills("tools.yaml", withHeader("---", "- name: other"))
		expectProblem(problemLines(err), "tools.yaml:6:", "second YAML document")
	})

	It("is not a bare '---' closing the file, which holds no data", func() {
		skills, err := registry.ParseSkills("skills.yaml", withHeader("---"))
		Expect(err).NotTo(HaveOccurred())
		Expect(skills).To(HaveLen(1))
	})
})

var _ = Describe("encoding damage", func() {
	DescribeTable("is reported at its line and column in every version file, before any parsing",
		func(file, content, prefix, what string) {
			v, err := registry.LoadFS(with(validFS("v1"), "v1/"+file, content), "v1", "v1")
			Expect(v).To(BeNil())
			lines := problemLines(err)
			expectProblem(lines, prefix, what, "save the file as UTF-8")
			Expect(lines).To(HaveLen(1), "a damaged file is not parsed on, so no follow-on problems")
		},
		Entry("invalid UTF-8 in skills.yaml", "skills.yaml",
			string(withHeader("    when_to_use: [\"caf\xe9\"]")),
			"v1/skills.yaml:5: column 23:", "invalid UTF-8 (byte 0xE9)"),
		Entry("a NUL byte in skills.yaml", "skills.yaml",
			string(withHeader("    counter_examples: [x\x00y]")),
			"v1/skills.yaml:5: column 25:", "a NUL byte"),
		Entry("an escape character in version.yaml", "version.yaml",
			"description: ok\nrouter:\n  top_k: 3\x1b[0m\n",
			"v1/version.yaml:3: column 11:", "control character U+001B"),
		Entry("a NUL byte in persona.md", "persona.md",
			"# persona\n\nbe\x00 kind\n",
			"v1/persona.md:3: column 3:", "a NUL byte"),
		Entry("invalid UTF-8 in constraints.md", "constraints.md",
			"never refund more than 5000\n\xff\xfe\n",
			"v1/constraints.md:2: column 1:", "invalid UTF-8 (byte 0xFF)"),
		Entry("a bell in contract.schema.json", "contract.schema.json",
			"{\n  \"type\": \"object\",\n  \"description\": \"ding\a\"\n}\n",
			"v1/contract.schema.json:3: column 23:", "control character U+0007"),
	)

	It("counts columns in characters, so text in Chinese points at the right place", func() {
		_, err := registry.ParseSkills("skills.yaml", withHeader("    when_to_use: [华东区\x7f]"))
		expectProblem(problemLines(err), "skills.yaml:5: column 22:", "control character U+007F")
	})

	It("allows tabs, CRLF line ends and a byte order mark", func() {
		fsys := with(validFS("v1"), "v1/persona.md", "\ufeff# persona\r\n\tbe kind\r\n")
		_, err := registry.LoadFS(fsys, "v1", "v1")
		Expect(err).NotTo(HaveOccurred())
	})
})

// sizedFS serves base plus one regular file that claims size bytes and
// fails any read: the loader must refuse it from its size alone.
type sizedFS struct {
	base fs.FS
	name string
	size int64
}

func (s sizedFS) Open(name string) (fs.File, error) {
	if name == s.name {
		return sizedFile{s}, nil
	}
	return s.base.Open(name)
}

func (s sizedFS) Stat(name string) (fs.FileInfo, error) {
	if name == s.name {
		return sizedFile{s}, nil
	}
	return fs.Stat(s.base, name)
}

type sizedFile struct{ fs sizedFS }

func (f sizedFile) Stat() (fs.FileInfo, error) { return f, nil }
func (f sizedFile) Read([]byte) (int, error) {
	return 0, errors.New("read a file whose size is over the limit")
}
func (f sizedFile) Close() error       { return nil }
func (f sizedFile) Name() string       { return filepath.Base(f.fs.name) }
func (f sizedFile) Size() int64        { return f.fs.size }
func (f sizedFile) Mode() fs.FileMode  { return 0o644 }
func (f sizedFile) ModTime() time.Time { return time.Time{} }
func (f sizedFile) IsDir() bool        { return false }
func (f sizedFile) Sys() any           { return nil }

var _ io.Reader = sizedFile{}

// copyV1 copies testdata/v1 into a fresh directory, so a spec can replace
// one of its files with something that is not a regular file.
func copyV1() string {
	GinkgoHelper()
	dir := filepath.Join(GinkgoT().TempDir(), "v1")
	Expect(os.Mkdir(dir, 0o755)).To(Succeed())
	for _, name := range registry.VersionFiles {
		data, err := os.ReadFile(filepath.Join("testdata", "v1", name))
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(filepath.Join(dir, name), data, 0o644)).To(Succeed())
	}
	return dir
}

var _ = Describe("what is read", func() {
	It("refuses a file over the size limit without reading it", func() {
		fsys := sizedFS{base: validFS("v1"), name: "v1/skills.yaml", size: 100 << 20}
		v, err := registry.LoadFS(fsys, "v1", "v1")
		Expect(v).To(BeNil())
		expectProblem(problemLines(err), "v1/skills.yaml:", "cannot be read", "file too large", "104857600 bytes", "right file")
	})

	It("refuses a directory where a file should be", func() {
		fsys := validFS("v1")
		fsys["v1/persona.md"].Data, fsys["v1/persona.md"].Mode = nil, fs.ModeDir|0o755
		_, err := registry.LoadFS(fsys, "v1", "v1")
		expectProblem(problemLines(err), "v1/persona.md:", "not a regular file (a directory)", "give a regular file")
	})

	// The guard only matters when the loader blocks, which it must not.
	It("refuses skills.yaml linked to /dev/zero instead of reading without end", func(ctx SpecContext) {
		if _, err := os.Stat("/dev/zero"); err != nil {
			Skip("no /dev/zero here")
		}
		dir := copyV1()
		skills := filepath.Join(dir, "skills.yaml")
		Expect(os.Remove(skills)).To(Succeed())
		Expect(os.Symlink("/dev/zero", skills)).To(Succeed())
		_, err := registry.Load(dir)
		expectProblem(problemLines(err), skills+":", "not a regular file (a character device)")
	}, SpecTimeout(time.Minute))

	It("refuses version.yaml that is a named pipe instead of waiting for a writer", func(ctx SpecContext) {
		dir := copyV1()
		file := filepath.Join(dir, "version.yaml")
		Expect(os.Remove(file)).To(Succeed())
		if err := mkfifo(file); err != nil {
			Skip("cannot make a named pipe here: " + err.Error())
		}
		_, err := registry.Load(dir)
		expectProblem(problemLines(err), file+":", "not a regular file (a named pipe)")
	}, SpecTimeout(time.Minute))
})

var _ = Describe("$ref cycles", func() {
	DescribeTable("in a params schema are rejected at load, at the $ref that closes them",
		func(content []byte, prefix string, fragments ...string) {
			_, err := registry.ParseSkills("skills.yaml", content)
			expectProblem(problemLines(err), prefix, append(fragments, "is a $ref cycle", "every request would end in a clarification")...)
		},
		Entry("two $defs referring to each other, used by a property",
			withHeader(
				"    params_schema:",
				"      type: object",
				"      properties:",
				"        region: {$ref: \"#/$defs/a\"}",
				"      $defs:",
				"        a: {$ref: \"#/$defs/b\"}",
				"        b: {$ref: \"#/$defs/a\"}",
			),
			"skills.yaml:10: skills[0].params_schema.$defs.a:", "#/$defs/a -> #/$defs/b -> #/$defs/a"),
		Entry("a property that refers to itself",
			withHeader(
				"    params_schema:",
				"      type: object",
				"      properties:",
				"        region: {$ref: \"#/properties/region\"}",
			),
			"skills.yaml:8: skills[0].params_schema.properties.region:", "#/properties/region -> #/properties/region"),
		Entry("a cycle through allOf, deep under an array's items",
			withHeader(
				"    params_schema:",
				"      type: object",
				"      properties:",
				"        ids:",
				"          type: array",
				"          items: {$ref: \"#/$defs/id\"}",
				"      $defs:",
				"        id:",
				"          allOf: [{$ref: \"#/$defs/id\"}]",
			),
			"skills.yaml:13: skills[0].params_schema.$defs.id:", "#/$defs/id -> #/$defs/id/allOf/0 -> #/$defs/id"),
		Entry("the whole schema referring to itself",
			withHeader(
				"    params_schema:",
				"      type: object",
				"      $ref: \"#\"",
			),
			"skills.yaml:7: skills[0].params_schema:", "(# -> #)"),
	)

	It("leaves recursion through properties alone: each step reads a smaller part of the value", func() {
		skills, err := registry.ParseSkills("skills.yaml", withHeader(
			"    params_schema:",
			"      type: object",
			"      properties:",
			"        tree: {$ref: \"#/$defs/node\"}",
			"      $defs:",
			"        node:",
			"          type: object",
			"          properties:",
			"            children: {type: array, items: {$ref: \"#/$defs/node\"}}",
		))
		Expect(err).NotTo(HaveOccurred())
		tree := map[string]any{"children": []any{map[string]any{"children": []any{}}}}
		Expect(skills[0].PropSchemas["tree"].Validate(tree)).To(Succeed())
		Expect(skills[0].PropSchemas["tree"].Validate(map[string]any{"children": "no"})).NotTo(Succeed())
	})

	It("in the contract are rejected even off the sample answer's path", func() {
		contract := "{\n  \"type\": \"object\",\n  \"properties\": {\n    \"reason\": {\"$ref\": \"#/properties/reason\"}\n  }\n}\n"
		_, err := registry.LoadFS(with(validFS("v1"), "v1/contract.schema.json", contract), "v1", "v1")
		expectProblem(problemLines(err), "v1/contract.schema.json:4: properties.reason:", "is a $ref cycle", "#/properties/reason -> #/properties/reason")
	})
})

var _ = Describe("model specs in version.yaml", func() {
	DescribeTable("a bad judge or embedder is a config error at its line, listing what is accepted",
		func(content, prefix string, fragments ...string) {
			v, err := registry.LoadFS(with(validFS("v1"), "v1/version.yaml", content), "v1", "v1")
			Expect(v).To(BeNil())
			expectProblem(problemLines(err), prefix, fragments...)
		},
		Entry("a judge without provider", "router:\n  judge: gpt4\n",
			"v1/version.yaml:2: router.judge:", `"gpt4" is not a judge`, "builtin | openai:<model> | anthropic:<model>", "did you mean openai:gpt4?"),
		Entry("a judge provider without model", "router:\n  judge: \"openai:\"\n",
			"v1/version.yaml:2: router.judge:", "names no model", "openai:gpt-4o-mini"),
		Entry("an unknown judge provider", "description: x\nrouter:\n  judge: bogus:x\n",
			"v1/version.yaml:3: router.judge:", `names provider "bogus", which has no judge`, "builtin | openai:<model> | anthropic:<model>"),
		Entry("a misspelt judge provider", "router:\n  judge: opnai:gpt-4o\n",
			"v1/version.yaml:2: router.judge:", "did you mean openai:gpt-4o?"),
		Entry("an embedder-only provider as judge", "router:\n  judge: ollama:llama3\n",
			"v1/version.yaml:2: router.judge:", `"ollama", which has no judge`),
		Entry("a judge-only provider as embedder", "router:\n  embedder: anthropic:claude-haiku-4-5\n",
			"v1/version.yaml:2: router.embedder:", `"anthropic", which has no embedder`, "builtin | openai:<model> | ollama:<model>"),
		Entry("a misspelt builtin", "router:\n  embedder: buitin\n",
			"v1/version.yaml:2: router.embedder:", "did you mean builtin?"),
		Entry("a model with a space", "router:\n  judge: \"anthropic:claude haiku\"\n",
			"v1/version.yaml:2: router.judge:", "has a space"),
		Entry("an unquoted provider: model", "router:\n  judge: openai: gpt-4o\n",
			"v1/version.yaml:2:", "is not valid YAML"),
	)

	It("accepts every documented provider", func() {
		v, err := registry.LoadFS(with(validFS("v1"), "v1/version.yaml",
			"router:\n  judge: anthropic:claude-haiku-4-5\n  embedder: ollama:nomic-embed-text\n"), "v1", "v1")
		Expect(err).NotTo(HaveOccurred())
		Expect(v.Router.Judge).To(Equal("anthropic:claude-haiku-4-5"))
		Expect(v.Router.Embedder).To(Equal("ollama:nomic-embed-text"))
		_, err = registry.LoadFS(with(validFS("v1"), "v1/version.yaml", "router: {judge: openai:gpt-4o-mini, embedder: openai:text-embedding-3-small}\n"), "v1", "v1")
		Expect(err).NotTo(HaveOccurred())
	})
})

// The timeouts only matter when the loader hangs, which it must not.
var _ = Describe("input built to exhaust the loader", func() {
	It("stops aliases that multiply into billions of values, at a line", func(ctx SpecContext) {
		lines := append([]string{}, header...)
		lines = append(lines, "    params_schema:", "      type: object", "      $defs:", "        l0: &l0 [x, x, x, x, x, x, x, x, x, x]")
		for i := 1; i < 9; i++ {
			refs := strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d, ", i-1), 10), ", ")
			lines = append(lines, fmt.Sprintf("        l%d: &l%d [%s]", i, i, refs))
		}
		_, err := registry.ParseSkills("skills.yaml", doc(lines...))
		expectProblem(problemLines(err), "skills.yaml:12: skills[0].params_schema.$defs.l4[7]:", "*l3 makes this file's aliases hold more than 100000 values", "an alias counts each time it is used")
	}, SpecTimeout(time.Minute))

	It("stops one anchor reused from skill to skill, each within the count alone", func(ctx SpecContext) {
		lines := []string{"skills:"}
		for i := 0; i < 40; i++ {
			props := "{type: object, properties: {q: {type: string}}}"
			if i == 0 {
				// About 5,000 values: a tenth of the count per skill.
				props = "&big {type: object, properties: {q: {type: string, enum: [" + strings.TrimSuffix(strings.Repeat("v, ", 5000), ", ") + "]}}}"
			} else {
				props = "*big"
			}
			lines = append(lines, fmt.Sprintf("  - {name: s%d, description: skill %d, side_effect: read, params_schema: %s}", i, i, props))
		}
		_, err := registry.ParseSkills("skills.yaml", doc(lines...))
		expectProblem(problemLines(err), "skills.yaml:22: skills[20].params_schema:", "*big makes this file's aliases hold more than 100000 values")
	}, SpecTimeout(time.Minute))

	It("says once that a skill holds too many values, not again for each example after", func(ctx SpecContext) {
		many := strings.TrimSuffix(strings.Repeat("1, ", 100_001), ", ")
		_, err := registry.ParseSkills("skills.yaml", withHeader(
			"    params_schema: {type: object, properties: {xs: {type: array}, n: {type: number}}}",
			"    examples:",
			"      - {input: a, params: {xs: ["+many+"]}}",
			"      - {input: b, params: {n: 1}}",
		))
		lines := problemLines(err)
		Expect(lines).To(HaveLen(1), "%v", lines)
		Expect(lines[0]).To(ContainSubstring("more than 100000 values"))
	}, SpecTimeout(time.Minute))

	It("stops a rule whose nested loops over a list param would run for hours", func(ctx SpecContext) {
		_, err := registry.ParseSkills("skills.yaml", withHeader(
			"    params_schema: {type: object, properties: {ids: {type: array}}}",
			"    rules:",
			"      - expr: \"params.ids.all(a, params.ids.all(b, params.ids.all(c, params.ids.all(d, params.ids.all(e, a != '')))))\"",
			"    examples:",
			"      - input: many",
			"        params: {ids: ["+strings.TrimSuffix(strings.Repeat("x, ", 60), ", ")+"]}",
		))
		expectProblem(problemLines(err), "skills.yaml:10: skills[0].examples[0].params:", "rules[0] (line 7) cannot be evaluated", "stopped after 1000000 operations")
	}, SpecTimeout(time.Minute))
})
