package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

func TestOpsDebug(t *testing.T) {
	ver := os.Getenv("ROUTEBENCH_OPS_DEBUG")
	if ver == "" {
		t.Skip()
	}
	v, err := registry.Load(filepath.Join("..", "..", "fixtures", "ops", "prompts", ver))
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("LIN") == "0" {
		linearScale = 0
	}
	start := time.Now()
	j := newJudge(v.Registry, v.Router.TopK)
	fmt.Println("fit", time.Since(start), "cal", j.fit.cal)
	now, _ := time.Parse(time.RFC3339, "2026-11-30T10:00:00+08:00")
	files, _ := filepath.Glob(filepath.Join("..", "..", "suites", "ops", "*.yaml"))
	for _, f := range files {
		raw, _ := os.ReadFile(f)
		var suite struct {
			Cases []struct {
				ID     string
				Input  string
				Expect struct {
					Action string
					Skill  string
					Params map[string]any
				}
			}
		}
		if err := yaml.Unmarshal(raw, &suite); err != nil {
			t.Fatal(err)
		}
		for _, c := range suite.Cases {
			cands := v.Registry.Skills
			var matched []*registry.Skill
			for _, sk := range cands {
				for _, tr := range sk.Triggers {
					if tr.Re.MatchString(c.Input) {
						matched = append(matched, sk)
						break
					}
				}
			}
			if len(matched) == 1 {
				continue
			}
			if len(matched) > 1 {
				cands = matched
			}
			resp, err := j.Judge(context.Background(), router.JudgeRequest{Text: c.Input, Now: now, Candidates: cands})
			if err != nil {
				t.Fatal(err)
			}
			var out verdict
			json.Unmarshal([]byte(resp.Raw), &out)
			mark := "  "
			if out.Skill != c.Expect.Skill && !(c.Expect.Skill == "" && out.Skill == "none") {
				mark = "XX"
			}
			pm := ""
			for k, want := range c.Expect.Params {
				got := out.Params[k]
				if m, ok := want.(map[string]any); ok {
					if m["absent"] == true && got != nil {
						pm += fmt.Sprintf(" %s:absent!=%v", k, got)
					}
					continue
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					pm += fmt.Sprintf(" %s:%v!=%v", k, want, got)
				}
			}
			if out.Skill != c.Expect.Skill {
				pm = ""
			}
			if pm != "" {
				pm = " PARAMS" + pm
			}
			fmt.Printf("%s %-22s %-6s want=%-26s got=%-26s conf=%.2f %s | %s\n", mark, c.ID, c.Expect.Action, c.Expect.Skill, out.Skill, out.Confidence, pm, c.Input)
		}
	}
}

func TestExplain(t *testing.T) {
	text := os.Getenv("EXPLAIN")
	if text == "" {
		t.Skip()
	}
	v, err := registry.Load(filepath.Join("..", "..", "fixtures", "ops", "prompts", "v2"))
	if err != nil {
		t.Fatal(err)
	}
	f := fittedFor(v.Registry.Skills, 5)
	sc := getScratch()
	fmt.Println(terms(text))
	f.query(sc, text)
	f.accumulate(sc)
	for k, id := range sc.qIdx {
		_ = k
		_ = id
	}
	for s, sk := range f.skills {
		ev := f.evidenceFor(sc, s, -1)
		fit := defaultWeights.fit(ev)
		best, bc := int32(-1), 0.0
		for _, tt := range f.positives[s] {
			if c := float64(sc.docAcc[tt]); c > bc {
				best, bc = tt, c
			}
		}
		bt := ""
		if best >= 0 {
			bt = f.texts[best].text
		}
		fmt.Printf("%-26s fit=%.3f ev=%.2f near=%q\n", sk.Name, fit, ev, bt)
	}
}
