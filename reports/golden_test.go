package reports_test

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"math/rand/v2"
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

// junitDoc is junit.xml's document as encoding/xml reads and writes it.
type junitDoc struct {
	XMLName  xml.Name `xml:"testsuites"`
	Name     string   `xml:"name,attr"`
	Tests    string   `xml:"tests,attr"`
	Failures string   `xml:"failures,attr"`
	Suites   []struct {
		Name       string `xml:"name,attr"`
		Tests      string `xml:"tests,attr"`
		Failures   string `xml:"failures,attr"`
		Errors     string `xml:"errors,attr"`
		Skipped    string `xml:"skipped,attr"`
		Time       string `xml:"time,attr"`
		Properties struct {
			P []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"property"`
		} `xml:"properties"`
		Cases []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Time      string `xml:"time,attr"`
			Failure   *struct {
				Type    string `xml:"type,attr"`
				Message string `xml:"message,attr"`
				Body    string `xml:",cdata"`
			} `xml:"failure"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
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

	// The writer writes XML by hand: reading its file with encoding/xml
	// and writing what it read back with encoding/xml, indented as the
	// writer indents, must give the same bytes, whatever the text holds.
	It("writes what encoding/xml writes for the same document", func() {
		nasty := "a\"b'c&d<e>f\tg\nh\ri\x00j\x1fk\xffl\uFFFEm\uFFFDn 华东 😀 ]]> ]]]> end"
		// A reader turns a carriage return in CDATA into a newline, so
		// there is none in what the failures' bodies show.
		body := strings.ReplaceAll(nasty, "\r", "")
		results := syntheticRun(200, 2)
		results[0].Case = "id " + nasty // a carriage return, escaped in an attribute
		results[0].Pass, results[0].Failure = true, ""
		results[1].Input = body
		results[1].Pass, results[1].Failure = false, "wrong_skill"
		results[2].Decision.Message = body
		results[2].Decision.Skill = body // in the message attribute too
		results[2].Pass, results[2].Failure = false, ""
		results[3].Suite = "suite " + body
		results[4].Version = "v " + body
		for _, rs := range [][]harness.Result{results, fixtureResults(), nil} {
			got := render(rs)
			var doc junitDoc
			Expect(xml.Unmarshal(got, &doc)).To(Succeed())
			again, err := xml.MarshalIndent(doc, "", "  ")
			Expect(err).NotTo(HaveOccurred())
			Expect(string(got)).To(Equal(xml.Header + string(again) + "\n"))
		}
		var doc junitDoc
		Expect(xml.Unmarshal(render(results), &doc)).To(Succeed())
		var bodies, names []string
		for _, s := range doc.Suites {
			names = append(names, s.Name)
			for _, c := range s.Cases {
				names = append(names, c.Name)
				if c.Failure != nil {
					bodies = append(bodies, c.Failure.Body)
				}
			}
		}
		Expect(names).To(ContainElement(ContainSubstring("h\ri\uFFFDj\uFFFDk\uFFFDl\uFFFDm\uFFFDn 华东 😀 ]]> ]]]> end")))
		Expect(bodies).To(ContainElement(ContainSubstring("hi\uFFFDj\uFFFDk\uFFFDl\uFFFDm\uFFFDn 华东 😀 ]]> ]]]> end")))
	})

	It("escapes attribute values as encoding/xml does", func() {
		rng := rand.New(rand.NewPCG(3, 5))
		pieces := []string{"a", "\"", "'", "&", "<", ">", "\t", "\n", "\r", "\x00", "\x1f", "\x7f", "\xff", "\xc3",
			"\uFFFD", "\uFFFE", "\uD7FF", "\uE000", "华", "😀", "\U0010FFFF", " "}
		for range 3000 {
			var s string
			for range rng.IntN(8) {
				s += pieces[rng.IntN(len(pieces))]
			}
			var want bytes.Buffer
			Expect(xml.EscapeText(&want, []byte(s))).To(Succeed())
			Expect(reports.XMLAttrForTest(s)).To(Equal(want.String()), "%q", s)
		}
	})

	It("replaces what XML cannot carry in a failure's body as strings.Map would", func() {
		rng := rand.New(rand.NewPCG(9, 4))
		pieces := []string{"a", "]]>", "\t", "\n", "\r", "\x00", "\x1f", "\x7f", "\xff", "\xc3", "\xe2\x82", "\xed\xa0\x80",
			"\uFFFD", "\uFFFE", "\uFFFF", "\uD7FF", "\uE000", "华", "😀", "\U0010FFFF", " "}
		for range 3000 {
			var s string
			for range rng.IntN(8) {
				s += pieces[rng.IntN(len(pieces))]
			}
			own, reference := reports.XMLSafeForTest(s)
			Expect(own).To(Equal(reference), "%q", s)
		}
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

	// A large run's cases are sorted in runs on disk and merged: the
	// same bytes as sorted in memory, ties (a case repeated in a suite)
	// in stream order.
	It("writes the same bytes when its cases are sorted on disk", func() {
		results := syntheticRun(300, 3)
		rand.New(rand.NewPCG(5, 6)).Shuffle(len(results), func(i, j int) { results[i], results[j] = results[j], results[i] })
		repeated := results[7]
		repeated.Pass, repeated.Failure, repeated.LatencyUS = false, harness.FailureCategories[0], 12345
		results = append(results, repeated)
		want := render(results)
		for _, inMemory := range []int{4 << 10, 64} {
			var b bytes.Buffer
			Expect(reports.WriteJUnitSortedOnDiskForTest(&b, results, inMemory)).To(Succeed())
			Expect(b.String()).To(Equal(string(want)), "sorted in %d bytes", inMemory)
		}
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
