package reports

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/routebench/routebench/harness"
)

// skillTable is harness.PerSkill as the page shows it: one row per
// expected skill, per version its decision accuracy, wrong executions,
// clarifications and n. Rows open on the skills that act wrongly most
// under the last version, then on the least accurate.
type skillTable struct {
	Versions []string
	Rows     []skillTableRow
}

type skillTableRow struct {
	Skill string
	Cells []skillCell
}

type skillCell struct {
	Accuracy, Wrong, Clarify, N string
	// Bad marks wrong executions, the costliest error.
	Bad bool
}

func perSkillTable(versions []string, rows []harness.SkillRow) skillTable {
	t := skillTable{Versions: versions}
	col := map[string]int{}
	for i, v := range versions {
		col[v] = i
	}
	bySkill := map[string][]harness.SkillRow{}
	var skills []string
	for _, r := range rows {
		if _, ok := col[r.Version]; !ok {
			continue
		}
		if bySkill[r.Skill] == nil {
			skills = append(skills, r.Skill)
			bySkill[r.Skill] = make([]harness.SkillRow, len(versions))
		}
		bySkill[r.Skill][col[r.Version]] = r
	}
	last := len(versions) - 1
	slices.SortStableFunc(skills, func(a, b string) int {
		ra, rb := bySkill[a][last], bySkill[b][last]
		return cmp.Or(cmp.Compare(rb.WrongExecutions, ra.WrongExecutions),
			cmp.Compare(ra.DecisionAccuracy(), rb.DecisionAccuracy()), cmp.Compare(a, b))
	})
	for _, s := range skills {
		row := skillTableRow{Skill: s}
		for _, r := range bySkill[s] {
			if r.N == 0 {
				row.Cells = append(row.Cells, skillCell{Accuracy: "—", Wrong: "—", Clarify: "—", N: "0"})
				continue
			}
			row.Cells = append(row.Cells, skillCell{Accuracy: FormatValue(harness.DecisionAccuracy, r.DecisionAccuracy()),
				Wrong: strconv.Itoa(r.WrongExecutions), Clarify: strconv.Itoa(r.Clarifications), N: strconv.Itoa(r.N),
				Bad: r.WrongExecutions > 0})
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// failureGlossary says in a line what each primary failure category means
// (DESIGN §6), for a reader who meets the names in the failure table.
var failureGlossary = map[string]string{
	harness.FailPolicyViolation:   "acted on a skill the caller may not use, a disabled one, or a side effect without its gate: a router bug, never the prompt's",
	harness.FailProviderError:     "the model provider failed beyond its retry",
	harness.FailSchemaError:       "the judge's answer did not parse or match the contract, or named a skill outside the candidates",
	harness.FailRuleFalsePositive: "a stage-1 rule decided, on the wrong skill",
	harness.FailRecallMiss:        "the expected skill never reached the judge: not in recall's top-k, matched by no rule",
	harness.FailJudgeWrongSkill:   "the judge chose another skill (or other clarify candidates) than expected, whether the decision acted on it, asked for its params or refused, too unsure of it",
	harness.FailFalseRefusal:      "refused where the case expects another action; the judge chose the expected skill, or none",
	harness.FailMissedRefusal:     "the case expects a refusal; the decision acted or clarified",
	harness.FailWrongBand:         "right skill, wrong action: execute, confirm or clarify, or the wrong confirmation gate",
	harness.FailParamError:        "right action and skill, but a parameter is missing, unexpected, of the wrong type or value",
	harness.FailGuardViolation:    "a workflow broke a guard: illegal retry, duplicate side effect, unverified success, missing confirmation",
	harness.FailWorkflowOutcome:   "the workflow ended otherwise than expected",
	harness.FailCallSequence:      "the workflow called other skills, or in another order, than expected",
	harness.FailResume:            "the resumed workflow run differs from what the case expects",
}

// glossaryEntry is one category the failure table shows, with its meaning.
type glossaryEntry struct{ Category, Meaning string }

func glossary(t failureTable) []glossaryEntry {
	var out []glossaryEntry
	for _, row := range t.Rows {
		if m, ok := failureGlossary[row.Category]; ok {
			out = append(out, glossaryEntry{row.Category, m})
		}
	}
	return out
}
