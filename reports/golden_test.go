package reports_test

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/reports"
	"github.com/routebench/routebench/router"
)

// expectGolden compares got with testdata/name, or rewrites the file
// under -update.
func expectGolden(name string, got []byte) {
	GinkgoHelper()
	path := filepath.Join("testdata", name)
	if *update {
		Expect(os.WriteFile(path, got, 0o644)).To(Succeed())
	}
	want, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred(), "run go test ./reports/ -update to create %s", path)
	Expect(string(got)).To(Equal(string(want)), "output differs from %s; if the change is intended, rerun with -update", path)
}

// writeCounter keeps what is written and counts the writes.
type writeCounter struct {
	b      bytes.Buffer
	writes int
}

func (w *writeCounter) Write(p []byte) (int, error) {
	w.writes++
	return w.b.Write(p)
}

var _ = Describe("WriteJUnit", func() {
	render := func(results []harness.Result) []byte {
		var b bytes.Buffer
		Expect(reports.WriteJUnit(&b, results)).To(Succeed())
		return b.Bytes()
	}

	It("matches the golden file", func() {
		expectGolden("junit.xml.golden", render(fixtureResults()))
	})

	// outdir.WriteFile hands the writers a *bufio.Writer; the XML
	// encoder, which flushes after every element, must not turn each
	// test case into a write to the file.
	It("writes through a buffered writer in large writes, the same bytes", func() {
		results := syntheticRun(300, 2)
		var file writeCounter
		bw := bufio.NewWriterSize(&file, 64<<10)
		Expect(reports.WriteJUnit(bw, results)).To(Succeed())
		Expect(bw.Flush()).To(Succeed())
		Expect(file.b.String()).To(Equal(string(render(results))))
		Expect(file.b.Len()).To(BeNumerically(">", 64<<10), "a few buffers' worth, so the count below means something")
		Expect(file.writes).To(BeNumerically("<=", file.b.Len()/(32<<10)+1), "%d writes for %d test cases", file.writes, len(results))
	})

	It("has one testsuite per version and suite and one testcase per result", func() {
		var doc struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
			Suites   []struct {
				Name     string `xml:"name,attr"`
				Failures int    `xml:"failures,attr"`
				Cases    []struct {
					Name      string `xml:"name,attr"`
					Classname string `xml:"classname,attr"`
					Failure   *struct {
						Type    string `xml:"type,attr"`
						Message string `xml:"message,attr"`
						Body    string `xml:",chardata"`
					} `xml:"failure"`
				} `xml:"testcase"`
			} `xml:"testsuite"`
		}
		Expect(xml.Unmarshal(render(fixtureResults()), &doc)).To(Succeed())
		Expect(doc.Tests).To(Equal(10))
		Expect(doc.Failures).To(Equal(5))
		var names []string
		for _, s := range doc.Suites {
			names = append(names, s.Name)
		}
		Expect(names).To(Equal([]string{
			"v1@0a1b2c3d/normal", "v1@0a1b2c3d/boundary", "v1@0a1b2c3d/adversarial",
			"v2@4e5f6a7b/normal", "v2@4e5f6a7b/boundary", "v2@4e5f6a7b/adversarial",
		}))
		adv := doc.Suites[2].Cases[0]
		Expect(adv.Name).To(Equal("injection-003"))
		Expect(adv.Classname).To(Equal("v1@0a1b2c3d.adversarial"))
		Expect(adv.Failure.Type).To(Equal("schema_error"))
		Expect(adv.Failure.Message).To(Equal("expected refuse, decided error (confidence 0.000)"))
		// The trace survives XML escaping intact, raw HTML and all.
		Expect(adv.Failure.Body).To(ContainSubstring("raw: " + htmlRaw))
		Expect(adv.Failure.Body).To(ContainSubstring("policy: kept 13; dropped delete_test_data, restart_service"))
	})

	It("does not depend on result order", func() {
		rs := fixtureResults()
		rev := make([]harness.Result, len(rs))
		for i, r := range rs {
			rev[len(rs)-1-i] = r
		}
		// Reversing puts v2 first; JUnit follows first appearance, so swap
		// versions back by reversing within each half.
		want := render(rs)
		got := render(append(append([]harness.Result(nil), rev[5:]...), rev[:5]...))
		Expect(string(got)).To(Equal(string(want)))
	})

	It("replaces characters XML cannot carry", func() {
		rs := fixtureResults()[:1]
		rs[0].Pass, rs[0].Failure = false, "judge_wrong_skill"
		rs[0].Input = "bell\a and nul\x00 <&> ]]> end"
		var doc struct {
			Body string `xml:"testsuite>testcase>failure"`
		}
		Expect(xml.Unmarshal(render(rs), &doc)).To(Succeed())
		Expect(doc.Body).To(HavePrefix("input: bell\uFFFD and nul\uFFFD <&> ]]> end\n"))
	})
})

var _ = Describe("WriteMarkdown", func() {
	render := func(in reports.Input) string {
		var b bytes.Buffer
		Expect(reports.WriteMarkdown(&b, in)).To(Succeed())
		return b.String()
	}
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

	It("matches the golden file with a paired comparison", func() {
		expectGolden("summary.md.golden", []byte(render(fixtureInput(now, true))))
	})

	It("matches the golden file without one", func() {
		expectGolden("summary-unpaired.md.golden", []byte(render(fixtureInput(now, false))))
	})

	It("escapes case text so it cannot become HTML or break the table", func() {
		in := fixtureInput(now, false)
		for i := range in.Results {
			// Break the <script> case under v2 so it is listed.
			if in.Results[i].Case == "orders-east-001" && in.Results[i].Version == v2 {
				in.Results[i].Pass, in.Results[i].Failure = false, "judge_wrong_skill"
				in.Results[i].Decision.Action = router.Refuse
				in.Results[i].Input = "<script>window.__pwned=1</script> | `tick` *bold* [link](x)\nnext"
			}
		}
		md := render(in)
		Expect(md).To(ContainSubstring("&lt;script&gt;window.\\_\\_pwned=1&lt;/script&gt; \\| \\`tick\\` \\*bold\\* \\[link\\](x) next"))
		Expect(md).NotTo(ContainSubstring("<script"))
		for _, line := range strings.Split(md, "\n") {
			if strings.HasPrefix(line, "| `orders-east-001`") {
				Expect(strings.Count(line, " | ")).To(Equal(3), "one row of four cells: %s", line)
			}
		}
	})
})
