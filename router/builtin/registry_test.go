package builtin

import (
	"time"

	"github.com/routebench/routebench/router/registry"
)

// A small bilingual ops registry of our own, built by hand so these specs
// do not depend on the loader or on the demo fixtures' wording. It keeps
// the classic confusable pairs: orders-by-region vs alerts-by-zone (the
// same 华东/east words), logs vs metrics, get vs refund an order, restart
// vs scale a service.

// regionEnum is the shared region/zone schema with x-synonyms.
func regionEnum(desc string) map[string]any {
	return map[string]any{
		"type": "string", "description": desc,
		"enum": []any{"east", "south", "north", "west"},
		"x-synonyms": map[string]any{
			"east":  []any{"华东", "east china"},
			"south": []any{"华南", "south china"},
			"north": []any{"华北", "north china"},
			"west":  []any{"西南", "西部", "west china"},
		},
	}
}

func dateProp(desc string) map[string]any {
	return map[string]any{"type": "string", "format": "date", "description": desc}
}

func schema(required []string, props map[string]any) map[string]any {
	req := make([]any, len(required))
	for i, r := range required {
		req[i] = r
	}
	return map[string]any{"type": "object", "required": req, "properties": props}
}

func ex(input string, params map[string]any) registry.Example {
	return registry.Example{Input: input, Params: params}
}

// testSkills returns a fresh copy each call, so a spec may edit it.
func testSkills() []*registry.Skill {
	return []*registry.Skill{
		{
			Name:        "query_orders_by_region",
			Description: "查询某个销售大区在指定日期范围内的订单记录，可按订单状态筛选。Look up the orders of one sales region in a date range, optionally by status.",
			WhenToUse:   []string{"用户想看某个大区的订单量、发货或退款记录", "The user asks how many orders a sales region had"},
			WhenNotToUse: []string{"用户问告警、报警或故障情况 (use query_alerts_by_zone)",
				"The user gives one order id (use get_order)"},
			SideEffect: registry.Read,
			ParamsSchema: schema([]string{"region", "start", "end"}, map[string]any{
				"region": regionEnum("sales region / 销售大区"),
				"status": map[string]any{"type": "string", "description": "order status / 订单状态",
					"enum":       []any{"paid", "shipped", "refunded"},
					"x-synonyms": map[string]any{"paid": []any{"已支付", "付款"}, "shipped": []any{"已发货", "发货"}, "refunded": []any{"已退款"}}},
				"start": dateProp("first day"),
				"end":   dateProp("last day"),
			}),
			Examples: []registry.Example{
				ex("看看华东区上周已发货的订单", map[string]any{"region": "east", "status": "shipped"}),
				ex("Show me the refunded orders in south china last month", map[string]any{"region": "south", "status": "refunded"}),
				ex("华北大区最近7天一共有多少订单？", map[string]any{"region": "north"}),
			},
			CounterExamples: []string{"华东区最近的告警情况", "any critical alerts in the east zone this week?"},
			Glossary:        map[string]string{"大区": "销售大区 (sales region)", "订单": "order"},
		},
		{
			Name:         "query_alerts_by_zone",
			Description:  "查询某个机房可用区在指定日期范围内触发的监控告警，可按严重级别筛选。List the monitoring alerts fired in one availability zone in a date range.",
			WhenToUse:    []string{"值班工程师想知道某个可用区有哪些告警、报警", "The on-call engineer asks which alerts fired in a zone"},
			WhenNotToUse: []string{"用户问订单、销售或退款 (use query_orders_by_region)", "The user wants the logs of a service (use search_logs)"},
			SideEffect:   registry.Read,
			ParamsSchema: schema([]string{"zone", "start", "end"}, map[string]any{
				"zone": regionEnum("availability zone / 可用区"),
				"severity": map[string]any{"type": "string", "enum": []any{"critical", "warning", "info"},
					"x-synonyms": map[string]any{"critical": []any{"严重", "紧急"}, "warning": []any{"警告"}}},
				"start": dateProp("first day"),
				"end":   dateProp("last day"),
			}),
			Examples: []registry.Example{
				ex("华东可用区昨天有哪些严重告警", map[string]any{"zone": "east", "severity": "critical"}),
				ex("show critical alerts in the west zone this week", map[string]any{"zone": "west", "severity": "critical"}),
				ex("华南机房最近有没有报警", map[string]any{"zone": "south"}),
			},
			CounterExamples: []string{"华东区上周的订单", "how many orders did the east region get?"},
			Glossary:        map[string]string{"可用区": "availability zone", "告警": "alert"},
		},
		{
			Name:         "search_logs",
			Description:  "在日志平台检索某个服务的日志，可按关键字和日志级别过滤。Search a service's logs for a keyword or level in a date range.",
			WhenToUse:    []string{"用户想看某个服务的错误日志或搜日志里的报错", "The user wants to grep the logs of a service"},
			WhenNotToUse: []string{"用户要看 CPU、内存、QPS 等指标 (use get_service_metrics)"},
			SideEffect:   registry.Read,
			ParamsSchema: schema([]string{"service", "start", "end"}, map[string]any{
				"service": map[string]any{"type": "string", "description": "service name / 服务名"},
				"keyword": map[string]any{"type": "string", "description": "text to search for / 关键字"},
				"level":   map[string]any{"type": "string", "enum": []any{"error", "warn", "info"}},
				"start":   dateProp("first day"),
				"end":     dateProp("last day"),
			}),
			Examples: []registry.Example{
				ex("查一下 payment-api 昨天的 error 日志里有没有 timeout", map[string]any{"service": "payment-api", "level": "error", "keyword": "timeout"}),
				ex(`search order-service logs for "connection refused"`, map[string]any{"service": "order-service", "keyword": "connection refused"}),
			},
			CounterExamples: []string{"payment-api 的 CPU 使用率"},
			Glossary:        map[string]string{"日志": "logs"},
		},
		{
			Name:         "get_service_metrics",
			Description:  "查看某个服务的监控指标：CPU、内存、QPS、延迟或错误率。Show one metric of a service: cpu, memory, qps, latency or error rate.",
			WhenToUse:    []string{"用户想看某个服务的 CPU 使用率、内存、QPS、响应时间或错误率", "The user asks how busy or slow a service is"},
			WhenNotToUse: []string{"用户要搜日志内容 (use search_logs)"},
			SideEffect:   registry.Read,
			ParamsSchema: schema([]string{"service", "metric"}, map[string]any{
				"service": map[string]any{"type": "string", "description": "service name / 服务名"},
				"metric": map[string]any{"type": "string", "enum": []any{"cpu", "memory", "qps", "latency", "error_rate"},
					"x-synonyms": map[string]any{"memory": []any{"内存"}, "latency": []any{"延迟", "响应时间"}, "error_rate": []any{"错误率"}}},
				"start": dateProp("first day"),
				"end":   dateProp("last day"),
			}),
			Examples: []registry.Example{
				ex("order-service 最近7天的 CPU 使用率", map[string]any{"service": "order-service", "metric": "cpu"}),
				ex("what is the error rate of gateway today?", map[string]any{"service": "gateway", "metric": "error_rate"}),
			},
			CounterExamples: []string{"搜一下 payment-api 的报错日志"},
		},
		{
			Name:         "get_order",
			Description:  "按订单号（ORD- 加 8 位数字）查看单个订单的详情。Show the details of one order by its id.",
			WhenToUse:    []string{"用户给出一个订单号，想知道状态或物流", "The user pastes an order id and asks where it is"},
			WhenNotToUse: []string{"用户要给这笔订单退款 (use refund_order)"},
			SideEffect:   registry.Read,
			ParamsSchema: schema([]string{"order_id"}, map[string]any{
				"order_id": map[string]any{"type": "string", "pattern": `^ORD-\d{8}$`},
			}),
			Examples: []registry.Example{
				ex("帮我查一下订单 ORD-20261103 的状态", map[string]any{"order_id": "ORD-20261103"}),
				ex("where is my order ORD-88123456?", map[string]any{"order_id": "ORD-88123456"}),
			},
			CounterExamples: []string{"给 ORD-20261103 退款 200 元"},
		},
		{
			Name:         "refund_order",
			Description:  "给一个订单退款，可部分退款。Refund one order, fully or partly.",
			WhenToUse:    []string{"用户要求给某个订单退款", "The user asks to refund an order"},
			WhenNotToUse: []string{"用户只是查询退款进度 (use get_order)"},
			SideEffect:   registry.Write,
			ParamsSchema: schema([]string{"order_id"}, map[string]any{
				"order_id": map[string]any{"type": "string", "pattern": `^ORD-\d{8}$`},
				"amount":   map[string]any{"type": "number", "exclusiveMinimum": 0, "description": "refund amount in CNY / 退款金额（元）"},
				"reason":   map[string]any{"type": "string", "description": "why / 退款原因"},
			}),
			Examples: []registry.Example{
				ex("给订单 ORD-20261103 退款 200 元，原因是商品破损", map[string]any{"order_id": "ORD-20261103", "amount": 200.0, "reason": "商品破损"}),
				ex("please refund 89.5 on ORD-55501234", map[string]any{"order_id": "ORD-55501234", "amount": 89.5}),
			},
			CounterExamples: []string{"查一下 ORD-20261103 的退款进度"},
			Confirm:         registry.GateIrreversible,
		},
		{
			Name:         "restart_service",
			Description:  "重启一个服务的全部实例。Restart all instances of one service in staging or prod.",
			WhenToUse:    []string{"服务卡住了，用户要重启", "The user asks to restart or bounce a service"},
			WhenNotToUse: []string{"用户要调整副本数 (use scale_service)"},
			SideEffect:   registry.Write,
			ParamsSchema: schema([]string{"service", "env"}, map[string]any{
				"service": map[string]any{"type": "string", "description": "service name / 服务名"},
				"env": map[string]any{"type": "string", "enum": []any{"staging", "prod"},
					"x-synonyms": map[string]any{"staging": []any{"预发", "预发环境"}, "prod": []any{"生产", "线上", "production"}}},
			}),
			Examples: []registry.Example{
				ex("重启一下预发环境的 order-service", map[string]any{"service": "order-service", "env": "staging"}),
				ex("restart search-api in staging please, it is stuck", map[string]any{"service": "search-api", "env": "staging"}),
			},
			CounterExamples: []string{"把 order-service 扩容到 10 个副本"},
			Confirm:         registry.GateNormal,
		},
		{
			Name:         "scale_service",
			Description:  "调整一个服务的副本数（扩容或缩容）。Scale a service to a number of replicas.",
			WhenToUse:    []string{"用户要扩容或缩容某个服务", "The user asks for more or fewer replicas of a service"},
			WhenNotToUse: []string{"用户只想重启服务 (use restart_service)"},
			SideEffect:   registry.Write,
			ParamsSchema: schema([]string{"service", "replicas"}, map[string]any{
				"service":  map[string]any{"type": "string", "description": "service name / 服务名"},
				"replicas": map[string]any{"type": "integer", "minimum": 1, "maximum": 50, "description": "target replica count / 目标副本数"},
				"env": map[string]any{"type": "string", "enum": []any{"staging", "prod"},
					"x-synonyms": map[string]any{"staging": []any{"预发", "预发环境"}, "prod": []any{"生产", "线上", "production"}}},
			}),
			Examples: []registry.Example{
				ex("把预发的 order-service 扩容到 10 个副本", map[string]any{"service": "order-service", "replicas": 10, "env": "staging"}),
				ex("scale search-api to 4 replicas in staging", map[string]any{"service": "search-api", "replicas": 4, "env": "staging"}),
			},
			CounterExamples: []string{"重启一下 order-service"},
			Confirm:         registry.GateNormal,
		},
		{
			Name:        "create_ticket",
			Description: "新建一张运维工单。Open a new ops ticket with a title and a priority.",
			WhenToUse:   []string{"用户要提一个工单跟进问题", "The user asks to file or open a ticket"},
			SideEffect:  registry.Write,
			ParamsSchema: schema([]string{"title"}, map[string]any{
				"title": map[string]any{"type": "string", "description": "short summary / 工单标题"},
				"priority": map[string]any{"type": "string", "enum": []any{"p1", "p2", "p3", "p4"},
					"x-synonyms": map[string]any{"p1": []any{"最高优先级", "urgent"}}},
				"service": map[string]any{"type": "string", "description": "affected service / 相关服务"},
			}),
			Examples: []registry.Example{
				ex(`给 payment-api 提一个 P1 工单，标题是"支付回调超时"`, map[string]any{"priority": "p1", "service": "payment-api", "title": "支付回调超时"}),
				ex(`open a p3 ticket titled "search slow on page 2"`, map[string]any{"priority": "p3", "title": "search slow on page 2"}),
			},
			CounterExamples: []string{"TCK-204518 现在谁在处理"},
			Confirm:         registry.GateNormal,
		},
		{
			Name:        "get_ticket",
			Description: "按工单号（TCK- 加 6 位数字）查看工单详情。Show one ticket by its id.",
			WhenToUse:   []string{"用户给出工单号，想知道进展或处理人"},
			SideEffect:  registry.Read,
			ParamsSchema: schema([]string{"ticket_id"}, map[string]any{
				"ticket_id": map[string]any{"type": "string", "pattern": `^TCK-\d{6}$`},
			}),
			Examples: []registry.Example{ex("工单 TCK-204518 现在谁在处理？", map[string]any{"ticket_id": "TCK-204518"})},
		},
		{
			Name:        "purge_cdn_cache",
			Description: "刷新 CDN 上某个路径的缓存。Purge the CDN cache of a URL path.",
			WhenToUse:   []string{"用户要刷新或清除 CDN 缓存", "The user asks to purge or invalidate the CDN for a path"},
			SideEffect:  registry.Delete,
			ParamsSchema: schema([]string{"path"}, map[string]any{
				"path": map[string]any{"type": "string", "pattern": "^/", "description": "URL path"},
			}),
			Examples:        []registry.Example{ex("刷新一下 CDN 上 /static/js/app.js 的缓存", map[string]any{"path": "/static/js/app.js"})},
			CounterExamples: []string{"把预发环境的 loadtest_orders 数据集删掉"},
			Confirm:         registry.GateBatch,
		},
		{
			Name:         "send_notification",
			Description:  "给一个人或一个频道发一条通知：邮件、短信或 Slack。Send one message to one person or channel by email, sms or slack.",
			WhenToUse:    []string{"用户要通知某个人或某个频道", "The user asks to text or email someone"},
			WhenNotToUse: []string{"要就事故给全部客户或全员群发 (use broadcast_incident_update)"},
			SideEffect:   registry.Send,
			ParamsSchema: schema([]string{"channel", "to", "message"}, map[string]any{
				"channel": map[string]any{"type": "string", "enum": []any{"email", "sms", "slack"},
					"x-synonyms": map[string]any{"email": []any{"邮件"}, "sms": []any{"短信", "text message"}}},
				"to":      map[string]any{"type": "string", "description": "recipient / 接收人"},
				"message": map[string]any{"type": "string", "description": "the text to send / 消息内容"},
			}),
			Examples: []registry.Example{
				ex("用短信通知 zhang.wei：支付网关已恢复", map[string]any{"channel": "sms", "to": "zhang.wei", "message": "支付网关已恢复"}),
				ex("send a slack message to #ops-payments: deploy finished", map[string]any{"channel": "slack", "to": "#ops-payments", "message": "deploy finished"}),
			},
			Confirm: registry.GateNormal,
		},
		{
			Name:        "broadcast_incident_update",
			Description: "就一个事故（INC- 加 4 位数字）向内部或全部客户群发进展。Broadcast an update on one incident to staff or to all customers.",
			WhenToUse:   []string{"事故处理中需要对客户或全员同步进展"},
			SideEffect:  registry.Send,
			ParamsSchema: schema([]string{"incident_id", "audience"}, map[string]any{
				"incident_id": map[string]any{"type": "string", "pattern": `^INC-\d{4}$`},
				"audience": map[string]any{"type": "string", "enum": []any{"internal", "customers"},
					"x-synonyms": map[string]any{"internal": []any{"内部", "全员", "staff"}, "customers": []any{"客户", "所有客户"}}},
				"message": map[string]any{"type": "string", "description": "the update text / 通报内容"},
			}),
			Examples: []registry.Example{ex("就 INC-0042 给所有客户发一条进展：支付功能已恢复", map[string]any{"incident_id": "INC-0042", "audience": "customers", "message": "支付功能已恢复"})},
			Confirm:  registry.GateBatch,
		},
	}
}

func testRegistry() *registry.Registry { return &registry.Registry{Skills: testSkills()} }

// skillNamed finds a skill of a test registry by name.
func skillNamed(reg *registry.Registry, name string) *registry.Skill {
	for _, s := range reg.Skills {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// testNow is the suites' default now: a Monday in UTC+8.
var testNow = time.Date(2026, 11, 30, 10, 0, 0, 0, time.FixedZone("UTC+8", 8*3600))
