package reports

import (
	"fmt"
	"maps"
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

// actionMatrix counts expected action × decided action.
func actionMatrix(version string, vd *versionDigest) matrixView {
	rowSet := maps.Clone(vd.actionRows)
	var rows []string
	for _, a := range matrixActions {
		if rowSet[a] {
			rows = append(rows, a)
			delete(rowSet, a)
		}
	}
	rows = append(rows, sortedKeys(rowSet)...)
	cols := append([]string(nil), matrixActions...)
	colSet := maps.Clone(vd.actionCols)
	for _, a := range matrixActions {
		delete(colSet, a)
	}
	cols = append(cols, sortedKeys(colSet)...)
	return buildMatrix(version, rows, cols, vd.actions, nil, "expected %s, decided %s")
}

// topExpectedSkills picks the skills most often expected over all
// versions, so every version's skill matrix has the same axes.
func topExpectedSkills(counts map[string]int, n int) []string {
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
func skillMatrix(version string, vd *versionDigest, skills []string) matrixView {
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
	counts := map[[2]string]int{}
	for k, n := range vd.skillCells {
		decided := k[1]
		if !vd.extraSeen[decided] {
			decided = fold(decided)
		}
		counts[[2]string{fold(k[0]), decided}] += n
	}
	m := buildMatrix(version, rows, cols, counts, vd.extraCols, "expected %s, decided %s")
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

// buildMatrix lays counts out as rows × cols; extra are column values
// seen in the results, in order of first appearance, and those not listed
// in cols are added at the end. Rows with no results are dropped.
func buildMatrix(version string, rows, cols []string, counts map[[2]string]int, extra []string, title string) matrixView {
	colIndex := map[string]bool{}
	for _, c := range cols {
		colIndex[c] = true
	}
	for _, col := range extra {
		if !colIndex[col] {
			colIndex[col] = true
			cols = append(cols, col)
		}
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
func (in *Input) failures(versions []string, d *digest) failureTable {
	counts := map[string]map[string]int{}
	for _, id := range versions {
		counts[id] = map[string]int{}
		if vs, ok := in.versionSummary(id); ok && vs.Groups["all"].Failures != nil {
			for cat, n := range vs.Groups["all"].Failures {
				counts[id][cat] = n
			}
			continue
		}
		for cat, n := range d.version(id).failures {
			counts[id][cat] = n
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
		vd := d.version(id)
		failed, n := vd.n-vd.passed, vd.n
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
