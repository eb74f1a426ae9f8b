package reports

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/routebench/routebench/harness/compare"
)

//go:embed assets/report.html.tmpl assets/report.css assets/report.js
var assets embed.FS

var (
	reportCSS  = mustAsset("assets/report.css")
	reportJS   = mustAsset("assets/report.js")
	reportTmpl = template.Must(template.New("report.html.tmpl").Funcs(template.FuncMap{
		// breakable splits snake_case names so a narrow column can wrap
		// them at underscores instead of mid-word.
		"breakable": func(s string) []string { return strings.SplitAfter(s, "_") },
		"sub1":      func(n int) int { return n - 1 },
	}).ParseFS(assets, "assets/report.html.tmpl"))
)

func mustAsset(name string) string {
	b, err := assets.ReadFile(name)
	if err != nil {
		panic(fmt.Sprintf("reports: embedded asset %s: %v", name, err))
	}
	return string(b)
}

// htmlView is everything the template prints, already formatted.
type htmlView struct {
	Title       string
	GeneratedAt string
	Commit      string
	Models      []string
	Versions    []versionHead
	HasDirs     bool // some version says where it was loaded from
	Gate        []gateView
	Verdicts    []verdict
	Tables      []metricTable
	// TablesHTML is the tables' markup (metricTablesHTML).
	TablesHTML  template.HTML
	Actions     []matrixView
	Skills      []matrixView
	SkillCount  int
	Histograms  []chartView
	Reliability chartView
	Trends      []chartView
	TrendRuns   string
	Failures    failureTable
	Glossary    []glossaryEntry
	PerSkill    skillTable
	Flips       []flipSet
	Changes     []changeView
	CaseCount   int
	RowCount    int
	// Workflows draws each workflow run; WorkflowTotal counts them all.
	Workflows     []workflowCaseView
	WorkflowTotal int
	// CaseData is a placeholder the case data replaces (see WriteHTML).
	CaseData template.JS
	caseData [][]byte
	CSS      template.CSS
	JS       template.JS
	CSP      string
}

type versionHead struct {
	ID          string
	Name        string
	Fingerprint string
	Dir         string
	Description string
	Color       string
	Cases       int
	Passed      int
	// Role is the tag beside the version: "base", "head" or "".
	Role string
	Base bool
}

// verdict is one head version against the base, in a sentence a lead
// reads first. With a paired comparison, Better and Worse hold only
// significant changes of paired rates, and Untested the changes of
// metrics no test covers (calibration, latency, cost).
type verdict struct {
	Head, Base string
	Better     []string
	Worse      []string
	Untested   []string
	Flat       int
	Paired     bool
	// Previous marks a head read against the version before it rather
	// than the base (from the third version on).
	Previous bool
}

// gateView is a GateVerdict as the page prints it: the class its outcome
// is drawn in and every check as a formatted row.
type gateView struct {
	GateVerdict
	Class       string
	Thresholds  []gateThresholdRow
	Regressions []gateRuleRow
}

// gateThresholdRow is one threshold with the value the head measured.
type gateThresholdRow struct {
	Text, Value, N, Reason string
	Pass                   bool
}

// gateRuleRow is one regression rule: base and head values, how much worse
// head is, and the paired test that decides it.
type gateRuleRow struct {
	Metric, Base, Head, Drop, MaxDrop, Cases, P string
	Pass                                        bool
}

func gateViews(gs []GateVerdict) []gateView {
	out := make([]gateView, len(gs))
	for i, g := range gs {
		v := gateView{GateVerdict: g, Class: strings.ToLower(strings.ReplaceAll(g.Outcome, " ", "-"))}
		for _, t := range g.Thresholds {
			row := gateThresholdRow{Text: t.Text, Value: "not measured", N: "0", Reason: t.Reason, Pass: t.Pass}
			if t.Measured {
				row.Value, row.N = FormatValue(t.Metric, t.Value), strconv.Itoa(t.N)
			}
			v.Thresholds = append(v.Thresholds, row)
		}
		for _, r := range g.Regressions {
			row := gateRuleRow{Metric: r.Metric, Base: "—", Head: "—", Drop: "not measured: no case counted",
				MaxDrop: strings.TrimPrefix(FormatDelta(r.Metric, r.MaxDrop), "+"), Cases: "—", P: "—", Pass: r.Pass}
			if r.Measured {
				row.Base, row.Head = FormatValue(r.Metric, r.Base), FormatValue(r.Metric, r.Head)
				row.Drop = FormatDelta(r.Metric, r.Drop)
				row.Cases = strconv.Itoa(r.Worse) + " / " + strconv.Itoa(r.Better)
				row.P = formatP(r.P) + " (α " + strconv.FormatFloat(r.Alpha, 'g', -1, 64) + ")"
			}
			v.Regressions = append(v.Regressions, row)
		}
		out[i] = v
	}
	return out
}

// flipLimit caps the flipped cases listed in the HTML; the case table's
// "broken"/"fixed" filters show them all.
const flipLimit = 100

// WriteHTML renders the self-contained HTML report: the run header, metric
// tables with intervals and deltas, confusion matrices, confidence charts,
// failure categories, flipped cases and every case in a filterable table.
// It makes no network request when opened; all text from cases and models
// is escaped. The output depends only on in (GeneratedAt included).
//
// The results are read as a stream (Input.Stream, or Input.Results): one
// pass gathers the page's counts (digest), and the case table is written
// case by case straight into w, so memory holds counts and one case, not
// every result with its trace.
func WriteHTML(w io.Writer, in Input) error {
	d, err := digestOf(&in)
	if err != nil {
		return fmt.Errorf("read results for the html report: %w", err)
	}
	view := buildHTMLView(&in, d)
	// The case data is most of a large report (13 MB for 10,000 cases ×
	// 3 versions). Passing it through the template would copy it twice
	// more (text/template prints through fmt), so the template renders a
	// placeholder and the data is written in its place. The placeholder is
	// found with the script tag in front of it, which escaped case text
	// cannot produce.
	var buf bytes.Buffer
	buf.Grow(256 << 10)
	if err := reportTmpl.Execute(&buf, view); err != nil {
		return fmt.Errorf("render html report: %w", err)
	}
	page := buf.Bytes()
	at := bytes.Index(page, []byte(caseDataSlot))
	if at < 0 {
		return fmt.Errorf("render html report: template has no case data slot")
	}
	at += len(caseDataTag)
	if _, err := w.Write(page[:at]); err != nil {
		return fmt.Errorf("write html report: %w", err)
	}
	if err := writeCaseData(w, in.versionOrder(), d.views, d.ids); err != nil {
		return fmt.Errorf("write html report: case data: %w", err)
	}
	if _, err := w.Write(page[at+len(caseDataPlaceholder):]); err != nil {
		return fmt.Errorf("write html report: %w", err)
	}
	return nil
}

// needsFallbackFlips says whether some head version has no comparison
// with the base, so its flips are read off the results by case ID. The
// versions are those the summary and header name, and the results once a
// digest has read them; a single version has no flips at all.
func (in *Input) needsFallbackFlips() bool {
	versions := in.versionOrder()
	for _, head := range versions[min(1, len(versions)):] {
		if in.comparison(versions[0], head) == nil {
			return true
		}
	}
	return false
}

// caseDataSlot is where the template prints the case data, placeholder
// included (see WriteHTML).
const (
	caseDataPlaceholder = "ROUTEBENCH_CASE_DATA"
	caseDataTag         = `<script type="application/json" id="case-data">`
	caseDataSlot        = caseDataTag + caseDataPlaceholder + `</script>`
)

// buildHTMLView is the page without its case data (see WriteHTML).
func buildHTMLView(in *Input, d *digest) *htmlView {
	versions := in.versionOrder()
	cals := calibrations(versions, d)
	v := &htmlView{
		Title:       in.Meta.Title,
		Gate:        gateViews(in.Gate),
		Commit:      in.Meta.Commit,
		Models:      in.Meta.Models,
		Tables:      in.metricTables(versions),
		Histograms:  histograms(versions, cals),
		Reliability: reliability(versions, cals),
		Trends:      trendCharts(in.Trend),
		Failures:    in.failures(versions, d),
		Flips:       in.flipSets(versions, d, flipLimit),
		Changes:     changeViews(in.Changes),
		RowCount:    d.rows,
		CaseData:    caseDataPlaceholder,
		CSS:         template.CSS(reportCSS),
		JS:          template.JS(reportJS),
		CSP:         contentSecurityPolicy(reportJS),
	}
	if t := in.Trend; t != nil && t.Total > 0 {
		v.TrendRuns = "runs #" + itoa(t.First) + "–#" + itoa(t.Last) + " of " + itoa(t.Total)
	}
	if v.Title == "" {
		v.Title = "routebench report"
	}
	if !in.Meta.GeneratedAt.IsZero() {
		v.GeneratedAt = in.Meta.GeneratedAt.UTC().Format(time.RFC3339)
	}
	v.CaseCount = d.ids.count()
	v.Glossary = glossary(v.Failures)
	v.PerSkill = perSkillTable(versions, d.skills.Rows())
	v.Workflows, v.WorkflowTotal = d.workflows, d.workflowTotal
	skills := topExpectedSkills(d.expected, skillMatrixSize)
	v.SkillCount = len(skills)
	for i, id := range versions {
		vd := d.version(id)
		v.Versions = append(v.Versions, in.versionHead(i, id, vd))
		v.HasDirs = v.HasDirs || v.Versions[i].Dir != ""
		v.Actions = append(v.Actions, actionMatrix(id, vd))
		v.Skills = append(v.Skills, skillMatrix(id, vd, skills))
	}
	if len(v.Tables) > 0 {
		v.Verdicts = verdicts(versions, v.Tables[0], in)
	}
	v.TablesHTML = metricTablesHTML(v.Tables)
	return v
}

func (in *Input) versionHead(i int, id string, vd *versionDigest) versionHead {
	h := versionHead{ID: id, Color: versionColor(i), Cases: vd.n, Passed: vd.passed}
	if i == 0 {
		h.Role = "base"
	}
	h.Name, h.Fingerprint, _ = strings.Cut(id, "@")
	for _, m := range in.Meta.Versions {
		if m.ID == id {
			if m.Name != "" {
				h.Name = m.Name
			}
			if m.Fingerprint != "" {
				h.Fingerprint = m.Fingerprint
			}
			h.Dir, h.Description = m.Dir, m.Description
			if m.Role != "" {
				h.Role = m.Role
			}
		}
	}
	h.Base = h.Role == "base"
	return h
}

// verdicts reads the "all" table's delta columns: which metrics got
// better or worse for each head version.
func verdicts(versions []string, all metricTable, in *Input) []verdict {
	var out []verdict
	for vi := 1; vi < len(versions); vi++ {
		col := 2 * vi // cells run value0, value1, delta1, value2, delta2, ...
		vd := verdict{Head: versions[vi], Base: versions[0], Paired: in.comparison(versions[0], versions[vi]) != nil}
		for _, row := range all.Rows {
			if col >= len(row.Cells) {
				continue
			}
			c := row.Cells[col]
			desc := row.Label + " " + c.Text
			if row.Sub {
				continue // breakdowns repeat their parent row
			}
			switch {
			case vd.Paired && strings.HasPrefix(c.Class, "plain") && !strings.HasSuffix(c.Class, "flat"):
				vd.Untested = append(vd.Untested, desc)
			case strings.HasSuffix(c.Class, "better"):
				vd.Better = append(vd.Better, desc)
			case strings.HasSuffix(c.Class, "worse"):
				vd.Worse = append(vd.Worse, desc)
			case c.Class != "none":
				vd.Flat++
			}
		}
		out = append(out, vd)
		if vi >= 2 {
			if c := in.comparison(versions[vi-1], versions[vi]); c != nil {
				out = append(out, verdictAgainstPrevious(c))
			}
		}
	}
	return out
}

// verdictAgainstPrevious reads a paired comparison of a version with the
// one before it: with three or more versions a lead asks what the latest
// step did, not only how far it is from the base.
func verdictAgainstPrevious(c *compare.Comparison) verdict {
	vd := verdict{Head: c.Head, Base: c.Base, Paired: true, Previous: true}
	for _, g := range c.Groups {
		if g.Name != compare.GroupAll {
			continue
		}
		for _, m := range g.Metrics {
			info := lookupMetric(m.Name)
			if info.sub || (m.BaseN == 0 && m.HeadN == 0) {
				continue
			}
			desc := fmt.Sprintf("%s %+.1f pp", info.label, 100*m.Delta)
			switch m.Symbol {
			case "+":
				vd.Better = append(vd.Better, desc)
			case "-":
				vd.Worse = append(vd.Worse, desc)
			case "*":
				vd.Untested = append(vd.Untested, desc)
			default:
				vd.Flat++
			}
		}
	}
	return vd
}

// contentSecurityPolicy forbids every network request and allows only
// the report's own script (by hash): even if escaping failed somewhere, an
// injected script would not run and could not send anything anywhere.
func contentSecurityPolicy(js string) string {
	sum := sha256.Sum256([]byte(js))
	return "default-src 'none'; script-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) +
		"'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"
}
