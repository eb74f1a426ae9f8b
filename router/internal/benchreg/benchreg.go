// Package benchreg makes the registry the router's and the builtin
// models' large-registry benchmarks share: n made-up skills of m example
// inputs each, drawn from one small bilingual vocabulary, so every text
// shares words with thousands of others (the fit's and recall's worst
// case, CLINC150-sized at 150 × 100).
package benchreg

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/routebench/routebench/router/registry"
)

var vocab = strings.Fields("order alert log metric ticket service region zone refund restart scale purge cache delete data send notify incident deploy east south north west prod staging payment gateway search latency cpu memory error warn critical paid shipped 订单 告警 日志 服务 重启 扩容 退款 发送 通知 华东 华南 华北 西南 上周 昨天 最近 工单 缓存 删除")

// Skills returns the registry's skills: names skill_000 on, a 20-word
// description, three 10-word when_to_use lines, a when_not_to_use line, a
// counter-example and m 8-word examples without params. seed varies the
// texts (builtin fits are cached by content, so a benchmark of fitting
// needs new texts every iteration). Callers add schemas and scopes.
func Skills(n, m int, seed uint64) []*registry.Skill {
	rng := rand.New(rand.NewPCG(seed, 2))
	phrase := func(k int) string {
		w := make([]string, k)
		for i := range w {
			w[i] = vocab[rng.IntN(len(vocab))]
		}
		return strings.Join(w, " ")
	}
	skills := make([]*registry.Skill, n)
	for i := range skills {
		s := &registry.Skill{Name: fmt.Sprintf("skill_%03d", i), Description: phrase(20),
			WhenToUse:    []string{phrase(10), phrase(10), phrase(10)},
			WhenNotToUse: []string{"anything else"}, CounterExamples: []string{"something unrelated"}}
		for range m {
			s.Examples = append(s.Examples, registry.Example{Input: phrase(8), Params: map[string]any{}})
		}
		skills[i] = s
	}
	return skills
}
