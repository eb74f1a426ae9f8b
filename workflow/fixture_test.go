package workflow_test

import (
	"context"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router/registry"
	"github.com/routebench/routebench/workflow"
)

var _ = Describe("the ops fixture workflows", func() {
	for _, v := range []string{"v2", "v3"} {
		It("load against "+v+"'s registry", func() {
			dir := filepath.Join("..", "fixtures", "ops", "prompts", v)
			ver, err := registry.Load(dir)
			Expect(err).NotTo(HaveOccurred())
			set, err := workflow.LoadDir(dir, ver.Registry)
			Expect(err).NotTo(HaveOccurred())
			Expect(len(set.Workflows)).To(BeNumerically(">=", 4))
			ir := set.Workflow("incident_response")
			Expect(ir).NotTo(BeNil())
			sk := ir.AsSkill()
			Expect(sk.SideEffect).To(Equal(registry.Write))
			Expect(sk.Confirm).To(Equal(registry.GateNormal))
			Expect(set.Workflow("refund_and_notify").AsSkill().Confirm).To(Equal(registry.GateIrreversible))
			Expect(set.Workflow("clean_test_data").AsSkill().SideEffect).To(Equal(registry.Delete))
		})
	}

	It("are the same in v2 and v3", func() {
		a, err := os.ReadFile(filepath.Join("..", "fixtures", "ops", "prompts", "v2", workflow.FileName))
		Expect(err).NotTo(HaveOccurred())
		b, err := os.ReadFile(filepath.Join("..", "fixtures", "ops", "prompts", "v3", workflow.FileName))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(Equal(string(a)))
	})

	It("finds no workflows in a version without the file", func() {
		dir := filepath.Join("..", "fixtures", "ops", "prompts", "v1")
		ver, err := registry.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		set, err := workflow.LoadDir(dir, ver.Registry)
		Expect(err).NotTo(HaveOccurred())
		Expect(set.Workflows).To(BeEmpty())
	})
})

var _ = Describe("the ops fixture workflows, run", func() {
	dir := filepath.Join("..", "fixtures", "ops", "prompts", "v2")
	notify := []workflow.SimResponse{ok(map[string]any{"message_id": "MSG-5"})}
	DescribeTable("complete on good answers, each side effect behind its gate",
		func(name string, params map[string]any, script workflow.SimScript, wantCalls []string, wantGates []string) {
			ver, err := registry.Load(dir)
			Expect(err).NotTo(HaveOccurred())
			set, err := workflow.LoadDir(dir, ver.Registry)
			Expect(err).NotTo(HaveOccurred())
			w := set.Workflow(name)
			c := workflow.NewScriptedConfirmer(workflow.ConfirmResponse{Answer: workflow.Yes})
			e := &workflow.Engine{Tools: workflow.NewSimTools(script), Registry: ver.Registry, Clock: workflow.NewManualClock(epoch)}
			o, err := e.Run(context.Background(), workflow.RunInput{ID: "fx", Workflow: w, Params: params,
				Caller: workflow.Caller{Scopes: w.Scopes()}, Confirmer: c})
			Expect(err).NotTo(HaveOccurred())
			Expect(o.Outcome).To(Equal(workflow.Completed), "%s: %s %s", o.StoppedAt, o.ErrorCode, o.ErrorMessage)
			Expect(o.CallSkills()).To(Equal(wantCalls))
			var gates []string
			for _, q := range c.Asked() {
				gates = append(gates, q.Gate)
			}
			Expect(gates).To(Equal(wantGates))
		},
		Entry("incident_response", "incident_response",
			map[string]any{"zone": "north", "service": "cart-api", "start": "2031-01-02", "end": "2031-01-03", "on_call": "dana.k"},
			workflow.SimScript{
				"query_alerts_by_zone": {ok(map[string]any{"items": []any{map[string]any{"id": "AL-77", "level": "critical", "service": "cart-api"}}})},
				"get_service_metrics":  {ok(map[string]any{"service": "cart-api", "metric": "error_rate", "value": 0.2})},
				"create_ticket":        {ok(map[string]any{"ticket_id": "TCK-424242"})},
				"send_notification":    notify,
			},
			[]string{"query_alerts_by_zone", "get_service_metrics", "create_ticket", "send_notification"}, []string{"normal", "normal"}),
		Entry("refund_and_notify", "refund_and_notify",
			map[string]any{"order_id": "ORD-13572468", "amount": 42},
			workflow.SimScript{
				"get_order":         {ok(map[string]any{"order_id": "ORD-13572468", "status": "paid", "amount": 42, "customer": "kim@shop.example"})},
				"refund_order":      {ok(map[string]any{"refund_id": "RF-9", "status": "accepted"})},
				"send_notification": notify,
			},
			[]string{"get_order", "refund_order", "send_notification"}, []string{"irreversible", "normal"}),
		Entry("clean_test_data", "clean_test_data",
			map[string]any{"dataset": "soak_carts", "env": "test", "cdn_path": "/soak/*"},
			workflow.SimScript{
				"delete_test_data":  {{OK: map[string]any{"deleted": 900}, Preview: &workflow.Preview{Count: 1, Items: []any{"soak_carts"}}}},
				"purge_cdn_cache":   {{OK: map[string]any{"purged": 12}, Preview: preview(12)}},
				"send_notification": notify,
			},
			[]string{"delete_test_data", "purge_cdn_cache", "send_notification"}, []string{"irreversible", "batch", "normal"}),
		Entry("scale_out_with_approval", "scale_out_with_approval",
			map[string]any{"service": "cart-api", "replicas": 9, "env": "staging"},
			workflow.SimScript{
				"get_service_metrics": {ok(map[string]any{"service": "cart-api", "metric": "cpu", "value": 0.93})},
				"scale_service":       {ok(map[string]any{"service": "cart-api", "replicas": 9})},
			},
			[]string{"get_service_metrics", "scale_service"}, []string{"confirm"}),
	)
})
