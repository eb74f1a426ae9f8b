package builtin

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/routebench/routebench/harness/importer"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

// bfclFunction is a function as BFCL writes it.
type bfclFunction struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Parameters  map[string]any `json:"parameters"`
}

type bfclEntry struct {
	ID       string `json:"id"`
	Question [][]struct {
		Content string `json:"content"`
	} `json:"question"`
	Function []bfclFunction `json:"function"`
	// answer is the single expected call (nil for irrelevance): function
	// name and, per param, its acceptable values.
	answer map[string]map[string][]any
}

func (f bfclFunction) skill() *registry.Skill {
	// The importer's conversion, so the judge sees what `import bfcl` writes;
	// a function it cannot convert keeps an open object schema here.
	schema, err := importer.ToJSONSchema(f.Parameters)
	if err != nil || schema == nil {
		schema = map[string]any{"type": "object"}
	}
	desc := f.Description
	if desc == "" {
		desc = f.Name
	}
	return &registry.Skill{Name: f.Name, Description: desc, ParamsSchema: schema}
}

// loadBFCL reads one category of ../shared/data/bfcl and its answers.
func loadBFCL(t testing.TB, category string) []bfclEntry {
	dir := filepath.Join(sharedData(t), "bfcl")
	if p := os.Getenv("ROUTEBENCH_BFCL_DIR"); p != "" {
		dir = p
	}
	read := func(path string, each func(line []byte) error) bool {
		f, err := os.Open(path)
		if err != nil {
			return false
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<24)
		for n := 1; sc.Scan(); n++ {
			if err := each(sc.Bytes()); err != nil {
				t.Fatalf("%s:%d: %v", path, n, err)
			}
		}
		return true
	}
	var out []bfclEntry
	if !read(filepath.Join(dir, "BFCL_v4_"+category+".json"), func(line []byte) error {
		var e bfclEntry
		err := json.Unmarshal(line, &e)
		out = append(out, e)
		return err
	}) {
		t.Fatalf("no BFCL category %s in %s", category, dir)
	}
	byID := map[string]int{}
	for i, e := range out {
		byID[e.ID] = i
	}
	read(filepath.Join(dir, "possible_answer", "BFCL_v4_"+category+".json"), func(line []byte) error {
		var a struct {
			ID          string                        `json:"id"`
			GroundTruth []map[string]map[string][]any `json:"ground_truth"`
		}
		if err := json.Unmarshal(line, &a); err != nil {
			return err
		}
		if i, ok := byID[a.ID]; ok && len(a.GroundTruth) == 1 {
			out[i].answer = a.GroundTruth[0]
		}
		return nil
	})
	return out
}

// bfclParamsFailure says why params fail BFCL's checker, "" when they pass.
func bfclParamsFailure(want map[string][]any, got map[string]any) string {
	for name := range got {
		if _, ok := want[name]; !ok {
			return "unexpected " + name
		}
	}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range want {
			if !yield(k) {
				return
			}
		}
	}) {
		accept := want[name]
		v, present := got[name]
		if !present || v == nil {
			if !slices.ContainsFunc(accept, func(a any) bool { return a == "" || a == nil }) {
				return "missing " + name
			}
			continue
		}
		if !slices.ContainsFunc(accept, func(a any) bool { return a != "" && importer.BFCLEqual(a, v) }) {
			return fmt.Sprintf("value %s=%v want %v", name, v, accept)
		}
	}
	return ""
}

// auc is the probability that a random positive scores above a random
// negative (ties count half).
func auc(pos, neg []float64) float64 {
	var s float64
	for _, p := range pos {
		for _, n := range neg {
			switch {
			case p > n:
				s++
			case p == n:
				s += 0.5
			}
		}
	}
	return s / float64(len(pos)*len(neg))
}

// TestBFCL measures the builtin judge on BFCL's categories
// (ROUTEBENCH_BFCL=1; ROUTEBENCH_BFCL_CATEGORIES picks them): each case's
// own functions are the registry and the candidates, as the router's
// recall hands over all of them (top_k 5 and at most 4 functions). It
// reports, per category, the function the judge chose, abstention as the
// imported bands see it (none, or confidence below clarify 0.3), and
// params under BFCL's checker for acting decisions. The CLI's figures
// (README) come from the router and importer; these are the judge's own,
// for quick iteration. ROUTEBENCH_BFCL_FAIL=category lists that
// category's failures; ROUTEBENCH_BFCL_DUMP=1 logs the top candidate's
// calibration input per case ("CAL ..."), which is how the prior for
// registries without examples was measured. Categories that have no
// answers file (irrelevance) count as "should call nothing"; JSON null in
// an answer (live categories) means "may be left out".
func TestBFCL(t *testing.T) {
	if os.Getenv("ROUTEBENCH_BFCL") != "1" {
		t.Skip("set ROUTEBENCH_BFCL=1 to measure on BFCL")
	}
	cats := []string{"simple_python", "multiple", "irrelevance"}
	if c := os.Getenv("ROUTEBENCH_BFCL_CATEGORIES"); c != "" {
		cats = strings.Split(c, ",")
	}
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	ctx := context.Background()
	const clarifyBand, executeBand = 0.3, 0.5
	confs := map[bool][]float64{}
	for _, cat := range cats {
		entries := loadBFCL(t, cat)
		var chosen, refused, nones, acted, astOK int
		failures := map[string]int{}
		for _, e := range entries {
			tools := make([]*registry.Skill, len(e.Function))
			for i, f := range e.Function {
				tools[i] = f.skill()
			}
			text := e.Question[0][len(e.Question[0])-1].Content
			j := newJudge(&registry.Registry{Skills: tools}, defaultTopK)
			resp, err := j.Judge(ctx, router.JudgeRequest{Text: text, Now: now, Candidates: tools})
			if err != nil {
				t.Fatal(err)
			}
			var v verdict
			if err := json.Unmarshal([]byte(resp.Raw), &v); err != nil {
				t.Fatal(err)
			}
			relevant := e.answer != nil
			top := 0.0
			if len(resp.Scores) > 0 {
				top = resp.Scores[0].Score
			}
			confs[relevant] = append(confs[relevant], top)
			if os.Getenv("ROUTEBENCH_BFCL_DUMP") != "" {
				lower := lowerASCII(text)
				sc := getScratch()
				r := j.fit.rank(sc, text, lower, findDates(lower, now), tools)
				putScratch(sc)
				want := ""
				for k := range e.answer {
					want = k
				}
				in := r[0].in
				t.Logf("CAL %s %v %v %.4f %.4f %.4f %.4f %.4f %.4f %.4f %d %.4f %d %s %q", cat, relevant, r[0].skill.Name == want, in.fit, in.nearest, in.learned,
					in.nameCover, in.paramCover, in.margin, in.prob, len(tools), in.schemaCover, plainWords(text), r[0].skill.Name, text)
			}
			if v.Skill == router.NoneChoice {
				nones++
			}
			abstain := v.Skill == router.NoneChoice || v.Confidence < clarifyBand
			if abstain {
				refused++
			}
			if !relevant {
				continue
			}
			var want string
			var params map[string][]any
			for fn, p := range e.answer {
				want, params = fn, p
			}
			if v.Skill != want || abstain {
				if os.Getenv("ROUTEBENCH_BFCL_FAIL") == cat {
					t.Logf("%s: chose %s (%.2f), want %s: %q", e.ID, v.Skill, v.Confidence, want, text)
				}
				continue
			}
			chosen++
			fail := bfclParamsFailure(params, v.Params)
			if fail == "" && v.Confidence >= executeBand {
				acted++
				astOK++
				continue
			}
			if fail == "" {
				fail = "low confidence"
			}
			kind, _, _ := strings.Cut(fail, " ")
			failures[kind]++
			if os.Getenv("ROUTEBENCH_BFCL_FAIL") == cat {
				t.Logf("%s: %s: %q params %v", e.ID, fail, text, v.Params)
			}
		}
		n := float64(len(entries))
		t.Logf("%-14s n=%3d chosen %.3f  ast %.3f  abstained %.3f (none %.3f)  failures %v",
			cat, len(entries), float64(chosen)/n, float64(astOK)/n, float64(refused)/n, float64(nones)/n, failures)
	}
	if len(confs[true]) > 0 && len(confs[false]) > 0 {
		t.Logf("AUC of top confidence, relevant vs irrelevant: %.3f", auc(confs[true], confs[false]))
	}
}

// plainWords counts the words schemaCover reads (plain lowercase content
// words of three letters or more), for the calibration dump.
func plainWords(text string) int {
	lower := lowerASCII(text)
	n := 0
	for from, to := nextWord(lower, 0); from < to; from, to = nextWord(lower, to) {
		if w := lower[from:to]; len(w) >= 3 && text[from] >= 'a' && text[from] <= 'z' && contentWord(w) {
			n++
		}
	}
	return n
}
