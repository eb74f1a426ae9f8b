package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
)

// TestDemoResultsDecodeAsEncodingJSON runs the demo (routebench.yaml:
// suites/ops with its conversations and suites/ops-workflows under v1 and
// v2, builtin models) and decodes every line of its results.jsonl with
// harness.DecodeResult, which reads lines without reflection, and with
// json.Unmarshal: the values must be the same.
func TestDemoResultsDecodeAsEncodingJSON(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	code, _, stderr := runCLI("run", "--config", "../../routebench.yaml", "--out", dir, "--history", "")
	g.Expect(code).To(Equal(0), stderr)
	data, err := os.ReadFile(filepath.Join(dir, harness.ResultsFile))
	g.Expect(err).NotTo(HaveOccurred())
	var lines, workflows, conversations int
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var fast, slow harness.Result
		g.Expect(harness.DecodeResult(line, &fast)).To(Succeed())
		g.Expect(json.Unmarshal(line, &slow)).To(Succeed())
		g.Expect(fast).To(Equal(slow), "%s", line)
		lines++
		if slow.Workflow != nil {
			workflows++
		}
		if slow.IsConversation() {
			conversations++
		}
	}
	g.Expect(lines).To(BeNumerically(">", 500))
	g.Expect(workflows).To(BeNumerically(">", 0))
	g.Expect(conversations).To(BeNumerically(">", 0))
}
