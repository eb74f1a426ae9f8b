package calibrate_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness/calibrate"
	"github.com/routebench/routebench/harness/stats"
	"github.com/routebench/routebench/router/registry"
)

// calibratedCases draws n cases of one side effect whose judge is
// calibrated: a case at confidence c is right with probability c.
func calibratedCases(rng *rand.Rand, prefix string, n int, se registry.SideEffect) []calibrate.Record {
	out := make([]calibrate.Record, n)
	for i := range out {
		conf := float64(int(rng.Float64()*10000)) / 10000
		out[i] = synthetic(fmt.Sprintf("%s-%05d", prefix, i), conf, rng.Float64() < conf, se)
	}
	return out
}

func classOf(cs []calibrate.ClassBands, c calibrate.Class) calibrate.ClassBands {
	for _, cb := range cs {
		if cb.Class == c {
			return cb
		}
	}
	Fail("no such class")
	return calibrate.ClassBands{}
}

var _ = Describe("Recommend", func() {
	const target = 0.02
	var fit, eval []calibrate.Record

	BeforeEach(func() {
		rng := rand.New(rand.NewPCG(7, 11))
		all := append(calibratedCases(rng, "read", 4000, registry.Read), calibratedCases(rng, "write", 3000, registry.Write)...)
		fit, eval = calibrate.Holdout(all, 0.5)
	})

	It("picks the lowest execute whose fit wrong executions have a Wilson upper bound within the target", func() {
		classes := calibrate.Recommend(fit, target, registry.Bands{Execute: 0.85, Clarify: 0.6})
		for _, cb := range classes {
			Expect(cb.Certified).To(BeTrue(), string(cb.Class))
			Expect(cb.N).To(BeNumerically(">", 1000))
			_, hi := stats.Wilson(cb.Fit.WrongExec, cb.Fit.N, stats.Confidence)
			Expect(hi).To(BeNumerically("<=", target))
			Expect(cb.WrongExecUpper).To(Equal(hi))
			Expect(cb.Clarify).To(BeNumerically("<=", cb.Execute))
			// One grid step lower breaks the bound: it is the lowest.
			var below calibrate.Point
			for _, p := range cb.Curve {
				if p.Execute < cb.Execute-1e-9 {
					below = p
				}
			}
			Expect(below.WrongExecUpper()).To(BeNumerically(">", target), string(cb.Class))
		}
	})

	It("holds on the held-out cases it was not fitted on", func() {
		classes := calibrate.Recommend(fit, target, registry.Bands{})
		bands := calibrate.Assemble(classes, registry.Bands{}).Registry()
		ev := calibrate.Evaluate(eval, bands)
		Expect(ev.N).To(Equal(len(eval)))
		Expect(ev.WrongExec.Value).To(BeNumerically("<=", target))
		for _, c := range calibrate.Classes {
			Expect(ev.ByClass[c].Value).To(BeNumerically("<=", target), string(c))
		}
	})

	It("says so, and takes the smallest bound, when too few cases can certify the target", func() {
		few := fit[:60]
		classes := calibrate.Recommend(few, target, registry.Bands{})
		read := classOf(classes, calibrate.ClassRead)
		Expect(read.Certified).To(BeFalse())
		Expect(read.Reason).To(ContainSubstring("not certified"))
		for _, p := range read.Curve {
			Expect(p.WrongExecUpper()).To(BeNumerically(">=", read.WrongExecUpper))
		}
	})

	It("keeps the version's bands for a class with no cases, side-effect entries included", func() {
		reads := calibratedCases(rand.New(rand.NewPCG(1, 2)), "r", 300, registry.Read)
		current := registry.Bands{Execute: 0.8, Clarify: 0.5, SideEffects: map[registry.SideEffect]registry.Band{registry.Delete: {Execute: 0.97}}}
		classes := calibrate.Recommend(reads, 0.05, current)
		se := classOf(classes, calibrate.ClassSideEffect)
		Expect(se.N).To(Equal(0))
		Expect(se.Reason).To(ContainSubstring("kept"))
		b := calibrate.Assemble(classes, current)
		Expect(b.SideEffects).To(Equal(map[registry.SideEffect]calibrate.BandPair{registry.Delete: {Execute: 0.97}}))
	})

	It("never recommends a zero side-effect threshold, which a version would read as unset", func() {
		writes := calibratedCases(rand.New(rand.NewPCG(3, 4)), "w", 200, registry.Write)
		for i := range writes {
			writes[i] = synthetic(writes[i].Case, writes[i].Confidence, true, registry.Write)
		}
		se := classOf(calibrate.Recommend(writes, 0.05, registry.Bands{}), calibrate.ClassSideEffect)
		Expect(se.Certified).To(BeTrue())
		Expect(se.Execute).To(Equal(0.01))
		Expect(se.Clarify).To(Equal(0.01))
	})
})

var _ = Describe("Holdout", func() {
	It("splits by case id alone, near the asked fraction", func() {
		var recs []calibrate.Record
		for i := range 2000 {
			recs = append(recs, calibrate.Record{Case: fmt.Sprintf("case-%d", i)})
		}
		fit, eval := calibrate.Holdout(recs, 0.3)
		Expect(len(fit) + len(eval)).To(Equal(2000))
		Expect(float64(len(eval)) / 2000).To(BeNumerically("~", 0.3, 0.04))
		reversed := make([]calibrate.Record, len(recs))
		for i, r := range recs {
			reversed[len(recs)-1-i] = r
		}
		_, eval2 := calibrate.Holdout(reversed, 0.3)
		ids := map[string]bool{}
		for _, r := range eval {
			ids[r.Case] = true
		}
		for _, r := range eval2 {
			Expect(ids).To(HaveKey(r.Case))
		}
		Expect(eval2).To(HaveLen(len(eval)))
	})
})

var _ = Describe("ChooseOperatingPoint", func() {
	It("maximizes in-scope accuracy subject to the refusal recall floor", func() {
		sweep := []calibrate.Point{
			{Execute: 0.3, Clarify: 0.3, Counts: calibrate.Counts{ActExpected: 10, ActCorrect: 9, RefuseExpected: 10, RefuseRecalled: 4}},
			{Execute: 0.4, Clarify: 0.4, Counts: calibrate.Counts{ActExpected: 10, ActCorrect: 8, RefuseExpected: 10, RefuseRecalled: 5}},
			{Execute: 0.5, Clarify: 0.5, Counts: calibrate.Counts{ActExpected: 10, ActCorrect: 8, RefuseExpected: 10, RefuseRecalled: 6}},
			{Execute: 0.6, Clarify: 0.6, Counts: calibrate.Counts{ActExpected: 10, ActCorrect: 7, RefuseExpected: 10, RefuseRecalled: 9}},
		}
		p, ties, ok := calibrate.ChooseOperatingPoint(sweep, 0.5)
		Expect(ok).To(BeTrue())
		Expect(ties).To(Equal(1))
		Expect(p.Execute).To(Equal(0.5), "8 right like 0.4, with more refusals recalled")
		_, _, ok = calibrate.ChooseOperatingPoint(sweep, 0.95)
		Expect(ok).To(BeFalse())
	})
})

// Too few cases to certify the target: the fitted bands are shown for what
// they are, never labelled recommended nor offered as a snippet to paste,
// since pasting them would trade held-out accuracy for an unproven bound.
var _ = Describe("an uncertified recommendation", func() {
	render := func(fit, eval []calibrate.Record, target float64) (*calibrate.Report, string, string) {
		GinkgoHelper()
		rep := calibrate.Analyze(fit, eval, calibrate.Options{
			Version: "v@1", Judge: "builtin", Embedder: "builtin", MaxWrongExec: target,
			Current: registry.Bands{Execute: 0.85, Clarify: 0.6}, Split: calibrate.Split{Method: "holdout", Holdout: 0.5},
		})
		var text, svg bytes.Buffer
		Expect(rep.WriteText(&text)).To(Succeed())
		Expect(rep.WriteSVG(&svg)).To(Succeed())
		return rep, text.String(), svg.String()
	}

	It("says not certified and prints no snippet", func() {
		rng := rand.New(rand.NewPCG(5, 6))
		fit, eval := calibrate.Holdout(calibratedCases(rng, "read", 120, registry.Read), 0.5)
		rep, text, svg := render(fit, eval, 0.02)
		Expect(rep.Certified).To(BeFalse())
		Expect(rep.Uncertified).To(Equal([]calibrate.Class{calibrate.ClassRead}))
		Expect(text).To(ContainSubstring("Fitted bands, per side-effect class: NOT CERTIFIED"))
		Expect(text).NotTo(ContainSubstring("Recommended bands"))
		Expect(text).NotTo(ContainSubstring("recommended (read)"))
		Expect(text).To(ContainSubstring("not certified (read)"))
		Expect(text).NotTo(ContainSubstring("in version.yaml:"))
		Expect(text).To(ContainSubstring("no version.yaml snippet: read not certified"))
		Expect(svg).NotTo(ContainSubstring("recommended"))
	})

	It("recommends and prints the snippet when every fitted class is certified", func() {
		rng := rand.New(rand.NewPCG(7, 11))
		fit, eval := calibrate.Holdout(calibratedCases(rng, "read", 4000, registry.Read), 0.5)
		rep, text, _ := render(fit, eval, 0.02)
		Expect(rep.Certified).To(BeTrue())
		Expect(text).To(ContainSubstring("Recommended bands"))
		Expect(text).To(ContainSubstring("in version.yaml:"))
	})
})
