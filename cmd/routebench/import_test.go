package main

import (
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/internal/exitcode"
)

const importData = "../../harness/importer/testdata"

// TestImportRunBFCLCheck imports the made-up BFCL live files, runs them
// and applies bfcl-check: the same commands the README gives for the
// public data.
func TestImportRunBFCLCheck(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	simple, relevance := filepath.Join(dir, "simple"), filepath.Join(dir, "relevance")
	code, stdout, stderr := runCLI("import", "bfcl", importData+"/bfcl/BFCL_v4_live_simple.json",
		"--answers", importData+"/bfcl/possible_answer/BFCL_v4_live_simple.json", "--out", simple)
	g.Expect(code).To(Equal(exitcode.Pass), stderr)
	g.Expect(stdout).To(ContainSubstring("wrote " + simple + "/suites/live_simple.yaml (normal suite, 4 cases)"))
	g.Expect(stdout).To(ContainSubstring("skipped 2:"))
	code, _, stderr = runCLI("import", "bfcl", importData+"/bfcl/BFCL_v4_live_relevance.json", "--out", relevance)
	g.Expect(code).To(Equal(exitcode.Pass), stderr)

	out := filepath.Join(dir, "run")
	code, _, stderr = runCLI("run", "--versions", simple+"/version", "--suites", simple+"/suites,"+relevance+"/suites", "--out", out, "--history", "")
	g.Expect(code).To(BeElementOf(exitcode.Pass, exitcode.GateFailed), stderr)
	code, stdout, stderr = runCLI("bfcl-check", out+"/results.jsonl")
	g.Expect(code).To(Equal(exitcode.Pass), stderr)
	g.Expect(stdout).To(MatchRegexp(`live_relevance\s+2\s+\S+ \(\d/2\) \(relevance: any call\)`))
	g.Expect(stdout).To(MatchRegexp(`live_simple\s+4\s+`))
}

func TestImportReportsAndRefuses(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	code, stdout, stderr := runCLI("import", "openai-tools", importData+"/openai/assistant_tools.json",
		"--side-effect", "send_reply=send", "--side-effect", "close_ticket=delete", "--out", dir)
	g.Expect(code).To(Equal(exitcode.Pass), stderr)
	g.Expect(stdout).To(ContainSubstring("no suites written"))
	g.Expect(stdout).To(ContainSubstring("for search_tickets\n"))
	_, err := os.Stat(filepath.Join(dir, "suites"))
	g.Expect(os.IsNotExist(err)).To(BeTrue(), "no suites folder for a tools file")

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"import", "csv", importData + "/csv/intents.csv", "--answers", "x.json", "--out", dir}, "--answers does not apply to csv; it is for bfcl"},
		{[]string{"import", "bfcl", importData + "/bfcl/BFCL_v4_parallel.json", "--out", dir}, "category parallel is not imported"},
		{[]string{"import", "openai-tools", importData + "/openai/single_tool.json", "--side-effect", "convert_currency=mail", "--out", dir}, `"mail" is not a side effect`},
		{[]string{"import", "yaml", "x", "--out", dir}, `unknown source "yaml"`},
	} {
		code, _, stderr := runCLI(tc.args...)
		g.Expect(code).To(Equal(exitcode.Usage), tc.args)
		g.Expect(stderr).To(ContainSubstring(tc.want))
	}
}
