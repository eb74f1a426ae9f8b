package workflow_test

import (
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
