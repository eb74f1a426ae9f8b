package harness_test

import (
	"os"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/internal/specrun"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

func TestHarness(t *testing.T) {
	RegisterFailHandler(Fail)
	// Not ginkgo.RunSpecs: `go test -count=3 -cpu=1,2,8` must work too.
	specrun.RunSpecs(t, "harness")
}

// testRegistry is testdata/skills.yaml: five ops skills.
func testRegistry() *registry.Registry {
	data, err := os.ReadFile("testdata/skills.yaml")
	Expect(err).NotTo(HaveOccurred())
	skills, err := registry.ParseSkills("testdata/skills.yaml", data)
	Expect(err).NotTo(HaveOccurred())
	reg, err := registry.New(skills)
	Expect(err).NotTo(HaveOccurred())
	return reg
}

// testVersion wraps the test registry as a prompt version.
func testVersion(name, fingerprint string) *registry.Version {
	return &registry.Version{Name: name, Fingerprint: fingerprint, Registry: testRegistry()}
}

// fullCaller holds every scope of the test registry except ops:prod.
var fullCaller = router.Caller{Scopes: []string{"orders:read", "orders:write", "alerts:read", "ops:write", "data:delete"}}

// decide is a decision with a trace: policy, optional rules/recall/judge.
func decide(action router.Action, skill string, conf float64) router.Decision {
	d := router.Decision{Action: action, Skill: skill, Confidence: conf, Stage: harness.StageJudge,
		Params: map[string]any{}, Version: "v@1", Model: "fake"}
	d.Trace = []router.TraceStep{
		{Stage: harness.StageRecall, Top: []string{skill}},
		{Stage: harness.StageJudge, Choice: skill},
	}
	if skill == "" {
		d.Trace = []router.TraceStep{{Stage: harness.StageRecall, Top: []string{}}, {Stage: harness.StageJudge, Choice: router.NoneChoice}}
	}
	return d
}

func withParams(d router.Decision, params map[string]any) router.Decision {
	d.Params = params
	return d
}

func withGate(d router.Decision, g registry.Gate) router.Decision {
	d.Gate = g
	return d
}

func eq(v any) harness.ParamMatcher { return harness.ParamMatcher{Equals: v} }
