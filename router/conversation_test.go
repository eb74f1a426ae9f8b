package router_test

import (
	"context"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/models"
	"github.com/routebench/routebench/router/registry"
)

// A made-up depot domain for conversations, routed by the builtin models:
// two read skills that share a depot param (so "how is the harbor depot"
// is ambiguous between them), a lookup and a cancel decided by an id
// trigger, and a delete only some callers hold.

const depotEnum = `"depot": {"type": "string", "enum": ["harbor", "airport", "central"],
	"x-synonyms": {"harbor": ["港口仓", "港口"], "airport": ["机场仓", "机场"], "central": ["市中心仓"]}}`

func depotSkills() []*registry.Skill {
	return []*registry.Skill{
		build(skillSpec{
			name: "list_deliveries", se: registry.Read, scope: []string{"depot:read"},
			desc: "查看某个仓点在指定日期范围内的配送记录。List the deliveries of one depot in a date range.",
			when: []string{"用户想看某个仓点的配送、派送记录", "the user asks about deliveries of a depot"},
			schema: `{"type": "object", "required": ["depot", "start", "end"], "properties": {` + depotEnum + `,
				"status": {"type": "string", "enum": ["late", "delivered"], "x-synonyms": {"late": ["延误", "迟到"]}}, ` + dateRange + `}}`,
			examples: []string{"list late deliveries at the harbor depot last week", "看看机场仓上周的配送记录", "deliveries of the central depot this month"},
		}),
		build(skillSpec{
			name: "list_faults", se: registry.Read, scope: []string{"depot:read"},
			desc: "查看某个仓点的设备故障。List the equipment faults of one depot.",
			when: []string{"用户问某个仓点的设备故障、报修", "the user asks about broken equipment or faults at a depot"},
			schema: `{"type": "object", "required": ["depot"], "properties": {` + depotEnum + `,
				"level": {"type": "string", "enum": ["critical", "minor"], "x-synonyms": {"critical": ["严重"]}}}}`,
			examples: []string{"any critical faults at the airport depot", "港口仓的设备故障", "broken forklifts at the central depot"},
		}),
		build(skillSpec{
			name: "track_delivery", se: registry.Read, scope: []string{"depot:read"},
			desc:     "按配送单号查看一个配送。Track one delivery by its id.",
			schema:   `{"type": "object", "required": ["delivery_id"], "properties": {"delivery_id": {"type": "string", "pattern": "^DLV-\\d{6}$"}}}`,
			triggers: []*registry.Trigger{trigger(`\bDLV-\d{6}\b`)},
			examples: []string{"where is DLV-100200"},
		}),
		build(skillSpec{
			name: "cancel_delivery", se: registry.Write, scope: []string{"depot:write"}, confirm: registry.GateNormal,
			desc: "取消一个配送。Cancel one delivery by its id.",
			schema: `{"type": "object", "required": ["delivery_id"], "properties": {"delivery_id": {"type": "string", "pattern": "^DLV-\\d{6}$"},
				"reason": {"type": "string", "enum": ["customer", "address"], "x-synonyms": {"address": ["wrong address", "地址错误"]}}}}`,
			triggers: []*registry.Trigger{trigger(`(?i)(cancel|取消).{0,20}\bDLV-\d{6}\b`)},
			examples: []string{"cancel delivery DLV-100200"},
		}),
		build(skillSpec{
			name: "wipe_depot_history", se: registry.Delete, scope: []string{"depot:admin"}, confirm: registry.GateIrreversible,
			desc:     "清空某个仓点的历史记录。Wipe the history of one depot.",
			schema:   `{"type": "object", "required": ["depot"], "properties": {` + depotEnum + `}}`,
			examples: []string{"wipe the history of the harbor depot"},
		}),
	}
}

var depotScopes = []string{"depot:read", "depot:write", "depot:admin"}

func depotRouter() *router.Router {
	v := opsVersion()
	reg, err := registry.New(depotSkills())
	Expect(err).NotTo(HaveOccurred())
	v.Registry = reg
	f, err := models.Factory(models.Builtin, models.Builtin)
	Expect(err).NotTo(HaveOccurred())
	r, err := router.New(v, f)
	Expect(err).NotTo(HaveOccurred())
	return r
}

// follow routes text as the next turn after the given ones.
func follow(r *router.Router, caller router.Caller, text string, turns ...router.Turn) router.Decision {
	d, err := r.Route(context.Background(), router.Request{Text: text, Caller: caller, Now: now, Turns: turns})
	Expect(err).NotTo(HaveOccurred())
	return d
}

func conversationNote(d router.Decision) string {
	for _, t := range d.Trace {
		if t.Stage == router.StageConversation {
			return t.Note
		}
	}
	return ""
}

var _ = Describe("conversations", func() {
	var r *router.Router
	caller := router.Caller{Scopes: depotScopes}
	BeforeEach(func() { r = depotRouter() })

	// first routes a request on its own and returns it as a turn.
	first := func(text string) router.Turn {
		return router.Turn{Text: text, Decision: follow(r, caller, text)}
	}

	Describe("a clarification answered", func() {
		DescribeTable("completes the pending skill's date range and executes",
			func(ask, answer string) {
				t1 := first(ask)
				Expect(t1.Decision.Action).To(Equal(router.Clarify), "%+v", t1.Decision)
				Expect(t1.Decision.Skill).To(Equal("list_deliveries"))
				Expect(t1.Decision.Params).NotTo(HaveKey("start"))

				d := follow(r, caller, answer, t1)
				Expect(d.Action).To(Equal(router.Execute), "%+v", d)
				Expect(d.Skill).To(Equal("list_deliveries"))
				Expect(d.Params).To(Equal(map[string]any{"depot": "harbor", "status": "late", "start": "2026-11-01", "end": "2026-11-15"}))
				Expect(d.Stage).To(Equal(router.StageConversation))
				Expect(stages(d)).To(Equal([]string{"policy", "conversation", "bands", "params"}))
				Expect(conversationNote(d)).To(ContainSubstring("continued the clarification of list_deliveries"))
			},
			Entry("en", "list late deliveries at the harbor depot", "from the 1st to the 15th"),
			Entry("zh", "看看港口仓延误的配送记录", "1号到15号"),
		)

		It("fills an enum from its synonym (zh) and keeps what the earlier turns gave", func() {
			t1 := router.Turn{Text: "show deliveries from the 1st to the 15th", Decision: router.Decision{
				Action: router.Clarify, Skill: "list_deliveries", Confidence: 0.93,
				Params:     map[string]any{"start": "2026-11-01", "end": "2026-11-15"},
				Candidates: []router.Candidate{{Skill: "list_deliveries", Score: 0.93}, {Skill: "list_faults", Score: 0.1}},
				Errors:     []router.Error{{Category: router.CatParams, Layer: router.LayerSchema, Path: "", Rule: "required", Message: "missing property 'depot'"}},
				Message:    "To use list_deliveries, please give depot.",
			}}
			d := follow(r, caller, "机场", t1)
			Expect(d.Action).To(Equal(router.Execute), "%+v", d)
			Expect(d.Params).To(Equal(map[string]any{"depot": "airport", "start": "2026-11-01", "end": "2026-11-15"}))
		})

		It("lets a new value override the earlier one", func() {
			t1 := router.Turn{Text: "harbor deliveries", Decision: router.Decision{
				Action: router.Clarify, Skill: "list_deliveries", Confidence: 0.93,
				Params:     map[string]any{"depot": "harbor"},
				Candidates: []router.Candidate{{Skill: "list_deliveries", Score: 0.93}},
			}}
			d := follow(r, caller, "the central depot, last week", t1)
			Expect(d.Action).To(Equal(router.Execute), "%+v", d)
			Expect(d.Params).To(Equal(map[string]any{"depot": "central", "start": "2026-11-23", "end": "2026-11-29"}))
		})

		It("asks again for just the field still missing", func() {
			t1 := router.Turn{Text: "list deliveries", Decision: router.Decision{
				Action: router.Clarify, Skill: "list_deliveries", Confidence: 0.93, Params: map[string]any{},
				Candidates: []router.Candidate{{Skill: "list_deliveries", Score: 0.93}},
				Message:    "To use list_deliveries, please give depot, start and end.",
			}}
			d := follow(r, caller, "east side? no, the harbor depot", t1)
			Expect(d.Action).To(Equal(router.Clarify), "%+v", d)
			Expect(d.Skill).To(Equal("list_deliveries"))
			Expect(d.Params).To(Equal(map[string]any{"depot": "harbor"}))
			Expect(d.Message).To(HavePrefix("To use list_deliveries, please give start and end ("))
			Expect(d.Message).NotTo(ContainSubstring("depot,"))
		})

		It("takes an id that another skill's trigger matches as the answer to the field asked for", func() {
			t1 := router.Turn{Text: "cancel a delivery", Decision: router.Decision{
				Action: router.Clarify, Skill: "cancel_delivery", Confidence: 0.95, Params: map[string]any{},
				Candidates: []router.Candidate{{Skill: "cancel_delivery", Score: 0.95}},
				Errors:     []router.Error{{Category: router.CatParams, Layer: router.LayerSchema, Rule: "required", Message: "missing property 'delivery_id'"}},
				Message:    "To use cancel_delivery, please give delivery_id.",
			}}
			d := follow(r, caller, "DLV-161803", t1)
			Expect(d.Action).To(Equal(router.Confirm), "%+v", d)
			Expect(d.Skill).To(Equal("cancel_delivery"))
			Expect(d.Params).To(Equal(map[string]any{"delivery_id": "DLV-161803"}))
			Expect(d.Gate).To(Equal(registry.GateNormal))
		})

		DescribeTable("picks one of the offered candidates and continues with it",
			func(answer string) {
				t1 := router.Turn{Text: "how is the harbor depot doing", Decision: router.Decision{
					Action: router.Clarify, Skill: "list_deliveries", Confidence: 0.7,
					Params:     map[string]any{"depot": "harbor"},
					Candidates: []router.Candidate{{Skill: "list_deliveries", Score: 0.7}, {Skill: "list_faults", Score: 0.62}},
					Message:    "Did you mean list_deliveries or list_faults? Please say which one, or rephrase.",
				}}
				d := follow(r, caller, answer, t1)
				Expect(d.Action).To(Equal(router.Execute), "%+v", d)
				Expect(d.Skill).To(Equal("list_faults"))
				Expect(d.Params).To(HaveKeyWithValue("depot", "harbor"), "the earlier turn's depot carries over")
				Expect(d.Confidence).To(Equal(1.0), "the user chose it")
				Expect(conversationNote(d)).To(ContainSubstring("picked list_faults"))
			},
			Entry("by a word of its name", "the faults one"),
			Entry("by a value only it takes", "only the critical ones"),
		)
	})

	Describe("a confirmation answered", func() {
		var pending router.Turn
		BeforeEach(func() {
			pending = first("cancel DLV-314159")
			Expect(pending.Decision.Action).To(Equal(router.Confirm), "%+v", pending.Decision)
			Expect(pending.Decision.Gate).To(Equal(registry.GateNormal))
		})

		DescribeTable("yes executes the confirmed call with its gate recorded",
			func(answer string) {
				d := follow(r, caller, answer, pending)
				Expect(d.Action).To(Equal(router.Execute), "%+v", d)
				Expect(d.Skill).To(Equal("cancel_delivery"))
				Expect(d.Params).To(Equal(map[string]any{"delivery_id": "DLV-314159"}))
				Expect(d.Gate).To(Equal(registry.GateNormal))
				Expect(d.Stage).To(Equal(router.StageConversation))
				Expect(stages(d)).To(Equal([]string{"policy", "conversation", "params"}))
				Expect(conversationNote(d)).To(ContainSubstring("confirmed yes: cancel_delivery"))
			},
			Entry("en", "yes, go ahead"),
			Entry("en, polite", "ok thanks"),
			Entry("zh", "好的"),
			Entry("zh, verb", "确认执行吧"),
		)

		DescribeTable("no refuses and says nothing was done",
			func(answer string) {
				d := follow(r, caller, answer, pending)
				Expect(d.Action).To(Equal(router.Refuse), "%+v", d)
				Expect(d.Skill).To(BeEmpty())
				Expect(d.Message).To(ContainSubstring("nothing was done"))
				Expect(conversationNote(d)).To(HavePrefix("declined"))
			},
			Entry("en", "no"),
			Entry("en, negated assent", "don't do it"),
			Entry("en, negated ok", "not ok"),
			Entry("zh, negated assent", "不行"),
			Entry("zh", "算了吧"),
			Entry("zh, no with content", "取消吧，我再想想"),
		)

		DescribeTable("silence refuses",
			func(answer string) {
				d := follow(r, caller, answer, pending)
				Expect(d.Action).To(Equal(router.Refuse), "%+v", d)
				Expect(d.Message).To(ContainSubstring("nothing was done"))
				Expect(conversationNote(d)).To(HavePrefix("unanswered"))
			},
			Entry("an empty turn", ""),
			Entry("blank", "   "),
			Entry("neither an answer nor a request", "hmm, whatever"),
		)

		It("confirms changed params again instead of running them", func() {
			d := follow(r, caller, "yes, because of a wrong address", pending)
			Expect(d.Action).To(Equal(router.Confirm), "%+v", d)
			Expect(d.Skill).To(Equal("cancel_delivery"))
			Expect(d.Params).To(Equal(map[string]any{"delivery_id": "DLV-314159", "reason": "address"}))
			Expect(d.Gate).To(Equal(registry.GateNormal))
			Expect(conversationNote(d)).To(HavePrefix("changed the params of the pending confirmation of cancel_delivery"))
		})

		It("checks permissions again: a caller who lost the scope is refused on yes", func() {
			d := follow(r, router.Caller{Scopes: []string{"depot:read"}}, "yes", pending)
			Expect(d.Action).To(Equal(router.Refuse), "%+v", d)
			Expect(d.Action.Acts()).To(BeFalse())
			Expect(d.Message).To(ContainSubstring("cancel_delivery is not available to you"))
			Expect(step(d, "policy").Dropped).To(ContainElement("cancel_delivery"))
		})

		It("never acts on a skill dropped for the caller since the earlier turn", func() {
			d := follow(r, router.Caller{Scopes: depotScopes, Disabled: []string{"cancel_delivery"}}, "yes, do it", pending)
			Expect(d.Action).To(Equal(router.Refuse), "%+v", d)
			Expect(d.Skill).To(BeEmpty())
		})
	})

	Describe("a new request in the middle", func() {
		It("starts over after a clarify", func() {
			t1 := first("list late deliveries at the harbor depot")
			Expect(t1.Decision.Action).To(Equal(router.Clarify))
			d := follow(r, caller, "where is DLV-271828", t1)
			Expect(d.Action).To(Equal(router.Execute), "%+v", d)
			Expect(d.Skill).To(Equal("track_delivery"))
			Expect(d.Stage).To(Equal("rules"))
			Expect(conversationNote(d)).To(HavePrefix("started over: the text routes on its own to track_delivery"))
		})

		It("starts over after a confirm", func() {
			pending := first("cancel DLV-314159")
			d := follow(r, caller, "actually, where is DLV-271828", pending)
			Expect(d.Skill).To(Equal("track_delivery"), "%+v", d)
			Expect(d.Action).To(Equal(router.Execute))
			Expect(conversationNote(d)).To(HavePrefix("started over"))
		})

		It("routes as new after a turn that asked nothing", func() {
			t1 := router.Turn{Text: "where is DLV-271828", Decision: router.Decision{Action: router.Execute, Skill: "track_delivery",
				Params: map[string]any{"delivery_id": "DLV-271828"}}}
			d := follow(r, caller, "yes", t1)
			Expect(d.Action).NotTo(Equal(router.Execute), "a yes with nothing pending runs nothing: %+v", d)
			Expect(conversationNote(d)).To(ContainSubstring("nothing was pending"))
		})

		It("never continues a clarify on a skill the caller may not use", func() {
			t1 := router.Turn{Text: "wipe a depot's history", Decision: router.Decision{
				Action: router.Clarify, Skill: "wipe_depot_history", Confidence: 0.97, Params: map[string]any{},
				Candidates: []router.Candidate{{Skill: "wipe_depot_history", Score: 0.97}},
				Message:    "To use wipe_depot_history, please give depot.",
			}}
			d := follow(r, router.Caller{Scopes: []string{"depot:read"}}, "the harbor depot", t1)
			Expect(d.Skill).NotTo(Equal("wipe_depot_history"), "%+v", d)
			for _, t := range d.Trace {
				Expect(t.Choice).NotTo(Equal("wipe_depot_history"))
			}
			Expect(step(d, "policy").Dropped).To(ContainElement("wipe_depot_history"))
		})
	})

	It("gives a model judge the earlier turns", func() {
		j := &scriptJudge{name: "script", answer: always("list_deliveries", 0.95,
			map[string]any{"depot": "harbor", "start": "2026-11-01", "end": "2026-11-15"})}
		v := opsVersion()
		reg, err := registry.New(depotSkills())
		Expect(err).NotTo(HaveOccurred())
		v.Registry = reg
		mr, err := router.New(v, (&fixedFactory{judge: j}).build)
		Expect(err).NotTo(HaveOccurred())
		t1 := router.Turn{Text: "list deliveries at the harbor depot", Decision: router.Decision{
			Action: router.Clarify, Skill: "list_deliveries", Confidence: 0.95, Params: map[string]any{"depot": "harbor"},
			Candidates: []router.Candidate{{Skill: "list_deliveries", Score: 0.95}},
			Message:    "To use list_deliveries, please give start and end.",
		}}
		d := follow(mr, caller, "from the 1st to the 15th", t1)
		Expect(d.Action).To(Equal(router.Execute), "%+v", d)
		calls := j.Calls()
		Expect(calls).To(HaveLen(1))
		Expect(calls[0].Turns).To(Equal([]router.Turn{t1}))
		Expect(calls[0].Text).To(Equal("from the 1st to the 15th"))
		Expect(calls[0].SystemPrompt).NotTo(ContainSubstring(t1.Text), "the system prompt is unchanged")
		Expect(t1.Decision.Summary()).To(Equal(`Router decision: clarify list_deliveries with params {"depot":"harbor"}; offered list_deliveries. Question to the user: To use list_deliveries, please give start and end.`))
		Expect(strings.Count(conversationNote(d), "model judge")).To(Equal(1))
	})
})
