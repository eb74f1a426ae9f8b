package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

type clincData struct {
	Train    [][2]string `json:"train"`
	Val      [][2]string `json:"val"`
	OOSVal   [][2]string `json:"oos_val"`
	OOSTrain [][2]string `json:"oos_train"`
}

func loadCLINC(t testing.TB) (clincData, []*registry.Skill) {
	path := filepath.Join(sharedData(t), "clinc150", "dev.json")
	if p := os.Getenv("ROUTEBENCH_CLINC_FILE"); p != "" {
		path = p
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read clinc: %v", err)
	}
	var d clincData
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("parse clinc: %v", err)
	}
	by := map[string]*registry.Skill{}
	var names []string
	for _, it := range d.Train {
		s, ok := by[it[1]]
		if !ok {
			s = &registry.Skill{Name: it[1]}
			by[it[1]] = s
			names = append(names, it[1])
		}
		s.Examples = append(s.Examples, registry.Example{Input: it[0]})
	}
	slices.Sort(names)
	skills := make([]*registry.Skill, len(names))
	for i, n := range names {
		skills[i] = by[n]
	}
	return d, skills
}

// TestCLINC measures the builtin embedder + judge on CLINC150's dev split
// (ROUTEBENCH_CLINC=1): every train intent is a skill with its train
// texts as examples; each val query is recalled among all 150 intents by
// the builtin embedder (a skill scores its best example's cosine, as the
// router's recall does), the top 10 go to the judge.
func TestCLINC(t *testing.T) {
	if os.Getenv("ROUTEBENCH_CLINC") != "1" {
		t.Skip("set ROUTEBENCH_CLINC=1 to measure on CLINC150 (about a minute)")
	}
	const topK = 10
	d, skills := loadCLINC(t)
	reg := &registry.Registry{Skills: skills}
	start := time.Now()
	models, err := Models(&registry.Version{Router: registry.RouterSettings{TopK: topK}}, reg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("fit %d skills, %d examples: %v", len(skills), len(d.Train), time.Since(start))
	j := models.Judge.(*Judge)
	t.Logf("calibration: right=%.3f in=%.3f held-out %d (%d correct), %d pseudo out of scope", j.fit.cal.right, j.fit.cal.in, j.fit.cal.items, j.fit.cal.correct, j.fit.cal.oos)

	ctx := context.Background()
	var dump *os.File
	if p := os.Getenv("ROUTEBENCH_CLINC_DUMP"); p != "" {
		dump, _ = os.Create(p)
		defer dump.Close()
		for _, o := range j.fit.heldOut(j.fit.trainingItems(defaultWeights, max(trainCands, topK+1))) {
			dumpRow(dump, "held", o.calInput, o.correct, o.oos)
		}
	}
	var docSkill []int
	var docVecs []float32 // flat, EmbedDim per document
	for s, sk := range skills {
		for _, ex := range sk.Examples {
			v, _ := models.Embedder(ctx, ex.Input)
			docSkill = append(docSkill, s)
			docVecs = append(docVecs, v...)
		}
	}
	type outcome struct {
		skill    string
		conf     float64
		recalled bool
		top1     bool // best of all 150 by the judge's own ranking
	}
	route := func(text, want string) outcome {
		q, _ := models.Embedder(ctx, text)
		best := make([]float64, len(skills))
		for i := range best {
			best[i] = -2
		}
		for d, s := range docSkill {
			var dot float32
			for k, x := range docVecs[d*EmbedDim : (d+1)*EmbedDim] {
				dot += x * q[k]
			}
			best[s] = max(best[s], float64(dot))
		}
		order := make([]int, len(skills))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int {
			switch {
			case best[a] > best[b]:
				return -1
			case best[a] < best[b]:
				return 1
			}
			return 0
		})
		var cands []*registry.Skill
		o := outcome{}
		for _, s := range order[:topK] {
			cands = append(cands, skills[s])
			o.recalled = o.recalled || skills[s].Name == want
		}
		resp, err := j.Judge(ctx, router.JudgeRequest{Text: text, Candidates: cands})
		if err != nil {
			t.Fatal(err)
		}
		var v verdict
		if err := json.Unmarshal([]byte(resp.Raw), &v); err != nil {
			t.Fatal(err)
		}
		o.skill, o.conf = v.Skill, v.Confidence
		sc := getScratch()
		rk := j.fit.rank(sc, text, lowerASCII(text), nil, cands)
		putScratch(sc)
		if dump != nil {
			top := rk[0]
			dumpRow(dump, "val", top.in, top.skill.Name == want, want == "oos")
		}
		sc = getScratch()
		ranked := j.fit.rank(sc, text, lowerASCII(text), nil, skills)
		putScratch(sc)
		o.top1 = ranked[0].skill.Name == want
		return o
	}
	start = time.Now()
	// ROUTEBENCH_CLINC_EVERY=n routes every n-th val query, for quick looks.
	every := 1
	if e, err := strconv.Atoi(os.Getenv("ROUTEBENCH_CLINC_EVERY")); err == nil && e > 1 {
		every = e
	}
	var in, oos []outcome
	var val [][2]string
	for k, it := range d.Val {
		if k%every == 0 {
			val = append(val, it)
			in = append(in, route(it[0], it[1]))
		}
	}
	d.Val = val
	for _, it := range d.OOSVal {
		oos = append(oos, route(it[0], "oos"))
	}
	t.Logf("routed %d queries in %v", len(in)+len(oos), time.Since(start))

	rate := func(n, of int) float64 { return float64(n) / float64(of) }
	recalled, top1, judged, nones := 0, 0, 0, 0
	for k, o := range in {
		if o.recalled {
			recalled++
		}
		if o.top1 {
			top1++
		}
		if o.skill == d.Val[k][1] {
			judged++
		}
		if o.skill == router.NoneChoice {
			nones++
		}
	}
	oosNone := 0
	for _, o := range oos {
		if o.skill == router.NoneChoice {
			oosNone++
		}
	}
	t.Logf("embedder recall@%d %.4f; judge top-1 among all 150 %.4f", topK, rate(recalled, len(in)), rate(top1, len(in)))
	t.Logf("pipeline (recall top-%d + judge): in-scope accuracy %.4f (none on %d in-scope), OOS answered none %.3f",
		topK, rate(judged, len(in)), nones, rate(oosNone, len(oos)))
	bestTh, bestRecall := -1.0, -1.0
	for th := 0.0; th <= 0.99; th += 0.01 {
		ok, declined := 0, 0
		for k, o := range in {
			if o.skill == d.Val[k][1] && o.conf >= th {
				ok++
			}
		}
		for _, o := range oos {
			if o.skill == router.NoneChoice || o.conf < th {
				declined++
			}
		}
		acc, rec := rate(ok, len(in)), rate(declined, len(oos))
		if int(math.Round(th*100))%10 == 0 || math.Abs(th-0.44) < 0.001 {
			t.Logf("  confidence >= %.2f: in-scope accuracy %.4f, OOS recall %.3f", th, acc, rec)
		}
		if acc >= 0.915 && rec > bestRecall {
			bestTh, bestRecall = th, rec
		}
	}
	t.Logf("best OOS recall with in-scope accuracy >= 91.5%%: %.3f at confidence >= %.2f", bestRecall, bestTh)
	if rate(judged, len(in)) < 0.85 {
		t.Errorf("in-scope accuracy %.4f, want >= 0.85", rate(judged, len(in)))
	}
}

func dumpRow(w *os.File, kind string, in calInput, correct, oos bool) {
	fmt.Fprintf(w, "%s %v %v %.5f %.5f %.5f %.5f %.5f\n", kind, correct, oos, in.margin, in.prob, in.fit, in.learned, in.nearest)
}

// sharedData finds the team's ../shared/data from the package directory,
// whether the repository is checked out beside it or in a worktree below.
func sharedData(t testing.TB) string {
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		p := filepath.Join(dir, "shared", "data")
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatalf("no shared/data above the package directory")
		}
		dir = parent
	}
}
