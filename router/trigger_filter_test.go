package router

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"

	g "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router/internal/prefilter"
	"github.com/routebench/routebench/router/registry"
)

func skillWithTriggers(name string, patterns ...string) *registry.Skill {
	s := &registry.Skill{Name: name}
	for _, p := range patterns {
		s.Triggers = append(s.Triggers, &registry.Trigger{Pattern: p, Re: regexp.MustCompile(p)})
	}
	return s
}

// triedInTurn is stage 1 without the index: every trigger of every skill
// run against text, the answer the index must give.
func triedInTurn(skills []*registry.Skill, text string) []string {
	var out []string
	for _, s := range skills {
		for _, t := range s.Triggers {
			if t.Re.MatchString(text) {
				out = append(out, s.Name)
				break
			}
		}
	}
	return out
}

// indexed is stage 1 through the index and one request's hits.
func indexed(skills []*registry.Skill, text string) []string {
	ix := newTriggerIndex(skills)
	var h triggerHits
	var out []string
	for _, s := range skills {
		if h.triggered(&ix, s, text) {
			out = append(out, s.Name)
		}
	}
	return out
}

// The literal prefilter may only skip texts a trigger does not match.
var _ = g.Describe("trigger prefilter", func() {
	type needle = prefilter.Needle
	clausesOf := func(pattern string) prefilter.Clauses { return prefilter.Required(regexp.MustCompile(pattern)) }
	orb := needle{S: "orb-", Fold: true}

	g.It("keeps literals every match needs, as clauses that must all hold", func() {
		Expect(clausesOf(`(?i)\bORB-\d{5}\b`)).To(Equal(prefilter.Clauses{{orb}}))
		Expect(clausesOf(`(?i)(cancel|取消).{0,20}\bORB-\d{5}\b|\bORB-\d{5}\b.{0,20}(cancel|取消)`)).To(Equal(prefilter.Clauses{
			{{S: "cancel", Fold: true}, {S: "取消", Fold: true}}, {orb}}))
		Expect(clausesOf(`WH-[0-9]+`)).To(Equal(prefilter.Clauses{{{S: "WH-"}}}))
		Expect(clausesOf(`退款|refund`)).To(Equal(prefilter.Clauses{{{S: "退款"}, {S: "refund"}}}))
		Expect(clausesOf(`ab(cd|ef)(gh)+`)).To(Equal(prefilter.Clauses{{{S: "ab"}}, {{S: "cd"}, {S: "ef"}}, {{S: "gh"}}}))
	})

	g.It("gives up on a trigger without a literal it can check exactly", func() {
		Expect(clausesOf(`\d{4}\s\d{2}`)).To(BeNil())
		// k folds to the Kelvin sign, which an ASCII search would miss.
		Expect(clausesOf(`(?i)k\d+`)).To(BeNil())
		Expect(clausesOf(`(?i)tick-\d+`)).To(Equal(prefilter.Clauses{{{S: "tic", Fold: true}}}))
		Expect(clausesOf(`(?i)tckt-\d+`)).To(Equal(prefilter.Clauses{{{S: "tc", Fold: true}}}))
		Expect(clausesOf(`(?:orb)?\d+`)).To(BeNil())
		Expect(clausesOf(`orb|\d+`)).To(BeNil())
	})

	g.It("answers as trying every trigger does", func() {
		skills := []*registry.Skill{
			skillWithTriggers("lookup", `(?i)\bORB-\d{5}\b`),
			skillWithTriggers("cancel", `(?i)(cancel|取消).{0,20}\bORB-\d{5}\b`),
			skillWithTriggers("kelvin", `(?i)\bdock \d+`),
			skillWithTriggers("digits", `\d{4}\s\d{2}`, `(?i)tckt-\d+`),
			skillWithTriggers("plain"),
		}
		for _, text := range []string{"where is orb-12345", "Where is ORB-12345?", "取消 ORB-12345", "orb 12345",
			"DOCK 7", "doc 7", "do\u212a 7", "dock-7", "nothing here", "PkG-1234", "", "2026 11", "TcKt-9"} {
			Expect(indexed(skills, text)).To(Equal(triedInTurn(skills, text)), text)
		}
	})

	g.It("answers as trying every trigger does on made-up texts", func() {
		skills := []*registry.Skill{
			skillWithTriggers("lookup", `(?i)\bORD-\d{8}\b`),
			skillWithTriggers("refund", `(?i)(refund|退款|退).{0,24}\bORD-\d{8}\b|\bORD-\d{8}\b.{0,24}(refund|退款|退)`),
			skillWithTriggers("ticket", `(?i)(close|resolve|reopen|mark|关闭|改为).{0,24}\bTCK-\d{6}\b|\bTCK-\d{6}\b.{0,24}(close|mark|in.progress|已解决)`),
			skillWithTriggers("kelvin", `(?i)\bsk(u|it)-\d+`),
		}
		pieces := []string{"ORD-12345678", "ord-87654321", "ORD-1234", "TCK-123456", "tc\u212a-123456", "REFUND", "Refund", "退", "退款",
			"close", "CLOSE", "resolve", "mark", "in progress", "in_progress", "已解决", "关闭", "改为", "sku-1", "\u017fku-2", "s\u212au-3", "skit-4",
			" ", "  ", "\n", "x", "please ", "0", "-", ",", "的"}
		rng := rand.New(rand.NewPCG(9, 15))
		hits := 0
		for range 20000 {
			var b strings.Builder
			for range 1 + rng.IntN(8) {
				b.WriteString(pieces[rng.IntN(len(pieces))])
			}
			text := b.String()
			want := triedInTurn(skills, text)
			Expect(indexed(skills, text)).To(Equal(want), text)
			hits += len(want)
		}
		Expect(hits).To(BeNumerically(">", 5000))
	})

	g.It("runs a skill's triggers once per request and keeps the answer", func() {
		skills := []*registry.Skill{skillWithTriggers("lookup", `(?i)\bORB-\d{5}\b`), skillWithTriggers("plain")}
		ix := newTriggerIndex(skills)
		Expect(ix.skills).To(HaveLen(1))
		var h triggerHits
		Expect(h.triggered(&ix, skills[0], "orb-12345")).To(BeTrue())
		Expect(h.state).To(Equal([]uint8{2}))
		// The answer is remembered: the text is the request's, fixed.
		Expect(h.triggered(&ix, skills[0], "")).To(BeTrue())
		Expect(h.triggered(&ix, skills[1], "orb-12345")).To(BeFalse())
	})
})

var _ = g.Describe("the trigger index", func() {
	patterns := []string{`(?i)\bORD-\d{8}\b`, `^restart\b`, `(?m)^zone [a-c]$`, `退款`, `x{2,3}y`}
	texts := []string{"ord-12345678 please", "ORD-1234567", "please restart", "restart now", "Restart now", "east\nzone b", "zone b\n", "Zone B",
		"我要退款", "xxy", "xy", "", "nothing here"}
	skillsOf := func(pats ...string) []*registry.Skill {
		var out []*registry.Skill
		for i, p := range pats {
			out = append(out, &registry.Skill{Name: fmt.Sprint("s", i), Triggers: []*registry.Trigger{{Pattern: p, Re: regexp.MustCompile(p)}}})
		}
		return out
	}

	g.It("finds the skills trying each trigger finds, each keeping its own flags", func() {
		for n := 1; n <= len(patterns); n++ {
			skills := skillsOf(patterns[:n]...)
			for _, text := range texts {
				Expect(indexed(skills, text)).To(Equal(triedInTurn(skills, text)), "%q over %d patterns", text, n)
			}
		}
	})

	g.It("holds nothing for a set without triggers", func() {
		ix := newTriggerIndex([]*registry.Skill{{Name: "plain"}})
		Expect(ix.skills).To(BeEmpty())
		Expect(indexed([]*registry.Skill{{Name: "plain"}}, "anything")).To(BeEmpty())
	})
})
