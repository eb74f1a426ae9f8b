package builtin

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/routebench/routebench/router/registry"
)

type clincData struct {
	Train    [][2]string `json:"train"`
	Val      [][2]string `json:"val"`
	OOSVal   [][2]string `json:"oos_val"`
	OOSTrain [][2]string `json:"oos_train"`
}

func loadCLINC(t testing.TB) (clincData, []*registry.Skill) {
	path := filepath.Join("..", "..", "..", "shared", "data", "clinc150", "dev.json")
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

func TestCLINCExperiment(t *testing.T) {
	if os.Getenv("ROUTEBENCH_CLINC_EXP") == "" {
		t.Skip("set ROUTEBENCH_CLINC_EXP=1")
	}
	d, skills := loadCLINC(t)
	sc := getScratch()
	{
		type cfg struct {
			name   string
			kw     [numKinds]float64
			ts     trainSettings
			idfPow float64
			dfText bool
		}
		base := kindWeights
		var cfgs []cfg
		for _, spec := range strings.Split(os.Getenv("ROUTEBENCH_CLINC_CFGS"), ";") {
			c := cfg{spec, base, defaultTraining, 1, false}
			for _, kv := range strings.Split(spec, ",") {
				key, val, _ := strings.Cut(kv, "=")
				x, _ := strconv.ParseFloat(val, 64)
				switch key {
				case "ep":
					c.ts.Epochs = int(x)
				case "rate":
					c.ts.Rate = x
				case "l2":
					c.ts.L2 = x
				case "beta0":
					c.ts.Beta0 = x
				case "word":
					c.kw[kindWord] = x
				case "bi":
					c.kw[kindBigram] = x
				case "char":
					c.kw[kindCharGram] = x
				case "skip":
					c.kw[kindSkip] = x
				case "idfpow":
					c.idfPow = x
				case "dftext":
					c.dfText = x > 0
				case "shape":
					c.kw[kindShape] = x
				}
			}
			cfgs = append(cfgs, c)
		}
		for _, c := range cfgs {
			kindWeights = c.kw
			idfPower, dfByText = c.idfPow, c.dfText
			m := newModel(skills)
			items := m.trainingItems(defaultWeights, 10)
			lm := m.train(items, c.ts, 1)
			cands := make([]int32, len(skills))
			fits := make([]evidence, len(skills))
			z := make([]float64, len(skills))
			eval := func(items [][2]string) (tops []float64, oks []bool) {
				for _, it := range items {
					m.query(sc, it[0])
					m.accumulate(sc)
					for s := range skills {
						cands[s] = int32(s)
						fits[s] = m.evidenceFor(sc, s, -1)
					}
					lm.logits(sparseVec{sc.qIdx, sc.qVal}, cands, fits, z)
					softmaxInPlace(z)
					best := 0
					for s := range z {
						if z[s] > z[best] {
							best = s
						}
					}
					tops = append(tops, z[best])
					oks = append(oks, skills[best].Name == it[1])
				}
				return
			}
			it, iok := eval(d.Val)
			ot, _ := eval(d.OOSVal)
			n := 0
			for _, o := range iok {
				if o {
					n++
				}
			}
			fmt.Printf("%s beta=%.2v acc=%.4f %s\n", c.name, lm.beta, float64(n)/float64(len(iok)), curve(it, iok, ot))
		}
		kindWeights = base
		return
	}
}

// curve reports in-scope accuracy at the thresholds that give 30/40/49% OOS recall.
func curve(inTop []float64, inOK []bool, oosTop []float64) string {
	sorted := slices.Clone(oosTop)
	slices.Sort(sorted)
	out := ""
	for _, r := range []float64{0.3, 0.4, 0.49, 0.6} {
		th := sorted[int(r*float64(len(sorted)))]
		ok := 0
		for k := range inTop {
			if inOK[k] && inTop[k] > th {
				ok++
			}
		}
		out += fmt.Sprintf(" rec%.2f:acc=%.4f", r, float64(ok)/float64(len(inTop)))
	}
	return out
}
