package builtin

import (
	"math/rand/v2"
	"strings"
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("counting a clause's novel Han characters", func() {
	It("reads the text's bytes as the rune list reads it, whatever is taken", func() {
		p := &extractPlan{command: commandBigrams([]string{"新建工单，同步库存", "关闭告警"})}
		texts := madeUpTexts(21, 20000, strings.Split("新建|工单|库存|同步|延迟|最高|优先级|的|了|请|帮我|，|,|。|；|!| |x|service|关闭|告警|3", "|"))
		counted := 0
		for i, t := range texts {
			taken := &spans{}
			if len(t) > 0 {
				rng := rand.New(rand.NewPCG(uint64(i), 3))
				from := rng.IntN(len(t))
				taken.add(from, from+rng.IntN(len(t)-from+1))
			}
			for _, c := range splitClauses(t) {
				Expect(utf8.ValidString(t[c.from:c.to])).To(BeTrue())
				want := p.novelHanRunes(t, c, taken)
				Expect(p.novelHan(t, c, taken)).To(Equal(want), "%q clause %v taken %v", t, c, taken.list)
				counted += want
			}
		}
		Expect(counted).To(BeNumerically(">", 1000))
		// Not valid UTF-8: the rune list's reading.
		bad := "新建\xff库存延迟"
		c := span{0, len(bad)}
		Expect(p.novelHan(bad, c, &spans{})).To(Equal(p.novelHanRunes(bad, c, &spans{})))
	})
})
