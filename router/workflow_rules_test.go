package router_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

// A made-up billing domain: two triggered skills, one without a trigger,
// and workflows seen as skills (what workflow.AsSkill hands the router),
// built by hand so these specs depend on the router alone.

const invoiceSchema = `{"type": "object", "required": ["invoice_id"], "properties": {"invoice_id": {"type": "string", "pattern": "^INV-\\d{6}$"}}}`

func billingSkills(withWorkflow bool) []*registry.Skill {
	skills := []*registry.Skill{
		build(skillSpec{
			name: "lookup_invoice", se: registry.Read, scope: []string{"billing:read"},
			desc: "Show one invoice.", schema: invoiceSchema,
			examples: []string{"show invoice INV-000001"},
		}),
		build(skillSpec{
			name: "void_invoice", se: registry.Write, scope: []string{"billing:write"}, confirm: registry.GateIrreversible,
			desc: "Void one invoice.", schema: invoiceSchema,
			triggers: []*registry.Trigger{trigger(`(?i)\bvoid\b.{0,20}\bINV-\d{6}\b`)},
			examples: []string{"void INV-000001"},
		}),
		build(skillSpec{
			name: "email_client", se: registry.Send, scope: []string{"mail:send"}, confirm: registry.GateNormal,
			desc:     "Email the invoice's client.",
			schema:   `{"type": "object", "required": ["message"], "properties": {"message": {"type": "string"}}}`,
			triggers: []*registry.Trigger{trigger(`(?i)\bemail (the )?client\b`)},
			examples: []string{"email the client that the invoice is paid"},
		}),
	}
	// An unrelated workflow: its nodes call no triggered skill, so it must
	// never stop a rule from deciding.
	report := build(skillSpec{
		name: "monthly_invoice_report", se: registry.Read, scope: []string{"billing:read"},
		desc: "Summarize this month's invoices.", schema: `{"type": "object"}`,
		examples: []string{"summarize this month's invoices"},
	})
	report.Steps = []string{"lookup_invoice"}
	skills = append(skills, report)
	if withWorkflow {
		wf := build(skillSpec{
			name: "void_and_email", se: registry.Write, confirm: registry.GateIrreversible,
			scope: []string{"billing:read", "billing:write", "mail:send"},
			desc:  "Void an invoice and tell its client.", schema: invoiceSchema,
			examples: []string{"void INV-000001 and email the client"},
		})
		wf.Steps = []string{"lookup_invoice", "void_invoice", "email_client"}
		skills = append(skills, wf)
	}
	return skills
}

var billingScopes = []string{"billing:read", "billing:write", "mail:send"}

func billingRouter(j *scriptJudge, withWorkflow bool) *router.Router {
	v := opsVersion()
	reg, err := registry.New(billingSkills(withWorkflow))
	Expect(err).NotTo(HaveOccurred())
	v.Registry = reg
	r, err := router.New(v, (&fixedFactory{judge: j}).build)
	Expect(err).NotTo(HaveOccurred())
	return r
}

func routeAs(r *router.Router, text string, caller router.Caller) router.Decision {
	d, err := r.Route(context.Background(), router.Request{Text: text, Caller: caller, Now: now})
	Expect(err).NotTo(HaveOccurred())
	return d
}

var voidParams = map[string]any{"invoice_id": "INV-123456"}

var _ = Describe("stage 1: workflows over matched skills", func() {
	It("lets the judge choose between one matched skill and a workflow whose nodes call it", func() {
		j := &scriptJudge{name: "fake", answer: always("void_and_email", 0.95, voidParams)}
		r := billingRouter(j, true)
		d := routeAs(r, "void INV-123456 now", router.Caller{Scopes: billingScopes})
		rules := step(d, "rules")
		Expect(rules.Matched).To(Equal([]string{"void_invoice"}), "the trace keeps what the triggers matched")
		Expect(rules.Note).To(ContainSubstring("the rule does not decide"))
		Expect(rules.Note).To(ContainSubstring("void_and_email (calls void_invoice)"))
		Expect(rules.Note).NotTo(ContainSubstring("monthly_invoice_report"))
		Expect(stages(d)).NotTo(ContainElement("recall"))
		Expect(names(j.Calls()[0].Candidates)).To(ConsistOf("void_invoice", "void_and_email"))
		Expect(d.Candidates).To(HaveLen(2))
		Expect(d.Stage).To(Equal("judge"), "not a rule decision: rule_precision does not count it")
		Expect(d.Skill).To(Equal("void_and_email"))
		Expect(d.Confidence).To(Equal(0.95))
		Expect(d.Action).To(Equal(router.Confirm))
		Expect(d.Gate).To(Equal(registry.GateIrreversible))
	})

	It("still decides at 1.0 on one match when no workflow calls the matched skill", func() {
		j := &scriptJudge{name: "fake", answer: always("void_invoice", 0.3, voidParams)}
		r := billingRouter(j, false)
		d := routeAs(r, "void INV-123456 now", router.Caller{Scopes: billingScopes})
		Expect(d.Stage).To(Equal("rules"))
		Expect(d.Skill).To(Equal("void_invoice"))
		Expect(d.Confidence).To(Equal(1.0))
		Expect(step(d, "rules").Note).To(BeEmpty())
		Expect(names(j.Calls()[0].Candidates)).To(Equal([]string{"void_invoice"}))
		Expect(d.Candidates).To(Equal([]router.Candidate{{Skill: "void_invoice", Score: 1}}))
	})

	It("lets a matched read decide alone: a workflow joins for the side effects it exists for, not the lookups it starts with", func() {
		j := &scriptJudge{name: "fake", answer: always("void_and_email", 0.99, voidParams)}
		skills := billingSkills(true)
		skills[0].Triggers = []*registry.Trigger{trigger(`(?i)\bshow\b.{0,20}\bINV-\d{6}\b`)}
		v := opsVersion()
		reg, err := registry.New(skills)
		Expect(err).NotTo(HaveOccurred())
		v.Registry = reg
		r, err := router.New(v, (&fixedFactory{judge: j}).build)
		Expect(err).NotTo(HaveOccurred())
		d := routeAs(r, "show INV-123456", router.Caller{Scopes: billingScopes})
		Expect(step(d, "rules").Matched).To(Equal([]string{"lookup_invoice"}))
		Expect(d.Stage).To(Equal("rules"))
		Expect(d.Skill).To(Equal("lookup_invoice"))
		Expect(d.Confidence).To(Equal(1.0))
	})

	DescribeTable("never adds a workflow over the matched skill that the caller may not use",
		func(caller router.Caller) {
			j := &scriptJudge{name: "fake", answer: always("void_invoice", 0.3, voidParams)}
			r := billingRouter(j, true)
			d := routeAs(r, "void INV-123456 now", caller)
			Expect(step(d, "policy").Dropped).To(ContainElement("void_and_email"))
			Expect(d.Stage).To(Equal("rules"), "with the workflow out of reach the rule decides as before")
			Expect(d.Confidence).To(Equal(1.0))
			Expect(step(d, "rules").Note).To(BeEmpty())
			for _, c := range j.Calls() {
				Expect(names(c.Candidates)).NotTo(ContainElement("void_and_email"))
			}
		},
		Entry("out of scope: a node's skill needs mail:send", router.Caller{Scopes: []string{"billing:read", "billing:write"}}),
		Entry("disabled for the caller", router.Caller{Scopes: billingScopes, Disabled: []string{"void_and_email"}}),
		Entry("a node's skill disabled for the caller", router.Caller{Scopes: billingScopes, Disabled: []string{"email_client"}}),
	)

	It("does not bring in a workflow over a disabled skill through a signal shared with a matched one", func() {
		// The id alone matches lookup-by-id; the workflow also voids, which
		// the caller switched off: it must stay out of the judge's sight.
		j := &scriptJudge{name: "fake", answer: always("void_and_email", 1, voidParams)}
		skills := billingSkills(true)
		skills[0].Triggers = []*registry.Trigger{trigger(`\bINV-\d{6}\b`)}
		v := opsVersion()
		reg, err := registry.New(skills)
		Expect(err).NotTo(HaveOccurred())
		v.Registry = reg
		r, err := router.New(v, (&fixedFactory{judge: j}).build)
		Expect(err).NotTo(HaveOccurred())
		d := routeAs(r, "void INV-123456 now", router.Caller{Scopes: billingScopes, Disabled: []string{"void_invoice"}})
		Expect(step(d, "policy").Dropped).To(ConsistOf("void_and_email", "void_invoice"))
		Expect(step(d, "rules").Matched).To(Equal([]string{"lookup_invoice"}))
		Expect(names(j.Calls()[0].Candidates)).NotTo(ContainElement("void_and_email"))
		Expect(d.Action.Acts()).To(BeFalse())
	})

	It("adds a workflow over several matched skills to them, and the judge weighs all of them", func() {
		j := &scriptJudge{name: "fake", answer: always("void_and_email", 0.95, voidParams)}
		r := billingRouter(j, true)
		d := routeAs(r, "void INV-123456 and email the client", router.Caller{Scopes: billingScopes})
		rules := step(d, "rules")
		Expect(rules.Matched).To(Equal([]string{"void_invoice", "email_client"}))
		Expect(rules.Note).To(ContainSubstring("several skills matched"))
		Expect(rules.Note).To(ContainSubstring("void_and_email (calls void_invoice, email_client)"))
		Expect(stages(d)).NotTo(ContainElement("recall"))
		Expect(names(j.Calls()[0].Candidates)).To(ConsistOf("void_invoice", "email_client", "void_and_email"))
		Expect(j.Calls()[0].Recall).To(HaveLen(3), "the pool is ranked, as several matches are")
		Expect(d.Stage).To(Equal("judge"))
		Expect(d.Skill).To(Equal("void_and_email"))
	})
})
