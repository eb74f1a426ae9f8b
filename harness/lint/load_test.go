package lint_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness/lint"
)

// goodWith copies testdata/good into a fresh directory, replacing files.
func goodWith(replace map[string]string) string {
	GinkgoHelper()
	dir := filepath.Join(GinkgoT().TempDir(), "v9")
	Expect(os.Mkdir(dir, 0o755)).To(Succeed())
	entries, err := os.ReadDir(goodDir)
	Expect(err).NotTo(HaveOccurred())
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(goodDir, e.Name()))
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644)).To(Succeed())
	}
	for name, content := range replace {
		Expect(os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644)).To(Succeed())
	}
	return dir
}

var _ = Describe("a version whose files do not load", func() {
	It("reports a bad judge spec as a load error at its line, not as a run error later", func() {
		dir := goodWith(map[string]string{"version.yaml": "description: x\nrouter:\n  top_k: 3\n  judge: gpt4\n"})
		r := lintVersions(lint.Options{}, nil, dir)
		Expect(r.Failed()).To(BeTrue())
		Expect(r.Versions).To(BeEmpty())
		Expect(r.Findings).To(ConsistOf(And(
			HaveField("Check", lint.CheckLoad),
			HaveField("Severity", lint.Error),
			HaveField("File", filepath.Join(dir, "version.yaml")),
			HaveField("Line", 4),
			HaveField("Message", And(
				HavePrefix("router.judge: "),
				ContainSubstring("builtin | openai:<model> | anthropic:<model>"),
				ContainSubstring("did you mean openai:gpt4?"))),
		)))
	})

	It("reports a bad embedder spec the same way", func() {
		dir := goodWith(map[string]string{"version.yaml": "router:\n  embedder: bogus:x\n"})
		r := lintVersions(lint.Options{}, nil, dir)
		Expect(r.Findings).To(ConsistOf(And(
			HaveField("File", filepath.Join(dir, "version.yaml")),
			HaveField("Line", 2),
			HaveField("Message", And(HavePrefix("router.embedder: "), ContainSubstring("builtin | openai:<model> | ollama:<model>"))),
		)))
	})

	// The guard only matters when lint blocks, which it must not.
	It("reports skills.yaml linked to /dev/zero without reading it", func(ctx SpecContext) {
		if _, err := os.Stat("/dev/zero"); err != nil {
			Skip("no /dev/zero here")
		}
		dir := goodWith(nil)
		skills := filepath.Join(dir, "skills.yaml")
		Expect(os.Remove(skills)).To(Succeed())
		Expect(os.Symlink("/dev/zero", skills)).To(Succeed())
		t := lint.LoadDir(dir)
		Expect(t.RawSkills).To(BeNil())
		r := lint.Lint(ctx, lint.Input{Targets: []lint.Target{t}}, lint.Options{})
		Expect(r.Findings).To(ContainElement(And(
			HaveField("File", skills),
			HaveField("Message", ContainSubstring("not a regular file (a character device)")),
		)))
	}, SpecTimeout(time.Minute))

	It("reports encoding damage at its line and column", func() {
		dir := goodWith(map[string]string{"persona.md": "ok\nnot \x00ok\n"})
		r := lint.Lint(context.Background(), lint.Input{Targets: []lint.Target{lint.LoadDir(dir)}}, lint.Options{})
		Expect(r.Findings).To(ConsistOf(And(
			HaveField("File", filepath.Join(dir, "persona.md")),
			HaveField("Line", 2),
			HaveField("Message", And(HavePrefix("column 5: a NUL byte"), Not(ContainSubstring("\x00")))),
		)))
		Expect(strings.Count(r.Findings[0].Message, "column")).To(Equal(1))
	})
})
