package reports

import (
	"fmt"
	"sort"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/router"
)

// matrixActions are the columns of the action confusion matrix.
var matrixActions = []string{
	string(router.Execute), string(router.Confirm), string(router.Clarify),
	string(router.Refuse), string(router.Fail),
}

// skillMatrixSize is how many of the most expected skills get their own
// row and column; the rest fold into "other skills".
const skillMatrixSize = 12

// Labels of the skill matrix's non-skill rows and columns.
const (
	otherSkills = "(other skills)"
	noSkill     = "(none)"
)

// matrixView is a confusion matrix for one version.
type matrixView struct {
	Version string
	Cols    []string
	Rows    []matrixRow
	Total   int
}

type matrixRow struct {
	Label string
	Cells []matrixCell
	Total int
}

// matrixCell carries its count, a shade bucket 0-9 of the row share, and
// whether it is a correct (diagonal) cell.
type matrixCell struct {
	Count int
	Shade int
	Diag  bool
	// Other marks "other skills" decided for "other skills": it may be
	// right or wrong, so it is shaded neither way.
	Other bool
	Title string
}

// byVersion groups results by version ID. A run writes each version's
// results in one block, so the groups are usually windows onto results
// (no copy: a result is over 500 bytes and a large run has tens of
// thousands); interleaved results are copied into exact-size slices.
// Callers only read the groups.
func byVersion(results []harness.Result) map[string][]harness.Result {
	m := map[string][]harness.Result{}
	contiguous := true
	for i := 0; i < len(results); {
		j := i + 1
		for j < len(results) && results[j].Version == results[i].Version {
			j++
		}
		if _, seen := m[results[i].Version]; seen {
			contiguous = false
			break
		}
		m[results[i].Version] = results[i:j:j]
		i = j
	}
	if contiguous {
		return m
	}
	counts := map[string]int{}
	for i := range results {
		counts[results[i].Version]++
	}
	m = make(map[string][]harness.Result, len(counts))
	for i := range results {
		v := results[i].Version
		if m[v] == nil {
			m[v] = make([]harness.Result, 0, counts[v])
		}
		m[v] = append(m[v], results[i])
	}
	return m
}

// actionMatrix counts expected action × decided action.
func actionMatrix(version string, results []harness.Result) matrixView {
	rowSet := map[string]bool{}
	for _, r := range results {
		rowSet[string(r.Expect.Action)] = true
	}
	var rows []string
	for _, a := range matrixActions {
		if rowSet[a] {
			rows = append(rows, a)
			delete(rowSet, a)
		}
	}
	rows = append(rows, sortedKeys(rowSet)...)
	cols := append([]string(nil), matrixActions...)
	colSet := map[string]bool{}
	for _, r := range results {
		colSet[string(r.Decision.Action)] = true
	}
	for _, a := range matrixActions {
		delete(colSet, a)
	}
	cols = append(cols, sortedKeys(colSet)...)
	return buildMatrix(version, rows, cols, results, func(r *harness.Result) (string, string, bool) {
		return string(r.Expect.Action), string(r.Decision.Action), true
	}, "expected %s, decided %s")
}

// topExpectedSkills picks the skills most often expected over all
// versions, so every version's skill matrix has the same axes.
func topExpectedSkills(results []harness.Result, n int) []string {
	counts := map[string]int{}
	for _, r := range results {
		if r.Expect.Skill != "" {
			counts[r.Expect.Skill]++
		}
	}
	skills := sortedKeys(boolKeys(counts))
	sort.SliceStable(skills, func(i, j int) bool { return counts[skills[i]] > counts[skills[j]] })
	if len(skills) > n {
		skills = skills[:n]
	}
	sort.Strings(skills)
	return skills
}

// skillMatrix counts expected skill × decided skill over cases that
// expect a skill. A decision that does not act lands in its action's
// column, so a refused skill is told apart from a wrong one.
func skillMatrix(version string, results []harness.Result, skills []string) matrixView {
	known := map[string]bool{}
	for _, s := range skills {
		known[s] = true
	}
	fold := func(s string) string {
		if known[s] {
			return s
		}
		return otherSkills
	}
	rows := append(append([]string(nil), skills...), otherSkills)
	cols := append(append([]string(nil), skills...), otherSkills,
		"("+string(router.Clarify)+")", "("+string(router.Refuse)+")", "("+string(router.Fail)+")")
	m := buildMatrix(version, rows, cols, results, func(r *harness.Result) (string, string, bool) {
		if r.Expect.Skill == "" {
			return "", "", false
		}
		decided := "(" + string(r.Decision.Action) + ")"
		if r.Decision.Action.Acts() {
			decided = noSkill
			if r.Decision.Skill != "" {
				decided = fold(r.Decision.Skill)
			}
		}
		return fold(r.Expect.Skill), decided, true
	}, "expected %s, decided %s")
	// "other skills" on both axes is not a correct answer: it may be two
	// different skills.
	for i := range m.Rows {
		for j := range m.Rows[i].Cells {
			if m.Rows[i].Label == otherSkills && m.Cols[j] == otherSkills {
				m.Rows[i].Cells[j].Diag, m.Rows[i].Cells[j].Other = false, true
			}
		}
	}
	return m
}

// buildMatrix counts results into rows × cols; key says where a result
// goes, or false to leave it out. Rows with no results are dropped; an
// unlisted column value is added at the end.
func buildMatrix(version string, rows, cols []string, results []harness.Result,
	key func(*harness.Result) (string, string, bool), title string) matrixView {
	counts := map[[2]string]int{}
	colIndex := map[string]bool{}
	for _, c := range cols {
		colIndex[c] = true
	}
	for i := range results {
		row, col, ok := key(&results[i])
		if !ok {
			continue
		}
		if !colIndex[col] {
			colIndex[col] = true
			cols = append(cols, col)
		}
		counts[[2]string{row, col}]++
	}
	m := matrixView{Version: version, Cols: cols}
	for _, row := range rows {
		mr := matrixRow{Label: row}
		for _, col := range cols {
			mr.Total += counts[[2]string{row, col}]
		}
		if mr.Total == 0 {
			continue
		}
		for _, col := range cols {
			n := counts[[2]string{row, col}]
			cell := matrixCell{Count: n, Diag: row == col}
			cell.Shade = n * 9 / mr.Total
			if n > 0 && cell.Shade == 0 {
				cell.Shade = 1
			}
			cell.Title = fmt.Sprintf(title, row, col) + ": " + itoa(n) + " of " + itoa(mr.Total) +
				" (" + fixed(100*float64(n)/float64(mr.Total), 1) + "%)"
			mr.Cells = append(mr.Cells, cell)
		}
		m.Total += mr.Total
		m.Rows = append(m.Rows, mr)
	}
	return m
}

// failureTable is failure categories (rows) × versions (columns).
type failureTable struct {
	Versions []string
	Rows     []failureRow
	// Totals are "failed of cases (share)" per version.
	Totals []string
}

type failureRow struct {
	Category string
	Cells    []failureCell
}

type failureCell struct {
	Version string
	Count   int
	// Width is the bar length in percent of the largest count.
	Width string
}

// failures counts primary failure categories per version: the summary's
// counts where it has them, else the results'.
func (in *Input) failures(versions []string, perVersion map[string][]harness.Result) failureTable {
	counts := map[string]map[string]int{}
	for _, id := range versions {
		counts[id] = map[string]int{}
		if vs, ok := in.versionSummary(id); ok && vs.Groups["all"].Failures != nil {
			for cat, n := range vs.Groups["all"].Failures {
				counts[id][cat] = n
			}
			continue
		}
		for _, r := range perVersion[id] {
			if !r.Pass {
				cat := r.Failure
				if cat == "" {
					cat = "uncategorised"
				}
				counts[id][cat]++
			}
		}
	}
	present := map[string]bool{}
	max := 0
	for _, byCat := range counts {
		for cat, n := range byCat {
			if n > 0 {
				present[cat] = true
			}
			if n > max {
				max = n
			}
		}
	}
	var cats []string
	for _, c := range harness.AllFailureCategories() {
		if present[c] {
			cats = append(cats, c)
			delete(present, c)
		}
	}
	cats = append(cats, sortedKeys(present)...)
	t := failureTable{Versions: versions}
	for _, id := range versions {
		failed, n := 0, len(perVersion[id])
		for _, r := range perVersion[id] {
			if !r.Pass {
				failed++
			}
		}
		share := ""
		if n > 0 {
			share = " (" + fixed(100*float64(failed)/float64(n), 1) + "%)"
		}
		t.Totals = append(t.Totals, itoa(failed)+" of "+itoa(n)+share)
	}
	for _, cat := range cats {
		row := failureRow{Category: cat}
		for _, id := range versions {
			n := counts[id][cat]
			w := "0"
			if max > 0 {
				w = fixed(100*float64(n)/float64(max), 1)
			}
			row.Cells = append(row.Cells, failureCell{Version: id, Count: n, Width: w})
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func boolKeys(m map[string]int) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}
