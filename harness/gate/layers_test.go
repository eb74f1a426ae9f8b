package gate_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.yaml.in/yaml/v3"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/harness/gate"
	"github.com/routebench/routebench/router/registry"
)

// version is a prompt version in memory; its fingerprint follows its
// prompt text, as a loaded one's follows its files.
func version(name, persona, constraints string) *registry.Version {
	files := map[string][]byte{"persona.md": []byte(persona), "constraints.md": []byte(constraints)}
	return &registry.Version{Name: name, Fingerprint: registry.Fingerprint(files), Persona: persona, Constraints: constraints}
}

// configWith is a gate block holding untested_layers: value ("" leaves it out).
func configWith(value string) gate.Config {
	text := "thresholds: [decision_accuracy >= 0.85]\n"
	if value != "" {
		text += "untested_layers: " + value + "\n"
	}
	var doc yaml.Node
	Expect(yaml.Unmarshal([]byte(text), &doc)).To(Succeed())
	cfg, err := gate.ParseConfig("routebench.yaml", doc.Content[0])
	Expect(err).NotTo(HaveOccurred())
	return cfg
}

var _ = Describe("Untested layers (DESIGN §7)", func() {
	base := version("v2", "You are the ops team's assistant.", "Never guess dates.")
	personaChanged := version("v2", "You are a terse assistant for the on-call engineer.", "Never guess dates.")
	bothChanged := version("v2", "You are a terse assistant.", "Ask before acting on production.")

	// verdict runs the gate as the command does: thresholds on a head that
	// holds them, then the untested layers of the pair.
	verdict := func(head *registry.Version, judge string, cfg gate.Config) gate.Verdict {
		v := gate.Evaluate(headSummary(216, 39, 0), comparison(0), cfg)
		v.ApplyUntested(gate.UntestedLayers(base, head, judge), judge, cfg)
		return v
	}

	DescribeTable("each gate.untested_layers value × layer changed or not × builtin or model judge",
		func(value string, head *registry.Version, judge string, outcome string, untested []string) {
			v := verdict(head, judge, configWith(value))
			Expect(v.Outcome()).To(Equal(outcome))
			Expect(v.Pass).To(Equal(outcome == gate.OutcomePass))
			Expect(v.Untested).To(Equal(untested))
			msg := v.Message()
			switch {
			case len(untested) == 0:
				Expect(msg).NotTo(ContainSubstring("not evaluated"))
			case outcome == gate.OutcomeNotEvaluated:
				Expect(msg).To(HavePrefix("gate NOT EVALUATED for "))
				Expect(msg).To(ContainSubstring(v.UntestedNote()))
			default:
				Expect(msg).To(HavePrefix("gate passed for "))
				Expect(msg).To(ContainSubstring("warning: " + v.UntestedNote()))
			}
		},
		Entry("default, persona changed, builtin: not evaluated", "", personaChanged, "builtin", gate.OutcomeNotEvaluated, []string{"persona.md"}),
		Entry("fail, persona changed, builtin: not evaluated", "fail", personaChanged, "builtin", gate.OutcomeNotEvaluated, []string{"persona.md"}),
		Entry("warn, persona changed, builtin: passes with the warning", "warn", personaChanged, "builtin", gate.OutcomePass, []string{"persona.md"}),
		Entry("default, nothing changed, builtin: passes", "", base, "builtin", gate.OutcomePass, []string(nil)),
		Entry("fail, nothing changed, builtin: passes", "fail", base, "builtin", gate.OutcomePass, []string(nil)),
		Entry("warn, nothing changed, builtin: passes", "warn", base, "builtin", gate.OutcomePass, []string(nil)),
		Entry("default, persona changed, OpenAI judge: passes, it reads every layer", "", personaChanged, "openai:gpt-4o-mini", gate.OutcomePass, []string(nil)),
		Entry("fail, persona changed, Anthropic judge: passes", "fail", personaChanged, "anthropic:claude-haiku-4-5", gate.OutcomePass, []string(nil)),
		Entry("warn, persona changed, OpenAI judge: passes, no warning", "warn", personaChanged, "openai:gpt-4o-mini", gate.OutcomePass, []string(nil)),
		Entry("fail, nothing changed, OpenAI judge: passes", "fail", base, "openai:gpt-4o-mini", gate.OutcomePass, []string(nil)),
		Entry("warn, nothing changed, OpenAI judge: passes", "warn", base, "openai:gpt-4o-mini", gate.OutcomePass, []string(nil)),
		Entry("fail, both layers changed, builtin: lists every file", "fail", bothChanged, "builtin", gate.OutcomeNotEvaluated, []string{"constraints.md", "persona.md"}),
	)

	It("words the verdict as DESIGN §7 does", func() {
		v := verdict(personaChanged, "builtin", configWith(""))
		Expect(v.UntestedNote()).To(Equal("not evaluated: persona.md changed; the judge does not read it"))
		Expect(v.Message()).To(ContainSubstring("--judge openai:MODEL"), "it says how to test the change")
		Expect(v.Message()).To(ContainSubstring("untested_layers: warn"))
		both := verdict(bothChanged, "builtin", configWith("fail"))
		Expect(both.UntestedNote()).To(Equal("not evaluated: constraints.md, persona.md changed; the judge does not read them"))
	})

	It("ignores line endings, as the fingerprint does", func() {
		crlf := version("v2", "You are the ops team's assistant.", "Never guess dates.")
		crlf.Fingerprint = "different-because-the-checkout-differs"
		crlf.Persona = strings.ReplaceAll(base.Persona+"\n", "\n", "\r\n")
		b := *base
		b.Persona += "\n"
		Expect(gate.UntestedLayers(&b, crlf, "builtin")).To(BeEmpty())
	})

	It("is a FAIL, not NOT EVALUATED, when a check failed too, and still names the untested layer", func() {
		cfg := configWith("fail")
		v := gate.Evaluate(headSummary(195, 39, 0), comparison(0), cfg)
		v.ApplyUntested(gate.UntestedLayers(base, personaChanged, "builtin"), "builtin", cfg)
		Expect(v.Outcome()).To(Equal(gate.OutcomeFail))
		Expect(v.Message()).To(HavePrefix("gate failed for "))
		Expect(v.Message()).To(ContainSubstring("not evaluated: persona.md changed"))
		Expect(gate.Overall([]gate.Verdict{verdict(personaChanged, "builtin", cfg), v})).To(Equal(gate.OutcomeFail))
		Expect(gate.Overall([]gate.Verdict{verdict(personaChanged, "builtin", cfg), verdict(base, "builtin", cfg)})).To(Equal(gate.OutcomeNotEvaluated))
	})

	It("shows the verdict in summary.md: NOT EVALUATED with the reason, or the warning", func() {
		var b strings.Builder
		Expect(gate.WriteMarkdown(&b, []gate.Verdict{verdict(personaChanged, "builtin", configWith(""))})).To(Succeed())
		md := b.String()
		Expect(md).To(HavePrefix("## routebench gate: ⚠️ NOT EVALUATED\n"))
		Expect(md).To(ContainSubstring("| ⚠️ not evaluated |"))
		Expect(md).To(ContainSubstring("> **NOT EVALUATED**: not evaluated: persona.md changed; the judge does not read it"))

		b.Reset()
		Expect(gate.WriteMarkdown(&b, []gate.Verdict{verdict(personaChanged, "builtin", configWith("warn"))})).To(Succeed())
		md = b.String()
		Expect(md).To(HavePrefix("## routebench gate: ✅ passed\n"))
		Expect(md).To(ContainSubstring("> ⚠️ **warning**: not evaluated: persona.md changed; the judge does not read it"))
	})

	DescribeTable("parses gate.untested_layers with the other gate settings, naming line and column",
		func(value, want string) {
			var doc yaml.Node
			Expect(yaml.Unmarshal([]byte("thresholds: []\nuntested_layers: "+value+"\n"), &doc)).To(Succeed())
			_, err := gate.ParseConfig("routebench.yaml", doc.Content[0])
			Expect(err).To(MatchError(ContainSubstring("routebench.yaml:2: gate.untested_layers: column 18: " + want)))
		},
		Entry("a misspelling", "warm", `"warm" is not a choice (did you mean warn?)`),
		Entry("a longer word", "warning", `"warning" is not a choice (did you mean warn?)`),
		Entry("another value", "ignore", `"ignore" is not a choice; write fail`),
		Entry("a list", "[warn]", "must be fail or warn, got a list"),
	)

	It("loads with the config, so run, lint and gate all reject a bad value before running", func() {
		_, err := harness.ParseConfig("routebench.yaml", []byte("versions: [a]\nsuites: [b]\ngate:\n  untested_layer: warn\n"))
		Expect(err).To(MatchError(ContainSubstring("gate.untested_layer: column 3: unknown field (did you mean untested_layers?)")))
		cfg, err := harness.ParseConfig("routebench.yaml", []byte("versions: [a]\nsuites: [b]\ngate:\n  untested_layers: warn\n"))
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.Gate.Untested()).To(Equal(gate.UntestedWarn))
		cfg, err = harness.ParseConfig("routebench.yaml", []byte("versions: [a]\nsuites: [b]\n"))
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.Gate.Untested()).To(Equal(gate.UntestedFail), "fail is the default")
	})
})
