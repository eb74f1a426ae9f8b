package router_test

import (
	"encoding/json"
	"regexp"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/routebench/routebench/router/registry"
)

// A small hand-built slice of the ops demo domain: enough skills to cover
// every side effect, gate, trigger overlap, rule and x-permission.

const contractJSON = `{
  "type": "object",
  "properties": {
    "skill": {"type": "string", "minLength": 1},
    "confidence": {"type": "number", "minimum": 0, "maximum": 1},
    "params": {"type": "object"},
    "reason": {"type": "string"}
  },
  "required": ["skill", "confidence", "params"],
  "additionalProperties": false
}`

func mustSchema(doc string) (map[string]any, *jsonschema.Schema) {
	var raw map[string]any
	if err := json.Unmarshal([]byte(doc), &raw); err != nil {
		panic(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource("mem:///s.json", raw); err != nil {
		panic(err)
	}
	s, err := c.Compile("mem:///s.json")
	if err != nil {
		panic(err)
	}
	return raw, s
}

func mustRule(expr, msg string) *registry.Rule {
	r, err := registry.NewRule(expr, msg)
	if err != nil {
		panic(err)
	}
	return r
}

func trigger(pattern string) *registry.Trigger {
	return &registry.Trigger{Pattern: pattern, Re: regexp.MustCompile(pattern)}
}

type skillSpec struct {
	name, desc string
	when       []string
	se         registry.SideEffect
	scope      []string
	schema     string
	rules      []*registry.Rule
	triggers   []*registry.Trigger
	examples   []string
	glossary   map[string]string
	confirm    registry.Gate
}

func build(sp skillSpec) *registry.Skill {
	raw, compiled := mustSchema(sp.schema)
	s := &registry.Skill{
		Name: sp.name, Description: sp.desc, WhenToUse: sp.when, SideEffect: sp.se,
		PermissionScope: sp.scope, ParamsSchema: raw, Schema: compiled,
		Rules: sp.rules, Triggers: sp.triggers, Glossary: sp.glossary, Confirm: sp.confirm,
		WhenNotToUse: []string{"anything else"}, CounterExamples: []string{"something unrelated"},
	}
	for _, e := range sp.examples {
		s.Examples = append(s.Examples, registry.Example{Input: e, Params: map[string]any{}})
	}
	return s
}

const dateRange = `"start": {"type": "string", "format": "date"}, "end": {"type": "string", "format": "date"}`

func opsSkills() []*registry.Skill {
	return []*registry.Skill{
		build(skillSpec{
			name: "query_orders_by_region", se: registry.Read, scope: []string{"orders:read"},
			desc: "查询某个销售大区在指定时间段内的订单记录。Look up orders of one sales region in a date range.",
			when: []string{"用户想看某个大区的订单、发货或退款记录"},
			schema: `{"type": "object", "required": ["region", "start", "end"], "additionalProperties": false, "properties": {
				"region": {"type": "string", "enum": ["east", "south", "north", "west"], "x-synonyms": {"east": ["华东"]}},
				"status": {"type": "string", "enum": ["paid", "shipped", "refunded"]}, ` + dateRange + `}}`,
			rules: []*registry.Rule{
				mustRule("date(params.start) <= date(params.end)", "start must not be after end"),
				mustRule("days_between(params.start, params.end) <= 90", "a query spans at most 90 days"),
			},
			examples: []string{"看看华东区上周已发货的订单", "show refunded orders in south china"},
			glossary: map[string]string{"大区": "销售大区 (sales region)"},
		}),
		build(skillSpec{
			name: "query_alerts_by_zone", se: registry.Read, scope: []string{"alerts:read"},
			desc: "查询某个可用区的告警。Look up the alerts of one availability zone in a date range.",
			when: []string{"用户问某个区的告警、报警"},
			schema: `{"type": "object", "required": ["zone", "start", "end"], "properties": {
				"zone": {"type": "string", "enum": ["east", "south", "north", "west"]},
				"severity": {"type": "string", "enum": ["critical", "warning", "info"]}, ` + dateRange + `}}`,
			examples: []string{"华东区最近的告警情况", "any critical alerts in the east zone"},
		}),
		build(skillSpec{
			name: "get_order", se: registry.Read, scope: []string{"orders:read"},
			desc:     "按订单号查看单个订单的详情。Show one order by its id.",
			schema:   `{"type": "object", "required": ["order_id"], "properties": {"order_id": {"type": "string", "pattern": "^ORD-\\d{8}$"}}}`,
			triggers: []*registry.Trigger{trigger(`(?i)\bORD-\d{8}\b`)},
			examples: []string{"where is order ORD-20261103"},
		}),
		build(skillSpec{
			name: "refund_order", se: registry.Write, scope: []string{"orders:write"}, confirm: registry.GateIrreversible,
			desc: "给一个订单退款。Refund one order by its id.",
			schema: `{"type": "object", "required": ["order_id"], "properties": {"order_id": {"type": "string", "pattern": "^ORD-\\d{8}$"},
				"amount": {"type": "number", "exclusiveMinimum": 0}, "reason": {"type": "string"}}}`,
			rules:    []*registry.Rule{mustRule("params.amount > 0 && params.amount <= 5000", "refunds above 5000 are not allowed here")},
			triggers: []*registry.Trigger{trigger(`(?i)(refund|退款).{0,20}\bORD-\d{8}\b|\bORD-\d{8}\b.{0,20}(refund|退款)`)},
			examples: []string{"refund order ORD-20261103"},
		}),
		build(skillSpec{
			name: "restart_service", se: registry.Write, scope: []string{"ops:write"}, confirm: registry.GateNormal,
			desc: "重启一个服务。Restart one service in staging or prod.",
			schema: `{"type": "object", "required": ["service", "env"], "properties": {"service": {"type": "string"},
				"env": {"type": "string", "enum": ["staging", "prod"], "x-permission": {"prod": ["ops:prod"]}}}}`,
			examples: []string{"restart payment-api in staging"},
		}),
		build(skillSpec{
			name: "create_ticket", se: registry.Write, scope: []string{"tickets:write"}, // no confirm: defaults to normal
			desc:     "创建工单。Create a ticket.",
			schema:   `{"type": "object", "required": ["title"], "properties": {"title": {"type": "string"}, "priority": {"type": "string", "enum": ["p1", "p2", "p3", "p4"]}}}`,
			examples: []string{"open a ticket about the checkout bug"},
		}),
		build(skillSpec{
			name: "purge_cdn_cache", se: registry.Delete, scope: []string{"ops:write"}, confirm: registry.GateBatch,
			desc:     "清理 CDN 缓存。Purge the CDN cache under a path.",
			schema:   `{"type": "object", "required": ["path"], "properties": {"path": {"type": "string", "pattern": "^/"}}}`,
			examples: []string{"purge the cdn cache for /static"},
		}),
		build(skillSpec{
			name: "delete_test_data", se: registry.Delete, scope: []string{"data:delete"}, confirm: registry.GateIrreversible,
			desc:     "删除测试数据。Delete a test dataset.",
			schema:   `{"type": "object", "required": ["dataset", "env"], "properties": {"dataset": {"type": "string"}, "env": {"type": "string", "enum": ["test", "staging"]}}}`,
			examples: []string{"delete the test dataset orders_fake"},
		}),
		build(skillSpec{
			name: "send_notification", se: registry.Send, scope: []string{"notify:send"}, confirm: registry.GateNormal,
			desc: "发送通知。Send a message by email, sms or slack.",
			schema: `{"type": "object", "required": ["channel", "to", "message"], "properties": {"channel": {"type": "string", "enum": ["email", "sms", "slack"]},
				"to": {"type": "string"}, "message": {"type": "string"}}}`,
			examples: []string{"send an sms to bob saying the deploy is done"},
		}),
		build(skillSpec{
			name: "check_date", se: registry.Read, scope: []string{"logs:read"},
			desc:     "A rule over an unformatted string, to provoke a rule that fails at run time.",
			schema:   `{"type": "object", "required": ["day"], "properties": {"day": {"type": "string"}}}`,
			rules:    []*registry.Rule{mustRule("date(params.day) <= date('2030-01-01')", "day must be before 2030")},
			examples: []string{"check the date"},
		}),
	}
}

// allScopes is every scope the ops skills need, ops:prod included.
var allScopes = []string{"orders:read", "orders:write", "alerts:read", "logs:read", "tickets:write", "ops:write", "ops:prod", "data:delete", "notify:send"}

func opsVersion() *registry.Version {
	reg, err := registry.New(opsSkills())
	if err != nil {
		panic(err)
	}
	_, contract := mustSchema(contractJSON)
	return &registry.Version{
		Name: "vt", Dir: "test", Fingerprint: "0123456789abcdef",
		Persona:     "PERSONA: you are the ops on-call assistant.",
		Constraints: "CONSTRAINTS: never act on prod without a gate.",
		ContractRaw: []byte(contractJSON), Contract: contract, Registry: reg,
		Router: registry.RouterSettings{TopK: 3, Judge: "fake", Embedder: "fake", Bands: registry.Bands{
			Execute: 0.85, Clarify: 0.60,
			SideEffects: map[registry.SideEffect]registry.Band{
				registry.Write: {Execute: 0.92}, registry.Delete: {Execute: 0.95}, registry.Send: {Execute: 0.92},
			},
		}},
	}
}

func names(skills []*registry.Skill) []string {
	out := make([]string, len(skills))
	for i, s := range skills {
		out[i] = s.Name
	}
	return out
}
