package builtin

import (
	"time"

	"github.com/routebench/routebench/router/registry"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// extractFor runs ExtractParams for a skill of the test registry at testNow.
func extractFor(skill, text string) map[string]any {
	return ExtractParams(skillNamed(testRegistry(), skill), text, testNow)
}

var _ = Describe("ExtractParams", func() {
	DescribeTable("relative dates, now = Monday 2026-11-30 10:00 +08:00",
		func(text, start, end string) {
			got := extractFor("search_logs", text)
			Expect(got).To(HaveKeyWithValue("start", start), text)
			Expect(got).To(HaveKeyWithValue("end", end), text)
		},
		Entry(nil, "payment-api 今天的日志", "2026-11-30", "2026-11-30"),
		Entry(nil, "payment-api logs from today", "2026-11-30", "2026-11-30"),
		Entry(nil, "payment-api 昨天的日志", "2026-11-29", "2026-11-29"),
		Entry(nil, "payment-api logs from yesterday", "2026-11-29", "2026-11-29"),
		Entry(nil, "payment-api 上周的日志", "2026-11-23", "2026-11-29"),
		Entry(nil, "payment-api logs of last week", "2026-11-23", "2026-11-29"),
		Entry(nil, "payment-api 本周的日志", "2026-11-30", "2026-11-30"),
		Entry(nil, "payment-api logs this week", "2026-11-30", "2026-11-30"),
		Entry(nil, "payment-api 最近7天的日志", "2026-11-24", "2026-11-30"),
		Entry(nil, "payment-api 近7天的日志", "2026-11-24", "2026-11-30"),
		Entry(nil, "payment-api 过去7天的日志", "2026-11-24", "2026-11-30"),
		Entry(nil, "payment-api 最近七天的日志", "2026-11-24", "2026-11-30"),
		Entry(nil, "payment-api 近十天的日志", "2026-11-21", "2026-11-30"),
		Entry(nil, "payment-api 最近三十天的日志", "2026-11-01", "2026-11-30"),
		Entry(nil, "payment-api logs for the last 7 days", "2026-11-24", "2026-11-30"),
		Entry(nil, "payment-api logs of the past 3 days", "2026-11-28", "2026-11-30"),
		Entry(nil, "payment-api logs of the last seven days", "2026-11-24", "2026-11-30"),
		Entry(nil, "payment-api 本月的日志", "2026-11-01", "2026-11-30"),
		Entry(nil, "payment-api logs this month", "2026-11-01", "2026-11-30"),
		Entry(nil, "payment-api 上个月的日志", "2026-10-01", "2026-10-31"),
		Entry(nil, "payment-api logs from last month", "2026-10-01", "2026-10-31"),
	)

	DescribeTable("absolute dates and ranges (current year when none is written)",
		func(text, start, end string) {
			Expect(extractFor("search_logs", text)).To(And(HaveKeyWithValue("start", start), HaveKeyWithValue("end", end)), text)
		},
		Entry(nil, "payment-api 2026-11-03 的日志", "2026-11-03", "2026-11-03"),
		Entry(nil, "payment-api 2026/11/3 的日志", "2026-11-03", "2026-11-03"),
		Entry(nil, "payment-api 11月3日的日志", "2026-11-03", "2026-11-03"),
		Entry(nil, "payment-api logs on Nov 3", "2026-11-03", "2026-11-03"),
		Entry(nil, "payment-api logs on 3 November", "2026-11-03", "2026-11-03"),
		Entry(nil, "payment-api logs from 2026-11-01 to 2026-11-15", "2026-11-01", "2026-11-15"),
		Entry(nil, "payment-api 11月3日到11月9日的日志", "2026-11-03", "2026-11-09"),
		Entry(nil, "payment-api 11月3日到9日的日志", "2026-11-03", "2026-11-09"),
		Entry(nil, "payment-api logs 2026/11/10 to 2026/11/20", "2026-11-10", "2026-11-20"),
	)

	DescribeTable("a range of days without a month (an answer to \"which dates?\"): this month's, or last month's when it has not begun",
		func(text, start, end string) {
			Expect(extractFor("search_logs", text)).To(And(HaveKeyWithValue("start", start), HaveKeyWithValue("end", end)), text)
		},
		Entry(nil, "1号到15号", "2026-11-01", "2026-11-15"),
		Entry(nil, "从3日至9日", "2026-11-03", "2026-11-09"),
		Entry(nil, "from the 1st to the 15th", "2026-11-01", "2026-11-15"),
		Entry(nil, "the 2nd through the 20th please", "2026-11-02", "2026-11-20"),
		Entry(nil, "11月3日到9日", "2026-11-03", "2026-11-09"),
		Entry(nil, "nov 3rd to the 9th", "2026-11-03", "2026-11-03"),
	)

	It("puts a day range that has not begun this month in the last one", func() {
		early := time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC)
		s := skillNamed(testRegistry(), "search_logs")
		Expect(ExtractParams(s, "10号到20号", early)).To(And(HaveKeyWithValue("start", "2026-11-10"), HaveKeyWithValue("end", "2026-11-20")))
		Expect(ExtractParams(s, "20号到10号", early)).NotTo(HaveKey("start"), "an end before its start is no range")
	})

	It("reads relative dates in the request's time zone", func() {
		// 01:00 on the 30th in +08:00 is still the 29th in UTC.
		early := time.Date(2026, 11, 30, 1, 0, 0, 0, time.FixedZone("UTC+8", 8*3600))
		got := ExtractParams(skillNamed(testRegistry(), "search_logs"), "payment-api 今天的日志", early)
		Expect(got).To(HaveKeyWithValue("start", "2026-11-30"))
		inUTC := ExtractParams(skillNamed(testRegistry(), "search_logs"), "payment-api 今天的日志", early.UTC())
		Expect(inUTC).To(HaveKeyWithValue("start", "2026-11-29"))
	})

	It("starts weeks on Monday", func() {
		thursday := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
		s := skillNamed(testRegistry(), "search_logs")
		Expect(ExtractParams(s, "payment-api 本周的日志", thursday)).To(And(HaveKeyWithValue("start", "2026-11-30"), HaveKeyWithValue("end", "2026-12-03")))
		Expect(ExtractParams(s, "payment-api 上周的日志", thursday)).To(And(HaveKeyWithValue("start", "2026-11-23"), HaveKeyWithValue("end", "2026-11-29")))
		Expect(ExtractParams(s, "payment-api 上个月的日志", thursday)).To(And(HaveKeyWithValue("start", "2026-11-01"), HaveKeyWithValue("end", "2026-11-30")))
	})

	It("rejects impossible dates", func() {
		Expect(extractFor("search_logs", "payment-api 2026-02-30 的日志")).NotTo(HaveKey("start"))
	})

	DescribeTable("enums by value or x-synonym, longest match first",
		func(skill, text string, want map[string]any) {
			got := extractFor(skill, text)
			for k, v := range want {
				Expect(got).To(HaveKeyWithValue(k, v), text)
			}
		},
		Entry(nil, "query_orders_by_region", "看看华东区的订单", map[string]any{"region": "east"}),
		Entry(nil, "query_orders_by_region", "orders of the EAST region", map[string]any{"region": "east"}),
		Entry(nil, "query_orders_by_region", "orders in south china", map[string]any{"region": "south"}),
		Entry(nil, "query_orders_by_region", "西部大区已发货的订单", map[string]any{"region": "west", "status": "shipped"}),
		Entry(nil, "query_orders_by_region", "refunded orders of north china", map[string]any{"region": "north", "status": "refunded"}),
		Entry(nil, "get_service_metrics", "gateway 的错误率", map[string]any{"metric": "error_rate"}),
		Entry(nil, "get_service_metrics", "error rate of gateway", map[string]any{"metric": "error_rate"}),
		Entry(nil, "get_service_metrics", "payment-api 的响应时间", map[string]any{"metric": "latency"}),
		Entry(nil, "restart_service", "重启线上的 payment-api", map[string]any{"env": "prod", "service": "payment-api"}),
		Entry(nil, "create_ticket", "提一个 P1 工单", map[string]any{"priority": "p1"}),
	)

	It("needs word boundaries for Latin synonyms", func() {
		Expect(extractFor("query_orders_by_region", "at least the orders of yesterday")).NotTo(HaveKey("region"))
		Expect(extractFor("create_ticket", `open a ticket titled "p10 rollout"`)).NotTo(HaveKey("priority"))
	})

	DescribeTable("numbers near the words that name them",
		func(skill, text, param string, want any) {
			Expect(extractFor(skill, text)).To(HaveKeyWithValue(param, want), text)
		},
		Entry(nil, "scale_service", "把 order-service 扩容到 5 个副本", "replicas", 5),
		Entry(nil, "scale_service", "scale order-service to 5 replicas", "replicas", 5),
		Entry(nil, "scale_service", "把 order-service 扩到五个副本", "replicas", 5),
		Entry(nil, "scale_service", "把 3 号机房的 order-service 扩到 12 个副本", "replicas", 12),
		Entry(nil, "refund_order", "给 ORD-20261103 退款 200 元", "amount", 200.0),
		Entry(nil, "refund_order", "refund $200 on ORD-20261103", "amount", 200.0),
		Entry(nil, "refund_order", "please refund 89.5 on ORD-55501234", "amount", 89.5),
		Entry(nil, "refund_order", "refund 1,200 on ORD-55501234", "amount", 1200.0),
	)

	DescribeTable("patterns found inside text",
		func(skill, text, param, want string) {
			Expect(extractFor(skill, text)).To(HaveKeyWithValue(param, want), text)
		},
		Entry(nil, "get_order", "查询订单ORD-42424242的详情", "order_id", "ORD-42424242"),
		Entry(nil, "get_order", "where is (ORD-12345678)?", "order_id", "ORD-12345678"),
		Entry(nil, "get_order", "where is ord-12345678", "order_id", "ORD-12345678"),
		Entry(nil, "get_ticket", "看一下 TCK-123456 的进展", "ticket_id", "TCK-123456"),
		Entry(nil, "broadcast_incident_update", "就 INC-1234 给所有客户发进展", "incident_id", "INC-1234"),
		Entry(nil, "purge_cdn_cache", "刷新 CDN 上 /static/js/app.js 的缓存", "path", "/static/js/app.js"),
		Entry(nil, "purge_cdn_cache", "purge the cdn cache for /images/banner/*, thanks", "path", "/images/banner/*"),
	)

	DescribeTable("strings only where the text clearly gives them",
		func(skill, text string, want map[string]any) {
			got := extractFor(skill, text)
			for k, v := range want {
				Expect(got).To(HaveKeyWithValue(k, v), text)
			}
		},
		Entry(nil, "search_logs", "查一下 payment-api 昨天的 error 日志里有没有 timeout", map[string]any{"service": "payment-api", "level": "error", "keyword": "timeout"}),
		Entry(nil, "search_logs", `search order-service logs for "connection refused"`, map[string]any{"service": "order-service", "keyword": "connection refused"}),
		Entry(nil, "search_logs", "Search today's payment-api logs for trace id 7f3a9c21", map[string]any{"keyword": "7f3a9c21"}),
		Entry(nil, "get_service_metrics", "gateway 今天的错误率是多少", map[string]any{"service": "gateway"}),
		Entry(nil, "send_notification", "用短信通知 zhang.wei：支付网关已恢复", map[string]any{"channel": "sms", "to": "zhang.wei", "message": "支付网关已恢复"}),
		Entry(nil, "send_notification", "send a slack message to #ops-payments: deploy of payment-api finished", map[string]any{"to": "#ops-payments", "message": "deploy of payment-api finished"}),
		Entry(nil, "send_notification", "给 chen.jie 发短信，让他看一下工单进展", map[string]any{"to": "chen.jie", "message": "让他看一下工单进展"}),
		Entry(nil, "send_notification", "email dev-lead@corp.example: the rollout is done", map[string]any{"to": "dev-lead@corp.example", "message": "the rollout is done"}),
		Entry(nil, "create_ticket", "open a ticket for cart-service: cache misses on node-3", map[string]any{"service": "cart-service"}),
		Entry(nil, "create_ticket", `给 payment-api 提一个 P1 工单，标题是"支付回调超时"`, map[string]any{"title": "支付回调超时", "service": "payment-api"}),
		Entry(nil, "create_ticket", `open a p3 ticket titled "search-api slow on page 2"`, map[string]any{"title": "search-api slow on page 2"}),
		Entry(nil, "create_ticket", "新建工单，inventory-service 库存同步延迟，最高优先级", map[string]any{"priority": "p1", "title": "inventory-service 库存同步延迟"}),
		Entry(nil, "create_ticket", "please open a ticket about the expired TLS certificate on gateway", map[string]any{"title": "the expired TLS certificate on gateway"}),
		Entry(nil, "refund_order", "给订单 ORD-20261103 退款 200 元，原因是商品破损", map[string]any{"reason": "商品破损"}),
	)

	DescribeTable("never invents a value the text does not state",
		func(skill, text string, absent ...string) {
			got := extractFor(skill, text)
			for _, k := range absent {
				Expect(got).NotTo(HaveKey(k), "%s: %v", text, got)
			}
		},
		Entry(nil, "query_orders_by_region", "看看华东区的订单", "start", "end", "status"),
		Entry(nil, "search_logs", "is payment-api throwing errors?", "start", "end", "keyword"),
		Entry(nil, "restart_service", "restart the service please", "service", "env"),
		Entry(nil, "create_ticket", "帮我建个工单", "title", "priority", "service"),
		Entry(nil, "refund_order", "refund ORD-20261103 in full", "amount", "reason"),
		Entry(nil, "refund_order", "please refund 89.5 on ORD-55501234, the parcel was lost", "reason"),
		Entry(nil, "get_order", "where is ORD-123456789?", "order_id"),
		Entry(nil, "scale_service", "scale order-service up a bit", "replicas"),
		Entry(nil, "broadcast_incident_update", "broadcast to internal staff that INC-0107 is mitigated", "message"),
		Entry(nil, "send_notification", "notify the team", "to", "message", "channel"),
	)

	It("finds datasets, recipients and services by their shape", func() {
		s := &registry.Skill{Name: "delete_test_data", ParamsSchema: schema([]string{"dataset", "env"}, map[string]any{
			"dataset": map[string]any{"type": "string", "description": "dataset name / 数据集名称"},
			"env":     map[string]any{"type": "string", "enum": []any{"test", "staging"}, "x-synonyms": map[string]any{"staging": []any{"预发环境", "预发"}}},
		})}
		Expect(ExtractParams(s, "删掉预发环境的 cdn_cache_fixtures 测试数据集", testNow)).To(Equal(map[string]any{"dataset": "cdn_cache_fixtures", "env": "staging"}))
		Expect(ExtractParams(s, "delete the mock_users dataset in the test env", testNow)).To(Equal(map[string]any{"dataset": "mock_users", "env": "test"}))
		Expect(ExtractParams(s, "clean up staging", testNow)).To(Equal(map[string]any{"env": "staging"}))

		metrics := skillNamed(testRegistry(), "get_service_metrics")
		Expect(ExtractParams(metrics, "cpu of the checkout service", testNow)).To(HaveKeyWithValue("service", "checkout"))
		Expect(ExtractParams(metrics, "inventory-service 的内存使用情况", testNow)).To(HaveKeyWithValue("service", "inventory-service"))
	})

	It("fills only properties the schema has", func() {
		got := extractFor("get_order", "看看华东区上周 ORD-20261103 的订单，退款 200 元")
		Expect(got).To(Equal(map[string]any{"order_id": "ORD-20261103"}))
	})

	It("returns an empty map for a nil skill or empty text", func() {
		Expect(ExtractParams(nil, "x", testNow)).To(BeEmpty())
		Expect(extractFor("search_logs", "")).To(BeEmpty())
	})
})
