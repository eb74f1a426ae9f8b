package builtin

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/routebench/routebench/internal/jsonstr"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The hand-written verdict encoder must give json.Marshal's bytes exactly:
// they are the Raw every trace shows.
var _ = Describe("verdict JSON", func() {
	strs := []string{"", "plain", "引号\"和\\反斜杠", "<b>&amp;</b>", "tab\tnew\nline\r\b\f\x01\x1f", "\xff\xfeinvalid", "sep\u2028\u2029", "emoji 😀", "ORD-20261103"}
	nums := []float64{0, -0.0, 1, 0.5, 0.12345678901234568, 1e-7, 1.5e-7, 1e-6, 1e20, 1e21, 123456789012345680000, -3.25, math.MaxFloat64, math.SmallestNonzeroFloat64}

	var value func(rng *rand.Rand, depth int) any
	value = func(rng *rand.Rand, depth int) any {
		switch k := rng.IntN(7); {
		case k == 0:
			return nil
		case k == 1:
			return rng.IntN(2) == 0
		case k == 2:
			return strs[rng.IntN(len(strs))]
		case k == 3 || depth > 2:
			return nums[rng.IntN(len(nums))]
		case k == 4:
			l := make([]any, rng.IntN(4))
			for i := range l {
				l[i] = value(rng, depth+1)
			}
			return l
		default:
			m := map[string]any{}
			for range rng.IntN(20) {
				m[strs[rng.IntN(len(strs))]+string(rune('a'+rng.IntN(26)))] = value(rng, depth+1)
			}
			return m
		}
	}

	It("gives json.Marshal's bytes for decoded-JSON values", func() {
		rng := rand.New(rand.NewPCG(15, 2))
		for range 2000 {
			params, _ := value(rng, 0).(map[string]any)
			v := verdict{Skill: strs[rng.IntN(len(strs))], Confidence: nums[rng.IntN(len(nums))], Params: params}
			if rng.IntN(2) == 0 {
				v.Reason = strs[rng.IntN(len(strs))]
			}
			want, err := json.Marshal(v)
			Expect(err).NotTo(HaveOccurred())
			got, ok := appendVerdictJSON(nil, v, nil)
			Expect(ok).To(BeTrue())
			Expect(string(got)).To(Equal(string(want)))
		}
	})

	It("leaves other types and non-finite numbers to json.Marshal", func() {
		_, ok := appendVerdictJSON(nil, verdict{Skill: "a", Params: map[string]any{"n": int64(3)}}, nil)
		Expect(ok).To(BeFalse())
		_, ok = appendVerdictJSON(nil, verdict{Skill: "a", Params: map[string]any{"l": []string{"x"}}}, nil)
		Expect(ok).To(BeFalse())
		_, ok = appendVerdictJSON(nil, verdict{Skill: "a", Confidence: math.NaN()}, nil)
		Expect(ok).To(BeFalse())
		raw, err := appendVerdict([]byte("x"), verdict{Skill: "a", Params: map[string]any{"n": int64(3)}}, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(raw)).To(Equal(`x{"skill":"a","confidence":0,"params":{"n":3}}`))
	})

	It("quotes a shortened registry text as quoting the shortened string does", func() {
		clip := func(s string, n int) string { // shortened the plain way
			k := 0
			for i := range s {
				if k == n {
					return s[:i] + "…"
				}
				k++
			}
			return s
		}
		for _, s := range []string{"", "short", "exactly five", "看看华东区上周已发货的订单", "a \"quoted\" \\ line\twith tabs",
			"bad \xff\xe2\x80 bytes and more after them", "emoji 🙂🙂🙂🙂 end", "\u2028 separators \x00"} {
			for _, n := range []int{0, 1, 3, 5, 12, 60} {
				Expect(string(appendQuotedClip([]byte("<"), s, n))).To(Equal("<"+strconv.Quote(clip(s, n))), "%q %d", s, n)
			}
		}
		texts := madeUpTexts(31, 20000, strings.Split("看看|华东区|订单| |a|Z|~|\"|\\|\t|\x7f|\x00|é|\u3000|。|🙂|\xff|\xe4\xb8|一|\u9fff|\u4e00|\u9fa5", "|"))
		for _, s := range texts {
			Expect(string(appendQuotedClip([]byte("<"), s, 7))).To(Equal("<"+strconv.Quote(clip(s, 7))), "%q", s)
			Expect(string(appendQuoted(nil, s))).To(Equal(strconv.Quote(s)), "%q", s)
		}
		var unprintable []rune
		for r := rune(0x4E00); r <= 0x9FFF; r++ {
			if !strconv.IsPrint(r) {
				unprintable = append(unprintable, r)
			}
		}
		Expect(unprintable).To(BeEmpty())
	})
})

var _ = Describe("a reason written with its JSON beside it", func() {
	It("has the JSON string jsonstr.Append writes for the whole reason", func() {
		// Names and registry texts as anything a registry may hold:
		// quotes, markup, control bytes, U+2028, invalid UTF-8 (cut in
		// the middle of a rune too); as in a reason, an ASCII literal
		// stands between two parts.
		parts := []string{"", "scale_service", "引号\"和\\反斜杠", "<b>&amp;</b>", "tab\tnew\nline\x01", "\xff\xfe", "\xe4\xb8", "\xad尾", "sep\u2028\u2029", "emoji 😀", "把预发的 payment-api 扩到 6 个副本，“马上”"}
		rng := rand.New(rand.NewPCG(15, 3))
		for range 3000 {
			r := reasonText{json: []byte{'"'}}
			for range 1 + rng.IntN(6) {
				r.ascii([]string{" fits best (p=", ", fit ", ")", "; closest registry text ", " (cos ", "; runner-up ", " (p="}[rng.IntN(7)])
				switch rng.IntN(4) {
				case 0:
					r.text(parts[rng.IntN(len(parts))])
				case 1:
					r.float(rng.NormFloat64())
				case 2:
					plain := string(appendQuotedClip(nil, parts[rng.IntN(len(parts))]+parts[rng.IntN(len(parts))], 1+rng.IntN(8)))
					r.quoted(&quotedText{plain: plain, json: string(appendEscaped(nil, plain))})
				default:
					r.ascii([]string{" fits best (p=", ", fit ", ")", "; closest registry text ", " (cos ", "; runner-up ", " (p="}[rng.IntN(7)])
				}
			}
			Expect(string(append(r.json, '"'))).To(Equal(string(jsonstr.Append(nil, string(r.plain)))), "%q", r.plain)
		}
	})
})
