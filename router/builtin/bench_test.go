package builtin

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/internal/benchreg"
	"github.com/routebench/routebench/router/registry"
)

// benchRequests alternate Chinese and English, short and long.
var benchRequests = []string{
	"查一下华东大区上周已发货的订单",
	"which alerts fired in the east zone yesterday?",
	"把预发的 payment-api 扩到 6 个副本",
	"grep the search-api logs from the last 3 days for OutOfMemoryError",
}

// benchRegistry is the ops demo v2 registry (15 skills) when the fixtures
// load, else this package's own test registry.
func benchRegistry(b *testing.B) *registry.Registry {
	if v, err := registry.Load(filepath.Join("..", "..", "fixtures", "ops", "prompts", "v2")); err == nil {
		return v.Registry
	}
	b.Log("ops v2 fixtures did not load; using the test registry")
	return testRegistry()
}

// BenchmarkJudge is the judge's per-request cost: five candidates, as the
// recall stage hands over, params extraction included.
func BenchmarkJudge(b *testing.B) {
	reg := benchRegistry(b)
	j := NewJudge(reg)
	ctx := context.Background()
	reqs := make([]router.JudgeRequest, len(benchRequests))
	for i, text := range benchRequests {
		reqs[i] = router.JudgeRequest{Text: text, Now: testNow, Candidates: reg.Skills[i%3 : i%3+5]}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := j.Judge(ctx, reqs[i%len(reqs)]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEmbed is one query embedding.
func BenchmarkEmbed(b *testing.B) {
	embed := NewEmbedder(benchRegistry(b))
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := embed(ctx, benchRequests[i%len(benchRequests)]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExtractParams is params extraction for one skill.
func BenchmarkExtractParams(b *testing.B) {
	reg := benchRegistry(b)
	s := reg.Skills[0]
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		ExtractParams(s, benchRequests[i%len(benchRequests)], testNow)
	}
}

// BenchmarkFit is learning a registry from scratch (what a cache miss costs).
func BenchmarkFit(b *testing.B) {
	skills := benchRegistry(b).Skills
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		fitSkills(skills, defaultTopK)
	}
}

// BenchmarkExtractToolSchema is extraction for a bare tool schema (typed
// properties with descriptions, no examples), where the number, unit,
// date, name and list rules do the work. Schema and sentence are made up.
func BenchmarkExtractToolSchema(b *testing.B) {
	s := toolSkill("ship_freight", map[string]any{
		"origin":        prop("string", "City the shipment leaves from."),
		"destination":   prop("string", "City it goes to, e.g. Austin, TX."),
		"weight":        prop("number", "Gross weight in kilograms."),
		"insured_value": prop("number", "Declared value in dollars."),
		"pickup_date":   prop("string", "Pickup day in MM/DD/YYYY format."),
		"dimensions":    numberArray("number", "Length, width and height in cm."),
		"fragile":       prop("boolean", "Handle as fragile."),
	}, "origin", "destination", "weight", "pickup_date")
	text := "Ship 240 kg from Rotterdam to Boise, Idaho on March 9, 2031, insured for $18,500, boxes of [120, 80, 95] cm, fragile."
	b.ReportAllocs()
	for b.Loop() {
		ExtractParams(s, text, testNow)
	}
}

// syntheticSkills is the large-registry benchmarks' made-up registry
// (benchreg), as the router's BenchmarkNew150 fits it.
func syntheticSkills(n, m int, seed uint64) []*registry.Skill { return benchreg.Skills(n, m, seed) }

// BenchmarkTrainingItems150 is the fit's first stage on a CLINC150-sized
// registry (150 skills, 100 examples each): every text routed against all
// the others.
func BenchmarkTrainingItems150(b *testing.B) {
	m := newModel(syntheticSkills(150, 100, 1))
	b.ResetTimer()
	for b.Loop() {
		m.trainingItems(defaultWeights, trainCands)
	}
}

// BenchmarkTrain150 is one training of the linear layer on the same
// registry's items (the fit runs four: the final layer and three folds).
func BenchmarkTrain150(b *testing.B) {
	m := newModel(syntheticSkills(150, 100, 1))
	items := m.trainingItems(defaultWeights, trainCands)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		m.train(items, defaultTraining, trainSeed)
	}
}

// BenchmarkTrain1000 is one training of the linear layer on a made-up
// registry of 1,000 skills with 10 examples each, holding only the weights
// training touches and stepping through their places table (linLayout):
// what a registry that size with a vocabulary of tens of thousands of
// features gets. This one's vocabulary is benchreg's few dozen words, for
// which newLinLayout would choose a dense layer, so the benchmark lays the
// weights out itself, as the fit does on such a registry.
func BenchmarkTrain1000(b *testing.B) {
	m := newModel(syntheticSkills(1000, 10, 1))
	items := m.trainingItems(defaultWeights, trainCands)
	lt := m.linTexts()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		lay := touchedLayout(lt, items, m.linCount, len(m.skills))
		lay.place(lt, items)
		m.trainOn(lt, lay, items, defaultTraining, trainSeed)
	}
}

// BenchmarkFixedPhraseMatchesLong finds "today" in a long text that writes
// it thousands of times, mostly glued to letters (no \b): the phrase
// search must read the text about once, not once per match.
func BenchmarkFixedPhraseMatchesLong(b *testing.B) {
	text := strings.Repeat("今天xtodayx", 4000)
	phrases := fixedPhrasesOf(`今天|今日|\btoday\b`)
	for b.Loop() {
		if len(fixedPhraseMatches(phrases, text)) != 4000 {
			b.Fatal("matches lost")
		}
	}
}
