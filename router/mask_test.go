package router_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

// maskRegistry has one skill with a sensitive param and one without.
func maskRegistry() *registry.Registry {
	skills, err := registry.ParseSkills("skills.yaml", []byte(`skills:
  - name: rotate_vault_key
    description: rotate the key of one vault
    side_effect: write
    permission_scope: [vault:write]
    confirm: normal
    params_schema:
      type: object
      properties:
        vault: {type: string}
        passphrase: {type: string, x-sensitive: true}
  - name: list_vaults
    description: list vaults
    side_effect: read
    permission_scope: [vault:read]
    params_schema:
      type: object
      properties:
        passphrase: {type: string}
`))
	Expect(err).NotTo(HaveOccurred())
	reg, err := registry.New(skills)
	Expect(err).NotTo(HaveOccurred())
	return reg
}

var _ = Describe("MaskSensitive", func() {
	It("masks x-sensitive params in params, raw output, prompt and messages, and nothing else", func() {
		reg := maskRegistry()
		Expect(reg.Skill("rotate_vault_key").Sensitive()).To(Equal([]string{"passphrase"}))
		Expect(reg.Skill("list_vaults").Sensitive()).To(BeEmpty())
		params := map[string]any{"vault": "blue-7", "passphrase": "hunter-42"}
		d := router.Decision{
			Action: router.Confirm, Skill: "rotate_vault_key", Params: params,
			Message: `rotate blue-7 with passphrase "hunter-42"?`,
			Errors:  []router.Error{{Category: router.CatParams, Message: "hunter-42 is weak"}},
			Trace: []router.TraceStep{{Stage: "judge", Choice: "rotate_vault_key",
				Prompt: "user: rotate blue-7, passphrase hunter-42",
				Raw:    `{"skill":"rotate_vault_key","confidence":0.9,"params":{"vault":"blue-7","passphrase":"hunter-42x"}}`}},
		}
		masked, values := router.MaskSensitive(reg, &d)
		Expect(masked).To(Equal([]string{"passphrase"}))
		Expect(values).To(ContainElements("hunter-42", "hunter-42x"))
		Expect(d.Params).To(Equal(map[string]any{"vault": "blue-7", "passphrase": "***"}))
		Expect(params["passphrase"]).To(Equal("hunter-42"), "the caller's map is left as it was")
		Expect(d.Message).To(Equal(`rotate blue-7 with passphrase "***"?`))
		Expect(d.Errors[0].Message).To(Equal("*** is weak"))
		Expect(d.Trace[0].Prompt).To(Equal("user: rotate blue-7, passphrase ***"))
		// The raw answer's own value differs from the final one; it is masked too.
		var raw struct{ Params map[string]any }
		Expect(json.Unmarshal([]byte(d.Trace[0].Raw), &raw)).To(Succeed())
		Expect(raw.Params).To(Equal(map[string]any{"vault": "blue-7", "passphrase": "***"}))
	})

	It("leaves a decision alone when no skill it names marks a param sensitive", func() {
		d := router.Decision{Action: router.Execute, Skill: "list_vaults", Params: map[string]any{"passphrase": "open-sesame"},
			Message: "open-sesame"}
		names, values := router.MaskSensitive(maskRegistry(), &d)
		Expect(names).To(BeEmpty())
		Expect(values).To(BeEmpty())
		Expect(d.Params["passphrase"]).To(Equal("open-sesame"))
		Expect(d.Message).To(Equal("open-sesame"))
	})

	It("masks given values in free text and string params, copying what it changes", func() {
		note := []any{"code hunter-42 heard", map[string]any{"quote": "hunter-42", "n": 42.0}}
		params := map[string]any{"note": note, "vault": "blue-7"}
		trace := []router.TraceStep{{Stage: "judge", Prompt: "user: hunter-42", Raw: `{"reason":"hunter-42"}`, Note: "ok"}}
		d := router.Decision{Action: router.Clarify, Params: params, Message: "say hunter-42 again", Trace: trace}
		router.MaskDecisionText(&d, []string{"hunter-42", "ab"})
		Expect(d.Params).To(Equal(map[string]any{"vault": "blue-7",
			"note": []any{"code *** heard", map[string]any{"quote": "***", "n": 42.0}}}))
		Expect(d.Message).To(Equal("say *** again"))
		Expect(d.Trace[0].Prompt).To(Equal("user: ***"))
		Expect(d.Trace[0].Raw).To(Equal(`{"reason":"***"}`))
		Expect(note[0]).To(Equal("code hunter-42 heard"), "the caller's list is left as it was")
		Expect(note[1].(map[string]any)["quote"]).To(Equal("hunter-42"), "and its objects")
		Expect(trace[0].Prompt).To(Equal("user: hunter-42"), "and its trace")

		same := map[string]any{"vault": "blue-7"}
		d = router.Decision{Params: same}
		router.MaskDecisionText(&d, []string{"hunter-42"})
		same["probe"] = true
		Expect(d.Params).To(HaveKey("probe"), "nothing to mask: the map is kept, not copied")
	})

	It("masks a short value as a param but not inside free text", func() {
		d := router.Decision{Action: router.Confirm, Skill: "rotate_vault_key", Params: map[string]any{"passphrase": "ab"},
			Message: "grab the vault"}
		names, values := router.MaskSensitive(maskRegistry(), &d)
		Expect(names).To(Equal([]string{"passphrase"}))
		Expect(values).To(BeEmpty(), "too short to mask in text")
		Expect(d.Params["passphrase"]).To(Equal("***"))
		Expect(d.Message).To(Equal("grab the vault"))
	})

	It("masks model answers embedded in a provider envelope, keeping the envelope's types", func() {
		names := map[string]bool{"passphrase": true, "index": true}
		doc := []byte(`{"choices":[{"index":0,"message":{"content":"{\"skill\":\"rotate_vault_key\",\"params\":{\"passphrase\":\"hunter-42\",\"index\":7}}"}}]}`)
		out, values := router.MaskJSONValues(doc, names)
		Expect(values).To(ConsistOf("hunter-42", "7"))
		Expect(string(out)).To(ContainSubstring(`"index":0`))
		Expect(string(out)).To(ContainSubstring(`\"passphrase\":\"***\"`))
		Expect(string(out)).To(ContainSubstring(`\"index\":\"***\"`))
		Expect(string(out)).NotTo(ContainSubstring("hunter-42"))
	})
})
