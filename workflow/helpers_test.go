package workflow_test

import (
	"context"
	"errors"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router/registry"
	"github.com/routebench/routebench/workflow"
)

// lines joins YAML lines so that line N is lines[N-1]: specs name the line
// they expect a problem on without counting.
func lines(ls ...string) []byte { return []byte(strings.Join(ls, "\n") + "\n") }

// testSkills is a made-up registry, unlike the fixtures on purpose.
const testSkills = `
skills:
  - name: list_widgets
    description: List the widgets on one shelf.
    side_effect: read
    permission_scope: [w:read]
    params_schema:
      type: object
      required: [shelf]
      properties:
        shelf: {type: string, minLength: 1}
        colour: {type: string, enum: [red, blue]}
    result_schema:
      type: object
      required: [items]
      properties:
        items:
          type: array
          items: {type: object, properties: {sku: {type: string}, size: {type: string, enum: [s, m, l]}}}
  - name: get_gauge
    description: Read one gauge.
    side_effect: read
    permission_scope: [g:read]
    params_schema:
      type: object
      required: [name]
      properties:
        name: {type: string}
    result_schema:
      type: object
      required: [value]
      properties:
        value: {type: number}
        state: {type: string, enum: [calm, warm, hot]}
  - name: file_report
    description: File a report.
    side_effect: write
    permission_scope: [r:write]
    confirm: normal
    params_schema:
      type: object
      required: [title]
      properties:
        title: {type: string, minLength: 1}
        level: {type: string, enum: [low, high]}
    result_schema:
      type: object
      required: [report_id]
      properties:
        report_id: {type: string}
  - name: ping_team
    description: Ping a team.
    side_effect: send
    permission_scope: [t:send]
    confirm: normal
    params_schema:
      type: object
      required: [to, text]
      properties:
        to: {type: string}
        text: {type: string}
  - name: shred_boxes
    description: Shred boxes.
    side_effect: delete
    permission_scope: [b:delete]
    confirm: batch
    params_schema:
      type: object
      required: [shelf]
      properties:
        shelf: {type: string}
  - name: void_invoice
    description: Void invoices, for good.
    side_effect: write
    permission_scope: [i:write]
    confirm: irreversible
    params_schema:
      type: object
      properties:
        invoice: {type: string}
        invoices: {type: array, items: {type: string}}
  - name: peek_vault
    description: Look into the vault.
    side_effect: read
    permission_scope: [vault:read]
`

// mustSkills parses a made-up skills.yaml.
func mustSkills(doc string) []*registry.Skill {
	GinkgoHelper()
	skills, err := registry.ParseSkills("skills.yaml", []byte(doc))
	Expect(err).NotTo(HaveOccurred())
	return skills
}

func testRegistry() *registry.Registry {
	GinkgoHelper()
	skills, err := registry.ParseSkills("skills.yaml", []byte(testSkills))
	Expect(err).NotTo(HaveOccurred())
	reg, err := registry.New(skills)
	Expect(err).NotTo(HaveOccurred())
	return reg
}

// allScopes holds every scope of testSkills.
var allScopes = []string{"w:read", "g:read", "r:write", "t:send", "b:delete", "i:write", "vault:read"}

func mustParse(reg *registry.Registry, doc []byte) *workflow.Workflow {
	GinkgoHelper()
	set, err := workflow.Parse("workflows.yaml", doc, reg)
	Expect(err).NotTo(HaveOccurred())
	Expect(set.Workflows).NotTo(BeEmpty())
	return set.Workflows[0]
}

func problemLines(err error) []string {
	GinkgoHelper()
	var le *registry.LoadError
	Expect(errors.As(err, &le)).To(BeTrue(), "want a *registry.LoadError, got %v", err)
	return strings.Split(le.Error(), "\n")
}

func expectProblem(ls []string, prefix string, fragments ...string) {
	GinkgoHelper()
	for _, l := range ls {
		if !strings.HasPrefix(l, prefix+" ") {
			continue
		}
		all := true
		for _, f := range fragments {
			all = all && strings.Contains(l, f)
		}
		if all {
			return
		}
	}
	Fail("no problem starting with " + prefix + " containing " + strings.Join(fragments, " & ") + " in:\n" + strings.Join(ls, "\n"))
}

var epoch = time.Date(2031, 5, 4, 3, 2, 1, 0, time.UTC)

// harness bundles what a spec needs to run a workflow against sim tools.
type harness struct {
	reg   *registry.Registry
	tools *workflow.SimTools
	clock *workflow.ManualClock
	store *workflow.MemoryStore
}

func newHarness(script workflow.SimScript) *harness {
	return &harness{reg: testRegistry(), tools: workflow.NewSimTools(script), clock: workflow.NewManualClock(epoch), store: workflow.NewMemoryStore()}
}

func (h *harness) run(w *workflow.Workflow, in workflow.RunInput) *workflow.Outcome {
	GinkgoHelper()
	e := &workflow.Engine{Tools: h.tools, Registry: h.reg, Store: h.store, Clock: h.clock}
	if in.ID == "" {
		in.ID = "run-1"
	}
	in.Workflow = w
	if in.Caller.Scopes == nil {
		in.Caller.Scopes = allScopes
	}
	o, err := e.Run(context.Background(), in)
	Expect(err).NotTo(HaveOccurred())
	g := workflow.Guards(o)
	Expect(g.IllegalRetries).To(BeZero(), "illegal retries")
	Expect(g.DuplicateSideEffects).To(BeZero(), "duplicate side effects")
	Expect(g.WriteOrderViolations).To(BeZero(), "write order")
	Expect(g.ConfirmationMisses).To(BeZero(), "confirmation misses")
	Expect(g.SilentFailures).To(BeZero(), "silent failures")
	Expect(g.UnverifiedClaims).To(BeZero(), "unverified claims reported")
	Expect(g.DoomLoopsMissed).To(BeZero(), "doom loops missed")
	Expect(h.tools.DuplicateSends()).To(BeZero(), "keys sent again after success")
	return o
}

func yes() workflow.Confirmer {
	return workflow.NewScriptedConfirmer(workflow.ConfirmResponse{Answer: workflow.Yes})
}

func ok(v any) workflow.SimResponse { return workflow.SimResponse{OK: v} }

func fault(f workflow.Fault) workflow.SimResponse { return workflow.SimResponse{Fault: f} }

func items(n int) map[string]any {
	list := make([]any, n)
	for i := range list {
		list[i] = map[string]any{"sku": "W-" + string(rune('a'+i%26))}
	}
	return map[string]any{"items": list}
}

func eventsOf(o *workflow.Outcome, kind string) []workflow.Event {
	var out []workflow.Event
	for _, e := range o.Events {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}
