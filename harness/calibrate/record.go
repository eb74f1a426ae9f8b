// Package calibrate chooses confidence bands from labelled cases.
//
// It routes every case once, under bands that always act, so that each
// case's judge choice, confidence and params verdict are known whatever the
// bands would have been. It then re-derives every case's decision offline at
// each point of a grid of bands, exactly as the router's stage 4 would, and
// recommends bands per side-effect class that keep the wrong-execution rate
// under a target on the cases they were fitted on (by the Wilson upper
// bound), then reports them on cases they were not fitted on.
package calibrate

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

// Outcome is what a case's decision would be in one band region, judged
// with the harness's own indicators, so the sweep scores exactly as `run`.
type Outcome struct {
	Action router.Action `json:"action"`
	Skill  string        `json:"skill,omitempty"`
	Gate   registry.Gate `json:"gate,omitempty"`
	// Offer is what a clarify puts before the user (its top 2 candidates).
	Offer []string `json:"offer,omitempty"`
	// WrongExec and Correct are the case's wrong_execution_rate and
	// decision_accuracy indicators under this outcome.
	WrongExec bool `json:"wrong_exec"`
	Correct   bool `json:"correct"`
}

// Band regions of a banded case, indexes into Record.Outcomes.
const (
	regionAct = iota
	regionClarify
	regionRefuse
)

// Record is one labelled case routed once with always-acting bands.
type Record struct {
	Case  string `json:"case"`
	Suite string `json:"suite"`
	// Expect and ExpectSkill are the case's expected action and skill.
	Expect      router.Action `json:"expect"`
	ExpectSkill string        `json:"expect_skill,omitempty"`
	// Judged is set when the judge answered; JudgeChoice is its skill or
	// "none", JudgeConfidence its confidence (the judge's final attempt).
	Judged          bool    `json:"judged"`
	JudgeChoice     string  `json:"judge_choice,omitempty"`
	JudgeConfidence float64 `json:"judge_confidence"`
	// ByRule is set when a stage-1 trigger decided (confidence 1.0).
	ByRule bool `json:"by_rule,omitempty"`
	// Banded is set when the decision went through the bands: a skill was
	// chosen (by rule or judge). Unbanded decisions (a "none" answer, an
	// invalid skill, no candidates, a judge error) are the same at any bands.
	Banded bool `json:"banded"`
	// Skill, SideEffect and Confidence are what the bands saw.
	Skill      string              `json:"skill,omitempty"`
	SideEffect registry.SideEffect `json:"side_effect,omitempty"`
	Confidence float64             `json:"confidence"`
	// Demotion is what params validation turns an acting decision into:
	// clarify (schema or rule errors), refuse (permission), or "" (valid).
	Demotion router.Action `json:"demotion,omitempty"`
	// Outcomes are the decision when the bands say act, clarify, refuse.
	// An unbanded record has its one fixed outcome in all three.
	Outcomes [3]Outcome `json:"outcomes"`
	// ProviderError is set when the judge failed at the provider.
	ProviderError bool `json:"provider_error,omitempty"`
}

// CollectConfig says what to route.
type CollectConfig struct {
	Version *registry.Version
	Cases   []harness.Case
	// NewRouter builds the router for a version (router.New with the
	// version's models, or overrides). It is given a copy of Version whose
	// bands always act.
	NewRouter func(v *registry.Version) (harness.Router, error)
	// Concurrency is the number of cases routed at once; 0 means one per CPU.
	Concurrency int
}

// ActingVersion is a shallow copy of v whose bands act at any confidence:
// every chosen skill reaches params validation, so a case's demotion is
// known even where the version's own bands would have clarified or refused.
// Nothing else changes: the models, the registry and the fingerprint are v's.
func ActingVersion(v *registry.Version) *registry.Version {
	probe := *v
	probe.Router.Bands = registry.Bands{}
	return &probe
}

// Collect routes every case once under ActingVersion(cfg.Version) and
// returns one record per case, in case order.
func Collect(ctx context.Context, cfg CollectConfig) ([]Record, error) {
	if cfg.Version == nil || cfg.NewRouter == nil {
		return nil, errors.New("calibrate: no version or no router factory")
	}
	rt, err := cfg.NewRouter(ActingVersion(cfg.Version))
	if err != nil {
		return nil, fmt.Errorf("build router for %s: %w", cfg.Version.ID(), err)
	}
	workers := cfg.Concurrency
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	workers = max(1, min(workers, len(cfg.Cases)))
	out := make([]Record, len(cfg.Cases))
	errs := make([]error, len(cfg.Cases))
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				c := &cfg.Cases[i]
				d, err := routeOne(ctx, rt, c)
				if err != nil {
					errs[i] = err
					continue
				}
				out[i] = NewRecord(c, d, registryFor(cfg.Version, c))
			}
		}()
	}
	for i := range cfg.Cases {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("calibrate: %w", err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

func routeOne(ctx context.Context, rt harness.Router, c *harness.Case) (router.Decision, error) {
	req := router.Request{Text: c.Input, Caller: c.Caller, Tools: c.Tools}
	if c.Now != "" {
		now, err := time.Parse(time.RFC3339, c.Now)
		if err != nil {
			return router.Decision{}, fmt.Errorf("case %s: now: %w", c.ID, err)
		}
		req.Now = now
	}
	d, err := rt.Route(ctx, req)
	if err != nil {
		return router.Decision{}, fmt.Errorf("route %s: %w", c.ID, err)
	}
	return d, nil
}

func registryFor(v *registry.Version, c *harness.Case) *registry.Registry {
	if c.Tools != nil {
		return c.Tools
	}
	return v.Registry
}

// NewRecord builds a case's record from its decision under always-acting
// bands (see ActingVersion). reg is the skill set the decision was made
// over. The clarify and refuse outcomes are built as the router's stage 4
// builds them: a clarify names the chosen skill and offers the top 2 of the
// ranking; a refuse names no skill.
func NewRecord(c *harness.Case, d router.Decision, reg *registry.Registry) Record {
	r := Record{
		Case:          c.ID,
		Suite:         c.Suite,
		Expect:        c.Expect.Action,
		ExpectSkill:   c.Expect.Skill,
		ByRule:        d.Stage == harness.StageRules,
		ProviderError: harness.IsProviderError(d),
	}
	if st, ok := lastStep(d, func(st router.TraceStep) bool {
		return st.Stage == harness.StageJudge && st.Confidence != nil && st.Choice != ""
	}); ok {
		r.Judged, r.JudgeChoice, r.JudgeConfidence = true, st.Choice, *st.Confidence
	}
	bands, ok := lastStep(d, func(st router.TraceStep) bool {
		return st.Stage == "bands" && st.Confidence != nil && st.Choice != ""
	})
	// A refusal naming a dropped skill the request asks for replaces
	// whatever the bands chose, so it is the decision at any bands.
	_, explained := lastStep(d, func(st router.TraceStep) bool {
		return st.Stage == router.StageDiagnosis && st.Choice != ""
	})
	if !ok || explained {
		o := outcomeOf(c, d, reg)
		r.Outcomes = [3]Outcome{o, o, o}
		return r
	}
	r.Banded = true
	r.Skill, r.Confidence = bands.Choice, *bands.Confidence
	if s := reg.Skill(r.Skill); s != nil {
		r.SideEffect = s.SideEffect
	}
	if d.Action == router.Clarify || d.Action == router.Refuse {
		r.Demotion = d.Action
	}

	clarify := d
	clarify.Action, clarify.Skill, clarify.Gate = router.Clarify, r.Skill, ""
	clarify.Errors = withoutParamsErrors(d.Errors)
	clarify.Candidates = topTwo(d.Candidates)

	refuse := d
	refuse.Action, refuse.Skill, refuse.Gate = router.Refuse, "", ""
	refuse.Params = map[string]any{}
	refuse.Errors = withoutParamsErrors(d.Errors)

	r.Outcomes[regionAct] = outcomeOf(c, d, reg)
	r.Outcomes[regionClarify] = outcomeOf(c, clarify, reg)
	r.Outcomes[regionRefuse] = outcomeOf(c, refuse, reg)
	return r
}

// outcomeOf judges a decision with the harness's verdict and indicators.
func outcomeOf(c *harness.Case, d router.Decision, reg *registry.Registry) Outcome {
	v := harness.Check(c, d, reg)
	ind := harness.Indicators(harness.Result{Expect: c.Expect, Decision: d, Failure: v.Failure})
	o := Outcome{
		Action:    d.Action,
		Skill:     d.Skill,
		Gate:      d.Gate,
		WrongExec: ind[harness.WrongExecutionRate],
		Correct:   ind[harness.DecisionAccuracy],
	}
	if d.Action == router.Clarify {
		for _, cand := range d.Candidates {
			o.Offer = append(o.Offer, cand.Skill)
		}
	}
	return o
}

func lastStep(d router.Decision, match func(router.TraceStep) bool) (router.TraceStep, bool) {
	for i := len(d.Trace) - 1; i >= 0; i-- {
		if match(d.Trace[i]) {
			return d.Trace[i], true
		}
	}
	return router.TraceStep{}, false
}

// withoutParamsErrors drops params validation errors: a decision the bands
// stop before acting never reaches params validation.
func withoutParamsErrors(errs []router.Error) []router.Error {
	return slices.DeleteFunc(slices.Clone(errs), func(e router.Error) bool {
		return e.Category == router.CatParams
	})
}

func topTwo(cs []router.Candidate) []router.Candidate {
	if len(cs) > 2 {
		return slices.Clone(cs[:2])
	}
	return slices.Clone(cs)
}
