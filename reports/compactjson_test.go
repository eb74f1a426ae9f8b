package reports_test

import (
	"math"
	"math/rand/v2"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/reports"
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

var _ = Describe("params as one line of JSON (junit.xml, the case table)", func() {
	It("is encoding/json's text for flat params and for anything else", func() {
		nasty := "</script><b>&amp;\u2028\u2029\x00\x1f\t\n\"\\ \xff\xfe 华东 😀"
		values := []any{
			map[string]any{"region": "east", "start": "2026-11-23", "limit": 20.0, "dry_run": false, "note": nil},
			map[string]any{"amount": 1e21, "tiny": 1e-7, "neg": -0.0, "third": 1.0 / 3, "big": 123456789012345678.0},
			map[string]any{"quote\"key": "a\\b", "ctl": "\x00\x1f\t\n", "sep": "\u2028\u2029", "bad utf-8": "\xff\xfe", "cjk": "华东 😀"},
			map[string]any{"html": "<b>&amp;</b>"},
			map[string]any{"a<b": "x"},
			map[string]any{"nested": map[string]any{"y": []any{true, nil}}, "list": []any{"b", "a"}},
			map[string]any{"int": 7, "nasty": nasty},
			map[string]any{},
			map[string]any(nil),
			nil,
			[]any{"x", 1.5},
		}
		for _, v := range values {
			own, reference := reports.CompactJSONForTest(v)
			Expect(own).To(Equal(reference), "%#v", v)
		}
	})

	It("is encoding/json's text for many made-up flat params", func() {
		rng := rand.New(rand.NewPCG(7, 11))
		pieces := []string{"a", "Z", "区域", "é", "\"", "\\", "\n", "\x01", "<", ">", "&", "\u2028", "\xff", " ", "9", "😀"}
		text := func() string {
			var s string
			for range rng.IntN(6) {
				s += pieces[rng.IntN(len(pieces))]
			}
			return s
		}
		for range 2000 {
			m := map[string]any{}
			for range rng.IntN(6) {
				var v any
				switch rng.IntN(6) {
				case 0:
					v = text()
				case 1:
					v = math.Float64frombits(rng.Uint64())
				case 2:
					v = float64(rng.IntN(2000) - 1000)
				case 3:
					v = rng.IntN(2) == 0
				case 4:
					v = nil
				default:
					v = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(50)-25))
				}
				m[text()] = v
			}
			own, reference := reports.CompactJSONForTest(m)
			Expect(own).To(Equal(reference), "%#v", m)
		}
	})
})

var _ = Describe("an expectation's params in the case data", func() {
	It("are json.Marshal's bytes, nested or not", func() {
		rng := rand.New(rand.NewPCG(5, 8))
		pieces := []string{"a", "Z", "区域", "\"", "\\", "\n", "\x01", "<", ">", "&", "\u2028", "\xff", " ", "😀"}
		text := func() string {
			var s string
			for range rng.IntN(5) {
				s += pieces[rng.IntN(len(pieces))]
			}
			return s
		}
		var value func(depth int) any
		value = func(depth int) any {
			switch rng.IntN(10) {
			case 0:
				return text()
			case 1:
				return rng.NormFloat64() * math.Pow(10, float64(rng.IntN(50)-25))
			case 2:
				return rng.IntN(2000) - 1000
			case 3:
				return rng.IntN(2) == 0
			case 4:
				return nil
			case 5:
				if depth < 3 {
					var l []any
					if rng.IntN(4) > 0 {
						l = []any{}
					}
					for range rng.IntN(4) {
						l = append(l, value(depth+1))
					}
					return l
				}
			case 6:
				if depth < 3 {
					m := map[string]any{}
					for range rng.IntN(4) {
						m[text()] = value(depth + 1)
					}
					return m
				}
			case 7:
				return int64(rng.IntN(100)) // not a plain value: json.Marshal writes it
			case 8:
				return []string{text()}
			}
			return float64(rng.IntN(100))
		}
		for range 3000 {
			m := map[string]any{}
			for range 1 + rng.IntN(4) {
				m[text()] = value(0)
			}
			own, reference, err := reports.PlainJSONForTest(m)
			Expect(err).NotTo(HaveOccurred())
			Expect(own).To(Equal(reference), "%#v", m)
		}
		// The matchers' shapes, as case files give them.
		for _, m := range []map[string]any{
			{"region": map[string]any{"absent": true}, "start": map[string]any{"regex": "^2026-11-2[3-9]$"}},
			{"status": map[string]any{"any_of": []any{"shipped", "refunded", 3, 2.5}}, "limit": 20},
		} {
			own, reference, err := reports.PlainJSONForTest(m)
			Expect(err).NotTo(HaveOccurred())
			Expect(own).To(Equal(reference))
		}
	})
})

var _ = Describe("the interner of a result's view", func() {
	It("gives the ids an ordinary interner gives, past its few strings and after resets", func() {
		rng := rand.New(rand.NewPCG(2, 6))
		var words []string
		for range 5000 {
			words = append(words, []string{"", "a", "b", "区域", "skill_" + string(rune('a'+rng.IntN(26))) + string(rune('a'+rng.IntN(26)))}[rng.IntN(5)])
		}
		for _, every := range []int{1, 7, 40, 200, 5000} {
			view, ordinary := reports.InternedForTest(words, every)
			Expect(view).To(Equal(ordinary), "reset every %d", every)
		}
	})
})

var _ = Describe("a stage's record in words (junit.xml's trace, the case table's steps)", func() {
	It("is what joining each field's words gives, for every mix of fields", func() {
		rng := rand.New(rand.NewPCG(8, 1))
		text := func(n int) string {
			pieces := []string{"a", "区域", "😀", " ", ";", ",", "x"}
			var s string
			for range n {
				s += pieces[rng.IntN(len(pieces))]
			}
			return s
		}
		some := func() []string {
			var l []string
			for range rng.IntN(3) {
				l = append(l, text(1+rng.IntN(6)))
			}
			return l
		}
		for range 3000 {
			s := router.TraceStep{Stage: []string{"rules", "recall", "judge", "bands", "policy", ""}[rng.IntN(6)]}
			if rng.IntN(2) == 0 {
				k := rng.IntN(30)
				s.Kept = &k
			}
			s.Dropped, s.Matched, s.Top = some(), some(), some()
			for range rng.IntN(3) {
				s.Scores = append(s.Scores, router.Candidate{Skill: text(4), Score: rng.Float64()})
			}
			if rng.IntN(2) == 0 {
				s.Provider = text(5)
			}
			if rng.IntN(2) == 0 {
				s.Choice = text(5)
			}
			if rng.IntN(3) == 0 {
				c := rng.Float64()
				s.Confidence = &c
			}
			s.Attempt = rng.IntN(3)
			if rng.IntN(3) == 0 {
				s.Prompt = text(rng.IntN(40))
			}
			if rng.IntN(3) == 0 {
				s.Usage = &router.Usage{InputTokens: rng.IntN(5000), OutputTokens: rng.IntN(500)}
			}
			if rng.IntN(4) == 0 {
				s.Errors = []router.Error{{Category: router.CatParams, Path: "/" + text(3), Message: text(8)}}
			}
			if rng.IntN(2) == 0 {
				s.Note = text(rng.IntN(700)) // past the message limit at times
			}
			line, refLine, step, refStep := reports.TraceTextForTest(s)
			Expect(line).To(Equal(refLine), "%#v", s)
			Expect(step).To(Equal(refStep), "%#v", s)
		}
	})
})

var _ = Describe("a case report's expected line (junit.xml)", func() {
	It("is what joining its parts as strings gives, for every mix of parts", func() {
		rng := rand.New(rand.NewPCG(6, 2))
		pieces := []string{"a", "Z", "区域", " ", "\t", "\n", "<", ">", "&", "\"", "\\u003c", "\u2028", "\xff", "_", "😀"}
		text := func() string {
			var s string
			for range rng.IntN(4) {
				s += pieces[rng.IntN(len(pieces))]
			}
			return s
		}
		list := func() []string {
			var l []string
			for range rng.IntN(3) {
				l = append(l, text())
			}
			return l
		}
		value := func() any {
			switch rng.IntN(6) {
			case 0:
				return text()
			case 1:
				return rng.NormFloat64() * math.Pow(10, float64(rng.IntN(30)-15))
			case 2:
				return rng.IntN(2) == 0
			case 3:
				return nil
			case 4:
				return int64(rng.IntN(9)) // encoding/json's alone
			}
			return map[string]any{text(): text()}
		}
		for range 3000 {
			e := harness.Expect{Action: router.Action([]string{"", "execute", "refuse", " clarify "}[rng.IntN(4)]), Skill: text(),
				Gate: registry.Gate(text()), Candidates: list(), Never: list()}
			if rng.IntN(3) == 0 {
				e.Outcome, e.StoppedAt = text(), text()
			}
			if rng.IntN(3) == 0 {
				calls := list()
				e.Calls = &calls
			}
			if rng.IntN(2) == 0 {
				e.Params = map[string]harness.ParamMatcher{}
				for range 1 + rng.IntN(3) {
					var m harness.ParamMatcher
					switch rng.IntN(4) {
					case 0:
						m.Absent = true
					case 1:
						m.Regex = text()
					case 2:
						m.AnyOf = []any{value(), value()}
					default:
						m.Equals = value()
					}
					e.Params[text()] = m
				}
			}
			own, reference := reports.ExpectLineForTest(e)
			Expect(own).To(Equal(reference), "%#v", e)
		}
	})

	It("prints numbers with fixed decimals as FormatFloat does, without a negative zero's sign", func() {
		rng := rand.New(rand.NewPCG(9, 9))
		values := []float64{0, math.Copysign(0, -1), -0.0004, 0.0004, -0.0005, 1.9995, -2.5e-9, math.NaN(), math.Inf(1), math.Inf(-1)}
		for range 2000 {
			values = append(values, rng.NormFloat64()*math.Pow(10, float64(rng.IntN(12)-6)))
		}
		for _, v := range values {
			for _, prec := range []int{0, 1, 3, 6} {
				own, reference := reports.FixedForTest(v, prec)
				Expect(own).To(Equal(reference), "%v to %d", v, prec)
			}
		}
	})
})

var _ = Describe("the metric tables' markup (report.html)", func() {
	It("is what the page's template printed, escapes and all", func() {
		rng := rand.New(rand.NewPCG(3, 14))
		pieces := []string{"a", "0.912", "+0.012", " ", "区域", "\"", "'", "&", "&amp;", "<", ">", "<b>", "+", "\x00", "\xff", "\xe2<", "⚠", "~", "n=240", "\n"}
		text := func() string {
			var s string
			for range rng.IntN(4) {
				s += pieces[rng.IntN(len(pieces))]
			}
			return s
		}
		maybe := func(s string) string {
			if rng.IntN(2) == 0 {
				return ""
			}
			return s
		}
		for range 300 {
			var tables []reports.MetricTableForTest
			for range rng.IntN(4) {
				t := reports.MetricTableForTest{Key: text(), Label: text()}
				for range rng.IntN(4) {
					t.Sizes = append(t.Sizes, text())
					t.Columns = append(t.Columns, [2]string{text(), maybe("delta")})
				}
				for range rng.IntN(4) {
					var row struct {
						Head  [4]string
						Cells [][7]string
					}
					row.Head = [4]string{text(), text(), text(), maybe("sub")}
					for range rng.IntN(4) {
						row.Cells = append(row.Cells, [7]string{maybe("delta"), text(), maybe(text()), maybe(text()), maybe(text()), text(), maybe(text())})
					}
					t.Rows = append(t.Rows, row)
				}
				tables = append(tables, t)
			}
			own, reference, err := reports.MetricTablesForTest(tables)
			Expect(err).NotTo(HaveOccurred())
			Expect(own).To(Equal(reference))
		}
	})
})
