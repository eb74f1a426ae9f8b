package harness

import (
	"cmp"
	"slices"
)

// SkillRow is one expected skill's decisions under one version: how many
// cases expect it, how many were decided right, how many acted wrongly
// (on another skill, or where the case expects no action) and how many
// asked back. Cases that expect no skill are grouped by their action,
// "(refuse)" or "(clarify)".
type SkillRow struct {
	Version         string `json:"version"`
	Skill           string `json:"skill"`
	N               int    `json:"n"`
	Correct         int    `json:"correct"`
	WrongExecutions int    `json:"wrong_executions"`
	Clarifications  int    `json:"clarifications"`
}

// DecisionAccuracy is Correct over N (0 when N is 0).
func (r SkillRow) DecisionAccuracy() float64 {
	if r.N == 0 {
		return 0
	}
	return float64(r.Correct) / float64(r.N)
}

// PerSkill counts every decision (each turn of a conversation) by the
// skill its case expects, per version, counted as decision_accuracy,
// wrong_execution_rate and clarification_rate count them (Indicators).
// Rows come by skill, then versions in order of first appearance.
// Workflow cases without a routing expectation are left out.
func PerSkill(results []Result) []SkillRow {
	c := NewSkillCounter()
	for i := range results {
		c.Add(&results[i])
	}
	return c.Rows()
}

// SkillCounter is PerSkill one result at a time: it holds a row per
// (version, expected skill), not the results.
type SkillCounter struct {
	rows  map[skillKey]*SkillRow
	order map[string]int
	// drs is reused for each result's decisions.
	drs []Result
}

type skillKey struct{ version, skill string }

// NewSkillCounter starts with no rows.
func NewSkillCounter() *SkillCounter {
	return &SkillCounter{rows: map[skillKey]*SkillRow{}, order: map[string]int{}}
}

// Add counts r's decisions; r is not kept.
func (c *SkillCounter) Add(r *Result) {
	if _, ok := c.order[r.Version]; !ok {
		c.order[r.Version] = len(c.order)
	}
	c.drs = appendDecisionResults(c.drs[:0], r)
	drs := c.drs
	for k := range drs {
		d := &drs[k]
		if d.Expect.Action == "" {
			continue
		}
		skill := d.Expect.Skill
		if skill == "" || !d.Expect.Action.Acts() {
			skill = "(" + string(d.Expect.Action) + ")"
		}
		k := skillKey{r.Version, skill}
		row := c.rows[k]
		if row == nil {
			row = &SkillRow{Version: r.Version, Skill: skill}
			c.rows[k] = row
		}
		// indicatorBits' terms, read without the rest (the decision
		// expects an action, so each is set).
		correct, wrongExecution, clarifies := decisionTerms(d)
		row.N++
		if correct {
			row.Correct++
		}
		if wrongExecution {
			row.WrongExecutions++
		}
		if clarifies {
			row.Clarifications++
		}
	}
}

// Rows are the counts so far, by skill, then versions in order of first
// appearance.
func (c *SkillCounter) Rows() []SkillRow {
	out := make([]SkillRow, 0, len(c.rows))
	for _, r := range c.rows {
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b SkillRow) int {
		return cmp.Or(cmp.Compare(a.Skill, b.Skill), cmp.Compare(c.order[a.Version], c.order[b.Version]))
	})
	return out
}
