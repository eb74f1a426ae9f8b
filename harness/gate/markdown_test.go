package gate_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/harness/gate"
)

var _ = Describe("WriteMarkdown", func() {
	It("leads with the outcome and shows every check", func() {
		pass := gate.Evaluate(headSummary(216, 39, 0), nil, mustConfig(defaultThresholds, nil))
		fail := gate.Evaluate(headSummary(195, 39, 0),
			comparison(2, delta(harness.DecisionAccuracy, 216, 195, 240, 24, 3)), mustConfig(defaultThresholds, regression))
		fail.Head = "v3@cccccccc"
		var b strings.Builder
		Expect(gate.WriteMarkdown(&b, []gate.Verdict{pass, fail})).To(Succeed())
		md := b.String()
		Expect(md).To(HavePrefix("## routebench gate: ❌ failed\n"))
		Expect(md).To(ContainSubstring("| `v2@bbbbbbbb` | — | 4/4 held | 0/0 held | 0 | ✅ |"))
		Expect(md).To(ContainSubstring("| `v3@cccccccc` | `v2@aaaaaaaa` | 3/4 held | 0/1 held | 2 | ❌ |"))
		Expect(md).To(ContainSubstring("| `decision_accuracy >= 0.85` | 0.812 | 240 | ❌ |"))
		Expect(md).To(ContainSubstring("| `decision_accuracy` | 0.900 | 0.812 | +0.088 | 0.02 | 24/3 | 4.9e-05 | ❌ |"))
		Expect(md).To(ContainSubstring("```\ngate failed for v3@cccccccc against v2@aaaaaaaa: metrics decision_accuracy crossed\n"))
	})
	It("keeps a version name anyone can choose inside its code span, cell and line", func() {
		hostile := "h`|<b>B</b>|x`y\n# owned@1"
		v := gate.Verdict{Head: hostile, Base: hostile, Pass: true, Notes: []string{"base " + hostile + " *not* compared"}}
		var b strings.Builder
		Expect(gate.WriteMarkdown(&b, []gate.Verdict{v})).To(Succeed())
		md := b.String()
		Expect(md).To(ContainSubstring("| `h'\\|<b>B</b>\\|x'y # owned@1` | `h'\\|<b>B</b>\\|x'y # owned@1` | 0/0 held |"),
			"no backtick ends the span, no pipe adds a column")
		Expect(md).To(ContainSubstring("\n### `h'\\|<b>B</b>\\|x'y # owned@1`\n"))
		Expect(md).To(ContainSubstring("> base h'\\|&lt;b>B&lt;/b>\\|x'y # owned@1 \\*not\\* compared\n"), "a note is text, not markup")
		Expect(md).NotTo(ContainSubstring("\n# owned"), "nor a line of its own")
	})
	It("says passed when every verdict passed", func() {
		var b strings.Builder
		Expect(gate.WriteMarkdown(&b, []gate.Verdict{{Head: "v2@1", Pass: true}})).To(Succeed())
		Expect(b.String()).To(HavePrefix("## routebench gate: ✅ passed\n"))
		Expect(b.String()).NotTo(ContainSubstring("```"))
	})
})
