package prefilter_test

import (
	"reflect"
	"regexp"
	"testing"

	"github.com/routebench/routebench/router/internal/prefilter"
)

// FuzzFiltered holds a filtered regexp's answers to the regexp's own, for
// any pattern and any text.
func FuzzFiltered(f *testing.F) {
	for _, seed := range [][2]string{
		{`(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})`, "due 2031-05-02, 12031-5-2"},
		{`今天|今日|\btoday\b`, "今天 todays today"},
		{`(?i)\bk(\d+)\b`, "K7 \u212a8 k"},
		{`[ ,]*(\d+|x)`, "a , 7,x \xff"},
		{`(?i)inv-\d{3}|void`, "INV-123 vOiD"},
		{`(?i)\bORD-\d{8}\b`, "查订单ORD-20261103的状态, ord-123456789 xORD-12345678"},
		{`(?i)(refund|退款|退).{0,24}\bORD-\d{8}\b`, "给订单 ORD-20261103 退款, refund ORD-55501234"},
		// Searched from the first of their leading literals.
		{`(?:标题是|标题为|标题|titled|title\s*[:：]|called|about|关于)\s*[:：]?\s*(.+)`, "a ticket titled: disk full, about it\n标题是 x"},
		{`\bfor\s+(\w+)`, "before for x, forfor for y"},
		{`(?m)^abc|xyz`, "q\nabc xyz abc"},
		{`\Bfoo|\bbar`, "xfoo foo 中bar é bar"},
		{`a\x{FFFD}b|ab`, "a\xffb a\uFFFDb ab"},
		{`(?:说|saying)\s*(.+)`, "他说你好。 saying hi"},
		{`[:：\x{FFFD}]\s*(.+)|[ab]x`, "title: x；标题：y \xff z bx"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, pattern, text string) {
		if len(pattern) > 200 || len(text) > 2000 {
			return
		}
		re, err := regexp.Compile(pattern)
		if err != nil {
			return
		}
		fl := prefilter.Filter(re)
		if got, want := fl.FindAllSubmatchIndex(text), re.FindAllStringSubmatchIndex(text, -1); !reflect.DeepEqual(got, want) {
			t.Fatalf("%q in %q: all submatches %v, the regexp finds %v", pattern, text, got, want)
		}
		if got, want := fl.FindAllIndex(text), re.FindAllStringIndex(text, -1); !reflect.DeepEqual(got, want) {
			t.Fatalf("%q in %q: all matches %v, the regexp finds %v", pattern, text, got, want)
		}
		if got, want := fl.FindSubmatchIndex(text), re.FindStringSubmatchIndex(text); !reflect.DeepEqual(got, want) {
			t.Fatalf("%q in %q: first match %v, the regexp finds %v", pattern, text, got, want)
		}
		if got, want := fl.MatchString(text), re.MatchString(text); got != want {
			t.Fatalf("%q in %q: matches %v, the regexp says %v", pattern, text, got, want)
		}
	})
}
