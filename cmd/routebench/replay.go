package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/internal/exitcode"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/models"
	"github.com/routebench/routebench/router/registry"
	"github.com/routebench/routebench/router/target"
)

func init() { subcommands = append(subcommands, newReplayCmd) }

type replayOptions struct {
	version   string
	config    string
	versions  []string
	suites    []string
	judge     string
	embedder  string
	tolerance float64
	wide      bool
	target    string
}

func newReplayCmd() *cobra.Command {
	var o replayOptions
	cmd := &cobra.Command{
		Use:   "replay RESULTS.jsonl CASE_ID [--version V]",
		Short: "Re-run one recorded case exactly as recorded and say whether the decision changed",
		Long: `Re-run one case (every turn of a conversation) of a results.jsonl with the
same prompt version, caller, now, per-case tools, judge and embedder, and
print its whole trace, the composed judge prompt (system and user messages
as the judge got them; the builtin judge has none, so the candidate texts it
scored are shown), the judge's raw output, and a field-by-field comparison
with the recorded decision: action, skill, params, confidence (within
--tolerance), gate and stage.

The version is found by the results' version name: in --versions, else in
plan.json beside RESULTS.jsonl, else in the config's versions. Its
fingerprint must equal the recorded one. The case is found in --suites,
else plan.json's suites, else the config's, and must hash as recorded.
Model judges answer from the cassette store: --cassettes defaults to replay
here, so nothing goes to the network and a missing entry is an error.
Params marked x-sensitive print as "***". A workflow case replays its
routing decision; the engine run is not replayed.

When the results hold the case under several versions, --version picks one
by name (v2) or full id (v2@3f9a1c2e).

--target http://HOST/route or exec:CMD replays the case through that router
(DESIGN §13) instead of routebench's own; a case recorded from a target
needs it (a replay never starts a command it read from a results file). An
HTTP target's answers come from the cassettes like a model judge's.

Exit codes: 0 today's decision is the recorded one, 1 it differs, 2 bad
flags or input (no such case, several versions and no --version, the version
or the case changed since the recording, no version directory found),
3 the judge failed (a missing cassette entry, a provider error).

Examples:
  routebench replay out/results.jsonl refund-partial-003
  routebench replay out/results.jsonl refund-partial-003 --version v2
  routebench replay out/results.jsonl conv-dates-followup --versions fixtures/ops/prompts/v2 --suites suites/ops
  routebench replay out/results.jsonl ask-llm-007 --cassettes replay --cassette-dir fixtures/cassettes
  routebench replay out/results.jsonl refund-partial-003 --target http://127.0.0.1:8080/route --cassettes auto`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return replayCommand(cmd, args[0], args[1], o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.version, "version", "", "which recorded version to replay: its name (v2) or full id (v2@3f9a1c2e)")
	f.StringVar(&o.config, "config", "", "config naming versions and suites (default routebench.yaml when present)")
	f.StringSliceVar(&o.versions, "versions", nil, "prompt version directories or git:REV:DIR to find the recorded version in")
	f.StringSliceVar(&o.suites, "suites", nil, "suite files or directories to find the case in")
	f.StringVar(&o.judge, "judge", "", "judge to replay with (default: the recorded decision's model)")
	f.StringVar(&o.embedder, "embedder", "", "embedder to replay with (default: the version's)")
	f.Float64Var(&o.tolerance, "tolerance", 1e-6, "largest confidence change that counts as the same")
	f.BoolVar(&o.wide, "wide", false, "one line per trace step and text, whatever the terminal width")
	addTargetFlag(f, &o.target)
	return withProviderFlags(cmd)
}

func replayCommand(cmd *cobra.Command, resultsPath, caseID string, o replayOptions) error {
	// Trace steps and judge texts run to hundreds of columns: the whole
	// output is folded to the width once written, on every exit path.
	out := &strings.Builder{}
	defer func() {
		w := cmd.OutOrStdout()
		writeFolded(w, out.String(), textWidth(w, o.wide))
	}()
	recorded, err := pickRecorded(resultsPath, caseID, o.version)
	if err != nil {
		return err
	}
	sources := replaySources(resultsPath, o)
	v, err := findRecordedVersion(recorded.Version, sources)
	if err != nil {
		return err
	}
	c, err := findRecordedCase(recorded, v, sources)
	if err != nil {
		return err
	}
	tg, err := parseTarget(o.target, o.judge, o.embedder)
	if err != nil {
		return err
	}
	defer tg.Close()
	if recordedBy, ok := strings.CutPrefix(recorded.Decision.Model, target.ModelPrefix); ok && tg == nil {
		return exitcode.Usagef("replay: %s was recorded from target %s; give --target %q to replay it through that target (a replay never starts a command read from a results file)", recorded.Case, recordedBy, recordedBy)
	}
	var calls judgeCalls
	vw, err := harness.PrepareWorkflows(v)
	if err != nil {
		return exitcode.With(exitcode.Usage, fmt.Errorf("replay: workflows of %s: %w", v.ID(), err))
	}
	rv := vw.RoutingVersion(v)
	var rt harness.Router
	if tg != nil {
		if rt, err = tg.router(rv); err != nil {
			return exitcode.With(exitcode.RunError, fmt.Errorf("replay: target %s: %w", tg.spec, err))
		}
	} else {
		judgeSpec := o.judge
		if judgeSpec == "" && recorded.Decision.Model != "" && recorded.Decision.Model != v.Router.Judge {
			judgeSpec = recorded.Decision.Model
		}
		factory, err := models.ForVersion(v, judgeSpec, o.embedder)
		if err != nil {
			return exitcode.With(exitcode.Usage, fmt.Errorf("replay: %w", err))
		}
		if rt, err = router.New(rv, calls.wrap(factory)); err != nil {
			return exitcode.With(exitcode.Usage, fmt.Errorf("replay: build router for %s: %w", v.ID(), err))
		}
	}
	workflowCase := c.Workflow != nil
	c.Workflow = nil // the decision is replayed; the engine run is not
	replayed, _, err := harness.EvaluateCase(commandContext(cmd), rt, v, vw, &c, recorded.Seq)
	if err != nil {
		return exitcode.With(exitcode.RunError, fmt.Errorf("replay: %w", err))
	}

	fmt.Fprintf(out, "replay %s under %s (%s)\n", c.ID, v.ID(), v.Dir)
	fmt.Fprintf(out, "request id %s, conversation id %s; caller scopes [%s] disabled [%s]; now %s\n",
		orDash(replayed.RequestID), orDash(replayed.ConversationID), strings.Join(c.Caller.Scopes, ", "), strings.Join(c.Caller.Disabled, ", "), orDash(c.Now))
	if c.Tools != nil {
		fmt.Fprintf(out, "the case's own tools: %s\n", strings.Join(c.Tools.Names(), ", "))
	}
	if workflowCase {
		fmt.Fprintln(out, "workflow case: the routing decision is replayed; the engine run (tools_sim) is not.")
	}
	fmt.Fprintf(out, "input: %s\n", replayed.Input) // x-sensitive values masked
	recMap, repMap := resultMap(recorded), resultMap(replayed)
	turns, _ := repMap["turns"].([]any)
	for i, t := range turns {
		tm, _ := t.(map[string]any)
		fmt.Fprintf(out, "\nturn %d: %v\n", i+1, tm["input"])
		printTraceJSON(out, tm["decision"])
	}
	fmt.Fprintln(out, "\ntrace:")
	printTrace(out, replayed.Decision.Trace)
	if tg != nil {
		fmt.Fprintf(out, "\nrouted by target %s: its answer is the decision below (the trace's target step says how it came)\n", tg.spec)
	} else {
		calls.print(out, harness.IsProviderError(replayed.Decision), harness.CaseSensitiveValues(harness.CaseRegistry(v, vw, &c), &c))
	}

	diffs := diffDecisions("", recMap["decision"], repMap["decision"], o.tolerance)
	recTurns, _ := recMap["turns"].([]any)
	for i := 0; i < max(len(recTurns), len(turns)); i++ {
		var a, b any
		if i < len(recTurns) {
			a, _ = recTurns[i].(map[string]any)["decision"]
		}
		if i < len(turns) {
			b, _ = turns[i].(map[string]any)["decision"]
		}
		diffs = append(diffs, diffDecisions(fmt.Sprintf("turn %d ", i+1), a, b, o.tolerance)...)
	}
	fmt.Fprintf(out, "\ndecision   recorded -> today\n")
	printSide(out, recorded.Decision, replayed.Decision)
	if harness.IsProviderError(replayed.Decision) {
		what := "the judge"
		if tg != nil {
			what = "the target"
		}
		return exitcode.With(exitcode.RunError, fmt.Errorf("replay: %s failed: %s", what, firstError(replayed.Decision)))
	}
	if len(diffs) > 0 {
		fmt.Fprintf(out, "\nDIFFERS from the recording:\n  %s\n", strings.Join(diffs, "\n  "))
		return exitcode.With(exitcode.GateFailed, fmt.Errorf("replay: today's decision for %s under %s differs from the recorded one (%d fields)", c.ID, v.ID(), len(diffs)))
	}
	fmt.Fprintln(out, "\nSAME: today's decision is the recorded one.")
	return nil
}

// pickRecorded finds the case's result; several versions need --version.
func pickRecorded(path, caseID, version string) (harness.Result, error) {
	results, err := harness.ReadResults(path)
	if err != nil {
		return harness.Result{}, exitcode.With(exitcode.Usage, fmt.Errorf("replay: %w", err))
	}
	var found []harness.Result
	for _, r := range results {
		if r.Case == caseID && (version == "" || r.Version == version || harness.VersionName(r.Version) == version) {
			found = append(found, r)
		}
	}
	switch {
	case len(found) == 1:
		return found[0], nil
	case len(found) == 0 && version != "":
		var have []string
		for _, r := range results {
			if r.Case == caseID {
				have = append(have, r.Version)
			}
		}
		return harness.Result{}, exitcode.Usagef("replay: %s holds case %q under %s, not under %q; give --version one of them", path, caseID, orNone(have), version)
	case len(found) == 0:
		return harness.Result{}, exitcode.Usagef("replay: %s holds no result for case %q; case ids are exact (see the \"case\" field)", path, caseID)
	}
	var have []string
	for _, r := range found {
		have = append(have, r.Version)
	}
	return harness.Result{}, exitcode.Usagef("replay: %s holds case %q under %d versions: %s; pick one with --version NAME or --version ID", path, caseID, len(found), strings.Join(have, ", "))
}

// replayPlaces are where versions and suites may be found, in order.
type replayPlaces struct {
	versions []string // version specs
	vfrom    string   // where they came from, for messages
	suites   []string
	sfrom    string
	// planNote says why the plan.json beside the results gave nothing
	// ("" when there is none, or it was read): the no-versions and
	// no-suites errors end with it.
	planNote string
}

func replaySources(resultsPath string, o replayOptions) replayPlaces {
	var p replayPlaces
	if len(o.versions) > 0 {
		p.versions, p.vfrom = o.versions, "--versions"
	}
	if len(o.suites) > 0 {
		p.suites, p.sfrom = o.suites, "--suites"
	}
	planPath := filepath.Join(filepath.Dir(resultsPath), harness.PlanFile)
	plan, err := harness.ReadPlanFile(planPath)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		p.planNote = fmt.Sprintf(" (the plan.json beside the results was not read: %v)", err)
	}
	if err == nil {
		if len(p.versions) == 0 {
			for _, v := range plan.Versions {
				if v.Dir != "" {
					p.versions = append(p.versions, v.Dir)
				}
			}
			if len(p.versions) > 0 {
				p.vfrom = planPath
			}
		}
		if len(p.suites) == 0 && len(plan.Suites) > 0 {
			p.suites, p.sfrom = plan.Suites, planPath
		}
	}
	cfgPath := o.config
	if cfgPath == "" && fileExists(harness.DefaultConfigFile) {
		cfgPath = harness.DefaultConfigFile
	}
	if cfgPath != "" && (len(p.versions) == 0 || len(p.suites) == 0) {
		if cfg, err := harness.LoadConfig(cfgPath); err == nil {
			if len(p.versions) == 0 {
				p.versions, p.vfrom = cfg.Versions, cfgPath
			}
			if len(p.suites) == 0 {
				p.suites, p.sfrom = cfg.Suites, cfgPath
			}
		}
	}
	return p
}

// findRecordedVersion loads the version the result names and checks its
// fingerprint is still the recorded one.
func findRecordedVersion(id string, p replayPlaces) (*registry.Version, error) {
	name := harness.VersionName(id)
	if len(p.versions) == 0 {
		return nil, exitcode.Usagef("replay: no version directories to find %s in: give --versions DIR, or --config, or keep plan.json beside the results%s", id, p.planNote)
	}
	for _, spec := range p.versions {
		vs, err := loadVersions([]string{spec})
		if err != nil {
			// Only the version asked for matters; a broken one of that
			// name is reported below through its spec.
			if versionNameOf(spec) == name {
				return nil, exitcode.With(exitcode.Usage, fmt.Errorf("replay: version %s from %s: %w", id, p.vfrom, err))
			}
			continue
		}
		v := vs[0]
		if v.Name != name {
			continue
		}
		if v.ID() != id {
			return nil, exitcode.Usagef("replay: version %s changed since the recording: %s (from %s) is now %s; replay needs the recorded files (git checkout the commit of the run, or pass --versions git:REV:%s)",
				id, spec, p.vfrom, v.ID(), strings.TrimPrefix(spec, "./"))
		}
		return v, nil
	}
	return nil, exitcode.Usagef("replay: no version named %s among %s (from %s); give --versions DIR holding it", name, strings.Join(p.versions, ", "), p.vfrom)
}

func versionNameOf(spec string) string {
	return filepath.Base(filepath.Clean(spec[strings.LastIndex(spec, ":")+1:]))
}

// findRecordedCase loads the suites and returns the case as recorded.
func findRecordedCase(r harness.Result, v *registry.Version, p replayPlaces) (harness.Case, error) {
	if len(p.suites) == 0 {
		return harness.Case{}, exitcode.Usagef("replay: no suites to find case %q in: give --suites, or --config, or keep plan.json beside the results%s", r.Case, p.planNote)
	}
	regs, err := harness.RoutingRegistries([]*registry.Version{v})
	if err != nil {
		return harness.Case{}, exitcode.With(exitcode.Usage, fmt.Errorf("replay: %w", err))
	}
	cases, err := harness.LoadSuites(p.suites, regs...)
	if err != nil {
		return harness.Case{}, exitcode.With(exitcode.Usage, fmt.Errorf("replay: suites from %s: %w", p.sfrom, err))
	}
	for _, c := range cases {
		if c.ID != r.Case {
			continue
		}
		if r.CaseHash != "" && c.Hash != r.CaseHash {
			return harness.Case{}, exitcode.Usagef("replay: case %q changed since the recording (hash %s, recorded %s) at %s; replay re-runs the case as recorded: restore it, or run the suites again", r.Case, short(c.Hash), short(r.CaseHash), c.Pos)
		}
		return c, nil
	}
	return harness.Case{}, exitcode.Usagef("replay: case %q is not in %s (from %s); give --suites holding it", r.Case, strings.Join(p.suites, ", "), p.sfrom)
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// judgeCall is one call the replayed router made to its judge.
type judgeCall struct {
	name string
	req  router.JudgeRequest
	resp router.JudgeResponse
	err  error
}

// judgeCalls records every judge call of the replay, to print what the
// judge was given and what it answered.
type judgeCalls struct {
	mu    sync.Mutex
	calls []judgeCall
}

func (jc *judgeCalls) wrap(f router.ModelFactory) router.ModelFactory {
	return func(v *registry.Version, reg *registry.Registry) (router.Models, error) {
		m, err := f(v, reg)
		if err != nil || m.Judge == nil {
			return m, err
		}
		rec := &recordingJudge{inner: m.Judge, calls: jc}
		if x, ok := m.Judge.(router.ParamExtractor); ok {
			// The builtin extracts params itself; the router asks for it.
			m.Judge = extractingRecordingJudge{recordingJudge: rec, x: x}
		} else {
			m.Judge = rec
		}
		return m, nil
	}
}

type recordingJudge struct {
	inner router.Judge
	calls *judgeCalls
}

func (r *recordingJudge) Name() string { return r.inner.Name() }

func (r *recordingJudge) Judge(ctx context.Context, req router.JudgeRequest) (router.JudgeResponse, error) {
	resp, err := r.inner.Judge(ctx, req)
	r.calls.mu.Lock()
	r.calls.calls = append(r.calls.calls, judgeCall{name: r.inner.Name(), req: req, resp: resp, err: err})
	r.calls.mu.Unlock()
	return resp, err
}

type extractingRecordingJudge struct {
	*recordingJudge
	x router.ParamExtractor
}

func (e extractingRecordingJudge) ExtractParams(s *registry.Skill, text string, now time.Time) map[string]any {
	return e.x.ExtractParams(s, text, now)
}

// print shows each judge call: the messages (or, for the builtin, the
// candidate texts) and the raw output, with x-sensitive values masked:
// those in the answer, and the case's expected ones (a judge that did
// not extract a value still saw it in the text).
func (jc *judgeCalls) print(w io.Writer, failed bool, expected []string) {
	if len(jc.calls) == 0 {
		fmt.Fprintln(w, "\njudge: not called (policy or rules decided)")
		return
	}
	for i, c := range jc.calls {
		names := router.SensitiveParamNames(c.req.Candidates)
		_, values := router.MaskJSONValues([]byte(c.resp.Raw), names)
		values = append(values, expected...)
		mask := func(s string) string { return router.MaskText(s, values) }
		fmt.Fprintf(w, "\njudge call %d (%s)", i+1, c.name)
		if c.req.Repair != nil {
			fmt.Fprint(w, ", the repair attempt")
		}
		fmt.Fprintln(w, ":")
		if c.resp.Prompt == "" && !strings.Contains(c.name, ":") {
			fmt.Fprintln(w, "  the builtin judge has no prompt; it scored the candidates' own texts:")
			printCandidateTexts(w, c.req, c.resp.Scores, mask)
		} else {
			printMessages(w, c.req, mask(c.resp.Prompt), mask)
		}
		switch {
		case c.err != nil:
			fmt.Fprintf(w, "  error: %v\n", c.err)
		case c.resp.Raw != "":
			fmt.Fprintf(w, "  raw output:\n    %s\n", indent(mask(c.resp.Raw), "    "))
		}
	}
	if failed {
		fmt.Fprintln(w, "  (the judge failed; a missing cassette entry means the exchange was never recorded: record it with --cassettes record or auto)")
	}
}

func printCandidateTexts(w io.Writer, req router.JudgeRequest, scores []router.Candidate, mask func(string) string) {
	score := map[string]float64{}
	for _, s := range scores {
		score[s.Skill] = s.Score
	}
	for _, s := range req.Candidates {
		fmt.Fprintf(w, "  - %s", s.Name)
		if sc, ok := score[s.Name]; ok {
			fmt.Fprintf(w, "  score %.3f", sc)
		}
		fmt.Fprintln(w)
		fmt.Fprintf(w, "      description: %s\n", s.Description)
		for _, t := range s.WhenToUse {
			fmt.Fprintf(w, "      when_to_use: %s\n", t)
		}
		for _, t := range s.WhenNotToUse {
			fmt.Fprintf(w, "      when_not_to_use: %s\n", t)
		}
		for _, e := range s.Examples {
			fmt.Fprintf(w, "      example: %s\n", e.Input)
		}
		for _, t := range s.CounterExamples {
			fmt.Fprintf(w, "      counter_example: %s\n", t)
		}
	}
	fmt.Fprintf(w, "  user text: %s\n", mask(req.Text))
}

// printMessages shows the request body a model judge got as its messages;
// a body in another shape is shown whole.
func printMessages(w io.Writer, req router.JudgeRequest, body string, mask func(string) string) {
	var m map[string]any
	if json.Unmarshal([]byte(body), &m) != nil {
		fmt.Fprintf(w, "  system:\n    %s\n  user:\n    %s\n", indent(mask(req.SystemPrompt), "    "), indent(mask(req.Text), "    "))
		return
	}
	if sys := messageText(m["system"]); sys != "" {
		fmt.Fprintf(w, "  system:\n    %s\n", indent(sys, "    "))
	}
	msgs, _ := m["messages"].([]any)
	for _, msg := range msgs {
		mm, _ := msg.(map[string]any)
		fmt.Fprintf(w, "  %v:\n    %s\n", mm["role"], indent(messageText(mm["content"]), "    "))
	}
	if _, ok := m["tools"]; ok {
		fmt.Fprintln(w, "  (the candidates also went as tools; the full request body is the judge step's prompt in the results)")
	}
}

// messageText is a message's content: a string, or the text of its parts.
func messageText(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case []any:
		var parts []string
		for _, p := range t {
			if pm, ok := p.(map[string]any); ok {
				if s, ok := pm["text"].(string); ok {
					parts = append(parts, s)
				}
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}

func indent(s, pad string) string { return strings.ReplaceAll(s, "\n", "\n"+pad) }

// printTrace prints each step on one line; prompts and raw outputs are
// printed with the judge calls.
func printTrace(w io.Writer, trace []router.TraceStep) {
	for _, st := range trace {
		st.Prompt, st.Raw = "", ""
		b, _ := json.Marshal(st)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		delete(m, "stage")
		line, _ := marshalLine(m)
		fmt.Fprintf(w, "  %-8s %s\n", st.Stage, line)
	}
}

// printTraceJSON prints a decision's trace read from JSON (a turn).
func printTraceJSON(w io.Writer, decision any) {
	b, _ := json.Marshal(decision)
	var d router.Decision
	if json.Unmarshal(b, &d) != nil {
		return
	}
	fmt.Fprintf(w, "  decided %s %s\n", d.Action, d.Skill)
	printTrace(w, d.Trace)
}

func marshalLine(v any) (string, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n"), err
}

// resultMap is a result as its JSON object, so the comparison also covers
// fields this command does not know by name (a conversation's turns).
func resultMap(r harness.Result) map[string]any {
	b, _ := json.Marshal(r)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

// decisionFields are compared between the recording and the replay.
var decisionFields = []string{"action", "skill", "params", "confidence", "gate", "stage"}

// diffDecisions lists the compared fields that differ, as
// "field: recorded X, today Y".
func diffDecisions(prefix string, recorded, today any, tolerance float64) []string {
	a, _ := recorded.(map[string]any)
	b, _ := today.(map[string]any)
	if a == nil && b == nil {
		return nil
	}
	var out []string
	for _, f := range decisionFields {
		x, y := a[f], b[f]
		same := reflect.DeepEqual(normalEmpty(x), normalEmpty(y))
		if f == "confidence" {
			fx, _ := x.(float64)
			fy, _ := y.(float64)
			same = math.Abs(fx-fy) <= tolerance
		}
		if !same {
			rx, _ := marshalLine(x)
			ry, _ := marshalLine(y)
			out = append(out, fmt.Sprintf("%s%s: recorded %s, today %s", prefix, f, rx, ry))
		}
	}
	return out
}

// normalEmpty makes an empty params object, null and an absent one equal.
func normalEmpty(v any) any {
	switch t := v.(type) {
	case map[string]any:
		if len(t) == 0 {
			return nil
		}
	case string:
		if t == "" {
			return nil
		}
	}
	return v
}

func printSide(w io.Writer, a, b router.Decision) {
	pa, _ := marshalLine(a.Params)
	pb, _ := marshalLine(b.Params)
	rows := [][3]string{
		{"action", string(a.Action), string(b.Action)},
		{"skill", a.Skill, b.Skill},
		{"params", pa, pb},
		{"confidence", fmt.Sprintf("%.4f", a.Confidence), fmt.Sprintf("%.4f", b.Confidence)},
		{"gate", string(a.Gate), string(b.Gate)},
		{"stage", a.Stage, b.Stage},
	}
	for _, r := range rows {
		mark := " "
		if r[1] != r[2] {
			mark = "*"
		}
		fmt.Fprintf(w, "%s %-10s %s -> %s\n", mark, r[0], orDash(r[1]), orDash(r[2]))
	}
	if b.Message != "" {
		fmt.Fprintf(w, "  message    %s\n", b.Message)
	}
}

func firstError(d router.Decision) string {
	for _, e := range d.Errors {
		return e.Message
	}
	return "unknown"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func orNone(xs []string) string {
	if len(xs) == 0 {
		return "no version"
	}
	sort.Strings(xs)
	return strings.Join(xs, ", ")
}
