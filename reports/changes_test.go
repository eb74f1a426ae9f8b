package reports_test

import (
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/reports"
)

var _ = Describe("What changed", func() {
	change := reports.FileChange{Head: "v2@bbbbbbbb", Base: "v2@aaaaaaaa", File: "skills.yaml", Diff: []string{
		"--- git:main:prompts/v2/skills.yaml", "+++ prompts/v2/skills.yaml", "@@ -2,2 +2,2 @@",
		" - id: refund_status",
		"-  description: Where is my refund",
		"+  description: <script>alert(1)</script> refund & status",
	}, Omitted: 12}

	It("shows each changed file's diff beside the flipped cases, escaped", func() {
		in := fixtureInput(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC), true)
		in.Changes = []reports.FileChange{change}
		html := renderHTML(in)
		at := strings.Index(html, `<section id="changes">`)
		Expect(at).To(BeNumerically(">", strings.Index(html, `<section id="flips">`)))
		Expect(at).To(BeNumerically("<", strings.Index(html, `<section id="confusion">`)))
		Expect(html).To(ContainSubstring(`<a href="#changes">what changed</a>`))
		Expect(html).To(ContainSubstring(`<h3><code>skills.yaml</code>: v2@aaaaaaaa → v2@bbbbbbbb</h3>`))
		Expect(html).To(ContainSubstring(`<span class="diff-del">-  description: Where is my refund</span>`))
		Expect(html).To(ContainSubstring(`<span class="diff-add">&#43;  description: &lt;script&gt;alert(1)&lt;/script&gt; refund &amp; status</span>`))
		Expect(html).To(ContainSubstring(`<span class="diff-hunk">@@ -2,2 &#43;2,2 @@</span>`))
		Expect(html).To(ContainSubstring(`<span> - id: refund_status</span>`))
		Expect(html).To(ContainSubstring("and 12 more diff lines, left off to keep the page small."))
		Expect(html).NotTo(ContainSubstring("<script>alert(1)"))
		Expect(html).To(ContainSubstring("Content-Security-Policy\" content=\"default-src &#39;none&#39;"))
	})

	It("shows no section without changes, and names the changed files in summary.md", func() {
		in := fixtureInput(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC), true)
		Expect(renderHTML(in)).NotTo(ContainSubstring(`id="changes"`))
		in.Changes = []reports.FileChange{change, {Head: "v2@bbbbbbbb", Base: "v2@aaaaaaaa", File: "persona.md", Note: "only the newline at the end of the file changed"}}
		var b strings.Builder
		Expect(reports.WriteMarkdown(&b, in)).To(Succeed())
		Expect(b.String()).To(ContainSubstring("### Prompt files changed\n\n- v2@bbbbbbbb (against v2@aaaaaaaa): skills.yaml, persona.md\n"))
		Expect(b.String()).NotTo(ContainSubstring("description"))
	})
})
