package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routebench/routebench/internal/exitcode"
)

// Issue 11, "what changed": beside the flipped cases, the gate's
// report.html shows the diff of each prompt file that differs between base
// and head, escaped, and summary.md names the file.
func TestGateReportShowsTheChangedPromptFile(t *testing.T) {
	root := gateRepo(t, passingGate)
	head := filepath.Join(root, "prompts", "ops-head")
	copyDir(t, filepath.Join(root, "prompts", "ops"), head)
	skills := filepath.Join(head, "skills.yaml")
	data, err := os.ReadFile(skills)
	if err != nil {
		t.Fatal(err)
	}
	const before = "description: sales region / 销售大区"
	if !strings.Contains(string(data), before) {
		t.Fatalf("fixture skills.yaml no longer holds %q: pick another line", before)
	}
	changed := strings.Replace(string(data), before, "description: sales <b>region</b> & 销售大区", 1)
	if err := os.WriteFile(skills, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := cli("gate", "--base-version", "prompts/ops", "--head-version", "prompts/ops-head", "--out", "gate-out")
	if code != exitcode.Pass && code != exitcode.GateFailed {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	page, err := os.ReadFile(filepath.Join(root, "gate-out", "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	html := string(page)
	for _, want := range []string{
		`<section id="changes">`,
		`<code>skills.yaml</code>: `,
		`<span class="diff-file">--- prompts/ops/skills.yaml</span>`,
		`<span class="diff-file">&#43;&#43;&#43; prompts/ops-head/skills.yaml</span>`,
		`<span class="diff-del">-          description: sales region / 销售大区</span>`,
		`<span class="diff-add">&#43;          description: sales &lt;b&gt;region&lt;/b&gt; &amp; 销售大区</span>`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	// Only the file that changed is shown.
	for _, other := range []string{"persona.md", "constraints.md", "version.yaml", "contract.schema.json"} {
		if strings.Contains(html, "<code>"+other+"</code>: ") {
			t.Errorf("report.html shows a diff of %s, which did not change", other)
		}
	}
	if n := strings.Count(html, `<span class="diff-hunk">`); n != 1 {
		t.Errorf("report.html has %d hunks, want 1 for one changed line", n)
	}
	summary, err := os.ReadFile(filepath.Join(root, "gate-out", "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(summary), "### Prompt files changed") || !strings.Contains(string(summary), "): skills.yaml\n") {
		t.Errorf("summary.md does not name skills.yaml as changed:\n%s", summary)
	}
}
