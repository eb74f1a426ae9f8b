// Package suites_test turns every (prompt version, case) of routebench.yaml
// into a Ginkgo spec, labelled so engineers can focus:
//
//	go test ./suites/ -args -ginkgo.label-filter='suite:adversarial && lang:zh'
//	ginkgo --label-filter='skill:refund_order' ./suites
//
// Known failures live in baseline.yaml: a failing case not listed there
// fails its spec (a regression); a listed case that now passes is reported.
// Rewrite the baseline on purpose with
//
//	go test ./suites/ -args -update-baseline    (or ROUTEBENCH_UPDATE_BASELINE=1)
package suites_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/routebench/routebench/internal/specrun"
	"os"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/harness/matchers"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/models"
	"github.com/routebench/routebench/router/registry"
)

const (
	configFile   = "../routebench.yaml"
	baselineFile = "baseline.yaml"
	// outcomeEntry is the report entry each spec leaves for the baseline
	// update, which runs after the suite (on process 1 under ginkgo -p).
	outcomeEntry = "routebench-outcome"
)

var updateBaseline = flag.Bool("update-baseline", false, "rewrite baseline.yaml with the failures of this run")

// versionUnderTest is a prompt version with its router.
type versionUnderTest struct {
	v      *registry.Version
	router *router.Router
	// flows are the version's workflows; the router offers them as skills.
	flows *harness.VersionWorkflows
}

var (
	versions []versionUnderTest
	cases    []harness.Case
	baseline harness.Baseline
)

// TestSuites loads the config, versions, suites and baseline before
// RunSpecs, because specs are built from them.
func TestSuites(t *testing.T) {
	RegisterFailHandler(Fail)
	cfg, err := harness.LoadConfig(configFile)
	if err != nil {
		t.Fatalf("load config: %v", err)
	}
	var regs []*registry.Registry
	for _, dir := range cfg.Versions {
		v, err := registry.Load(dir)
		if err != nil {
			t.Fatalf("load version %s:\n%v", dir, err)
		}
		factory, err := models.ForVersion(v, "", "")
		if err != nil {
			t.Fatalf("models for %s: %v", v.ID(), err)
		}
		flows, err := harness.PrepareWorkflows(v)
		if err != nil {
			t.Fatalf("workflows of %s:\n%v", v.ID(), err)
		}
		rt, err := router.New(flows.RoutingVersion(v), factory)
		if err != nil {
			t.Fatalf("router for %s: %v", v.ID(), err)
		}
		versions = append(versions, versionUnderTest{v: v, router: rt, flows: flows})
		regs = append(regs, flows.Routing)
	}
	if cases, err = harness.LoadSuites(cfg.Suites, regs...); err != nil {
		t.Fatalf("load suites:\n%v", err)
	}
	if baseline, err = harness.LoadBaseline(baselineFile); err != nil {
		t.Fatalf("%v", err)
	}
	specrun.RunSpecs(t, "routebench suites")
}

func updating() bool {
	return *updateBaseline || os.Getenv("ROUTEBENCH_UPDATE_BASELINE") == "1"
}

var _ = Describe("routing", func() {
	var entries []TableEntry
	for i := range versions {
		vut := &versions[i]
		for j := range cases {
			c := &cases[j]
			labels := harness.Labels(vut.v.Name, c)
			entries = append(entries, Entry(fmt.Sprintf("%s %s", vut.v.Name, c.ID), Label(labels...), vut, c))
		}
	}
	DescribeTable("case", checkCase, entries)
})

// checkCase routes one case under one version and holds the decision to
// the case's expectation, modulo the baseline's known failures.
func checkCase(vut *versionUnderTest, c *harness.Case) {
	if c.Workflow != nil {
		checkWorkflowCase(vut, c)
		return
	}
	if c.IsConversation() {
		checkConversationCase(vut, c)
		return
	}
	req := router.Request{Text: c.Input, Caller: c.Caller, Tools: c.Tools}
	if c.Now != "" {
		now, err := time.Parse(time.RFC3339, c.Now)
		Expect(err).NotTo(HaveOccurred())
		req.Now = now
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d, err := vut.router.Route(ctx, req)
	Expect(err).NotTo(HaveOccurred())

	reg := vut.flows.Routing
	if c.Tools != nil {
		reg = c.Tools
	}
	verdict := harness.Check(c, d, reg)
	holdToBaseline(vut, c, verdict, func() string { return matchers.MeetExpectation(c, reg).FailureMessage(d) })
}

// holdToBaseline records the case's outcome for -update-baseline and, when
// judging, fails a case that regressed or whose known failure changed.
func holdToBaseline(vut *versionUnderTest, c *harness.Case, verdict harness.Verdict, explain func() string) {
	// JSON, not a joined string: ids and version names may hold any separator.
	entry, _ := json.Marshal(specOutcome{Version: vut.v.Name, Case: c.ID, Failure: verdict.Failure})
	AddReportEntry(outcomeEntry, string(entry), ReportEntryVisibilityNever)
	if updating() {
		return // recording, not judging
	}
	switch baseline.Judge(vut.v.Name, c.ID, verdict) {
	case harness.Fixed:
		note := fmt.Sprintf("%s %s now passes but baseline.yaml lists it as a known failure; drop it with -update-baseline", vut.v.Name, c.ID)
		AddReportEntry("fixed", note)
		fmt.Fprintln(GinkgoWriter, note)
	case harness.KnownFailing:
		known, _ := baseline.Known(vut.v.Name, c.ID)
		fmt.Fprintf(GinkgoWriter, "known failure (%s): %s\n", known, strings.Join(verdict.Problems, "; "))
	case harness.Changed:
		known, _ := baseline.Known(vut.v.Name, c.ID)
		Fail(fmt.Sprintf("known failure changed category from %s to %s; if that is intended, rewrite the baseline with -update-baseline\n%s",
			known, verdict.Failure, explain()))
	default:
		Expect(verdict.Pass).To(BeTrue(), explain())
	}
}

// checkWorkflowCase routes a workflow case, runs what was decided through
// the engine against the case's scripts, and holds both to the case.
func checkWorkflowCase(vut *versionUnderTest, c *harness.Case) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, verdict, err := harness.EvaluateCase(ctx, vut.router, vut.v, vut.flows, c, 0)
	Expect(err).NotTo(HaveOccurred())
	holdToBaseline(vut, c, verdict, func() string {
		return fmt.Sprintf("%s\ndecided %s; outcome %s", strings.Join(verdict.Problems, "\n"),
			harness.DescribeDecision(res.Decision), res.Workflow.Outcome)
	})
}

// checkConversationCase routes a conversation turn by turn (each turn sees
// the earlier turns and the router's own decisions), holds every turn to
// its expectation, and the conversation, as one case, to the baseline.
func checkConversationCase(vut *versionUnderTest, c *harness.Case) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, verdict, err := harness.EvaluateCase(ctx, vut.router, vut.v, vut.flows, c, 0)
	Expect(err).NotTo(HaveOccurred())
	Expect(res.Turns).To(HaveLen(len(c.Turns)), "every turn is routed")
	reg := vut.flows.Routing
	if c.Tools != nil {
		reg = c.Tools
	}
	holdToBaseline(vut, c, verdict, func() string {
		var b strings.Builder
		for i, t := range res.Turns {
			fmt.Fprintf(&b, "turn %d of %d, user: %q\n", i+1, len(res.Turns), t.Input)
			if t.Pass {
				fmt.Fprintf(&b, "  passed: decided %s\n", harness.DescribeDecision(t.Decision))
				continue
			}
			turn := *c
			turn.Input, turn.Expect, turn.Turns = t.Input, t.Expect, nil
			fmt.Fprintf(&b, "  failed (%s): %s\n", t.Failure, matchers.MeetExpectation(&turn, reg).FailureMessage(t.Decision))
		}
		return b.String()
	})
}

// In update mode, rewrite the baseline from every spec that ran; specs a
// label filter skipped keep their old entries, and entries of cases or
// versions that no longer exist are dropped.
// specOutcome is what each case spec reports for -update-baseline.
type specOutcome struct {
	Version string `json:"version"`
	Case    string `json:"case"`
	Failure string `json:"failure"`
}

var _ = ReportAfterSuite("baseline", func(report Report) {
	if !updating() {
		return
	}
	next := harness.Baseline{}
	ran := map[string]bool{}
	for _, vut := range versions {
		next[vut.v.Name] = []harness.KnownFailure{}
	}
	for _, spec := range report.SpecReports {
		for _, e := range spec.ReportEntries {
			if e.Name != outcomeEntry {
				continue
			}
			var o specOutcome
			if json.Unmarshal([]byte(e.Value.String()), &o) != nil {
				continue
			}
			ran[o.Version+"|"+o.Case] = true
			if o.Failure != "" {
				next[o.Version] = append(next[o.Version], harness.KnownFailure{Case: o.Case, Failure: o.Failure})
			}
		}
	}
	planned := map[string]bool{}
	for _, vut := range versions {
		for _, c := range cases {
			planned[vut.v.Name+"|"+c.ID] = true
		}
	}
	for version, list := range baseline {
		for _, k := range list {
			if key := version + "|" + k.Case; planned[key] && !ran[key] {
				next[version] = append(next[version], k)
			}
		}
	}
	Expect(harness.WriteBaseline(baselineFile, next)).To(Succeed())
	fmt.Fprintf(GinkgoWriter, "rewrote %s\n", baselineFile)
})
