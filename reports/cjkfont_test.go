package reports_test

import (
	"regexp"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/reports"
)

var _ = Describe("The page's font stack", func() {
	It("reaches the common CJK fonts of macOS, Windows and Linux before the generic family", func() {
		body := regexp.MustCompile(`body \{[^}]*font: [^;]*;`).FindString(renderHTML(reports.Input{}))
		for _, f := range []string{"PingFang SC", "Hiragino Sans GB", "Microsoft YaHei", "Noto Sans CJK SC",
			"Source Han Sans SC", "WenQuanYi Micro Hei", "Yu Gothic", "Malgun Gothic"} {
			Expect(body).To(ContainSubstring(`"` + f + `"`))
		}
		Expect(body).To(HaveSuffix("sans-serif;"))
	})
})
